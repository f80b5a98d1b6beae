"""Golden files, one rule for every golden folder of the tests.

Each folder's README.md lists its files in a table, one row each:
``| `name` | real | source | — |`` or ``| `name` | derived | source | edits |``.
`real` is a byte-exact copy of a real LSF capture (or of a named contiguous
part of one); `derived` is made from a source with the edits listed
(tests/unit/test_goldens.py holds every folder's list to its files).

:func:`compare` checks a text against a golden file byte for byte. With
``LSFEMU_UPDATE_GOLDEN=1`` it rewrites a *derived* file that differs, and
then fails the test that did, so that an update cannot pass silently: the
run that updated goldens is red, the next one (the update looked at and
committed) is green. A *real* file is never rewritten: a difference is a
failure like any other.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent

#: a row of a README's table: the file name in backquotes, then its kind
_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*(real|derived)\s*\|(.*)\|\s*$")


def golden_folders() -> list[Path]:
    """Every golden folder under tests/ (named golden or golden_*)."""
    return sorted(p for p in ROOT.rglob("golden*") if p.is_dir() and "__pycache__" not in p.parts)


def rows(folder: Path) -> dict[str, tuple[str, list[str]]]:
    """The README's rows: file name -> (kind, the other cells: source, edits)."""
    readme = folder / "README.md"
    out: dict[str, tuple[str, list[str]]] = {}
    if not readme.exists():
        return out
    for line in readme.read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line)
        if m:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", m.group(3))]
            out[m.group(1)] = (m.group(2), cells)
    return out


def kind(path: Path) -> str | None:
    """`real`, `derived`, or None when the folder's README does not list the file."""
    row = rows(path.parent).get(path.name)
    return row[0] if row else None


def compare(path: Path, text: str) -> None:
    """*text* against the golden file *path*, byte for byte (module doc)."""
    expected = path.read_text(encoding="utf-8") if path.exists() else None
    if text == expected:
        return
    if os.environ.get("LSFEMU_UPDATE_GOLDEN") == "1" and kind(path) == "derived":
        path.write_text(text, encoding="utf-8")
        pytest.fail(f"{path.name}: golden file updated (LSFEMU_UPDATE_GOLDEN=1); look at the change, commit it "
                    f"and run again without LSFEMU_UPDATE_GOLDEN", pytrace=False)
    if expected is None:
        raise AssertionError(f"{path}: no such golden file")
    diff = "".join(difflib.unified_diff(expected.splitlines(keepends=True), text.splitlines(keepends=True),
                                        fromfile=f"{path.parent.name}/{path.name}", tofile="rendered"))
    note = " (a real capture: never rewritten by LSFEMU_UPDATE_GOLDEN)" if kind(path) == "real" else ""
    raise AssertionError(f"{path.name}: output differs from the golden file{note}\n{diff}")
