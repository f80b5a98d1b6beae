"""Test-suite setup: the lsfemu pytest plugin (registered by the package's
entry point when installed; loaded here when running from a bare checkout)."""

from importlib.metadata import entry_points

_installed = any(ep.value == "lsfemu.testing" for ep in entry_points(group="pytest11"))
pytest_plugins = ["pytester"] + ([] if _installed else ["lsfemu.testing"])
