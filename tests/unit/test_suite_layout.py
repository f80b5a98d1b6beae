"""The suite's own layout: the test folders are not packages (rootdir-relative
imports), so two test files with one basename collide when pytest-xdist gives
them to one worker ("import file mismatch"; it broke CI once, tests/unit and
tests/e2e both had test_lessons.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_two_test_files_share_a_basename():
    names = Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert not [n for n, k in names.items() if k > 1], sorted(n for n, k in names.items() if k > 1)
