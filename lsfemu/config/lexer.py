"""The lexical layer shared by every LSF configuration file.

This module owns what all of LSF's configuration files have in common and
nothing file-specific:

* `logical_lines` turns text into logical lines: `#` comments removed (not
  inside double quotes), trailing-backslash continuations joined with one space,
  blank lines dropped, every logical line numbered by its FIRST physical line.
* `split_sections` groups logical lines into `Begin <Section>` / `End <Section>`
  blocks (markers matched case-insensitively) and reports unbalanced markers.
* `keyword_pairs` reads keyword-style sections (`KEY = value`).
* `read_table` reads table-style sections (a header line of column names, then
  rows of whitespace-separated values where `(a b c)` / `[x, 1]` are one value).
* `Reporter` collects `ConfigIssue`s for one file.

The meaning of keys, columns and values belongs to the file's module
(`lsfemu.config.lsf_conf`, `lsb_queues`, ...; `lsfemu.config.parser` runs them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lsfemu.config.model import ConfigIssue

__all__ = [
    "Line",
    "Section",
    "Reporter",
    "show",
    "unquote",
    "logical_lines",
    "split_sections",
    "keyword_pairs",
    "tokenize_row",
    "is_default",
    "inner",
    "Table",
    "read_table",
]


@dataclass
class Line:
    """One logical line: comments removed, continuations joined, stripped."""

    no: int  # 1-based number of the first physical line
    text: str


@dataclass
class Section:
    """One Begin/End block."""

    name: str  # as written after Begin
    key: str  # upper-case name, for matching
    begin: int  # line of `Begin`
    end: int = 0  # line of `End`; 0 when never closed
    lines: list[Line] = field(default_factory=list)


class Reporter:
    """Collects the issues of one file (`path` is the file's path as found)."""

    def __init__(self, path: str):
        self.path = path
        self.issues: list[ConfigIssue] = []

    def fatal(self, line: int, message: str) -> None:
        self.issues.append(ConfigIssue(self.path, line, message, True))

    def warn(self, line: int, message: str) -> None:
        self.issues.append(ConfigIssue(self.path, line, message, False))

    @property
    def has_fatal(self) -> bool:
        return any(i.fatal for i in self.issues)

    def sorted(self) -> list[ConfigIssue]:
        return sorted(self.issues, key=lambda i: i.line)


def show(text: str, limit: int = 60) -> str:
    """A value as quoted in messages: `<text>`, shortened when very long."""
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"<{text}>"


def unquote(value: str, single: bool = False) -> str:
    """Strip one pair of double quotes around a whole value (`"a b"` -> `a b`).

    With `single`, a pair of single quotes is stripped too (lsf.conf is also
    read by shells).
    """
    value = value.strip()
    if len(value) >= 2:
        for q in ('"', "'") if single else ('"',):
            if value[0] == q and value[-1] == q and q not in value[1:-1]:
                return value[1:-1]
    return value


# `#INCLUDE "file"` (LSF 10) and time-based configuration (`#if time(...)` ...
# `#else` ... `#endif`) look like comments; lsfemu reads them as comments but says so.
_INCLUDE = re.compile(r"^#INCLUDE\b", re.IGNORECASE)
_IF = re.compile(r"^#(if|elif)\s+time\s*\(", re.IGNORECASE)
_ELSE = re.compile(r"^#(else|endif)\s*$", re.IGNORECASE)


def _strip_comment(raw: str, in_quote: bool) -> tuple[str, bool]:
    """The part of a physical line before its comment, and the quote state after it."""
    for idx, ch in enumerate(raw):
        if ch == '"':
            in_quote = not in_quote
        elif ch == "#" and not in_quote:
            return raw[:idx], in_quote
    return raw, in_quote


def logical_lines(text: str, rep: Reporter, directives: bool = True) -> list[Line]:
    """Split `text` into logical lines (see the module docstring).

    A line is continued when, after its comment is removed, it ends with `\\`;
    the backslash is dropped and the pieces are joined with a single space. A
    continuation is ended early by the end of the file (warning). A double quote
    left open at the end of a logical line is fatal.
    """
    phys = text.split("\n")
    if phys and phys[-1] == "":
        phys.pop()
    out: list[Line] = []
    i = 0
    n = len(phys)
    while i < n:
        start = i + 1
        parts: list[str] = []
        in_quote = False
        while True:
            raw = phys[i].rstrip("\r")
            if directives and not parts and not in_quote:
                lead = raw.lstrip()
                if _INCLUDE.match(lead):
                    rep.warn(i + 1, "#INCLUDE is not supported by lsfemu; the line is read as a comment")
                elif _IF.match(lead) or _ELSE.match(lead):
                    rep.warn(
                        i + 1,
                        "time-based configuration (#if/#elif/#else/#endif) is not supported by lsfemu; "
                        "the directive is read as a comment and every branch is used",
                    )
            body, in_quote = _strip_comment(raw, in_quote)
            i += 1
            stripped = body.rstrip()
            if stripped.endswith("\\"):
                parts.append(stripped[:-1])
                if i >= n:
                    rep.warn(start, "the last line ends with '\\' (expected a continuation line); the backslash is ignored")
                    break
                continue
            parts.append(body)
            break
        joined = " ".join(p.strip() for p in parts if p.strip())
        if in_quote:
            rep.fatal(start, f"unterminated double quote in {show(joined)} (expected a closing \")")
        if joined:
            out.append(Line(start, joined))
    return out


_MARK = re.compile(r"^(begin|end)(?:\s+(.*))?$", re.IGNORECASE)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def split_sections(lines: list[Line], rep: Reporter) -> tuple[list[Section], list[Line]]:
    """Group lines into sections; returns (sections in file order, lines outside any section).

    Unclosed sections are still returned (with `end == 0`) so their content is
    checked too; every marker problem is fatal.
    """
    sections: list[Section] = []
    loose: list[Line] = []
    cur: Section | None = None
    for ln in lines:
        m = _MARK.match(ln.text)
        rest = (m.group(2) or "").strip() if m else ""
        if m is None or rest.startswith("="):
            (loose if cur is None else cur.lines).append(ln)
            continue
        word = m.group(1).capitalize()
        words = rest.split()
        name = words[0] if words else ""
        valid = bool(_NAME.match(name))
        if name and not valid:
            rep.fatal(ln.no, f"{word} {show(name)}: expected a section name (letters, digits, _)")
        elif len(words) > 1:
            rep.warn(ln.no, f"extra text after {word} {name} ignored: {show(' '.join(words[1:]))}")
        if word == "Begin":
            if cur is not None:
                if cur.key != "?":
                    rep.fatal(cur.begin, f"Begin {cur.name} at line {cur.begin} is never closed "
                                         f"(expected End {cur.name} before the Begin at line {ln.no})")
                sections.append(cur)
            if not name:
                rep.fatal(ln.no, "Begin without a section name (expected Begin <Section>)")
            # A nameless or badly named section is still opened (as "?") so that its
            # End does not cascade into more errors; its content is not read.
            cur = Section(name, name.upper(), ln.no) if valid else Section("?", "?", ln.no)
        else:
            if cur is None:
                if valid or not name:
                    what = f"End {name}" if name else "End"
                    rep.fatal(ln.no, f"Unexpected {what}: no section is open")
                continue
            if cur.key != "?":
                if not name:
                    rep.fatal(ln.no, f"End without a section name (expected End {cur.name})")
                elif valid and name.upper() != cur.key:
                    rep.fatal(ln.no, f"End {name} does not match Begin {cur.name} at line {cur.begin} "
                                     f"(expected End {cur.name})")
            cur.end = ln.no
            sections.append(cur)
            cur = None
    if cur is not None:
        if cur.key != "?":
            rep.fatal(cur.begin, f"Begin {cur.name} at line {cur.begin} is never closed (expected End {cur.name})")
        sections.append(cur)
    return [s for s in sections if s.key != "?"], loose


_KV = re.compile(r"^([A-Za-z_][A-Za-z0-9_./-]*)\s*=\s*(.*)$", re.DOTALL)


def keyword_pairs(lines: list[Line], rep: Reporter, where: str) -> list[tuple[str, str, int]]:
    """`KEY = value` lines as (upper-case KEY, unquoted value, line); other lines are fatal."""
    out = []
    for ln in lines:
        m = _KV.match(ln.text)
        if m is None:
            rep.fatal(ln.no, f"expected KEY = value in {where}, got {show(ln.text)}")
            continue
        out.append((m.group(1).upper(), unquote(m.group(2)), ln.no))
    return out


_CLOSE = {"(": ")", "[": "]"}


def tokenize_row(text: str) -> tuple[list[str], str | None]:
    """Split a table row into values; returns (values, error message or None).

    Whitespace separates values except inside `(...)`, `[...]` (which nest) and
    double quotes.
    """
    toks: list[str] = []
    cur: list[str] = []
    stack: list[str] = []
    in_quote = False
    for ch in text:
        if in_quote:
            cur.append(ch)
            if ch == '"':
                in_quote = False
            continue
        if ch == '"':
            in_quote = True
            cur.append(ch)
        elif ch in _CLOSE:
            stack.append(_CLOSE[ch])
            cur.append(ch)
        elif ch in ")]":
            if not stack:
                return [], f"unbalanced parentheses: unexpected {ch!r} in {show(text)}"
            want = stack.pop()
            if ch != want:
                return [], f"unbalanced parentheses: expected {want!r}, got {ch!r} in {show(text)}"
            cur.append(ch)
        elif ch.isspace() and not stack:
            if cur:
                toks.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if stack:
        return [], f"unbalanced parentheses: expected {stack[-1]!r} before the end of the row {show(text)}"
    if cur:
        toks.append("".join(cur))
    return toks, None


def _wrapped(tok: str) -> bool:
    """True when `tok` is one `( ... )` group from its first to its last character."""
    if len(tok) < 2 or tok[0] != "(" or tok[-1] != ")":
        return False
    depth = 0
    for idx, ch in enumerate(tok):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0 and idx != len(tok) - 1:
                return False
    return True


def inner(tok: str) -> str:
    """A table value without its outer parentheses (`(a b)` -> `a b`); other values unchanged."""
    tok = unquote(tok)
    return tok[1:-1].strip() if _wrapped(tok) else tok


def is_default(tok: str) -> bool:
    """`-`, `()` or an empty value: the column's default."""
    return tok == "-" or inner(tok) == ""


@dataclass
class Table:
    columns: list[str]  # upper-case
    rows: list[tuple[int, dict[str, str]]]  # (line, column -> raw value)
    header_line: int


def read_table(
    sec: Section,
    rep: Reporter,
    required: tuple[str, ...],
    known: tuple[str, ...],
    unused: tuple[str, ...] = (),
    unknown_hint: str = "",
) -> Table | None:
    """Read a table-style section.

    `required` columns must be present (fatal otherwise); `known` columns are the
    ones the parser uses; `unused` are real LSF columns lsfemu ignores (warning
    once, at the first row giving them a value: no column is accepted and
    silently ignored); any other column gets a warning at the header line.
    Rows with the wrong number of values or unbalanced parentheses are fatal and
    skipped. Returns None when the header itself is unusable.
    """
    if not sec.lines:
        rep.warn(sec.begin, f"Begin {sec.name} section is empty (expected a line of column names)")
        return Table([], [], sec.begin)
    head = sec.lines[0]
    columns = head.text.split()
    bad = [c for c in columns if not re.match(r"^[A-Za-z_][A-Za-z0-9_/]*$", c)]
    if bad:
        rep.fatal(head.no, f"expected a line of column names for {sec.name}, got {show(head.text)}")
        return None
    up = [c.upper() for c in columns]
    seen: set[str] = set()
    for c in up:
        if c in seen:
            rep.fatal(head.no, f"column {c} appears twice in the {sec.name} header")
            return None
        seen.add(c)
    missing = [c for c in required if c not in seen]
    if missing:
        rep.fatal(head.no, f"{sec.name} header lacks column {', '.join(missing)} "
                           f"(expected at least: {' '.join(required)}), got {show(head.text)}")
        return None
    for c in up:
        if c not in known and c not in unused:
            rep.warn(head.no, f"unknown column {c} in {sec.name}{unknown_hint}; ignored")
    rows: list[tuple[int, dict[str, str]]] = []
    warned: set[str] = set()
    spelled = dict(zip(up, columns))  # messages name a column as the header spells it (r1m, not R1M)
    for ln in sec.lines[1:]:
        toks, err = tokenize_row(ln.text)
        if err:
            rep.fatal(ln.no, err)
            continue
        if len(toks) != len(up):
            rep.fatal(ln.no, f"expected {len(up)} values (one per column: {' '.join(up)}), got {len(toks)} "
                             f"in {show(ln.text)}")
            continue
        row = dict(zip(up, toks))
        for c in unused:
            if c in row and c not in warned and not is_default(row[c]):
                warned.add(c)
                rep.warn(ln.no, f"column {spelled[c]} is not supported by lsfemu; its values are ignored")
        rows.append((ln.no, row))
    return Table(up, rows, head.no)
