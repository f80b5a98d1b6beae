"""Helpers of the renderer tests (imported by conftest.py and the tests).

* :func:`assert_golden` compares text with ``tests/render/golden/<name>.txt``
  byte for byte (tests/goldens.py: golden/README.md says which files are real
  captures, never rewritten; ``LSFEMU_UPDATE_GOLDEN=1`` rewrites a derived one
  and fails the test that did);
* :func:`at` turns ``"2019 Mar 27 12:33:00"`` into epoch seconds (UTC).
"""

from __future__ import annotations

import calendar
import time
from pathlib import Path

from tests.goldens import compare

GOLDEN = Path(__file__).parent / "golden"


def at(text: str) -> float:
    """``"YYYY Mon DD HH:MM:SS"`` (UTC) -> epoch seconds."""
    return float(calendar.timegm(time.strptime(text, "%Y %b %d %H:%M:%S")))


def read_golden(name: str) -> str:
    return (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")


def assert_golden(name: str, text: str) -> None:
    """*text* against ``golden/<name>.txt`` (tests/goldens.py: real files are
    never rewritten; LSFEMU_UPDATE_GOLDEN rewrites a derived one and fails)."""
    compare(GOLDEN / f"{name}.txt", text)
