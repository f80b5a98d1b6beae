"""The delta pass (issue 23, part 4: lsfemu.sched.delta, lsfemu.engine.passdelta)
against the straightforward pass of tests/unit/test_pass_equivalence.py, on
random clusters whose orders are fixed between passes (plain queues, one
with UJOB_LIMIT, one with HJOB_LIMIT, no escalation; and the same as
fairshare queues, queue-level and under a host partition, where each
user's order is fixed) and random histories:
both start the same jobs on the same hosts and leave every pending job the
same reasons; and, in a cluster made for it, the pass after a job end is a
delta pass.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_pass_equivalence import _check_pass, _hosts, _spec  # (the reference pass and its check)

pytestmark = pytest.mark.slow(14)  # seconds, quiet machine

QUEUES = """Begin Queue
QUEUE_NAME = high
PRIORITY = 50
UJOB_LIMIT = 3
End Queue

Begin Queue
QUEUE_NAME = low
PRIORITY = 30
HJOB_LIMIT = 2
End Queue

Begin Queue
QUEUE_NAME = plain
PRIORITY = 20
End Queue
"""

PARAMS = """Begin Parameters
DEFAULT_QUEUE = low
MBD_SLEEP_TIME = 10
MAX_USER_PRIORITY = 100
End Parameters
"""


#: the fairshare cluster: a share tree with a subtree (high), a group account
#: whose members compete first come first served and a user with no account
#: (low: ud never runs there), a plain queue; RUN_TIME_FACTOR and the decay
#: of the history move the users' dynamic priorities between passes
FAIR_QUEUES = """Begin Queue
QUEUE_NAME = high
PRIORITY = 50
UJOB_LIMIT = 3
FAIRSHARE = USER_SHARES[[top, 1]]
End Queue

Begin Queue
QUEUE_NAME = low
PRIORITY = 30
HJOB_LIMIT = 2
FAIRSHARE = USER_SHARES[[ua, 3] [grp, 2]]
End Queue

Begin Queue
QUEUE_NAME = plain
PRIORITY = 20
End Queue
"""

FAIR_USERS = """Begin UserGroup
GROUP_NAME GROUP_MEMBER USER_SHARES
sub (uc ud) ([uc, 1] [ud, 2])
top (ua ub sub) ([ua, 3] [ub, 1] [sub, 2])
grp (ub uc) ()
End UserGroup
"""


#: lsb.hosts' host partition for the fairshare runs that have one: the plain
#: queue's hosts all lie in it, so that queue is host-partition fairshare
HPART = """
Begin HostPartition
HPART_NAME = part1
HOSTS = h0 h1 h2
USER_SHARES = [ua, 2] [default, 1]
End HostPartition
"""


def _cluster(root: Path, mxj: list[int], fair: bool = False, hpart: bool = False):
    from lsfemu.config.sample import write_cluster
    from lsfemu.engine.cluster import Cluster

    envdir = Path(write_cluster(str(root / "conf"), force=True))
    lsb = envdir / "lsbatch/cluster1/configdir"
    hosts, cluster = _hosts(mxj)
    (lsb / "lsb.queues").write_text(FAIR_QUEUES if fair else QUEUES)
    # (no MAX_JOBS)
    (lsb / "lsb.users").write_text(FAIR_USERS if fair else "Begin UserGroup\nGROUP_NAME GROUP_MEMBER\nEnd UserGroup\n")
    (lsb / "lsb.params").write_text(PARAMS)
    (lsb / "lsb.hosts").write_text(hosts + (HPART if hpart else ""))
    (envdir / "lsf.cluster.cluster1").write_text(cluster)
    os.environ["LSFEMU_CLOCK_START"] = "1767603600"
    return Cluster(str(envdir), str(root / "home"))


def _jobs_and_steps(users: list[str]):
    """The strategies of a job (of *users*) and of a step of the history."""
    jobs = st.tuples(st.sampled_from(users), st.sampled_from(["high", "low", "plain"]),
                     st.sampled_from([1, 1, 1, 2]), st.one_of(st.none(), st.integers(1, 100)),
                     st.sampled_from([None, None, 1000]), st.integers(30, 600))
    return jobs, st.one_of(
        st.tuples(st.just("submit"), st.lists(jobs, min_size=1, max_size=6)),
        st.tuples(st.sampled_from(["kill", "stop", "resume", "switch"]), st.integers(0, 10_000)),
        st.tuples(st.just("advance"), st.integers(1, 900)),
        st.tuples(st.just("sp"), st.integers(0, 10_000), st.integers(1, 100)),
    )


job_st, step_st = _jobs_and_steps(["ua", "ub", "uc"])


def _end(cl, fin) -> float:
    """The job end *fin* (Cluster.next_finish: instant, job, by a limit) alone, the pass due with it not run."""
    t, job, _limit = fin
    cl.clock.virtual_now = max(cl.clock.virtual_now, t)
    cl.processed_until = max(cl.processed_until, t)
    cl._finish(job, t, "DONE", None, None)  # (the jobs have no limit, and exit 0)
    return t


def _count_delta_passes(monkeypatch) -> list[bool]:
    """Record, for each pass that tried a delta pass, whether it was one."""
    from lsfemu.engine import passdelta

    ran: list[bool] = []
    real_run = passdelta.run

    def counted(*a):
        result = real_run(*a)
        ran.append(result is not None)
        return result

    monkeypatch.setattr(passdelta, "run", counted)
    return ran


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(mxj=st.lists(st.integers(1, 4), min_size=1, max_size=3), first=st.lists(job_st, min_size=1, max_size=30),
       steps=st.lists(step_st, max_size=8))
def test_the_delta_pass_equals_the_straightforward_pass(tmp_path_factory, mxj, first, steps):
    _run(_cluster(tmp_path_factory.mktemp("d"), mxj), first, steps)


fair_job_st, fair_step_st = _jobs_and_steps(["ua", "ub", "uc", "ud"])  # (ud: no account in low)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(mxj=st.lists(st.integers(1, 4), min_size=1, max_size=3), first=st.lists(fair_job_st, min_size=1, max_size=30),
       steps=st.lists(fair_step_st, max_size=8), hpart=st.booleans())
def test_the_fairshare_delta_pass_equals_the_straightforward_pass(tmp_path_factory, mxj, first, steps, hpart):
    """The same on fairshare queues: each user's order kept, the users
    merged by their dynamic priorities of the pass's instant (with *hpart*
    the plain queue too, under a host partition's share tree)."""
    cl = _cluster(tmp_path_factory.mktemp("f"), mxj, fair=True, hpart=hpart)
    assert ("plain" in cl.passes.kept.fair) == hpart
    _run(cl, first, steps)


