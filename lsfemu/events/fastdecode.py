"""Reading ``lsb.events`` lines fast: :func:`decode`, and for readers that
use part of the records :func:`skim`, :func:`reader` and :func:`reading_table`
(the hot path of ``bhist`` and ``lsfemu replay``).

The decoders here are Python code generated from the schemas of
:mod:`lsfemu.events.records` (two per record type: the canonical shape of its
lines, :func:`_compile_shape`, and the split line, :func:`_compile_decoder`),
each made the first time a line of its type is read (:class:`_PerType`): a
log holds a handful of types. Each accepts a subset of the lines the
reference decoder (:func:`lsfemu.events.codec._decode_slow`) accepts and
gives the same record; a line one does not take goes down to the next path
and at last to the reference, so the errors and their messages are the
reference's. tests/events/test_events_props.py holds the paths equal.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any, Callable, Collection

from lsfemu.events.codec import _FLOAT_RE, _PIC_RE, _decode_slow, _unpicture
from lsfemu.events.records import RECORD_TYPES, VERSION, Record
from lsfemu.events.schema import _F, _all_defaults


def decode(line: str) -> Record:
    """Parse one record line (a trailing newline is accepted). Raises
    :class:`~lsfemu.events.codec.EventSyntaxError`
    (:class:`~lsfemu.events.codec.UnknownEventError` for a well-formed line
    of an event type lsfemu does not model).

    Three paths, each accepting a subset of the next one's lines and giving
    the same record: the canonical shape of the line's type (one regular
    expression per type, :func:`_compile_shape`: what lsfemu and LSF write);
    else the whole line checked and split by one regular expression each and
    decoded by generated per-type code (:func:`_compile_decoder`); else the
    reference, :func:`~lsfemu.events.codec._decode_slow`, which accepts
    exactly the same lines as the second and says precisely what is wrong."""
    fast = _fast(line[1:line.find('"', 1)])  # the type, if the line starts with one
    if fast is not None:
        rec = fast(line)
        if rec is not None:
            return rec
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return _decode_split(line)


@dataclass(kw_only=True)
class Skimmed(Record):
    """A record checked and read only as far as its event time: what
    :func:`skim` gives for a type its reader does not use. ``kind`` is the
    type's record class."""

    kind: type[Record] = Record


def skim(line: str, unused: Collection[str]) -> Record:
    """:func:`decode` for a reader that uses no field but the event time of
    the types in *unused*: a line of such a type in its type's canonical
    shape comes as a :class:`Skimmed` record (event time and version as
    decode reads them), when the type's conversion cannot reject a line its
    shape matched (no lists to count, no fields gated by option bits: only
    the version is left to check). Every other line is decoded, and fails,
    as by decode: the same lines are accepted either way."""
    etype = line[1:line.find('"', 1)]
    fn = _SKIM.entry(etype) if etype in unused else None
    if fn is not None:
        rec = fn(line)
        if rec is not None:
            return rec
    return decode(line)


def _skimmer(cls: type[Record], or_decode: bool = False) -> Callable[[str], Record | None]:
    """:func:`skim`'s reading of a line of *cls* (a type whose conversion checks
    only the version): its Skimmed record, or when the line is not in the
    canonical shape or its version is not one decode accepts, None (with
    *or_decode*: what decode makes of the line)."""
    match = _compile_shape(cls, ())[0]  # nothing captured but the version and the event time
    otherwise = decode if or_decode else (lambda line: None)

    def skimmed(line: str) -> Record | None:
        m = match(line)
        if m is not None:
            version, event_time = m.groups()
            if version == VERSION or _good_version(version):
                rec = object.__new__(Skimmed)
                rec.__dict__ = {"event_time": int(event_time), "version": version, "extra": (), "kind": cls}
                return rec
        return otherwise(line)

    return skimmed


_TABLES: dict[tuple[frozenset[str], frozenset[tuple[str, frozenset[str]]]], dict[str, Callable[[str], Record]]] = {}


