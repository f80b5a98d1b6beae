"""Renderer tests run with TZ=UTC (``time.tzset()``), restored afterwards.

Helpers (``assert_golden``, ``at``, ``read_golden``) live in render_helpers.py;
``LSFEMU_UPDATE_GOLDEN=1`` makes ``assert_golden`` rewrite the derived goldens (tests/goldens.py).
"""

from __future__ import annotations


import pytest

from render_helpers import assert_golden


@pytest.fixture
def golden():
    return assert_golden


@pytest.fixture(autouse=True)
def _utc(utc):
    """Every test here renders times in UTC (see tests/conftest.py)."""
