"""Fidelity hygiene of the golden files (issue 21, part 6): every golden
folder's README.md marks each of its files `real` (a byte-exact copy of a real
capture, with its source) or `derived` (its source and each edit), and
LSFEMU_UPDATE_GOLDEN never rewrites a real capture and fails the run that
rewrote a derived one (tests/goldens.py)."""

from __future__ import annotations

import pytest

from tests import goldens

FOLDERS = goldens.golden_folders()


def test_the_golden_folders_are_found():
    names = {str(f.relative_to(goldens.ROOT)) for f in FOLDERS}
    assert {"render/golden", "events/golden", "e2e/golden", "unit/golden_hosts"} <= names


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: str(f.relative_to(goldens.ROOT)))
def test_every_golden_file_is_marked_real_or_derived(folder):
    files = {p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("README")
             and not p.name.endswith(".README.md")}
    listed = goldens.rows(folder)
    assert set(listed) == files, f"{folder}/README.md: unlisted {sorted(files - set(listed))}, " \
                                 f"listed but absent {sorted(set(listed) - files)}"
    for name, (kind, cells) in listed.items():
        source, edits = (cells + ["", ""])[:2]
        assert source and source not in ("—", "-"), f"{name}: no source"
        if kind == "derived":
            assert edits and edits not in ("—", "-"), f"{name}: derived without its edits"


def _folder(tmp_path, text_real="real text\n", text_derived="derived text\n"):
    (tmp_path / "README.md").write_text(
        "| file | kind | source | edits |\n| --- | --- | --- | --- |\n"
        "| `cap.txt` | real | a capture | — |\n| `made.txt` | derived | a rule | hand-made |\n")
    (tmp_path / "cap.txt").write_text(text_real)
    (tmp_path / "made.txt").write_text(text_derived)
    return tmp_path


def test_update_never_rewrites_a_real_capture(tmp_path, monkeypatch):
    folder = _folder(tmp_path)
    monkeypatch.setenv("LSFEMU_UPDATE_GOLDEN", "1")
    with pytest.raises(AssertionError, match="a real capture: never rewritten"):
        goldens.compare(folder / "cap.txt", "other text\n")
    assert (folder / "cap.txt").read_text() == "real text\n"
    goldens.compare(folder / "cap.txt", "real text\n")  # equal: passes


def test_update_rewrites_a_derived_file_and_fails_the_test(tmp_path, monkeypatch):
    folder = _folder(tmp_path)
    monkeypatch.setenv("LSFEMU_UPDATE_GOLDEN", "1")
    with pytest.raises(pytest.fail.Exception, match="golden file updated"):
        goldens.compare(folder / "made.txt", "new text\n")
    assert (folder / "made.txt").read_text() == "new text\n"
    goldens.compare(folder / "made.txt", "new text\n")  # the next run passes
    monkeypatch.delenv("LSFEMU_UPDATE_GOLDEN")
    with pytest.raises(AssertionError, match="output differs"):
        goldens.compare(folder / "made.txt", "newer text\n")
    assert (folder / "made.txt").read_text() == "new text\n"


def test_an_unlisted_file_is_not_rewritten(tmp_path, monkeypatch):
    folder = _folder(tmp_path)
    (folder / "stray.txt").write_text("x\n")
    monkeypatch.setenv("LSFEMU_UPDATE_GOLDEN", "1")
    with pytest.raises(AssertionError):
        goldens.compare(folder / "stray.txt", "y\n")
    assert (folder / "stray.txt").read_text() == "x\n"
