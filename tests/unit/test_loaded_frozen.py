"""The jobs a cluster loads are moved out of the cyclic collector's reach
(gc.freeze): its full collections, set off at any moment, must not walk the
whole store (at 100k jobs one took 0.4 s in the middle of a pass)."""

from __future__ import annotations

import gc

from sqlalchemy import inspect

from lsfemu.config.sample import write_cluster
from lsfemu.engine.cluster import Cluster
from test_kept_fairshare import _spec  # (tests/unit, beside this file)


def _stored(tmp_path, monkeypatch, n: int, seen=None):
    """A store with *n* pending jobs of three users, written by a cluster now
    closed (*seen*: called with its jobs first); the collector unfrozen."""
    monkeypatch.setenv("LSFEMU_CLOCK_START", "1767603600")
    envdir = write_cluster(str(tmp_path / "conf"))
    first = Cluster(str(envdir), str(tmp_path / "home"))
    for i in range(n):
        first.submit(_spec(f"user{i % 3 + 1}"))
    first.commit()
    if seen is not None:
        seen(first.jobs)
    first.session.close()
    first.engine.dispose()
    gc.unfreeze()
    return envdir


def test_loaded_jobs_are_frozen(tmp_path, monkeypatch):
    envdir = _stored(tmp_path, monkeypatch, 200)
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


def test_loaded_jobs_share_equal_values_and_read_the_same(tmp_path, monkeypatch):
    """A loaded job keeps one object per distinct string or float value across
    all loaded jobs (store.jobs.kept, issue 23 part 3b: the daemon's memory per
    job), keyed by the identity map's own (id, array_index); every column reads
    as it did before the load."""
    before = {}
    envdir = _stored(tmp_path, monkeypatch, 30, lambda jobs: before.update(
        {k: {a: getattr(j, a) for a in j.__table__.columns.keys()} for k, j in jobs.items()}))
    try:
        cl = Cluster(str(envdir), str(tmp_path / "home"))
        after = {k: {a: getattr(j, a) for a in j.__table__.columns.keys()} for k, j in cl.jobs.items()}
        assert after == before and all(k == (j.id, j.array_index) for k, j in cl.jobs.items())
        jobs = list(cl.jobs.values())
        for attr in ("user", "queue", "status", "cwd", "submit_time"):
            assert len({id(getattr(j, attr)) for j in jobs}) == len({getattr(j, attr) for j in jobs}), attr
        assert len({getattr(j, "user") for j in jobs}) == 3
        assert all(k is inspect(j).key[1] for k, j in cl.jobs.items())  # the identity map's key object itself
    finally:
        gc.unfreeze()
