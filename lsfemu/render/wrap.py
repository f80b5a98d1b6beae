"""LSF's 79-column record wrapper (reference section 1.4).

Owns the hard wrap of the long formats (``bjobs -l``, ``bhist -l``): a logical
record is one stream of text cut *blindly by column* -- words, paths and
``<...>`` values are split anywhere. The first physical line holds ``width``
characters; every continuation line is ``indent`` spaces followed by at most
``width - indent`` characters, so every full line is exactly ``width`` long.
A space that lands at the start of a continuation line is kept (that line then
starts with ``indent + 1`` spaces).

The one exception seen in real output: separator spaces *inside host lists*
(``<h1> <h2> ...``) are separate output fragments in LSF and are dropped when
they would open a continuation line. Callers mark such spaces with
:data:`SOFT_SPACE`; :func:`wrap_record` prints them as ordinary spaces except
at the start of a continuation line, where they vanish. :func:`host_list`
builds such a list; :func:`dispatch_text` the dispatch record that holds two
(bhist -l and bacct -l share it). :func:`record` is one record of a long
format, wrapped or (``-w``) on one line.
"""

from __future__ import annotations

#: a space that is dropped when it would start a continuation line
SOFT_SPACE = "\x1f"


def wrap_lines(text: str, indent: int = 21, width: int = 79) -> list[str]:
    """The physical lines of *text* (no newlines), see the module docstring."""
    if width <= indent:
        raise ValueError("width must be larger than indent")
    step = width - indent
    n = len(text)
    first = text[:width]
    lines = [first]
    i = len(first)
    pad = " " * indent
    while i < n:
        if text[i] == SOFT_SPACE:
            i += 1
            if i >= n:
                break
        chunk = text[i : i + step]
        lines.append(pad + chunk)
        i += len(chunk)
    return [line.replace(SOFT_SPACE, " ") for line in lines]


def wrap_record(text: str, indent: int = 21, width: int = 79) -> str:
    """*text* hard-wrapped at *width* columns with *indent*-space continuation
    lines; the result ends with a newline."""
    return "\n".join(wrap_lines(text, indent, width)) + "\n"


def record(text: str, indent: int = 21, nowrap: bool = False) -> str:
    """One record of a long format: :func:`wrap_record`, or with *nowrap*
    (bhist -w, bacct -w) the whole record on one line."""
    if nowrap:
        return text.replace(SOFT_SPACE, " ") + "\n"
    return wrap_record(text, indent)


def unwrap(wrapped: str, indent: int = 21) -> str:
    """Inverse of :func:`wrap_record` for text without soft spaces (what
    gc3pie/aiida-style parsers do): strip the continuation indent and join."""
    lines = wrapped.rstrip("\n").split("\n")
    return lines[0] + "".join(line[indent:] for line in lines[1:])


def host_list(hosts: list[str]) -> str:
    """`` <h1> <h2> ...`` -- each host with its own leading separator, as LSF
    prints them (one fragment per host), all separators soft (see
    :data:`SOFT_SPACE`). Append it directly after ``on Host(s)``."""
    return "".join(f"{SOFT_SPACE}<{h}>" for h in hosts)


def dispatch_text(d: dict, *, style: str = "auto") -> str:
    """The dispatch record of bhist -l and bacct -l (their host lists are
    soft-spaced: see the module docstring): ``Dispatched to <h>`` for one slot
    (``style="auto"``), else the Task(s)/Slot(s) form; then the Effective
    RES_REQ when *d* has one."""
    hosts = list(d.get("hosts") or [])
    n = len(hosts)
    if n == 1 and style == "auto":
        text = f"Dispatched to <{hosts[0]}>"
    else:
        hl = host_list(hosts)
        text = f"Dispatched {n} Task(s) on Host(s){hl}, Allocated {n} Slot(s) on Host(s){hl}"
    if d.get("effective_res_req"):
        text += f", Effective RES_REQ <{d['effective_res_req']}>"
    return text + ";"
