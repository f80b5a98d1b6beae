"""What every configuration file parser shares: reading a file (missing,
unreadable, not UTF-8), its Begin/End sections, the common warnings
(unsupported section, empty value, key set twice), and the conversion of one
value's text into an int, float, Y/N or run limit with LSF's messages. Each
conversion returns the value, or None after reporting the problem.
"""

from __future__ import annotations

import math
import os
import re

from lsfemu.config.lexer import Reporter, Section, keyword_pairs, logical_lines, show, split_sections

INT_MAX = 2147483647

_INT_RE = re.compile(r"^[+-]?[0-9]+$")
INT_RE_NONNEG = re.compile(r"^\+?[0-9]+$")
_FLOAT_RE = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$")


def _int_phrase(lo: int | None, hi: int | None) -> str:
    if hi is not None and lo is not None:
        return f"an integer between {lo} and {hi}"
    if lo == 0:
        return "a non-negative integer"
    if lo == 1:
        return "a positive integer"
    if lo is not None:
        return f"an integer >= {lo}"
    return "an integer"


def to_int(key: str, value: str, rep: Reporter, line: int, lo: int | None = None, hi: int | None = INT_MAX) -> int | None:
    v = value.strip()
    phrase = _int_phrase(lo, None if hi in (None, INT_MAX) else hi)
    if not _INT_RE.match(v):
        rep.fatal(line, f"{key}: expected {phrase}, got {show(v)}")
        return None
    n = int(v)
    if hi is not None and n > hi and hi == INT_MAX:
        rep.fatal(line, f"{key}: expected an integer up to {hi}, got {show(v)}")
        return None
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        rep.fatal(line, f"{key}: expected {phrase}, got {show(v)}")
        return None
    return n


def to_float(key: str, value: str, rep: Reporter, line: int, lo: float = 0.0) -> float | None:
    v = value.strip()
    if not _FLOAT_RE.match(v) or not math.isfinite(float(v)) or float(v) < lo:
        what = "a non-negative number" if lo == 0 else f"a number >= {lo:g}"
        rep.fatal(line, f"{key}: expected {what}, got {show(v)}")
        return None
    return float(v)


