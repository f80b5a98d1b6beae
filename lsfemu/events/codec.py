"""The exact text of an ``lsb.events`` record: LSF's quoting, the tokenizer,
``encode`` and the reference decoder.

A record line is its type, version and event time, then the fields of its
type's schema (:mod:`lsfemu.events.records`, which describes the layout).
``encode`` writes a record as LSF does and never adds a newline.

Control characters (the one-line rule). LSF has no escape for a newline in a
string: mbatchd deletes newlines from the command, resource requirement,
dependency and pre-exec strings (``subNewLine_``) and writes any other string
raw, which breaks the record in two. lsfemu must round-trip every string, so
``encode`` writes each C0 control character (U+0000-U+001F, including TAB)
and DEL as its Unicode *Control Picture* (U+2400 + code, DEL as U+2421), and
prefixes a literal character from that set -- or the prefix itself, U+2426 --
with U+2426. Decoding reverses both. Real LSF files contain none of these
code points, so they decode unchanged; the quote doubling and the field
positions stay LSF's (the snakemake plugin's awk still sees field 5 = uid and
field 42 = job name in JOB_NEW, field 4 = job ID and 5 = status in JOB_STATUS).

:func:`_decode_slow` reads a line token by token and says precisely what is
wrong with it. It is the reference: the generated decoders of
:mod:`lsfemu.events.fastdecode` accept the same lines and give the same
records (tests/events/test_events_props.py), and hand it every line they do
not take, so every decoding error is raised here. Read lines with
:func:`lsfemu.events.fastdecode.decode`, which accepts one trailing newline.
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

from lsfemu.events.others import BadFields, decode_other, encode_other
from lsfemu.events.records import RECORD_TYPES, Record
from lsfemu.events.schema import _F, _default

# ---------------------------------------------------------------------------
# errors and the tokenizer
# ---------------------------------------------------------------------------


class EventSyntaxError(ValueError):
    """A line that is not a well-formed event record."""


class UnknownEventError(EventSyntaxError):
    """A well-formed line whose event type lsfemu does not model."""

    def __init__(self, event_type: str):
        super().__init__(f"unknown event type {event_type!r}")
        self.event_type = event_type


#: characters that are written as Control Pictures (see the module docstring)
_PICTURE_BASE = 0x2400
_PICTURE_DEL = 0x2421
_ESCAPE = "\u2426"


def _needs_prefix(o: int) -> bool:
    return _PICTURE_BASE <= o <= _PICTURE_BASE + 0x1F or o == _PICTURE_DEL or o == 0x2426


#: a character quote() writes otherwise than as itself
_SPECIAL = re.compile('["\x00-\x1f\x7f\u2400-\u241f\u2421\u2426]')


def quote(text: str) -> str:
    """*text* as an LSF quoted string (``"`` doubled; control characters as
    Control Pictures, see the module docstring)."""
    if _SPECIAL.search(text) is None:  # most text: written as it is (issue 23: a JOB_NEW has ~40 strings)
        return '"' + text + '"'
    out = ['"']
    for ch in text:
        o = ord(ch)
        if ch == '"':
            out.append('""')
        elif o < 0x20:
            out.append(chr(_PICTURE_BASE + o))
        elif o == 0x7F:
            out.append(chr(_PICTURE_DEL))
        elif _needs_prefix(o):
            out.append(_ESCAPE + ch)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_PIC_RE = re.compile("[\u2400-\u2426]")


def _unpicture(text: str) -> str:
    out: list[str] = []
    it = iter(text)
    for ch in it:
        o = ord(ch)
        if ch == _ESCAPE:
            nxt = next(it, None)
            if nxt is None:
                raise EventSyntaxError("dangling escape (U+2426) at the end of a string")
            out.append(nxt)
        elif _PICTURE_BASE <= o <= _PICTURE_BASE + 0x1F:
            out.append(chr(o - _PICTURE_BASE))
        elif o == _PICTURE_DEL:
            out.append("\x7f")
        else:
            out.append(ch)
    return "".join(out)


class Token(NamedTuple):
    """One field of a record line: its decoded text, whether it was quoted,
    and the raw text as it appeared (kept for ``extra``)."""

    text: str
    quoted: bool
    raw: str


_BLANK = " \t"
# one field: optional blanks, then a quoted string (pairs of quotes inside,
# possessive so the closing quote is the first one not doubled, as in LSF's
# stripQStr) or a bare run without blanks and quotes
_TOKEN_RE = re.compile(r'[ \t]*+(?:"((?:[^"]|"")*+)"|([^ \t"]++))')


def tokenize(line: str) -> list[Token]:
    """Split a record line into fields with LSF's quoting rules: fields are
    separated by blanks; a quoted field runs to the first ``"`` not followed
    by another ``"`` (``""`` stands for one quote) and must be followed by a
    blank or the end of the line; a bare field is a run of non-blanks and may
    not contain ``"``. Raises :class:`EventSyntaxError`."""
    tokens: list[Token] = []
    pos = 0
    n = len(line)
    match = _TOKEN_RE.match
    while pos < n:
        m = match(line, pos)
        if m is None:
            rest = line[pos:]
            stripped = rest.lstrip(_BLANK)
            if not stripped:
                break
            col = n - len(stripped) + 1
            if stripped[0] == '"':
                raise EventSyntaxError(f"unterminated string starting at column {col}")
            raise EventSyntaxError(f'stray " at column {col}')
        end = m.end()
        quoted = m.group(1)
        if quoted is not None:
            if end < n and line[end] not in _BLANK:
                raise EventSyntaxError(f"no blank after the string ending at column {end}")
            text = quoted.replace('""', '"') if '""' in quoted else quoted
            if _PIC_RE.search(text):
                text = _unpicture(text)
            tokens.append(Token(text, True, line[m.start(1) - 1:end]))
        else:
            bare = m.group(2)
            if end < n and line[end] == '"':
                raise EventSyntaxError(f'stray " at column {end + 1}')
            tokens.append(Token(bare, False, bare))
        pos = end
    return tokens


