"""The jobs a cluster loads are moved out of the cyclic collector's reach
(gc.freeze): its full collections, set off at any moment, must not walk the
whole store (at 100k jobs one took 0.4 s in the middle of a pass)."""

from __future__ import annotations

import gc

from lsfemu.config.sample import write_cluster
from lsfemu.engine.cluster import Cluster
from test_kept_fairshare import _spec  # (tests/unit, beside this file)


def test_loaded_jobs_are_frozen(tmp_path, monkeypatch):
    monkeypatch.setenv("LSFEMU_CLOCK_START", "1767603600")
    envdir = write_cluster(str(tmp_path / "conf"))
    first = Cluster(str(envdir), str(tmp_path / "home"))
    for i in range(200):
        first.submit(_spec(f"user{i % 3 + 1}"))
    first.commit()
    first.session.close()
    first.engine.dispose()
    gc.unfreeze()
    try:
        cl = Cluster(str(envdir), str(tmp_path / "home"))
        assert len(cl.jobs) == 200
        # every loaded job object (and its ORM state) is among the frozen objects
        assert gc.get_freeze_count() >= 2 * len(cl.jobs)
        frozen_before = gc.get_freeze_count()
        gc.collect()
        assert gc.get_freeze_count() == frozen_before  # a collection leaves them where they are
    finally:
        gc.unfreeze()
