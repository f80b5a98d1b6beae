"""The import contracts of pyproject.toml ([tool.importlinter]; docs/architecture.md)
hold: the layers, the purity of sched and render, the standard-library-only wire
format and job states, no circles between packages."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_hold(capsys, monkeypatch):
    from importlinter.cli import lint_imports

    monkeypatch.chdir(ROOT)  # grimp finds lsfemu on sys.path: this checkout's
    monkeypatch.syspath_prepend(str(ROOT))
    rc = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    assert rc == 0, capsys.readouterr().out
