"""Writing ``lsb.events`` and ``lsb.acct`` lines fast: :func:`encode`, one
generated encoder per record type, and :func:`encode_acct`, lsb.acct's JOB_FINISH.

:func:`lsfemu.events.codec.encode` walks a record's schema field by field
(a call per field, its type checks, its option gate); the virtual clock
writes some five records per simulated job, and that walk was an eighth of
a job's CPU (issue 23, part 4). The encoders here are Python code generated
from the same schemas (:mod:`lsfemu.events.records`), one per record type,
made the first time a record of the type is written: each field inline,
the option gates as the schema's own expressions. An encoder takes the
common case only -- ints that are ints, finite floats, strings without a
character :func:`~lsfemu.events.codec.quote` rewrites -- and hands any other
record to the reference, :func:`lsfemu.events.codec.encode`, which writes
the rest and raises its errors (a value of the wrong type, a value set on a
field whose option bit is not). So the two give the same line for every
record (tests/events/test_fastencode.py holds them equal). :func:`encode_acct`
is made the same way from :data:`lsfemu.events.acct.SCHEMA`, its reference
:func:`lsfemu.events.acct.format_record`.
"""

from __future__ import annotations

from typing import Any, Callable

from lsfemu.events.acct import _PLAIN as _acct_plain
from lsfemu.events.acct import _RUSAGE_FIELDS, AcctRecord, Rusage, format_record
from lsfemu.events.acct import _fmt_item as _acct_item
from lsfemu.events.acct import EVENT_TYPE as ACCT_EVENT_TYPE
from lsfemu.events.acct import SCHEMA as ACCT_SCHEMA
from lsfemu.events.acct import VERSION as ACCT_VERSION
from lsfemu.events.codec import _SPECIAL, _encode_field, _fmt_float, quote
from lsfemu.events.codec import encode as _reference
from lsfemu.events.records import RECORD_TYPES, Record
from lsfemu.events.schema import _default

#: codec._fmt_int refuses integers of this size or more (either sign)
_INT_BOUND = 10**30

_ENCODERS: dict[type, Callable[[Record], str]] = {}


def encode(record: Record) -> str:
    """The record's line, as :func:`lsfemu.events.codec.encode` writes it."""
    enc = _ENCODERS.get(record.__class__)
    if enc is None:
        enc = _ENCODERS[record.__class__] = _compile(record.__class__)
    return enc(record)


def _compile(cls: type) -> Callable[[Record], str]:
    if RECORD_TYPES.get(getattr(cls, "TYPE", None)) is not cls:
        return _reference  # (a type lsfemu reads only, or no record)
    env: dict[str, Any] = {"_slow": _reference, "_special": _SPECIAL.search, "_quote": quote,
                           "_fmt_float": _fmt_float, "_field": _encode_field, "_B": _INT_BOUND}
    lines = ["def enc(r):",
             "    v = r.__dict__",
             "    x = r.version",
             "    if x.__class__ is not str: return _slow(r)",
             "    x = r.event_time",
             "    if x.__class__ is not int or not -_B < x < _B: return _slow(r)",
             f"    p = [{quote(cls.TYPE)!r}, _quote(r.version), str(x)]",
             "    a = p.append"]
    for i, spec in enumerate(cls._SCHEMA):
        name = spec.name
        ind = "    "
        if spec.when is not None:
            env[f"_d{i}"] = _default(cls, name)
            lines.append(f"    if not ({spec.when.source}):")
            lines.append(f"        if v[{name!r}] != _d{i}: return _slow(r)")
            lines.append("    else:")
            ind = "        "
        lines.append(f"{ind}x = v[{name!r}]")
        k = spec.kind
        if k == "i":
            lines.append(f"{ind}if x.__class__ is not int or not -_B < x < _B: return _slow(r)")
            lines.append(f"{ind}a(str(x))")
        elif k == "s":
            lines.append(f"{ind}if x.__class__ is not str or _special(x) is not None: return _slow(r)")
            lines.append(f"{ind}a('\"' + x + '\"')")
        elif k == "f":
            # (codec._fmt_float: a finite float's text, "-0.00" written "0.00"; an int goes there)
            lines.append(f"{ind}if x.__class__ is float and x - x == 0.0:")
            lines.append(f"{ind}    x = {spec.fmt!r} % x")
            lines.append(f"{ind}    a(x if x[0] != '-' or float(x) != 0 else '0' + x[2:])")
            lines.append(f"{ind}else:")
            lines.append(f"{ind}    a(_fmt_float(x, {spec.fmt!r}))")
        else:  # (lists: seldom in the clock's records; the reference's own field code)
            env[f"_s{i}"] = spec
            lines.append(f"{ind}p.extend(_field(_s{i}, x, {cls.TYPE!r}))")
    lines.append("    p.extend(r.extra)")
    lines.append("    return ' '.join(p)")
    exec(compile("\n".join(lines), f"<encoder {cls.TYPE}>", "exec"), env)  # noqa: S102 -- our own schema's code
    return env["enc"]


# ---------------------------------------------------------------------------
# lsb.acct's JOB_FINISH
# ---------------------------------------------------------------------------