def reading_table(unused: Collection[str] = (),
                  fields: dict[str, Collection[str]] | None = None) -> dict[str, Callable[[str], Record]]:
    """Event type -> the reading of its lines that :func:`reader` does (each
    one a complete decode of any line: what it does not take, decode does);
    a type not in the table is read by decode. Made once per plan."""
    key = (frozenset(unused), frozenset((t, frozenset(f)) for t, f in (fields or {}).items()))
    table = _TABLES.get(key)
    if table is None:
        # each entry made at its type's first line (it puts itself in its place): compiling the
        # shapes of every type named cost each bhist -f and replay ~20 ms, and a log holds a few
        table: dict[str, Callable[[str], Record]] = {}

        def skim(etype: str) -> Callable[[str], Record]:
            return _skimmer(RECORD_TYPES[etype], or_decode=True) if _SKIM.entry(etype) is not None else decode

        def part(etype: str, names: frozenset[str]) -> Callable[[str], Record]:
            shape = _compile_shape(RECORD_TYPES[etype], names, or_decode=True)
            return shape[2] if shape is not None else decode

        def first(etype: str, make: Callable[[], Callable[[str], Record]]) -> Callable[[str], Record]:
            def read(line: str) -> Record:
                fn = table[etype] = make()
                return fn(line)
            return read

        for etype in key[0]:
            table[etype] = first(etype, lambda etype=etype: skim(etype))
        for etype, names in key[1]:
            _needed(RECORD_TYPES[etype], names)  # (a field the type does not have: said now)
            table[etype] = first(etype, lambda etype=etype, names=names: part(etype, names))
        _TABLES[key] = table
    return table


def reader(unused: Collection[str] = (), fields: dict[str, Collection[str]] | None = None) -> Callable[[str], Record]:
    """:func:`decode` for a reader that reads part of the records: of the
    types in *unused* only the event time (a canonical line of a type
    :func:`skim` can skim comes as a Skimmed record), of each type in
    *fields* only the fields listed there (a line in the type's canonical
    shape comes as a record of :func:`_partial_class`, whose other fields
    cannot be read; see :func:`_compile_shape`). Any other line -- another
    type, another shape, a corrupt line -- is decoded by decode, so the same
    lines are accepted, and fail with the same error, as by decode; a record
    read in part has the values decode gives its fields."""
    get = reading_table(unused, fields).get

    def read(line: str) -> Record:
        return get(line[1:line.find('"', 1)], decode)(line)

    return read


def shape_reader(etype: str, fields: Collection[str]) -> Callable[[str], Record | None] | None:
    """The first path of :func:`reader` alone, for a reader that takes the
    common lines itself: a line of *etype* in its type's canonical shape
    comes as a record of which only *fields* were decoded (as reader gives
    it), any other line as None (for decode: nothing is reported here).
    None when the type has no canonical shape."""
    cls = RECORD_TYPES.get(etype)
    shape = _compile_shape(cls, fields) if cls is not None else None
    return shape[2] if shape is not None else None


def _decode_split(line: str) -> Record:
    """The second path of :func:`decode` (no line end on *line*)."""
    if _LINE_RE.fullmatch(line) is not None:
        toks = _FIND_RE.findall(line)
        if len(toks) >= 3:
            (etype, b0), (version, b1), tb = toks[0], toks[1], toks[2][1]
            if not b0 and not b1 and tb.isdigit() and tb.isascii() and len(tb) <= 30 \
                    and '""' not in etype and '""' not in version and not _PIC_RE.search(etype) \
                    and _good_version(version):
                fn = _DECODERS.get(etype)
                if fn is None:
                    if etype not in RECORD_TYPES:  # unknown, or one of events.others: the reference's
                        return _decode_slow(line)
                    fn = _DECODERS[etype] = _compile_decoder(RECORD_TYPES[etype])
                try:
                    return fn(toks, int(tb), version)
                except _Slow:
                    pass
    return _decode_slow(line)


class _Slow(Exception):
    """The fast path met something it leaves to the slow path (which raises the right error)."""


_TOK_NC = r'"(?:[^"]|"")*+"|[^ \t"]++'
_LINE_RE = re.compile(rf"[ \t]*+(?:(?:{_TOK_NC})(?:[ \t]++(?:{_TOK_NC}))*+)?[ \t]*+")
_FIND_RE = re.compile(r'"((?:[^"]|"")*+)"|([^ \t"]++)')
_DECODERS: dict[str, Callable[[list[tuple[str, str]], int, str], Record]] = {}


def _good_version(version: str) -> bool:
    try:
        v = float(version)
    except ValueError:
        return False
    return math.isfinite(v) and v > 0


def _fast_int(b: str) -> int:
    """A bare integer field as the slow path accepts it ([+-]?[0-9]{1,30}), else _Slow."""
    if b.isascii() and "_" not in b:
        try:
            value = int(b)
        except ValueError:
            raise _Slow from None
        if len(b) <= 30 or len(b.lstrip("+-")) <= 30:
            return value
    raise _Slow


