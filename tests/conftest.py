"""Test-suite setup: the lsfemu pytest plugin (registered by the package's
entry point when installed; loaded here when running from a bare checkout)."""

import compileall
import os
import time
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import lsfemu

# Property tests check what holds, not how fast hypothesis makes examples: on CI's two busy cores
# (three xdist workers, each with daemons) an example's time or the inputs' generation can pass
# hypothesis' 200 ms deadline or its too_slow health check without anything being wrong
# (test_escalation_counts_pending_time_only failed so at load 15). The examples and every
# assertion are unchanged; a test's own @settings still sets what it names.
settings.register_profile("lsfemu", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("lsfemu")

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



def pytest_configure(config):
    """Byte-compile lsfemu once, before any test (in the controller, not in each
    xdist worker). Every daemon and command the tests start imports it from this
    checkout in a process of its own; where PYTHONDONTWRITEBYTECODE is set (as on
    some CI runners and shared machines) none of them writes the .pyc files, and
    each daemon start compiled some 150 modules again: a third of a second of CPU,
    hundreds of times a run. compileall writes them whatever that setting says."""
    if not hasattr(config, "workerinput"):
        compileall.compile_dir(Path(lsfemu.__file__).parent, quiet=1)


def pytest_collection_modifyitems(config, items):
    """The longest files run first. pytest-xdist's --dist loadfile hands a file
    to a worker whole, in collection order (pyproject.toml turns off its own
    reordering by test count, which put the long one- or two-test files last,
    where one of them alone decided when the suite ended). A file marks itself
    `pytest.mark.slow(seconds)`: about how long its tests take together on a
    quiet machine; the rest keep their collection order after them."""

    def seconds(item) -> float:
        mark = item.get_closest_marker("slow")
        return -(mark.args[0] if mark and mark.args else 0)

    items.sort(key=seconds)  # stable
