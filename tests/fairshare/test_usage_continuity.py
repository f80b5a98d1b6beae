"""A user's fairshare usage never jumps when one of the user's runs ends.

While a job runs, its CPU time and run time count decayed (docs/semantics.md);
when the run ends (the job finishes, is killed, requeued, rerun after a host
failure or migrated) the same amounts go to the user's history and decay from
there. So at the instant of the end, the user's decayed CPU time, historical
plus current run time and GPU run time are the same just before and just
after, whatever the job (slots, run and CPU time, a suspension, a run limit)
and whatever the factors (HIST_HOURS, RUN_TIME_DECAY). A restarted daemon,
which rebuilds the history from the finished jobs, finds the same usage.

These drive the daemon's own Cluster in process with a virtual clock.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.slow(7)  # seconds, quiet machine: scheduled early (tests/conftest.py)

QUEUES = """Begin Queue
QUEUE_NAME = fair
PRIORITY = 30
FAIRSHARE = USER_SHARES[[u1, 1] [default, 1]]
End Queue
"""
PARAMS = """Begin Parameters
DEFAULT_QUEUE = fair
MBD_SLEEP_TIME = 10
CLEAN_PERIOD = 10000000
ENABLE_HIST_RUN_TIME = Y
HIST_HOURS = {hist}
RUN_TIME_DECAY = {decay}
End Parameters
"""
HOSTS = "Begin Host\nHOST_NAME MXJ\nh0 4\nh1 4\nEnd Host\n"
CLUSTER = ("Begin ClusterAdmins\nAdministrators = lsfadmin\nEnd ClusterAdmins\n\nBegin Host\n"
           "HOSTNAME model type server r1m mem swp RESOURCES\nh0 ! ! 1 - - - ()\nh1 ! ! 1 - - - ()\nEnd Host\n")


def _cluster(root: Path, hist: float, decay: bool):
    from lsfemu.config.sample import write_cluster
    from lsfemu.engine.cluster import Cluster

    envdir = Path(write_cluster(str(root / "conf"), force=True))
    lsb = envdir / "lsbatch/cluster1/configdir"
    (lsb / "lsb.queues").write_text(QUEUES)
    (lsb / "lsb.params").write_text(PARAMS.format(hist=hist, decay="Y" if decay else "N"))
    (lsb / "lsb.hosts").write_text(HOSTS)
    (envdir / "lsf.cluster.cluster1").write_text(CLUSTER)
    os.environ["LSFEMU_CLOCK_START"] = "1767603600"
    return Cluster(str(envdir), str(root / "home")), str(envdir)


def _submit(cl, slots: int, runtime: int, cputime: int, ngpus: int = 0, limit_min: float | None = None):
    from lsfemu.engine.jobs import SubmitSpec

    return cl.submit(SubmitSpec(
        user="u1", queue="fair", default_queue_used=False, command=f"sleep {runtime}", name=None,
        num_processors=slots, max_processors=None, cwd="/", home="/", specified_cwd=None, output_file=None,
        error_file=None, output_overwrite=False, error_overwrite=False, run_limit_min=limit_min,
        submit_priority=None, res_req=None, mem_req_mb=None, project="default", user_group=None,
        env={"LSFEMU_CPUTIME": str(cputime)}, from_host="h0", rerunnable=True, ngpus=ngpus))


def _usage(cl, t: float) -> tuple[float, float, float]:
    """u1's decayed CPU hours, historical + current run hours, GPU hours at *t*."""
    u = cl.fairshare(t).state("fair").user_usage("u1")
    return u.cpu_time, u.hist_run_time + u.run_time, u.gpu_hours(True)


def _same(after: tuple, before: tuple) -> None:
    for name, a, b in zip(("cpu_time", "run time", "GPU run time"), after, before):
        assert a <= b + 1e-9 * max(1.0, b), f"{name} jumped up at the end: {b} -> {a}"
        assert a == pytest.approx(b, rel=1e-9, abs=1e-9), f"{name} jumped at the end: {b} -> {a}"


ENDS = ("done", "runlimit", "kill", "requeue", "rerun", "migrate")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hist=st.sampled_from([0, 0.5, 5]), decay=st.booleans(), slots=st.integers(1, 3),
       runtime=st.integers(60, 6 * 3600), cpu_per_run_s=st.floats(0.0, 3.0), ngpus=st.sampled_from([0, 0, 2]),
       earlier=st.booleans(), end=st.sampled_from(ENDS), at=st.floats(0.05, 0.95),
       suspend=st.none() | st.tuples(st.floats(0.0, 0.9), st.integers(1, 7200)),
       later=st.integers(0, 20 * 3600))
def test_usage_never_jumps_when_a_run_ends(hist, decay, slots, runtime, cpu_per_run_s, ngpus, earlier, end, at,
                                            suspend, later):
    from lsfemu.engine.cluster import Cluster

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cl, envdir = _cluster(root, hist, decay)
        try:
            if earlier:  # some history before the job
                _submit(cl, 1, 1800, 900)
                cl.advance(3 * 3600)
            # -W is whole minutes (a limit under the first pass would end the job before it is watched)
            limit = max(1, int(runtime * at / 60)) if end == "runlimit" else None
            job = _submit(cl, slots, runtime, int(runtime * slots * cpu_per_run_s), ngpus, limit)
            cl.advance(10)  # the first pass starts it
            assert job.status == "RUN"
            if suspend is not None:
                cl.advance(runtime * suspend[0])
                if job.status == "RUN":
                    cl.stop(job, "lsfadmin")
                    cl.advance(suspend[1])
                    cl.resume(job, "lsfadmin")
            if job.status != "RUN":
                return  # it ended inside the step (its run limit): not watched
            if end in ("done", "runlimit"):
                t = cl._end_instant(job)[0]
                cl.run_until(t - 0.25)
                assert job.status == "RUN"
                before = _usage(cl, t)
                cl.run_until(t)
                assert job.status in ("DONE", "EXIT")
            else:
                cl.advance(max(1.0, runtime * at * 0.5))
                if job.status != "RUN":
                    return  # ended on its own first: the case above
                t = cl.now()
                before = _usage(cl, t)
                if end == "kill":
                    cl.kill(job, "lsfadmin")
                elif end == "requeue":
                    cl.requeue(job, "lsfadmin")
                elif end == "migrate":
                    cl.migrate(job, "lsfadmin")
                else:
                    cl.fail_host(job.exec_hosts.split()[0], "lsfadmin")
                assert job.status in ("EXIT", "PEND")
            _same(_usage(cl, t), before)
            if job.status not in ("DONE", "EXIT"):
                return
            # A restarted daemon rebuilds the history from the finished jobs: the same usage.
            cl.run_until(t + later)
            now = cl.now()
            kept = _usage(cl, now)
            cl.commit()
        finally:
            cl.session.close()
            cl.engine.dispose()
        cl = Cluster(envdir, str(root / "home"))
        try:
            cl.restart_usage()
            assert _usage(cl, now) == pytest.approx(kept, rel=1e-9, abs=1e-9)
        finally:
            cl.session.close()
            cl.engine.dispose()
