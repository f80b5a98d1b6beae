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


def _str_list(items: Any) -> str:
    """A list of strings (exec hosts, alloc slots): count and quoted items;
    None when it is no tuple or an item no plain string (the reference writes it)."""
    if items.__class__ is not tuple:
        return None
    for x in items:
        if x.__class__ is not str or _acct_plain(x) is None:
            return None
    return " ".join([str(len(items))] + ['"' + x + '"' for x in items]) if items else "0"


def _compile_acct() -> Callable[[AcctRecord], str]:
    """The record's fields inline, in SCHEMA's order, each one's common case
    (an int that is an int, a plain string, a finite float, a list of plain
    strings); anything else, and a record of another version or length than
    lsfemu writes, goes to the reference, which writes it or raises."""
    env: dict[str, Any] = {"_slow": format_record, "_plain": _acct_plain, "_fmt_float": _fmt_float,
                           "_item": _acct_item, "_strs": _str_list, "_V": ACCT_VERSION, "_N": len(ACCT_SCHEMA)}
    lines = ["def enc(r):",
             "    v = r.__dict__",
             "    if r.version != _V or r.fields_present != _N or r.version.__class__ is not str: return _slow(r)",
             "    x = r.event_time",
             "    if x.__class__ is not int: return _slow(r)",
             f"    p = [{quote(ACCT_EVENT_TYPE)!r}, {quote(ACCT_VERSION)!r}, str(x)]",
             "    a = p.append"]

    def num(expr: str, fmt: str) -> None:
        lines.append(f"    x = {expr}")
        lines.append("    if x.__class__ is float and x - x == 0.0:")
        lines.append(f"        x = {fmt!r} % x")
        lines.append("        a(x if x[0] != '-' or float(x) != 0 else '0' + x[2:])")
        lines.append("    else:")
        lines.append(f"        a(_fmt_float(x, {fmt!r}))")

    for i, spec in enumerate(ACCT_SCHEMA):
        name, k = spec.name, spec.kind
        if k == "i":
            lines.append(f"    x = v[{name!r}]")
            lines.append("    if x.__class__ is not int: return _slow(r)")
            lines.append("    a(str(x))")
        elif k in ("s", "qs"):
            lines.append(f"    x = v[{name!r}]")
            lines.append("    if x.__class__ is not str or _plain(x) is None: return _slow(r)")
            lines.append("    a('\"' + x + '\"')")
        elif k == "f":
            num(f"v[{name!r}]", spec.fmt)
        elif k == "ru":
            lines.append(f"    u = v[{name!r}]")
            lines.append("    if u.__class__ is not _Rusage: return _slow(r)")
            lines.append("    u = u.__dict__")
            num("u['ru_utime']", "%f")
            num("u['ru_stime']", "%f")
            for n in _RUSAGE_FIELDS[2:]:
                lines.append(f"    x = u[{n!r}]")
                lines.append("    if x.__class__ is not int: return _slow(r)")
                lines.append("    a(str(x))")
            env["_Rusage"] = Rusage
        elif spec.shape == ("s",):
            lines.append(f"    x = _strs(v[{name!r}])")
            lines.append("    if x is None: return _slow(r)")
            lines.append("    a(x)")
        else:  # (other lists: the reference's own item code, its errors too)
            env[f"_s{i}"] = spec
            lines.append(f"    x = v[{name!r}]")
            lines.append("    a(str(len(x)))")
            lines.append("    for y in x:")
            lines.append(f"        _item(_s{i}.shape, y, {name!r}, p)")
    lines.append("    p.extend(r.extra)")
    lines.append("    return ' '.join(p)")
    exec(compile("\n".join(lines), "<encoder JOB_FINISH>", "exec"), env)  # noqa: S102 -- our own schema's code
    return env["enc"]