def _fast_float(b: str) -> float:
    if b and _FLOAT_RE.match(b):
        value = float(b)
        if math.isfinite(value):
            return value
    raise _Slow


def _fast_str(q: str, b: str) -> str:
    if b:
        raise _Slow  # a bare field where a string belongs
    if '""' in q:
        q = q.replace('""', '"')
    if _PIC_RE.search(q):
        q = _unpicture(q)
    return q


def _compile_decoder(cls: type[Record]) -> Callable[[list[tuple[str, str]], int, str], Record]:
    """A decoding function for *cls*, generated from its schema: straight-line
    code, one block per field, no per-field dispatch. It raises _Slow for
    anything unusual (missing fields, wrong kinds, bad counts)."""
    lines = ["def decode(toks, event_time, version):",
             "    n = len(toks)",
             "    p = 3",
             "    v = dict(_defaults)"]
    env: dict[str, Any] = {"_Slow": _Slow, "_int": _fast_int, "_float": _fast_float, "_str": _fast_str,
                           "_cls": cls, "_new": object.__new__, "_defaults": dict(_all_defaults(cls))}
    for i, spec in enumerate(cls._SCHEMA):
        name = spec.name
        ind = "    "
        if spec.when is not None:
            env[f"_when{i}"] = spec.when
            lines.append(f"    if _when{i}(v):")  # else the default stays
            ind = "        "
        if spec.optional:
            lines.append(f"{ind}if p < n:")  # else the default stays
            ind += "    "
        k = spec.kind
        if k == "i":
            # plain digits inline; signs and anything odd through _int
            lines += [f"{ind}if p >= n: raise _Slow",
                      f"{ind}b = toks[p][1]; p += 1",
                      f"{ind}v[{name!r}] = int(b) if b.isdigit() and b.isascii() and len(b) <= 30 else _int(b)"]
        elif k == "f":
            lines += [f"{ind}if p >= n: raise _Slow",
                      f"{ind}v[{name!r}] = _float(toks[p][1]); p += 1"]
        elif k == "s":
            # ASCII text without doubled quotes is final as it is (picture characters are not ASCII)
            lines += [f"{ind}if p >= n: raise _Slow",
                      f"{ind}q, b = toks[p]; p += 1",
                      f"{ind}if b: raise _Slow",
                      f"{ind}v[{name!r}] = q if q.isascii() and '\"\"' not in q else _str(q, b)"]
        elif k in ("slist", "xf"):
            per = 1 if k == "slist" else 3
            lines.append(f"{ind}if p >= n: raise _Slow")
            lines.append(f"{ind}c = _int(toks[p][1]); p += 1")
            lines.append(f"{ind}if c < 0 or c * {per} > n - p: raise _Slow")
            if k == "slist":
                lines.append(f"{ind}v[{name!r}] = tuple(_str(*t) for t in toks[p:p + c]); p += c")
            else:
                lines.append(f"{ind}v[{name!r}] = tuple((_str(*toks[j]), _str(*toks[j + 1]), _int(toks[j + 2][1])) "
                             f"for j in range(p, p + 3 * c, 3)); p += 3 * c")
        elif k in ("ints", "floats"):
            conv = "_int" if k == "ints" else "_float"
            lines.append(f"{ind}if p + {spec.size} > n: raise _Slow")
            lines.append(f"{ind}v[{name!r}] = tuple({conv}(t[1]) for t in toks[p:p + {spec.size}]); p += {spec.size}")
        else:
            raise AssertionError(k)
    lines += [
        "    v['event_time'] = event_time",
        "    v['version'] = version",
        "    v['extra'] = tuple(b if b else '\"' + q + '\"' for q, b in toks[p:]) if p < n else ()",
        "    rec = _new(_cls)",
        "    rec.__dict__ = v",
        "    return rec",
    ]
    exec("\n".join(lines), env)  # noqa: S102 -- code generated from our own schema
    return env["decode"]


