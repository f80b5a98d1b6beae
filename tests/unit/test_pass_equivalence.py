"""The daemon's scheduling pass (rows kept between passes, bulk APS ranks,
a heap, refusals remembered per (queue, user, slots), no ordering once every
host is full, set-based reason writes) against the straightforward pass it
replaces: every pending job ranked with Cluster.aps_rank, the unit re-sorted
after every start, every job tried on the hosts. On random clusters and
random histories (submissions, bmod -sp, bmod -aps, clock steps, job ends)
both must start the same jobs, in the same order, on the same hosts, and
leave every pending job the same reasons -- but for one kind of job (issue
19, part 6; docs/semantics.md "Refused shapes"): once the hosts refused a
shape (queue, slots, requirement) no job of it can start for the rest of
the pass, and the pass leaves the shape's later jobs for its end, so such a
job (one the straightforward pass reaches after its shape was refused) may
have the reason the state the pass ends with gives it instead.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsfemu.engine import limitpass
from lsfemu.sched import dispatch, shapes

import pytest

pytestmark = pytest.mark.slow(20)  # seconds, quiet machine: scheduled early (tests/conftest.py)

USERS = ["ua", "ub", "uc", "ud", "ue"]

QUEUES = """Begin Queue
QUEUE_NAME = high
PRIORITY = 50
FAIRSHARE = USER_SHARES[[top, 1]]
APS_PRIORITY = WEIGHT[[FS, 100] [JPRIORITY, 1] [QPRIORITY, 10] [MEM, 0.01] [PROC, -2]] LIMIT[[JPRIORITY, 60]] GRACE_PERIOD[[MEM, 5m]]
QUEUE_GROUP = low
End Queue

Begin Queue
QUEUE_NAME = low
PRIORITY = 30
FAIRSHARE = USER_SHARES[[top, 1]]
UJOB_LIMIT = 3
End Queue

Begin Queue
QUEUE_NAME = plain
PRIORITY = 20
End Queue

Begin Queue
QUEUE_NAME = fair
PRIORITY = 10
FAIRSHARE = USER_SHARES[[ua, 3] [ub, 1] [uc, 1]]
End Queue
"""

USERS_FILE = """Begin UserGroup
GROUP_NAME GROUP_MEMBER USER_SHARES
sub (uc ud ue) ([uc, 1] [ud, 2] [ue, 1])
top (ua ub sub) ([ua, 3] [ub, 1] [sub, 2])
End UserGroup
"""

PARAMS = """Begin Parameters
DEFAULT_QUEUE = low
MBD_SLEEP_TIME = 10
MAX_USER_PRIORITY = 100
JOB_PRIORITY_OVER_TIME = 1/1
End Parameters
"""


#: lsb.resources for the runs with limits (issue 19): per user, per host of a
#: queue, memory of two users together, jobs of a queue, one user per host
#: (and lsb.hosts JL/U, lsb.users JL/P: USER_ROWS, _cluster)
LIMITS = """Begin Limit
NAME = per_user
PER_USER = all
SLOTS = 4
End Limit

Begin Limit
NAME = low_host
QUEUES = low
PER_HOST = all
SLOTS = 2
End Limit

Begin Limit
NAME = mem
USERS = ua ub
MEM = 5000
End Limit

Begin Limit
NAME = jobs
PER_QUEUE = plain
JOBS = 3
End Limit

