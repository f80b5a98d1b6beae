"""Event-log and bhist tests run with TZ=UTC (``time.tzset()``), restored afterwards.

Helpers (``at``, ``assert_golden``) live in events_helpers.py;
``LSFEMU_UPDATE_GOLDEN=1`` rewrites the hand-made goldens in ``golden/``.
"""

from __future__ import annotations

import os
import time

import pytest


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