def _run(cl, first, steps) -> None:
    """Submit *first*, then each step, every pass checked against the straightforward pass."""
    assert cl.passes.delta_ok
    try:
        for j in first:
            cl.submit(_spec(*j))
        _check_pass(cl, cl.now())
        for step in steps:
            kind = step[0]
            if kind == "submit":
                for j in step[1]:
                    cl.submit(_spec(*j))
            elif kind == "advance":
                target = cl.clock.virtual_now + step[1]
                while True:  # job ends and the passes due meanwhile (the pass after each end), each checked
                    nxt, fin = cl.next_pass(), cl.next_finish()
                    if fin is not None and fin[0] <= target and (nxt is None or fin[0] <= nxt):
                        _end(cl, fin)
                        continue
                    if nxt is None or nxt > target:
                        break
                    cl.clock.virtual_now = max(cl.clock.virtual_now, nxt)
                    cl.processed_until = max(cl.processed_until, nxt)
                    _check_pass(cl, nxt)
                cl.run_until(target)
            else:
                want = {"kill": ("PEND", "RUN"), "stop": ("PEND", "RUN"), "resume": ("PSUSP", "USUSP"),
                        "switch": ("PEND",), "sp": ("PEND",)}[kind]
                keys = sorted(k for k, j in cl.jobs.items() if j.status in want)
                if not keys:
                    continue
                job = cl.jobs[keys[step[1] % len(keys)]]
                if kind == "sp":
                    cl.set_priority(job, step[2], "lsfadmin")
                elif kind == "switch":
                    cl.switch(job, "low" if job.queue != "low" else "high", "lsfadmin")
                else:
                    getattr(cl, kind)(job, "lsfadmin")
            _check_pass(cl, cl.now())
    finally:
        cl.session.close()
        cl.engine.dispose()


