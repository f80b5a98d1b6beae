"""The jobs a cluster loads are moved out of the cyclic collector's reach
(gc.freeze): its full collections, set off at any moment, must not walk the
whole store (at 100k jobs one took 0.4 s in the middle of a pass)."""

from __future__ import annotations

import gc

from lsfemu.config.sample import write_cluster
from lsfemu.engine.cluster import Cluster
from lsfemu.store.records import COLUMNS, is_record
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
        # every loaded job (a record: lsfemu.store.records) is among the frozen objects
        assert gc.get_freeze_count() >= len(cl.jobs)
        frozen_before = gc.get_freeze_count()
        gc.collect()
        assert gc.get_freeze_count() == frozen_before  # a collection leaves them where they are
    finally:
        gc.unfreeze()


def test_loaded_jobs_share_equal_values_and_read_the_same(tmp_path, monkeypatch):
    """A loaded job keeps one object per distinct string or float value across
    all loaded jobs (store.records, issue 23 part 3b: the daemon's memory per
    job); every column reads as it did before the load; the jobs are records,
    none of them in the session."""
    before = {}
    envdir = _stored(tmp_path, monkeypatch, 30, lambda jobs: before.update(
        {k: {a: getattr(j, a) for a in COLUMNS} for k, j in jobs.items()}))
    try:
        cl = Cluster(str(envdir), str(tmp_path / "home"))
        after = {k: {a: getattr(j, a) for a in COLUMNS} for k, j in cl.jobs.items()}
        assert after == before and all(k == (j.id, j.array_index) for k, j in cl.jobs.items())
        jobs = list(cl.jobs.values())
        for attr in ("user", "queue", "status", "cwd", "submit_time"):
            assert len({id(getattr(j, attr)) for j in jobs}) == len({getattr(j, attr) for j in jobs}), attr
        assert len({getattr(j, "user") for j in jobs}) == 3
        assert all(is_record(j) for j in jobs) and not any(k[0].__name__ == "Job" for k in cl.session.identity_map)
    finally:
        gc.unfreeze()


def test_a_record_written_is_an_orm_object_until_the_commit(tmp_path, monkeypatch):
    """The first assignment to a held record makes it, in place (the object the
    cluster's caches hold), an ORM object of the session; the commit writes the
    change and makes it a record again; a new job is a record after its commit
    too; a cluster loading the store again reads the change (lsfemu.store.records)."""
    envdir = _stored(tmp_path, monkeypatch, 3)
    try:
        cl = Cluster(str(envdir), str(tmp_path / "home"))
        key, job = next(iter(cl.jobs.items()))
        assert is_record(job) and cl.tally.by_user()["user1"]["PEND"] == 1
        job.num_processors = 4  # (the tally listens to this column: it hears of the change)
        assert not is_record(job) and job in cl.session and cl.jobs[key] is job
        assert cl.tally.by_user()["user1"]["PEND"] == 4
        new = cl.submit(_spec("user2"))
        cl.commit()
        assert is_record(job) and job.num_processors == 4 and cl.jobs[key] is job
        assert is_record(cl.jobs[(new.id, 0)]) and not any(k[0].__name__ == "Job" for k in cl.session.identity_map)
        # a job submitted (a record at once) and one changed share their equal texts with the
        # others, as loaded ones do: one environment object, not a copy per job sent
        other = cl.submit(_spec("user2"))
        cl.commit()
        made, second = cl.jobs[(new.id, 0)], cl.jobs[(other.id, 0)]
        assert made.env_json == second.env_json and made.env_json is second.env_json
        assert made.cwd is job.cwd and made.queue is job.queue  # (job: changed, a record again)
        cl.session.close()
        cl.engine.dispose()
        again = Cluster(str(envdir), str(tmp_path / "home"))
        assert again.jobs[key].num_processors == 4 and len(again.jobs) == 5
    finally:
        gc.unfreeze()