# the canonical shape of a line: single blanks between fields, strings
# without quotes or Control Pictures inside, plain numbers (what lsfemu and
# LSF write); anything else goes to the general paths. Runs of digits and of
# string characters are possessive: what follows a run (a blank, a quote, a
# dot, the line's end) is never part of it, so giving characters back could
# not make a match -- the same lines match, without the backtracking state.
# A list's repetition of items is not: it gives items back to the string
# fields after it.
_S_INT = "[+-]?[0-9]{1,30}+"
_S_FLOAT = r"[+-]?[0-9]{1,300}+(?:\.[0-9]*+)?"  # at most 300 digits: always finite
_S_CHARS = '[^"\u2400-\u2426]*+'
_S_CHARS_ASCII = '[^"]*+'
_S_STR = f'"{_S_CHARS}"'
_S_COUNT = "[0-9]{1,30}+"
#: kind -> its pattern (after the blank before it), with its values captured
# A list's items are matched lazily (none first: the common empty list, whose count of 0 then
# needs no giving back of the strings after it) and a gated field is tried absent first (its bit
# is usually clear): both only order the readings the expression tries -- the conversion checks
# the count and the bits of the one it finds, and sends any other the slow way (issue 23, streams:
# JOB_NEW's expression ~12 -> ~7 us, JOB_STATUS's untried rusage block).
_S_KIND = {"i": f"({_S_INT})", "f": f"({_S_FLOAT})", "s": f'"({_S_CHARS})"',
           "slist": f"({_S_COUNT})((?: {_S_STR})*?)",
           "xf": f"({_S_COUNT})((?: {_S_STR} {_S_STR} {_S_INT})*?)"}
#: the same, matched only (a list's count and items are still captured: the count is checked)
_S_KIND_NC = {"i": _S_INT, "f": _S_FLOAT, "s": _S_STR, "slist": _S_KIND["slist"], "xf": _S_KIND["xf"]}
_S_XF_RE = re.compile(f'"([^"]*)" "([^"]*)" ({_S_INT})')
#: kind -> the conversion of its groups (g: the first group; g1 the second: a list's items)
_S_CONVERT = {
    "i": ["v[{name}] = n if (n := _small(g[{g}])) is not None else int(g[{g}])"],
    "f": ["v[{name}] = float(g[{g}])"],
    "s": ["v[{name}] = g[{g}]"],
    "ints": ["v[{name}] = tuple(map(int, g[{g}].split(' ')[1:]))"],
    "floats": ["v[{name}] = tuple(map(float, g[{g}].split(' ')[1:]))"],
    "slist": ["items = tuple(g[{g1}][2:-1].split('\" \"')) if g[{g1}] else ()",
              "if len(items) != int(g[{g}]): raise _Slow",
              "v[{name}] = items"],
    "xf": ["items = tuple((a, b, int(c)) for a, b, c in _xf(g[{g1}]))",
           "if len(items) != int(g[{g}]): raise _Slow",
           "v[{name}] = items"],
}
#: the text of the small integers most fields hold (flags, counts, -1) -> the integer: a lookup is a
#: fraction of int(); other texts (times, IDs, a sign or a leading zero) go through int()
_SMALL_INTS = {str(n): n for n in range(-1, 1024)}
#: a list not converted: its count checked against its items' quotes (2 a string, 4 a triple)
#: (an empty list, the common case, is passed at once)
_S_COUNT_CHECK = {"slist": ["if (g[{g1}] or g[{g}] != '0') and g[{g1}].count('\"') != 2 * int(g[{g}]): raise _Slow"],
                  "xf": ["if (g[{g1}] or g[{g}] != '0') and g[{g1}].count('\"') != 4 * int(g[{g}]): raise _Slow"]}


def _kind_pattern(spec: _F, capture: bool) -> tuple[str, int]:
    """(pattern of *spec*'s field with the blank before it, the groups it captures)."""
    k = spec.kind
    if k in ("ints", "floats"):
        item = _S_INT if k == "ints" else _S_FLOAT
        pat = f"(?: {item}){{{spec.size}}}"
        return (f"({pat})", 1) if capture else (pat, 0)
    if k in ("slist", "xf"):
        return " " + _S_KIND[k], 2
    return (" " + (_S_KIND if capture else _S_KIND_NC)[k], 1 if capture else 0)


def _needed(cls: type[Record], used: Collection[str]) -> frozenset[str]:
    """The fields a decoder of *used* converts: those, and the values the
    gates of *cls*'s gated fields read (all the fields before a gate that
    does not say which it reads)."""
    need = set(used)
    for i, spec in enumerate(cls._SCHEMA):
        if spec.when is not None:
            words = getattr(spec.when, "words", None)
            need.update(words if words is not None else (f.name for f in cls._SCHEMA[:i]))
    unknown = need - {f.name for f in cls._SCHEMA}
    if unknown:
        raise ValueError(f"{cls.TYPE} has no field {', '.join(sorted(unknown))}")
    return frozenset(need)