# ---------------------------------------------------------------------------
# reading and writing fields
# ---------------------------------------------------------------------------

_INT_RE = re.compile(r"[+-]?[0-9]{1,30}\Z")
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


class _Cursor:
    def __init__(self, tokens: list[Token], start: int, etype: str):
        self.tokens = tokens
        self.pos = start
        self.etype = etype

    def more(self) -> bool:
        return self.pos < len(self.tokens)

    def take(self, what: str) -> Token:
        if self.pos >= len(self.tokens):
            raise EventSyntaxError(f"{self.etype}: missing field {what}")
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def int(self, what: str) -> int:
        tok = self.take(what)
        if tok.quoted or not _INT_RE.match(tok.text):
            raise EventSyntaxError(f"{self.etype}: field {what} is not an integer: {tok.raw!r}")
        return int(tok.text)

    def float(self, what: str) -> float:
        tok = self.take(what)
        if tok.quoted or not _FLOAT_RE.match(tok.text):
            raise EventSyntaxError(f"{self.etype}: field {what} is not a number: {tok.raw!r}")
        value = float(tok.text)
        if not math.isfinite(value):
            raise EventSyntaxError(f"{self.etype}: field {what} is out of range: {tok.raw!r}")
        return value

    def str(self, what: str) -> str:
        tok = self.take(what)
        if not tok.quoted:
            raise EventSyntaxError(f"{self.etype}: field {what} is not a quoted string: {tok.raw!r}")
        return tok.text

    def count(self, what: str, per_item: int) -> int:
        n = self.int(what)
        if n < 0 or n * per_item > len(self.tokens) - self.pos:
            raise EventSyntaxError(f"{self.etype}: bad count {n} for {what}")
        return n


def _fmt_float(value: float, fmt: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"cannot log a non-finite number: {value!r}")
    text = fmt % value
    return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text


def _fmt_int(value: int) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    if abs(value) >= 10**30:
        raise ValueError(f"integer too large to log: {value!r}")
    return str(value)


