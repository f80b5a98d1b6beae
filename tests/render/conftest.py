"""Renderer tests run with TZ=UTC (``time.tzset()``), restored afterwards.

Helpers (``assert_golden``, ``at``, ``read_golden``) live in render_helpers.py;
``LSFEMU_UPDATE_GOLDEN=1`` makes ``assert_golden`` rewrite hand-made goldens.
"""

from __future__ import annotations

import os
import time

import pytest

from render_helpers import assert_golden


@pytest.fixture(autouse=True)
def _utc():
    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if old is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = old
    time.tzset()


@pytest.fixture
def golden():
    return assert_golden
