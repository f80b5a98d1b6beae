"""Helpers of the event-log tests.

* :func:`at` turns ``"2021 Jan 10 17:50:11"`` into epoch seconds (UTC);
* :func:`assert_golden` compares text with ``golden/<name>.txt`` byte for
  byte (tests/goldens.py: ``LSFEMU_UPDATE_GOLDEN=1`` rewrites a derived file and
  fails the test that did; a real capture is never rewritten);
* :func:`awk_fpat_fields` splits a line the way gawk does with the snakemake
  plugin's ``FPAT = "([^ ]+)|(\\"[^\\"]+\\")"`` (leftmost-longest match).
"""

from __future__ import annotations

import calendar
import time
from pathlib import Path

from tests.goldens import compare

GOLDEN = Path(__file__).parent / "golden"


def at(text: str) -> int:
    return calendar.timegm(time.strptime(text, "%Y %b %d %H:%M:%S"))


def assert_golden(name: str, text: str) -> None:
    """*text* against ``golden/<name>.txt`` (tests/goldens.py)."""
    compare(GOLDEN / f"{name}.txt", text)


def awk_fpat_fields(line: str) -> list[str]:
    """Fields of *line* under FPAT ``([^ ]+)|("[^"]+")``: at each position the
    leftmost match, the longer of the two alternatives (POSIX semantics)."""
    out = []
    i, n = 0, len(line)
    while i < n:
        if line[i] == " ":
            i += 1
            continue
        j = i
        while j < n and line[j] != " ":
            j += 1
        best = j
        if line[i] == '"':
            k = line.find('"', i + 1)
            if k > i + 1 and k + 1 > best:
                best = k + 1
        out.append(line[i:best])
        i = best
    return out
