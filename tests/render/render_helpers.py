"""Helpers of the renderer tests (imported by conftest.py and the tests).

* :func:`assert_golden` compares text with ``tests/render/golden/<name>.txt``
  byte for byte; ``LSFEMU_UPDATE_GOLDEN=1`` rewrites the file instead -- but
  never for ``real=True`` goldens, which are copies of real LSF output and
  must only change by hand (with a note in the test);
* :func:`at` turns ``"2019 Mar 27 12:33:00"`` into epoch seconds (UTC).
"""

from __future__ import annotations

import calendar
import difflib
import os
import time
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


def at(text: str) -> float:
    """``"YYYY Mon DD HH:MM:SS"`` (UTC) -> epoch seconds."""
    return float(calendar.timegm(time.strptime(text, "%Y %b %d %H:%M:%S")))


def read_golden(name: str) -> str:
    return (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")


def assert_golden(name: str, text: str, *, real: bool = False) -> None:
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("LSFEMU_UPDATE_GOLDEN") == "1" and not real:
        path.write_text(text, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=f"golden/{name}.txt",
                tofile="rendered",
            )
        )
        raise AssertionError(f"{name}: output differs from the golden file\n{diff!r}\n{diff}")
