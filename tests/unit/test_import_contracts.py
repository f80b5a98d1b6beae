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


def _unexplained_imports_inside_functions(path: Path) -> list[str]:
    """Imports that are not at a module's top level and have no comment on their line,
    on the line before, or before the run of import lines they belong to."""
    import ast

    lines = path.read_text().split("\n")
    found = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.col_offset == 0:
            continue
        i = node.lineno - 1
        explained = "#" in lines[i]
        j = i - 1
        while not explained and j >= 0:
            text = lines[j].strip()
            code = text.split("#", 1)[0].rstrip()
            if text.startswith("#") or "#" in text and (code.endswith(":") or code.startswith(("import ", "from "))):
                explained = True  # a comment line, a commented block header or import of the same run
            elif text.startswith(("import ", "from ")) or text == "" and lines[j - 1].strip().startswith(("import ", "from ")):
                j -= 1  # the same run of imports
                continue
            break
        if not explained:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[i].strip()}")
    return found


def test_imports_inside_functions_say_why():
    """Imports go at the top of a module unless a comment says why not (the start-up
    cost of a command's path, an optional dependency, a cycle to break)."""
    found = [f for p in sorted((ROOT / "lsfemu").rglob("*.py")) for f in _unexplained_imports_inside_functions(p)]
    assert found == [], "\n".join(found)