Begin Limit
NAME = ua_host
USERS = ua
PER_HOST = all
SLOTS = 1
End Limit
"""

#: lsb.users JL/P for the runs with limits: one user's own row, each member
#: of a group, a group together (per host, ceil(JL/P x the host's ncpus));
#: a group's MAX_JOBS (its members' slots together)
USER_ROWS = """
Begin User
USER_NAME MAX_JOBS JL/P
ub - 0.5
sub@ - 1
top 7 2
End User
"""


def _hosts(mxj: list[int]) -> tuple[str, str]:
    hosts = "Begin Host\nHOST_NAME MXJ JL/U\n" + "".join(f"h{i} {m} ()\n" for i, m in enumerate(mxj)) + "End Host\n"
    cluster = ("Begin ClusterAdmins\nAdministrators = lsfadmin\nEnd ClusterAdmins\n\nBegin Host\n"
               "HOSTNAME model type server r1m mem swp RESOURCES\n"
               + "".join(f"h{i} ! ! 1 - - - ()\n" for i in range(len(mxj))) + "End Host\n")
    return hosts, cluster


def _cluster(root: Path, mxj: list[int], with_fair: bool = True, with_limits: bool = False):
    from lsfemu.config.sample import write_cluster
    from lsfemu.engine.cluster import Cluster

    envdir = Path(write_cluster(str(root / "conf"), force=True))
    lsb = envdir / "lsbatch/cluster1/configdir"
    hosts, cluster = _hosts(mxj)
    # Without the fairshare queue outside APS, every unit's order gives out
    # every job: the quiet passes (only changed jobs looked at) are possible.
    (lsb / "lsb.queues").write_text(QUEUES if with_fair else QUEUES[:QUEUES.index("Begin Queue\nQUEUE_NAME = fair")])
    (lsb / "lsb.users").write_text(USERS_FILE + (USER_ROWS if with_limits else ""))
    (lsb / "lsb.params").write_text(PARAMS)
    # with the limits: JL/U 2 on the first host (lsb.hosts), JL/P rows (lsb.users)
    (lsb / "lsb.hosts").write_text(hosts.replace(" ()\n", " 2\n", 1) if with_limits else hosts)
    if with_limits:
        (lsb / "lsb.resources").write_text(LIMITS)
    (envdir / "lsf.cluster.cluster1").write_text(cluster)
    os.environ["LSFEMU_CLOCK_START"] = "1767603600"
    return Cluster(str(envdir), str(root / "home"))


def _spec(user: str, queue: str, slots: int, sp: int | None, mem: int | None, runtime: int):
    from lsfemu.engine.jobs import SubmitSpec

    return SubmitSpec(user=user, queue=queue, default_queue_used=False, command=f"sleep {runtime}", name=None,
                      num_processors=slots, max_processors=None, cwd="/", home="/", specified_cwd=None,
                      output_file=None, error_file=None, output_overwrite=False, error_overwrite=False,
                      run_limit_min=None, submit_priority=sp, res_req=f"rusage[mem={mem}]" if mem else None,
                      mem_req_mb=float(mem) if mem else None, project="default", user_group=None, env={},
                      from_host="h0")


def reference_pass(cl, t: float):
    """The straightforward pass: (started [(key, hosts)], reasons {key: text})."""
    inp = cl.pass_input()  # the hosts', queues' and users' state; the jobs are rebuilt below
    jobs = []
    for job in cl.jobs.values():
        if job.status == "PEND":
            jobs.append(dispatch.PendingJob(job.id, job.array_index, job.user, job.queue, job.num_processors,
                                            cl.effective_priority(job) or 0, job.position, first=job.migrated))
    limitpass.attach(cl, cl.passes.limits, jobs)  # lsb.resources: each job's demand, as the pass gives it
    live = cl.fairshare(t)
    started, reasons = [], {}
    refused: set = set()  # the shapes the hosts refused (no job of them can start any more)
    late: list = []  # the jobs reached after their shape was refused
    lasting = shapes.Lasting(inp.hosts)

    def attempt(pj) -> bool:
        shape = shapes.shape_of(pj)
        if shape is not None and shape in refused:
            late.append(pj)
        room: dict = {}  # (its hosts' refusal, if they refuse it)
        alloc = dispatch._try_start(pj, inp, reasons, room)
        if alloc is not None:
            started.append(((pj.job_id, pj.array_index), alloc))
        elif room and lasting.shape(pj) is not None:
            refused.add(shape)
        return alloc is not None

    for unit, group in dispatch.units(jobs, inp.queues, cl.aps_unit):
        for pj in sorted((j for j in group if j.first), key=dispatch.fcfs_key):
            attempt(pj)
        rest = [j for j in group if not j.first]
        if unit in cl.aps_cfg:
            def key(pj):
                return cl.aps_rank(cl.jobs[(pj.job_id, pj.array_index)], t, live) + (pj.position, pj.job_id,
                                                                                       pj.array_index)
            while rest:
                rest.sort(key=key)
                pj = rest.pop(0)
                if attempt(pj):
                    st_ = live.state(pj.queue)
                    if st_ is not None:
                        st_.job_started(pj.user, pj.slots, cl._committed_h(pj))
        else:
            order = cl.order_for(unit, rest, t, live)  # FairshareOrder / StaticOrder: unchanged by this work
            for pj in order:
                if attempt(pj):
                    order.started(pj)
    # the reasons the state the pass ends with gives the late jobs (none of them fits in it)
    at_end: dict = {}
    for pj in late:
        assert dispatch._try_start(pj, inp, at_end) is None
    return started, {k: "\n".join(v) for k, v in reasons.items()}, {k: "\n".join(v) for k, v in at_end.items()}


def _check_pass(cl, t: float) -> None:
    want_started, want_reasons, or_at_end = reference_pass(cl, t)
    got = []
    real_start = cl._start

    def spy(job, hosts, when):
        got.append(((job.id, job.array_index), list(hosts)))
        real_start(job, hosts, when)

    cl._start = spy
    try:
        cl.scheduling_pass(t)
    finally:
        del cl._start
    assert got == want_started
    for key, text in want_reasons.items():
        got_text = cl.jobs[key].pend_reasons
        assert got_text == text or got_text == or_at_end.get(key), key
    cl.commit()
    # what the store holds is what memory holds (the set-based writes)
    from sqlalchemy import select

    from lsfemu.store.models import Job
    stored = dict(cl.session.execute(select(Job.id, Job.pend_reasons).where(Job.status == "PEND")).all())
    for (jid, _idx), job in cl.jobs.items():
        if job.status == "PEND":
            assert stored[jid] == job.pend_reasons, jid


job_st = st.tuples(st.sampled_from(USERS), st.sampled_from(["high", "low", "plain", "fair"]),
                   st.sampled_from([1, 1, 2, 3]), st.one_of(st.none(), st.integers(1, 100)),
                   st.sampled_from([None, 100, 1000, 4000]), st.integers(30, 3000))
step_st = st.one_of(
    st.tuples(st.just("submit"), st.lists(job_st, min_size=1, max_size=8)),
    st.tuples(st.just("submit"), st.lists(job_st, min_size=1, max_size=1)),
    st.tuples(st.sampled_from(["kill", "stop", "resume", "requeue", "switch"]), st.integers(0, 10_000)),
    st.tuples(st.just("advance"), st.integers(1, 1200)),
    st.tuples(st.just("sp"), st.integers(0, 10_000), st.integers(1, 100)),
    st.tuples(st.just("aps"), st.integers(0, 10_000), st.sampled_from(["system", "admin", None]),
              st.sampled_from([5.0, -3.5, 250.0])),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(mxj=st.lists(st.integers(1, 6), min_size=1, max_size=3), first=st.lists(job_st, min_size=1, max_size=40),
       steps=st.lists(step_st, max_size=8), bulk=st.booleans(), with_fair=st.booleans(), with_limits=st.booleans())
def test_the_pass_equals_the_straightforward_pass(tmp_path_factory, mxj, first, steps, bulk, with_fair, with_limits,
                                                  monkeypatch):
    from lsfemu.engine import passes as cluster_mod

    # bulk: every change of reasons goes the set-based way (else the row-by-row way)
    monkeypatch.setattr(cluster_mod, "_BULK_ROWS", 1 if bulk else 10**9)
    cl = _cluster(tmp_path_factory.mktemp("c"), mxj, with_fair, with_limits)

    def spec(user, queue, *rest):
        return _spec(user, queue if with_fair or queue != "fair" else "plain", *rest)

    try:
        for j in first:
            cl.submit(spec(*j))
        t = cl.now()
        _check_pass(cl, t)
        for step in steps:
            kind = step[0]
            if kind == "submit":
                for j in step[1]:
                    cl.submit(spec(*j))
            elif kind in ("kill", "stop", "resume", "requeue", "switch"):
                want = {"kill": ("PEND", "RUN"), "stop": ("PEND", "RUN"), "resume": ("PSUSP", "USUSP"),
                        "requeue": ("RUN",), "switch": ("PEND",)}[kind]
                keys = sorted(k for k, j in cl.jobs.items() if j.status in want)
                if not keys:
                    continue
                job = cl.jobs[keys[step[1] % len(keys)]]
                if kind == "kill":
                    cl.kill(job, "lsfadmin")
                elif kind == "stop":
                    cl.stop(job, "lsfadmin")
                elif kind == "resume":
                    cl.resume(job, "lsfadmin")
                elif kind == "requeue":
                    cl.requeue(job, "lsfadmin")
                else:
                    cl.switch(job, "low" if job.queue != "low" else "high", "lsfadmin")
            elif kind == "advance":
                # job ends and the passes due meanwhile, each checked
                target = cl.clock.virtual_now + step[1]
                while True:
                    nxt = cl.next_pass()
                    fin = cl.next_finish()
                    if fin is not None and fin[0] <= target and (nxt is None or fin[0] < nxt):
                        cl.run_until(fin[0])
                        continue
                    if nxt is None or nxt > target:
                        break
                    cl.clock.virtual_now = max(cl.clock.virtual_now, nxt)
                    cl.processed_until = max(cl.processed_until, nxt)
                    _check_pass(cl, nxt)
                cl.run_until(target)
            else:
                pending = sorted(k for k, j in cl.jobs.items() if j.status == "PEND")
                if not pending:
                    continue
                job = cl.jobs[pending[step[1] % len(pending)]]
                if kind == "sp":
                    cl.set_priority(job, step[2], "lsfadmin")
                else:
                    cl.set_aps(job, step[2], step[3] if step[2] else None, "lsfadmin")
            t = cl.now()
            _check_pass(cl, t)
    finally:
        cl.session.close()
        cl.engine.dispose()
