"""Writing ``lsb.events`` lines fast: :func:`encode`, one generated encoder per record type.

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
record (tests/events/test_fastencode.py holds them equal).
"""

from __future__ import annotations

from typing import Any, Callable

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