def _compile_shape(
    cls: type[Record], used: Collection[str] | None = None, or_decode: bool = False,
) -> tuple[Callable[[str], Any], Callable[[tuple], Record], Callable[[str], Record | None]] | None:
    """(fullmatch of the canonical shape of *cls*'s lines, conversion of its
    groups into the record, both at once: a line to its record or None), or
    None when the schema has a field after an optional one that is not
    optional itself (the shape cannot say so). A line may end with the line
    ends decode strips (``\\n``, ``\\r``, ``\\r\\n``).

    The shape fixes every field's kind; what a regular expression cannot
    check -- list counts, and that a gated field is present exactly when its
    option bit says so -- the conversion checks (raising _Slow), so that the
    fields it assigns are the ones the token-by-token decoder assigns. None
    too when a gated field is followed by another field that may be absent
    and starts like it (JOB_MODIFY2's run of strings, each given by its own
    bit): the expression would pick one reading and the bits often another --
    unless the type says its gates are rarely open (``_RARE_GATES``: JOB_NEW's
    LSF 9/10 strings, -g and the like), the check then sending the few lines
    the expression reads otherwise the slow way.

    With *or_decode*, "both at once" gives what decode makes of a line it
    does not take, instead of None.

    *used*: the fields a reader reads (None: all). The others are matched
    but neither captured nor converted (the same lines match and the same
    checks are made: a gated field's presence, a list's count), and the
    record is of :func:`_partial_class`: only the fields :func:`_needed`
    names can be read from it."""
    starts = [("s" if spec.kind == "s" else "n", spec.when is not None or spec.optional) for spec in cls._SCHEMA]
    for spec, (kind, _), (next_kind, next_gated) in zip(cls._SCHEMA, starts, starts[1:]):
        if spec.when is not None and next_gated and kind == next_kind and not cls._RARE_GATES:
            return None
    need = None if used is None else _needed(cls, used)
    defaults = _all_defaults(cls)
    pattern = [re.escape(f'"{cls.TYPE}"'), r' "([0-9]{1,10}+(?:\.[0-9]{1,10}+)?)" ([0-9]{1,30}+)']
    env: dict[str, Any] = {"_Slow": _Slow, "_new": object.__new__, "_good": _good_version, "_small": _SMALL_INTS.get,
                           "_xf": _S_XF_RE.findall, "VERSION": VERSION,
                           "_cls": cls if need is None else _partial_class(cls, need),
                           "_defaults": defaults if need is None else {k: defaults[k] for k in (*need, "extra")}}
    body = ["def convert(g):",
            "    version = g[0]",
            "    if version != VERSION and not _good(version): raise _Slow",
            "    v = dict(_defaults)",
            "    v['event_time'] = int(g[1])",
            "    v['version'] = version"]
    nested = 0
    g = 2  # the next group
    for i, spec in enumerate(cls._SCHEMA):
        if spec.optional:  # gated too: an absent tail leaves the bits clear, or the check sends it the slow way
            pattern.append("(?:")
            nested += 1
        elif nested:
            return None
        conv = need is None or spec.name in need
        pat, groups = _kind_pattern(spec, conv)
        ind = "    "
        if spec.when is not None:  # absent: the default stays
            if not groups:  # its presence is still checked
                pat, groups = f"({pat})", 1
            pat = f"(?:{pat})??"  # absent first (see _S_KIND)
            env[f"_when{i}"] = spec.when
            test = f"bool({spec.when.source})" if hasattr(spec.when, "source") else f"bool(_when{i}(v))"
            body += [f"    if (g[{g}] is not None) != {test}: raise _Slow",
                     f"    if g[{g}] is not None:"]
            ind = "        "
        lines = _S_CONVERT[spec.kind] if conv else _S_COUNT_CHECK.get(spec.kind, [])
        if spec.when is None and spec.optional and lines:  # (an unread list's count is checked too)
            body.append(f"    if g[{g}] is not None:")
            ind = "        "
        pattern.append(pat)
        if conv and spec.kind == "ints" and len(defaults[spec.name]) == spec.size:
            # the default's text (JOB_NEW's rlimits all -1, the common case) is the default itself
            env[f"_text{i}"] = "".join(f" {n}" for n in defaults[spec.name])
            env[f"_same{i}"] = defaults[spec.name]
            lines = [f"v[{{name}}] = _same{i} if g[{{g}}] == _text{i} else " + lines[0].split(" = ", 1)[1]]
        if spec.when is not None and not lines:
            lines = ["pass"]
        body += [ind + line.format(name=repr(spec.name), g=g, g1=g + 1) for line in lines]
        g += groups
    pattern.append(")?" * nested + "\r?\n?")
    body += ["    rec = _new(_cls)",
             "    rec.__dict__ = v",
             "    return rec"]
    # the same conversion behind the match, in one function (decode's first path)
    otherwise = "_decode(line)" if or_decode else "None"
    env["_decode"] = decode if or_decode else None
    both = ["def fast(line):",
            "    m = (_ascii if line.isascii() else _any)(line)",
            f"    if m is None: return {otherwise}",
            "    g = m.groups()",
            "    try:"]
    both += ["    " + line for line in body[1:]]
    both += ["    except _Slow:",
             f"        return {otherwise}"]
    match = ["def match(line):",
             "    return (_ascii if line.isascii() else _any)(line)"]
    # an ASCII line has no Control Pictures: its strings' characters are simply not quotes (a quicker class)
    env["_any"] = re.compile("".join(pattern)).fullmatch
    env["_ascii"] = re.compile("".join(pattern).replace(_S_CHARS, _S_CHARS_ASCII)).fullmatch
    exec("\n".join(body + both + match), env)  # noqa: S102 -- code generated from our own schema
    return env["match"], env["convert"], env["fast"]


