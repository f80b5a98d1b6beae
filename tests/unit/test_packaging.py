"""The wheel holds every package: pyproject.toml lists lsfemu's packages by hand
(the migrations are mapped in from outside lsfemu/), so a new package directory
missing from the list would be left out of an installed lsfemu, which the tests,
importing from the checkout, would not notice."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_directory_is_in_the_wheel():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "lsfemu").rglob("__init__.py")}
    assert found - listed == set(), "packages missing from [tool.setuptools] packages in pyproject.toml"
    assert {p for p in listed if not p.startswith("lsfemu.migrations")} == found


def test_every_command_is_installed_as_its_bin_script():
    """The commands are bin/'s scripts (pyproject's script-files, installed as
    they are: they start Python with -I -S, issue 23), not console scripts: a
    command added to bin/ must be listed there, and none as a console script
    too (pip would write both to one file)."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = conf["tool"]["setuptools"]["script-files"]
    assert sorted(listed) == sorted(f"bin/{p.name}" for p in (ROOT / "bin").iterdir())
    assert not set(conf["project"].get("scripts", {})) & {p.name for p in (ROOT / "bin").iterdir()}
