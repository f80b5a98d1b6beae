"""Test-suite setup: the lsfemu pytest plugin (registered by the package's
entry point when installed; loaded here when running from a bare checkout)."""

import os
import time
from importlib.metadata import entry_points

import pytest

_installed = any(ep.value == "lsfemu.testing" for ep in entry_points(group="pytest11"))
pytest_plugins = ["pytester"] + ([] if _installed else ["lsfemu.testing"])


@pytest.fixture
def utc():
    """Render times in UTC during a test (the golden files are in UTC)."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if old is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = old
    time.tzset()