def test_a_job_end_is_a_delta_pass(tmp_path, monkeypatch):
    """Two slots, six jobs: each job end frees a slot and the next pass, a
    delta pass, starts the next job in order (a higher -sp first); the
    others keep their reasons, as the straightforward pass gives them."""
    ran = _count_delta_passes(monkeypatch)
    cl = _cluster(tmp_path, [2])
    try:
        for i, sp in enumerate((None, None, None, None, 90, None)):
            cl.submit(_spec("ua", "plain", 1, sp, None, 100 + 10 * i))
        _check_pass(cl, cl.now())
        assert sorted(k[0] for k, j in cl.jobs.items() if j.status == "RUN") == [1, 5]
        for _ in range(3):
            end = _end(cl, cl.next_finish())
            assert cl.next_pass() == end  # (MBD_SLEEP_TIME's grid: 100 s after the last pass)
            _check_pass(cl, end)
        # ends: 1 (100 s), 5 (140 s), 2 (started at 100 s, ends at 210 s); 3 and 4 started in order
        assert sorted(k[0] for k, j in cl.jobs.items() if j.status == "RUN") == [3, 4]
        assert sorted(k[0] for k, j in cl.jobs.items() if j.status == "DONE") == [1, 2, 5]
        assert ran == [True, True, True]
        assert cl.jobs[(6, 0)].pend_reasons == "Job slot limit reached: 1 host"
    finally:
        cl.session.close()
        cl.engine.dispose()


@pytest.mark.parametrize("interval", ["", "JOB_SCHEDULING_INTERVAL = 0\n"])
def test_the_job_ends_of_one_instant_make_one_pass(tmp_path, monkeypatch, interval):
    """Three 100-second jobs on three slots end at one instant: their ends are
    handled first, then one pass (a delta pass) starts the next three jobs --
    on MBD_SLEEP_TIME's grid, and with JOB_SCHEDULING_INTERVAL = 0 (a pass as
    soon as something changes) alike."""
    ran = _count_delta_passes(monkeypatch)
    cl = _cluster(tmp_path, [3])
    try:
        if interval:
            cl.close()
            envdir = tmp_path / "conf"
            params = envdir / "lsbatch/cluster1/configdir/lsb.params"
            params.write_text(PARAMS.replace("End Parameters", interval + "End Parameters"))
            from lsfemu.engine.cluster import Cluster
            cl = Cluster(str(envdir), str(tmp_path / "home"))
        t0 = cl.now()
        for _ in range(6):
            cl.submit(_spec("ua", "plain", 1, None, None, 100))
        cl.run_until(t0 + 50)
        assert sum(j.status == "RUN" for j in cl.jobs.values()) == 3
        ran.clear()
        assert cl.run_until(t0 + 150) == 1  # one pass: after the three ends at one instant
        assert ran == [True]
        assert sum(j.status == "DONE" for j in cl.jobs.values()) == 3
        assert sum(j.status == "RUN" for j in cl.jobs.values()) == 3
    finally:
        cl.close()


def test_a_job_end_in_a_fairshare_queue_is_a_delta_pass(tmp_path, monkeypatch):
    """Two slots of a fairshare queue (ua 3 shares, ub and uc sharing grp's
    2): each job end is followed by a delta pass that starts the next job of
    the user with the highest dynamic priority now -- ua's run time counts
    against it, so grp's users get their turns -- as the straightforward
    pass does; ud (no account in the queue) never runs and gets no reason."""
    ran = _count_delta_passes(monkeypatch)
    cl = _cluster(tmp_path, [2], fair=True)
    try:
        for user in ("ua", "ua", "ua", "ua", "ub", "uc", "ud"):
            cl.submit(_spec(user, "low", 1, None, None, 300))
        _check_pass(cl, cl.now())
        assert sorted(cl.jobs[k].user for k, j in cl.jobs.items() if j.status == "RUN") == ["ua", "ub"]
        for _ in range(4):
            fin = cl.next_finish()
            if fin is None:
                break
            end = _end(cl, fin)
            _check_pass(cl, max(end, cl.next_pass()))
        assert ran and all(ran)
        users = [j.user for j in sorted(cl.jobs.values(), key=lambda j: (j.start_time or 1e18, j.id))
                 if j.start_time is not None]
        assert users[:2] == ["ua", "ub"] and "uc" in users and "ud" not in users
        assert cl.jobs[(7, 0)].status == "PEND"
        assert cl.jobs[(7, 0)].pend_reasons == "New job is waiting for scheduling"  # (as submitted)
    finally:
        cl.session.close()
        cl.engine.dispose()
