"""Event-log and bhist tests run with TZ=UTC (``time.tzset()``), restored afterwards.

Helpers (``at``, ``assert_golden``) live in events_helpers.py;
``LSFEMU_UPDATE_GOLDEN=1`` rewrites the derived goldens in ``golden/`` (tests/goldens.py).
"""

from __future__ import annotations


import pytest


@pytest.fixture(autouse=True)
def _utc(utc):
    """Every test here renders times in UTC (see tests/conftest.py)."""