_MB_RE = re.compile(r"^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([KMGTP]B?)?$", re.IGNORECASE)
_MB_SCALE = {"K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2, "P": 1024.0**3}


def to_mb(key: str, value: str, rep: Reporter, line: int) -> float | None:
    """A memory or disk size in MB: a bare number is MB (LIM's unit), `K`/`M`/`G`/`T`/`P`
    (with an optional `B`) name another (`16G`, `512MB`)."""
    m = _MB_RE.match(value.strip())
    if m is None:
        rep.fatal(line, f"{key}: expected a size in MB or with a unit (K, M, G, T: 16G, 512M), got {show(value)}")
        return None
    return float(m.group(1)) * _MB_SCALE[(m.group(2) or "M")[0].upper()]


def to_bool(key: str, value: str, rep: Reporter, line: int) -> bool | None:
    v = value.strip().upper()
    if v in ("Y", "N"):
        return v == "Y"
    rep.fatal(line, f"{key}: expected Y or N, got {show(value.strip())}")
    return None


_DURATION = re.compile(r"^([0-9]+)(?::([0-9]+))?$")


def to_minutes(key: str, value: str, rep: Reporter, line: int) -> list[float] | None:
    """LSF's `[default_limit] maximum_limit` run limits, each `[hour:]minute`, in
    minutes and in the order given (one value: the maximum alone). A
    `/host_name` normalisation suffix is accepted and ignored with a warning.
    A default above the maximum is fatal (LSF would ignore the default)."""
    parts = value.split()
    if not parts or len(parts) > 2:
        rep.fatal(line, f"{key}: expected [default_limit] maximum_limit, each [hour:]minute, got {show(value)}")
        return None
    out: list[float] = []
    for p in parts:
        text = p
        if "/" in p:
            text, _, host = p.partition("/")
            rep.warn(line, f"{key}: host normalisation /{host} is not supported by lsfemu; ignored")
        m = _DURATION.match(text)
        if m is None:
            rep.fatal(line, f"{key}: expected [hour:]minute (e.g. 720 or 12:00), got {show(p)}")
            return None
        if m.group(2) is not None:
            if int(m.group(2)) > 59:
                rep.fatal(line, f"{key}: expected minutes below 60 in hour:minute, got {show(p)}")
                return None
            minutes = int(m.group(1)) * 60 + int(m.group(2))
        else:
            minutes = int(m.group(1))
        if minutes <= 0:
            rep.fatal(line, f"{key}: expected a positive [hour:]minute limit, got {show(p)}")
            return None
        out.append(float(minutes))
    if len(out) == 2 and out[0] > out[1]:
        rep.fatal(line, f"{key}: the default limit ({show(parts[0])}) cannot exceed the maximum limit ({show(parts[1])})")
        return None
    return out


def one_minutes(key: str, value: str, rep: Reporter, line: int) -> float | None:
    """One ``[hour:]minute`` limit in minutes (lsb.applications RUNLIMIT, the
    PEND_TIME_LIMIT / ELIGIBLE_PEND_TIME_LIMIT of lsb.params, lsb.queues and
    lsb.applications); a second value is fatal, as a bad one is."""
    limits = to_minutes(key, value, rep, line)
    if limits is None:
        return None
    if len(limits) > 1:
        rep.fatal(line, f"{key}: expected one [hour:]minute limit, got {show(value)}")
        return None
    return limits[0]


#: the pending time limits (issue 21): the key -> the attribute of Params, QueueConf and AppConf
PEND_LIMIT_KEYS = {"PEND_TIME_LIMIT": "pend_time_limit", "ELIGIBLE_PEND_TIME_LIMIT": "eligible_pend_time_limit"}


_MAX_RESERVE = re.compile(r"^\s*MAX_RESERVE_TIME\s*\[\s*(\d+)\s*\]\s*$", re.IGNORECASE)


def max_reserve_time(value: str | None) -> int | None:
    """n of SLOT_RESERVE / RESOURCE_RESERVE's ``MAX_RESERVE_TIME[n]`` (None: not that form, or n < 1)."""
    m = _MAX_RESERVE.match(value or "")
    if m is None or int(m.group(1)) < 1:
        return None
    return int(m.group(1))


def read_file(path: str, rep: Reporter, required: bool) -> str | None:
    """The text of a file; None when absent (fatal if required) or unreadable (fatal)."""
    try:
        if not os.path.exists(path):
            if required:
                rep.fatal(0, "file not found")
            return None
        if os.path.isdir(path):
            rep.fatal(0, "is a directory (expected a file)")
            return None
        with open(path, "rb") as fh:
            data = fh.read()
    except (OSError, ValueError) as e:
        rep.fatal(0, f"cannot read file: {getattr(e, 'strerror', None) or e}")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        rep.warn(0, "file is not valid UTF-8; undecodable bytes were replaced")
        return data.decode("utf-8", errors="replace")


def read_sections(text: str, rep: Reporter) -> list[Section]:
    """Sections of a sectioned file; lines outside any section are fatal."""
    lines = logical_lines(text, rep)
    sections, loose = split_sections(lines, rep)
    for ln in loose:
        if "=" in ln.text:
            rep.fatal(ln.no, f"KEY = value line outside any Begin/End section: {show(ln.text)}")
        else:
            rep.fatal(ln.no, f"unexpected text outside any Begin/End section (expected Begin <Section>), got {show(ln.text)}")
    return sections


def named_sections(text: str, rep: Reporter, fname: str, key: str, name_key: str, what: str, parse_one) -> list:
    """What `parse_one(section, rep)` makes of each `Begin <key>` section of a
    file (lsb.queues, lsb.applications), in file order; other sections are
    warned about and skipped; a name defined twice is fatal at its `name_key`
    line (`<what> <name> is defined twice (first at line N)`)."""
    out: list = []
    by_name: dict = {}
    for sec in read_sections(text, rep):
        if sec.key != key:
            unsupported(sec, rep, fname)
            continue
        obj = parse_one(sec, rep)
        if obj is None:
            continue
        if obj.name in by_name:
            rep.fatal(obj.lines.get(name_key, sec.begin),
                      f"{what} {obj.name} is defined twice (first at line {by_name[obj.name].line})")
            continue
        by_name[obj.name] = obj
        out.append(obj)
    return out


#: a queue's or an application's name
SECTION_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def section_keys(sec: Section, rep: Reporter, obj, where: str, name_key: str, name_phrase: str,
                 max_len: int | None = None):
    """(KEY, value, line) of a named section's `KEY = value` lines (Queue,
    Application) but its name, which is set on `obj.name` (fatal when it is not
    one SECTION_NAME of at most `max_len` characters: `<name_key>: expected
    <name_phrase>, got ...`); each key's line goes in `obj.lines`; an empty
    value (DESCRIPTION aside) is warned about and skipped."""
    seen: dict[str, int] = {}
    for key, value, line in dedupe(keyword_pairs(sec.lines, rep, where), rep, seen):
        obj.lines[key] = line
        if key == name_key:
            if len(value.split()) != 1 or not SECTION_NAME.match(value) or (max_len and len(value) > max_len):
                rep.fatal(line, f"{name_key}: expected {name_phrase}, got {show(value)}")
            else:
                obj.name = value
            continue
        if value == "" and key != "DESCRIPTION":
            empty_value(key, line, rep)
            continue
        yield key, value, line


def named(obj, sec: Section, rep: Reporter, where: str, name_key: str):
    """`obj` when section_keys gave it a name, else None (fatal when the name is missing)."""
    if obj.name:
        return obj
    if name_key not in obj.lines:
        rep.fatal(sec.begin, f"{name_key} is missing in this Begin {where} section (expected {name_key} = <name>)")
    return None


def unsupported(sec: Section, rep: Reporter, fname: str) -> None:
    rep.warn(sec.begin, f"section {sec.name} is not supported by lsfemu in {fname}; ignored")


def not_built(key: str, line: int, rep: Reporter) -> None:
    """A real LSF key that lsfemu reads but does not act on: the one warning
    every configuration file gives (file and line through the Reporter), so no
    key is accepted and silently ignored (docs/semantics.md, "Configuration
    keys: acted on, warned about, or refused")."""
    rep.warn(line, f"parameter {key} is not supported by lsfemu; ignored")


def bad_keyword(key: str, section: str, line: int, rep: Reporter) -> None:
    """A key LSF does not know in a `KEY = value` section: mbatchd's warning
    (OpenLava lsb.conf.c readHvalues_conf, catgets 5416), the line ignored."""
    rep.warn(line, f"bad keyword {key} in section {section}, ignoring the line")


def empty_value(key: str, line: int, rep: Reporter) -> None:
    rep.warn(line, f"{key} has no value; the default is used")


def dedupe(pairs: list[tuple[str, str, int]], rep: Reporter, seen: dict[str, int]) -> list[tuple[str, str, int]]:
    """Warn on keys given twice (the last value wins)."""
    for key, _value, line in pairs:
        if key in seen:
            rep.warn(line, f"{key} is set twice (also at line {seen[key]}); the last value is used")
        seen[key] = line
    return pairs
