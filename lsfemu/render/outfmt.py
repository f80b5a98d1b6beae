"""LSF 10.1's customised output, shared by every command that has it (bjobs,
bqueues, bhosts, ...): the ``-o "field[:[-][width][:unit]] ... [delimiter='c']"``
string read against a command's field table, the text table it makes, and the
``-json`` document (reference lsf-formats 3.10, lsf-breadth 4.1/4.2).

The rules are the same for every command: field names and aliases are
case-insensitive, the header (and JSON key) is the canonical name upper-cased;
no width means no padding, ``field:`` the recommended width, ``field:N`` cut at
N, ``field:-N`` right-justified; a missing value prints ``-`` (``""`` in JSON).
The JSON document has 2-space indentation, no space after ``:``, every value a
string, ``/`` escaped as ``\\/``; only its count key differs (JOBS, QUEUES, HOSTS).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence


class FormatError(ValueError):
    """A bad ``-o`` / ``LSB_*_FORMAT`` string; ``str()`` is LSF's message."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class FieldDef:
    """A field of a command's table: its recommended width, aliases, and
    whether it is a memory amount (takes a unit)."""

    width: int
    aliases: tuple[str, ...] = ()
    memory: bool = False


@dataclass(frozen=True)
class FieldSpec:
    name: str  # canonical lower-case field name
    width: int | None = None  # None = unlimited, no padding
    right: bool = False  # ":-N" right justification
    unit: str | None = None  # K M G T P E for memory fields

    @property
    def header(self) -> str:
        return self.name.upper()


@dataclass(frozen=True)
class Format:
    fields: tuple[FieldSpec, ...]
    delimiter: str = " "

    @property
    def headers(self) -> list[str]:
        return [f.header for f in self.fields]


_DELIM = re.compile(r"""delimiter\s*=\s*(?:'([^']*)'|"([^"]*)"|(\S*))""", re.IGNORECASE)
_UNITS = {"K": "K", "KB": "K", "M": "M", "MB": "M", "G": "G", "GB": "G", "T": "T", "TB": "T",
          "P": "P", "PB": "P", "E": "E", "EB": "E"}


def _bad_field(token: str) -> FormatError:
    return FormatError(f"<{token}> in the format string is not a valid field name.")


def aliases(fields: Mapping[str, FieldDef]) -> dict[str, str]:
    """Every name a field answers to (lower case) -> its canonical name."""
    out: dict[str, str] = {}
    for name, fdef in fields.items():
        out[name] = name
        for a in fdef.aliases:
            out[a] = name
    return out


def parse_format(spec: str, fields: Mapping[str, FieldDef], *, all_field: bool = False) -> Format:
    """Read ``"field[:[-][width][:unit]] ... [delimiter='c']"`` against *fields*.

    *all_field*: the command knows LSF 10.1 FP14's ``all`` (every field of the
    table, in its order, each as typed: ``all:`` gives every recommended width).
    Raises :class:`FormatError` with an LSF-like message."""
    if not isinstance(spec, str):
        raise FormatError("The format string is not valid.")
    names = aliases(fields)
    delimiter = " "
    found = list(_DELIM.finditer(spec))
    if len(found) > 1:
        raise FormatError("The delimiter can only be specified once.")
    if found:
        m = found[0]
        value = next(g for g in m.groups() if g is not None)
        if len(value) != 1:
            raise FormatError(f"<{m.group(0)}>: the delimiter must be a single character.")
        delimiter = value
        spec = spec[: m.start()] + " " + spec[m.end():]
    out: list[FieldSpec] = []
    for token in spec.split():
        parts = token.split(":")
        if len(parts) > 3:
            raise _bad_field(token)
        key = parts[0].lower()
        if all_field and key == "all":
            out += [_spec(token, parts, name, fields[name]) for name in fields]
            continue
        canonical = names.get(key)
        if canonical is None:
            raise _bad_field(parts[0])
        out.append(_spec(token, parts, canonical, fields[canonical]))
    if not out:
        raise FormatError("No field names were specified in the format string.")
    return Format(tuple(out), delimiter)


def _spec(token: str, parts: list[str], canonical: str, fdef: FieldDef) -> FieldSpec:
    width: int | None = None
    right = False
    unit: str | None = None
    if len(parts) >= 2:
        w = parts[1]
        if w.startswith("-"):
            right = True
            w = w[1:]
        if w == "":
            width = fdef.width
        elif w.isascii() and w.isdigit() and int(w) > 0:
            width = int(w)
        else:
            raise FormatError(f"<{token}>: the output width must be a positive integer.")
    if len(parts) == 3:
        u = _UNITS.get(parts[2].upper())
        if u is None:
            raise FormatError(f"<{token}>: the unit must be one of KB MB GB TB PB EB.")
        if fdef.memory:
            unit = u
    return FieldSpec(canonical, width, right, unit)


def cell(text: str, spec: FieldSpec, cut: Callable[[str, int], str] | None = None) -> str:
    """*text* in the field's width (cut at the end, or by *cut*), or as it is
    when the field has no width."""
    if spec.width is None:
        return text
    w = spec.width
    if len(text) > w:
        text = cut(text, w) if cut else text[:w]
    return text.rjust(w) if spec.right else text.ljust(w)


def text_table(fmt: Format, rows: Sequence[Sequence[str | None]], *, header: bool = True,
               cuts: Mapping[str, Callable[[str, int], str]] | None = None) -> str:
    """``-o``'s text: the header line (unless ``-noheader``) and one line per
    row of values (None or ``""`` print ``-``); nothing when there is no row.
    *cuts*: fields whose values are cut another way than at the end."""
    if not rows:
        return ""
    cuts = cuts or {}
    d = fmt.delimiter
    out = [d.join(cell(f.header, f) for f in fmt.fields)] if header else []
    for row in rows:
        out.append(d.join(cell("-" if v is None or v == "" else v, f, cuts.get(f.name))
                          for f, v in zip(fmt.fields, row)))
    return "\n".join(out) + "\n"


def json_string(text: str) -> str:
    """A JSON string literal as LSF writes it: ``/`` escaped as ``\\/``,
    non-ASCII kept as UTF-8."""
    return json.dumps(text, ensure_ascii=False).replace("/", "\\/")


def json_record(pairs: Sequence[tuple[str, str | None]]) -> str:
    """One record of RECORDS (None values are ``""``)."""
    body = ",\n".join(f"      {json_string(k)}:{json_string('' if v is None else v)}" for k, v in pairs)
    return "    {\n" + body + "\n    }"


def json_document(command: str, count_key: str, records: Sequence[str]) -> str:
    """``{"COMMAND":..., "<COUNT>":n, "RECORDS":[...]}`` in LSF's layout;
    *records* made by :func:`json_record`."""
    body = ",\n".join(records)
    return (
        "{\n"
        f"  \"COMMAND\":{json_string(command)},\n"
        f"  \"{count_key}\":{len(records)},\n"
        "  \"RECORDS\":[\n"
        + (body + "\n" if body else "")
        + "  ]\n"
        "}\n"
    )


def json_rows(command: str, count_key: str, fmt: Format, rows: Sequence[Sequence[str | None]]) -> str:
    """The ``-json`` document of *rows* (values in *fmt*'s field order)."""
    return json_document(command, count_key, [json_record(list(zip(fmt.headers, row))) for row in rows])
