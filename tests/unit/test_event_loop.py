"""The virtual clock's event loop (Cluster.run_until) keeps the running
jobs' end instants in a heap for one call; it must process job ends and
passes in exactly the order a scan of every job at every step gives."""

from __future__ import annotations

import random

from lsfemu.config.sample import write_cluster
from lsfemu.engine.cluster import Cluster
from lsfemu.engine.jobs import SubmitSpec

import pytest

pytestmark = pytest.mark.slow(17)  # seconds, quiet machine: scheduled early (tests/conftest.py)


class ScanningCluster(Cluster):
    """The reference: no heap, every step looks at every job."""

    def _end_heap(self):
        return None


def _spec(user: str, runtime: int, slots: int, limit_min: float | None) -> SubmitSpec:
    return SubmitSpec(user=user, queue="normal", default_queue_used=True, command=f"sleep {runtime}", name=None,
                      num_processors=slots, max_processors=None, cwd="/tmp", home="/tmp", specified_cwd=None,
                      output_file=None, error_file=None, output_overwrite=False, error_overwrite=False,
                      run_limit_min=limit_min, submit_priority=None, res_req=None, mem_req_mb=None,
                      project="default", user_group=None, env={}, from_host="hostA")


def _run(cls, tmp_path, monkeypatch, name: str) -> list[tuple]:
    monkeypatch.setenv("LSFEMU_CLOCK_START", "1767603600")
    envdir = write_cluster(str(tmp_path / f"conf-{name}"))
    cl = cls(str(envdir), str(tmp_path / f"home-{name}"))
    rng = random.Random(7)
    passes = 0
    for wave in range(4):
        for i in range(40):
            runtime = rng.choice((5, 10, 10, 60, 61, 600, 3600))
            limit = rng.choice((None, None, None, 1.0, 5.0))
            cl.submit(_spec(f"user{rng.randint(1, 4)}", runtime, rng.choice((1, 1, 2)), limit))
        cl.commit()
        passes += cl.run_until(cl.now() + rng.choice((30, 600, 7200)))
        if wave == 1:  # a job stopped and resumed between two calls: its end moves
            running = sorted(k for k, j in cl.jobs.items() if j.status == "RUN")
            cl.stop(cl.jobs[running[0]], "user1")
            passes += cl.run_until(cl.now() + 300)
            cl.resume(cl.jobs[running[0]], "user1")
        cl.commit()
    for i in range(20):  # a last wave caught mid-way: some run, some wait
        cl.submit(_spec("user1", 3600, 1, None))
    passes += cl.run_until(cl.now() + 30)
    cl.commit()
    out = [(k, j.status, j.start_time, j.finish_time, j.exit_code) for k, j in sorted(cl.jobs.items())]
    cl.session.close()
    cl.events.close()
    cl.engine.dispose()
    return out + [("passes", passes)]


def test_heap_and_scan_agree(tmp_path, monkeypatch):
    got = _run(Cluster, tmp_path, monkeypatch, "heap")
    want = _run(ScanningCluster, tmp_path, monkeypatch, "scan")
    assert got == want
    statuses = {row[1] for row in got[:-1]}
    assert {"DONE", "EXIT", "RUN", "PEND"} <= statuses  # the run covered ends by limit, normal ends, waiting


def _starts(tmp_path, monkeypatch, params: str) -> list[float]:
    """Two jobs each asking for user1's 8 slots (MAX_JOBS), submitted at the clock's
    start: the instants the first and the second start (the second when the
    first, a 5-second job, has ended)."""
    monkeypatch.setenv("LSFEMU_CLOCK_START", "1767603600")
    name = str(abs(hash(params)))
    envdir = write_cluster(str(tmp_path / f"conf-{name}"))
    lsb = tmp_path / f"conf-{name}" / "lsbatch" / "cluster1" / "configdir" / "lsb.params"
    lsb.write_text(lsb.read_text().replace("End Parameters", params + "End Parameters"))
    cl = Cluster(str(envdir), str(tmp_path / f"home-{name}"))
    try:
        t0 = cl.now()
        jobs = [cl.submit(_spec("user1", 5, 8, None)) for _ in range(2)]
        cl.commit()
        cl.run_until(t0 + 60)
        return [j.start_time - t0 for j in jobs]
    finally:
        cl.close()


def test_job_scheduling_interval_passes_on_change_at_least_that_far_apart(tmp_path, monkeypatch):
    """Without JOB_SCHEDULING_INTERVAL passes keep the MBD_SLEEP_TIME grid (10 s
    here); with it a change (the submissions, the first job's end at 5 s) is
    scheduled at once, passes at least the interval apart (docs/semantics.md)."""
    assert _starts(tmp_path, monkeypatch, "") == [10.0, 20.0]
    assert _starts(tmp_path, monkeypatch, "JOB_SCHEDULING_INTERVAL = 0\n") == [0.0, 5.0]
    assert _starts(tmp_path, monkeypatch, "JOB_SCHEDULING_INTERVAL = 3\n") == [3.0, 8.0]
    assert _starts(tmp_path, monkeypatch, "JOB_SCHEDULING_INTERVAL = 1500 ms\n") == [1.5, 6.5]


class CountingCluster(Cluster):
    """Counts the builds of run_until's heap of job ends."""

    builds = 0

    def _end_heap(self):
        self.builds += 1
        return super()._end_heap()


def test_end_heap_is_kept_between_calls_and_changed_jobs_filed(tmp_path, monkeypatch):
    """A request reuses the heap of job ends the last run_until left instead
    of scanning every job again, also after a change: the changed jobs are
    filed again (Loop._ends). A stopped job does not end; a job whose end
    moved earlier (its run limit cut, as bmod -W does) ends at the new
    instant; a reload of the jobs builds the heap anew."""
    monkeypatch.setenv("LSFEMU_CLOCK_START", "1767603600")
    cl = CountingCluster(str(write_cluster(str(tmp_path / "conf"))), str(tmp_path / "home"))
    try:
        t0 = cl.now()
        jobs = [cl.submit(_spec("user2", runtime, 1, None)) for runtime in (100, 100, 80)]
        cl.commit()
        cl.run_until(t0 + 20)
        built = cl.builds
        for _ in range(3):
            cl.run_until(cl.now())
        cl.stop(jobs[0], "user2")
        cl.run_until(cl.now())
        jobs[1].run_limit_min = 0.5
        cl.commit()
        cl.run_until(t0 + 60)  # (its old entry, 100 s after its start, sits behind job 3's, 80 s)
        assert jobs[1].status == "EXIT" and jobs[2].status == "RUN"
        cl.run_until(t0 + 200)
        assert cl.builds == built
        assert [j.status for j in jobs] == ["USUSP", "EXIT", "DONE"]
        assert jobs[1].finish_time == jobs[1].start_time + 30
        assert jobs[2].finish_time == jobs[2].start_time + 80
        cl.reload_jobs()
        cl.run_until(cl.now())
        assert cl.builds == built + 1
    finally:
        cl.close()
