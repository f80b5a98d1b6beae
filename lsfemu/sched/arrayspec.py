"""Job array specifications, as pure functions: ``bsub -J "name[1-10:2,15]%5"``
and the index lists of job IDs (``bkill "123[1-5]"``).

Grammar (OpenLava's idxparse, LSF's bsub -J): ``[`` item {``,`` item} ``]``
then optionally ``%limit``; an item is ``start``, ``start-end`` or
``start-end:step`` of positive decimal integers. Errors carry LSF's
lsberrno texts, as bsub prints them (``<text>. Job not submitted.``):

* the brackets or numbers are malformed (or anything follows ``]`` but
  ``%N``, N >= 1): ``Bad job name``;
* an index or step below 1, or start > end: ``Job array index error``;
* more elements than MAX_JOB_ARRAY_SIZE, or an index above it (LSF: "the
  maximum job array index can never exceed" MAX_JOB_ARRAY_SIZE):
  ``Job array index too large``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BAD_JOB_NAME = "Bad job name"
BAD_INDEX = "Job array index error"
BIG_INDEX = "Job array index too large"

_ITEM = re.compile(r"([0-9]{1,10})(?:-([0-9]{1,10})(?::([0-9]{1,10}))?)?")
_LIMIT = re.compile(r"%([0-9]{1,10})")


class ArraySpecError(ValueError):
    """A bad array specification; ``text`` is LSF's message."""

    def __init__(self, text: str):
        self.text = text
        super().__init__(text)


Range = tuple[int, int, int]  # start, end, step


@dataclass(frozen=True)
class ArraySpec:
    """A parsed ``-J`` value of a job array."""

    text: str  # as given: "name[1-10]%5"
    name: str  # the part before "[": "name"
    ranges: tuple[Range, ...]
    limit: int | None  # %N: at most N elements running at once

    def indices(self) -> list[int]:
        return indices_of(self.ranges)


def indices_of(ranges: tuple[Range, ...] | list[Range]) -> list[int]:
    """Every index of the ranges, in the order given, each once."""
    seen: set[int] = set()
    out: list[int] = []
    for start, end, step in ranges:
        for i in range(start, end + 1, step):
            if i not in seen:
                seen.add(i)
                out.append(i)
    return out


def in_ranges(index: int, ranges: tuple[Range, ...] | list[Range]) -> bool:
    return any(s <= index <= e and (index - s) % st == 0 for s, e, st in ranges)


def parse_index_list(text: str) -> tuple[Range, ...]:
    """``1-10:2,15`` (without brackets) -> ranges; ArraySpecError otherwise.
    Only the syntax and positivity are checked here (no size limit)."""
    if not text:
        raise ArraySpecError(BAD_JOB_NAME)
    ranges: list[Range] = []
    for item in text.split(","):
        m = _ITEM.fullmatch(item)
        if not m:
            raise ArraySpecError(BAD_JOB_NAME)
        start = int(m.group(1))
        end = int(m.group(2)) if m.group(2) is not None else start
        step = int(m.group(3)) if m.group(3) is not None else 1
        if start < 1 or step < 1 or start > end:
            raise ArraySpecError(BAD_INDEX)
        ranges.append((start, end, step))
    return tuple(ranges)


def count_of(ranges: tuple[Range, ...] | list[Range]) -> int:
    """Elements counted as LSF counts them for the size check (duplicates included)."""
    return sum((e - s) // st + 1 for s, e, st in ranges)


def parse_array_name(text: str, max_size: int) -> ArraySpec | None:
    """The array specification in a ``-J`` value, or None when it names a
    plain job (no ``[``). Raises ArraySpecError."""
    if "[" not in text and "]" not in text:
        return None
    open_at = text.find("[")
    close_at = text.find("]", open_at + 1) if open_at >= 0 else -1
    if open_at < 0 or close_at < 0 or "[" in text[open_at + 1:close_at] or "]" in text[:open_at]:
        raise ArraySpecError(BAD_JOB_NAME)
    name = text[:open_at]
    ranges = parse_index_list(text[open_at + 1:close_at])
    rest = text[close_at + 1:]
    limit = None
    if rest:
        m = _LIMIT.fullmatch(rest)
        if not m or int(m.group(1)) < 1:
            raise ArraySpecError(BAD_JOB_NAME)
        limit = int(m.group(1))
    if count_of(ranges) > max_size or max(e for _, e, _ in ranges) > max_size:
        raise ArraySpecError(BIG_INDEX)
    return ArraySpec(text=text, name=name, ranges=ranges, limit=limit)


def format_ranges(indices: list[int]) -> str:
    """Indices as LSF condenses them: ``1-3,5,7-9`` (sorted, consecutive runs)."""
    idx = sorted(set(indices))
    parts: list[str] = []
    i = 0
    while i < len(idx):
        j = i
        while j + 1 < len(idx) and idx[j + 1] == idx[j] + 1:
            j += 1
        parts.append(str(idx[i]) if i == j else f"{idx[i]}-{idx[j]}")
        i = j + 1
    return ",".join(parts)