_ACCT: list[Callable[[AcctRecord], str]] = []


def encode_acct(record: AcctRecord) -> str:
    """The JOB_FINISH line, as :func:`lsfemu.events.acct.format_record` writes it
    (a record per finished job, some ninety fields: an eighth of a simulated
    job's CPU through the reference's walk, issue 23 part 4)."""
    if not _ACCT:
        _ACCT.append(_compile_acct())
    return _ACCT[0](record)


def _str_list(items: Any) -> str | None:
    """A list of strings (exec hosts, alloc slots): count and quoted items;
    None when it is no tuple or an item no plain string (the reference writes it)."""
    if items.__class__ is not tuple:
        return None
    if not items:
        return "0"
    if set(map(type, items)) != _STR or _acct_plain("".join(items)) is None:
        return None
    return str(len(items)) + ' "' + '" "'.join(items) + '"'


def _any_list(spec: Any) -> Callable[[Any], str | None]:
    """A list of another shape: its text by the reference's own item code;
    None for anything that code refuses (the reference raises it)."""
    shape, name = spec.shape, spec.name

    def text(items: Any) -> str | None:
        if items.__class__ is tuple and not items:
            return "0"
        try:
            out = [str(len(items))]
            for y in items:
                _acct_item(shape, y, name, out)
        except Exception:  # noqa: BLE001 -- the reference raises it, in its order
            return None
        return " ".join(out)

    return text


_INT = {int}
_STR = {str}


def _compile_acct() -> Callable[[AcctRecord], str]:
    """One format string for the whole line, filled from the record's values
    checked in bulk: every integer field an int (the set of their types),
    every string a str and the strings together plain (a plain text joined
    to a plain text is plain), each float finite, each list of the common
    shape. Anything else -- and a record of another version or length than
    lsfemu writes -- goes to the reference, which writes it or raises: this
    code raises nothing of its own."""
    env: dict[str, Any] = {"_slow": format_record, "_plain": _acct_plain, "_strs": _str_list, "_V": ACCT_VERSION,
                           "_N": len(ACCT_SCHEMA), "_INT": _INT, "_STR": _STR, "_Rusage": Rusage}
    ints: list[str] = ["r.event_time"]
    strs: list[str] = []
    body: list[str] = []
    fmt: list[str] = [quote(ACCT_EVENT_TYPE), quote(ACCT_VERSION), "%d"]
    args: list[str] = ["I[0]"]

    def num(expr: str, spec_fmt: str) -> None:
        n = len(args)
        body.append(f"    x = {expr}")
        body.append("    if x.__class__ is not float or x - x != 0.0: return _slow(r)")
        body.append(f"    f{n} = {spec_fmt!r} % x")
        body.append(f"    if f{n}[0] == '-' and float(f{n}) == 0: f{n} = '0' + f{n}[2:]")
        fmt.append("%s")
        args.append(f"f{n}")

    for i, spec in enumerate(ACCT_SCHEMA):
        name, k = spec.name, spec.kind
        if k == "i":
            fmt.append("%d")
            args.append(f"I[{len(ints)}]")
            ints.append(f"v[{name!r}]")
        elif k in ("s", "qs"):
            fmt.append('"%s"')
            args.append(f"S[{len(strs)}]")
            strs.append(f"v[{name!r}]")
        elif k == "f":
            num(f"v[{name!r}]", spec.fmt)
        elif k == "ru":
            body.append(f"    u = v[{name!r}]")
            body.append("    if u.__class__ is not _Rusage: return _slow(r)")
            body.append("    u = u.__dict__")
            num("u['ru_utime']", "%f")
            num("u['ru_stime']", "%f")
            for n in _RUSAGE_FIELDS[2:]:
                fmt.append("%d")
                args.append(f"I[{len(ints)}]")
                ints.append(f"u[{n!r}]")
        else:
            n = len(args)
            fn = "_strs" if spec.shape == ("s",) else f"_l{i}"
            if fn != "_strs":
                env[fn] = _any_list(spec)
            body.append(f"    f{n} = {fn}(v[{name!r}])")
            body.append(f"    if f{n} is None: return _slow(r)")
            fmt.append("%s")
            args.append(f"f{n}")
    env["_FMT"] = " ".join(fmt)
    lines = ["def enc(r):",
             "    v = r.__dict__",
             "    if r.version.__class__ is not str or r.version != _V or r.fields_present != _N: return _slow(r)",
             *body[:0]]
    # (the rusage's ints are read after its class is checked: the scalar checks come last)
    lines += body
    lines += [f"    I = ({', '.join(ints)},)",
              "    if set(map(type, I)) != _INT: return _slow(r)",
              f"    S = ({', '.join(strs)},)",
              "    if set(map(type, S)) != _STR or _plain(''.join(S)) is None: return _slow(r)",
              f"    line = _FMT % ({', '.join(args)},)",
              "    return line + ' ' + ' '.join(r.extra) if r.extra else line"]
    exec(compile("\n".join(lines), "<encoder JOB_FINISH>", "exec"), env)  # noqa: S102 -- our own schema's code
    return env["enc"]