_PARTIAL: dict[tuple[type[Record], frozenset[str]], type[Record]] = {}


def _partial_class(cls: type[Record], fields: frozenset[str]) -> type[Record]:
    """A subclass of *cls* for records of which only *fields* (and the event
    time, version and extra) were decoded: reading any other field raises
    AttributeError, instead of giving the class's default as if it were the
    line's value. Compared, and shown, by the fields it has."""
    key = (cls, fields)
    out = _PARTIAL.get(key)
    if out is None:
        def absent(name: str) -> property:
            def get(self: Record) -> Any:
                raise AttributeError(f"{cls.TYPE} record read in part: {name} was not decoded")
            return property(get)

        ns: dict[str, Any] = {f.name: absent(f.name) for f in dataclasses.fields(cls)
                              if f.name not in fields and f.name not in ("event_time", "version", "extra")}
        ns["__eq__"] = lambda self, other: type(self) is type(other) and self.__dict__ == other.__dict__
        ns["__hash__"] = None
        ns["__repr__"] = lambda self: f"{cls.__name__}(part: {self.__dict__!r})"
        ns["__doc__"] = f"A {cls.TYPE} record with only {', '.join(sorted(fields))} decoded."
        out = _PARTIAL[key] = type(f"Partial{cls.__name__}", (cls,), ns)
    return out




class _PerType(Mapping):
    """A table of the record types, each entry made the first time it is
    asked for: compiling every type's shape when the module is imported
    cost every `bhist -f` and `lsfemu replay` ~0.1 s, and a log holds a
    handful of types. *make(cls)* gives the entry or None (the type has
    none: not a key). A type that is not a record type is never a key."""

    def __init__(self, make: Callable[[type[Record]], Any]):
        self._make = make
        self._made: dict[str, Any] = {}

    def entry(self, etype: str) -> Any:
        """The entry of *etype*, None when it has none (the hot path: no exception)."""
        made = self._made
        if etype in made:
            return made[etype]
        cls = RECORD_TYPES.get(etype)
        if cls is None:
            return None
        value = made[etype] = self._make(cls)
        return value

    def __getitem__(self, etype: str) -> Any:
        value = self.entry(etype)
        if value is None:
            raise KeyError(etype)
        return value

    def __iter__(self):
        return (t for t in RECORD_TYPES if self.entry(t) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


#: event type -> (shape match, conversion, both at once) for :func:`decode`'s first path
_SHAPES = _PerType(_compile_shape)
#: event type -> its :func:`_skimmer`, for the types whose conversion checks nothing but the version
#: (fields of plain kinds, none gated by an option bit): :func:`skim` can stop at the match
_SKIM = _PerType(lambda c: _skimmer(c) if c.TYPE in _SHAPES and all(
    f.kind in ("i", "f", "s", "ints", "floats") and f.when is None for f in c._SCHEMA) else None)
_FAST = _PerType(lambda c: _SHAPES[c.TYPE][2] if c.TYPE in _SHAPES else None)
_fast = _FAST.entry