def _fmt_str(value: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return quote(value)



# ---------------------------------------------------------------------------
# encode / decode
# ---------------------------------------------------------------------------


def encode(record: Record) -> str:
    """One record line (no newline). Raises TypeError/ValueError for values
    that cannot be logged (wrong types, a list of the wrong length, a value
    set on a field its option bit does not enable)."""
    cls = type(record)
    if cls.TYPE not in RECORD_TYPES:
        line = encode_other(record, quote)  # a type lsfemu reads but does not write
        if line is None:
            raise TypeError(f"not an event record: {record!r}")
        return line
    values = record.__dict__
    parts = [quote(cls.TYPE), quote(record.version), _fmt_int(record.event_time)]
    for spec in cls._SCHEMA:
        value = values[spec.name]
        if spec.when is not None and not spec.when(values):
            if value != _default(cls, spec.name):
                raise ValueError(
                    f"{cls.TYPE}.{spec.name} is set but its option bit is not: {value!r}"
                )
            continue
        parts.extend(_encode_field(spec, value, cls.TYPE))
    parts.extend(record.extra)
    return " ".join(parts)


def _encode_field(spec: _F, value: Any, etype: str) -> list[str]:
    k = spec.kind
    if k == "i":
        return [_fmt_int(value)]
    if k == "f":
        return [_fmt_float(value, spec.fmt)]
    if k == "s":
        return [_fmt_str(value)]
    if k == "slist":
        items = list(value)
        return [str(len(items))] + [_fmt_str(v) for v in items]
    if k in ("ints", "floats"):
        items = list(value)
        if len(items) != spec.size:
            raise ValueError(f"{etype}.{spec.name} needs {spec.size} values, got {len(items)}")
        if k == "ints":
            return [_fmt_int(v) for v in items]
        return [_fmt_float(v, spec.fmt) for v in items]
    if k == "xf":
        items = list(value)
        out = [str(len(items))]
        for sub, exe, opt in items:
            out += [_fmt_str(sub), _fmt_str(exe), _fmt_int(opt)]
        return out
    raise AssertionError(k)



def _decode_slow(line: str) -> Record:
    """The reference decoder: token by token, with a precise message for every error."""
    if line.lstrip(_BLANK).startswith("#"):
        raise EventSyntaxError("header or comment line, not a record")
    tokens = tokenize(line)
    if not tokens:
        raise EventSyntaxError("empty line")
    head = _Cursor(tokens, 0, "record")
    etype = head.str("event type")
    version = head.str("version")
    try:
        vnum = float(version)
    except ValueError:
        vnum = 0.0
    if not (math.isfinite(vnum) and vnum > 0):
        raise EventSyntaxError(f"bad version {version!r}")
    event_time = head.int("event time")
    cls = RECORD_TYPES.get(etype)
    if cls is None:
        try:
            other = decode_other(etype, version, event_time, tokens[head.pos:])
        except BadFields as e:
            raise EventSyntaxError(str(e)) from None
        if other is None:
            raise UnknownEventError(etype)
        return other
    cur = _Cursor(tokens, head.pos, etype)
    values: dict[str, Any] = {}
    for spec in cls._SCHEMA:
        if spec.when is not None and not spec.when(values):
            values[spec.name] = _default(cls, spec.name)
            continue
        if spec.optional and not cur.more():
            values[spec.name] = _default(cls, spec.name)
            continue
        values[spec.name] = _decode_field(spec, cur)
    extra = tuple(t.raw for t in tokens[cur.pos:])
    return cls(event_time=event_time, version=version, extra=extra, **values)


def _decode_field(spec: _F, cur: _Cursor) -> Any:
    k = spec.kind
    name = spec.name
    if k == "i":
        return cur.int(name)
    if k == "f":
        return cur.float(name)
    if k == "s":
        return cur.str(name)
    if k == "slist":
        n = cur.count(name, 1)
        return tuple(cur.str(name) for _ in range(n))
    if k == "ints":
        return tuple(cur.int(name) for _ in range(spec.size))
    if k == "floats":
        return tuple(cur.float(name) for _ in range(spec.size))
    if k == "xf":
        n = cur.count(name, 3)
        return tuple((cur.str(name), cur.str(name), cur.int(name)) for _ in range(n))
    raise AssertionError(k)


def fields(line: str) -> list[str]:
    """The decoded fields of a line, numbered like awk's ``$1, $2, ...``
    (index 0 = field 1), strings without their quotes."""
    return [t.text for t in tokenize(line)]
