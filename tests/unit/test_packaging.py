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
