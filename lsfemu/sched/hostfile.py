"""bsub -hostfile / bmod -hostfile, pure (issue 21): LSF's user-specified host file.

The file (IBM's bsub -hostfile page) lists one host per line, optionally with
a number of slots (default 1); `#` starts a comment; a host may come back on
later lines, and the order of the lines is the order of the job's tasks. The
job runs on exactly those hosts and slots: its task count is their sum.

LSF reads the file at submission (the client; mbatchd keeps "the condensed
format"); lsfemu keeps what it read, in the job's `asked_hosts` (the column of
bsub -m, which -hostfile excludes) as lines: the first `@hostfile <path>`,
then `<host> <slots>` per line of the file. -m's words never hold a newline
or a space, so `decode` tells the two apart; lsb.events carries the same
lines as the asked-hosts list of JOB_NEW / JOB_MODIFY2 (`log_words`,
`from_log_words`). docs/semantics.md ("bsub -hostfile") has the readings.
"""

from __future__ import annotations

import re

#: the first line of a kept host file: the mark, a space, the file's path
MARK = "@hostfile"
#: a slot count as the file gives it (LSF keeps counts in 32-bit ints)
_SLOTS = re.compile(r"[0-9]{1,9}")


class HostFileError(Exception):
    """A line of a host file that is neither `host` nor `host slots`."""

    def __init__(self, line: str):
        super().__init__(line)
        self.line = line


def parse(text: str) -> list[tuple[str, int]]:
    """The (host, slots) lines of a host file's *text*, in its order."""
    out: list[tuple[str, int]] = []
    for raw in text.splitlines():
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) > 2 or (len(words) == 2 and (not _SLOTS.fullmatch(words[1]) or int(words[1]) < 1)):
            raise HostFileError(raw.strip())
        out.append((words[0], int(words[1]) if len(words) == 2 else 1))
    if not out:
        raise HostFileError("")
    return out


def encode(path: str, entries: list[tuple[str, int]]) -> str:
    """The kept form of a host file (see the module docstring)."""
    return "\n".join([f"{MARK} {path}"] + [f"{h} {n}" for h, n in entries])


def decode(kept: str | None) -> tuple[str, list[tuple[str, int]]] | None:
    """(path, lines) of a kept host file; None for -m's words or nothing."""
    if not kept or not kept.startswith(MARK + " "):
        return None
    first, *rest = kept.split("\n")
    entries = []
    for line in rest:
        host, _, n = line.partition(" ")
        entries.append((host, int(n)))
    return first[len(MARK) + 1:], entries


def total(entries: list[tuple[str, int]]) -> int:
    """The job's task count: the slots of every line."""
    return sum(n for _, n in entries)


def allocation(entries: list[tuple[str, int]]) -> list[str]:
    """One host per slot, in the file's order (LSB_HOSTS' order)."""
    return [h for h, n in entries for _ in range(n)]


def needs(entries: list[tuple[str, int]]) -> dict[str, int]:
    """The slots each host must give, a repeated host's lines summed."""
    out: dict[str, int] = {}
    for h, n in entries:
        out[h] = out.get(h, 0) + n
    return out


def fit(listed, want: dict[str, int], free: dict[str, int]) -> tuple[list[str] | None, list[str]]:
    """The allocation of a host file's lines *listed* (see `allocation`) when
    each host of *want* (`needs`) is among the usable hosts *free* (host ->
    its free slots) with its slots; else None. Also the hosts short of slots."""
    short = [h for h, n in want.items() if h in free and free[h] < n]
    if short or any(h not in free for h in want):
        return None, short
    return allocation(list(listed)), short


def log_words(kept: str | None) -> tuple[str, ...]:
    """The asked-hosts list lsb.events carries for a job's `asked_hosts`."""
    if not kept:
        return ()
    return tuple(kept.split("\n")) if decode(kept) is not None else tuple(kept.split())


def from_log_words(words) -> str | None:
    """`asked_hosts` again from a record's asked-hosts list."""
    if not words:
        return None
    return "\n".join(words) if words[0].startswith(MARK + " ") else " ".join(words)
