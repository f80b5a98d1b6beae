"""`bjobs -aps` in bulk (lsfemu.engine.listing) against the listing it
replaces: every pending job's full APS result computed one job at a time
(Cluster.aps_result), the order of aps.order, a view and a row per job
(aps_table). On random configurations (APS weights, limits, grace periods,
queue priorities, a QUEUE_GROUP, fairshare, escalation) and random histories
(submissions, bmod -sp, bmod -aps, bmod -J, clock steps with their passes and
job ends, stop, resume, requeue, switch, migration, time zones, usage history
rebuilt, nothing at all), the command's output must be the reference's byte
for byte, and the listing's order and values (system, calculated) exactly
the reference's. The last table kept while nothing changes is tested on its
own too (what invalidates it, and that it is used). The plain table
(`bjobs -u all -a`, its kept job lines and places) is checked against one
made anew at each step of the same histories.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pass_equivalence import _spec  # (the SubmitSpec of a random job)

from lsfemu.sched import aps

pytestmark = pytest.mark.slow(27)  # seconds, quiet machine: scheduled early (tests/conftest.py)

USERS = ["ua", "ub", "uc", "ud"]


def _config(weights: dict, limit: float | None, grace: tuple | None, prios: tuple[int, int, int], over: str | None):
    w = " ".join(f"[{f}, {v}]" for f, v in weights.items() if v is not None) or "[PROC, 1]"
    aps_text = f"WEIGHT[{w}]"
    if limit is not None:
        aps_text += f" LIMIT[[JPRIORITY, {limit}]]"
    if grace is not None:
        aps_text += f" GRACE_PERIOD[[{grace[0]}, {grace[1]}s]]"
    queues = (f"Begin Queue\nQUEUE_NAME = high\nPRIORITY = {prios[0]}\nFAIRSHARE = USER_SHARES[[top, 1]]\n"
              f"APS_PRIORITY = {aps_text}\nQUEUE_GROUP = low\nEnd Queue\n\n"
              f"Begin Queue\nQUEUE_NAME = low\nPRIORITY = {prios[1]}\nEnd Queue\n\n"
              f"Begin Queue\nQUEUE_NAME = plain\nPRIORITY = {prios[2]}\nEnd Queue\n")
    params = ("Begin Parameters\nDEFAULT_QUEUE = low\nMBD_SLEEP_TIME = 10\nMAX_USER_PRIORITY = 100\n"
              + (f"JOB_PRIORITY_OVER_TIME = {over}\n" if over else "") + "End Parameters\n")
    return queues, params


def _cluster(root: Path, queues: str, params: str):
    from lsfemu.config.sample import write_cluster
    from lsfemu.engine.cluster import Cluster

    envdir = Path(write_cluster(str(root / "conf"), force=True))
    lsb = envdir / "lsbatch/cluster1/configdir"
    (lsb / "lsb.queues").write_text(queues)
    (lsb / "lsb.users").write_text("Begin UserGroup\nGROUP_NAME GROUP_MEMBER USER_SHARES\n"
                                   "top (ua ub uc ud) ([ua, 3] [ub, 1] [uc, 1] [ud, 2])\nEnd UserGroup\n")
    (lsb / "lsb.params").write_text(params)
    os.environ["LSFEMU_CLOCK_START"] = "1767603600"
    return Cluster(str(envdir), str(root / "home"))


def reference_listing(cl, now: float) -> list[tuple]:
    """The one-job-at-a-time listing: [(job, system value, calculated value)]."""
    jobs = [j for j in cl.jobs.values() if j.status in ("PEND", "PSUSP")]
    live = cl.fairshare(now)
    listed, results = [], {}
    for j in jobs:
        r = cl.aps_result(j, now, live)
        results[(j.id, j.array_index)] = r
        listed.append(aps.ListedJob(j.id, j.queue, j.position - (1e12 if j.migrated else 0.0),
                                    cl.effective_priority(j, now) or 0, r, j.array_index))
    out = []
    for li in aps.order(listed, cl.config.queues):
        r = results[(li.job_id, li.array_index)]
        out.append((cl.jobs[(li.job_id, li.array_index)], r.system if r is not None else None,
                    r.calculated if r is not None and r.system is None else None))
    return out


def reference_text(cl, now: float, *, wide: bool) -> str:
    from lsfemu.cli.bjobs import table_view
    from lsfemu.render import bjobs as R

    views = []
    for job, system, value in reference_listing(cl, now):
        v = table_view(job)
        v.aps_system, v.aps_value = system, value
        views.append(v)
    return R.aps_table(views, wide=wide)


def reference_plain(cl, *, wide: bool) -> str:
    """`bjobs -u all -a` made anew: every job's view and row, in order_key's order."""
    from lsfemu.cli.bjobs import table_view
    from lsfemu.ops import query
    from lsfemu.render import bjobs as R

    ranks = query.queue_ranks(cl.config)
    jobs = sorted(cl.jobs.values(), key=lambda j: query.order_key(ranks, j))
    return R.table([table_view(j) for j in jobs], wide=wide)


def bjobs(cl, argv: list[str], tz: str) -> str:
    from lsfemu.daemon import dispatch

    r = dispatch.handle(cl, {"cmd": "bjobs", "argv": argv, "cwd": "/", "env": {"LSFEMU_USER": "ua", "TZ": tz}},
                        os.getuid())
    assert r.rc == 0 or r.err == "No pending job found\n", r.err
    return r.out


def _check(cl, tz: str, wide: bool) -> None:
    got_text = bjobs(cl, ["-u", "all", "-aps"] + (["-w"] if wide else []), tz)  # first: runs what is due
    now = cl.now()
    want = reference_listing(cl, now)
    pending = [(j, cl.row(j)) for j in cl.jobs.values() if j.status in ("PEND", "PSUSP")]
    got = cl.aps_listing.order(pending, now)
    assert [(j.id, j.array_index, s, v) for j, s, v in got] == [(j.id, j.array_index, s, v) for j, s, v in want]
    assert got_text == reference_text(cl, now, wide=wide)
    # the plain table's kept lines and places (lsfemu.engine.listing.table_lines) through the same
    # history, both formats in turn (each keeps its own lines)
    for w in (wide, not wide):
        assert bjobs(cl, ["-u", "all", "-a"] + (["-w"] if w else []), tz) == reference_plain(cl, wide=w)


#: step kind -> (the states of the jobs it picks from, what it does to the picked job)
ACTIONS = {
    "stop": (("PEND", "RUN"), lambda cl, job: cl.stop(job, "lsfadmin")),
    "resume": (("PSUSP", "USUSP"), lambda cl, job: cl.resume(job, "lsfadmin")),
    "requeue": (("RUN",), lambda cl, job: cl.requeue(job, "lsfadmin")),
    "switch": (("PEND",), lambda cl, job: cl.switch(job, "low" if job.queue != "low" else "high", "lsfadmin")),
    "migrate": (("RUN",), lambda cl, job: cl.rerun(job, cl.now(), "MIGRATE")),
    "rename": (("PEND", "PSUSP"), lambda cl, job: setattr(job, "name", f"renamed{job.id}")),  # what bmod -J sets
    "sp": (("PEND", "PSUSP"), lambda cl, job, value: cl.set_priority(job, value, "lsfadmin")),
    "aps": (("PEND", "PSUSP"), lambda cl, job, kind, value: cl.set_aps(job, kind, value if kind else None,
                                                                         "lsfadmin")),
}

job_st = st.tuples(st.sampled_from(USERS), st.sampled_from(["high", "low", "plain"]),
                   st.sampled_from([1, 1, 2, 3]), st.one_of(st.none(), st.integers(1, 100)),
                   st.sampled_from([None, 100, 1000, 4000]), st.integers(30, 3000))
step_st = st.one_of(
    st.tuples(st.just("submit"), st.lists(job_st, min_size=1, max_size=6)),
    st.tuples(st.sampled_from(["stop", "resume", "requeue", "switch", "migrate", "rename"]), st.integers(0, 10_000)),
    st.tuples(st.just("advance"), st.integers(1, 1500)),
    st.tuples(st.just("sp"), st.integers(0, 10_000), st.integers(1, 100)),
    st.tuples(st.just("aps"), st.integers(0, 10_000), st.sampled_from(["system", "admin", None]),
              st.sampled_from([5.0, -3.5, 250.0, 0.004999, 1.0049999999])),
    st.tuples(st.just("tz"), st.sampled_from(["UTC", "America/New_York", "Asia/Kolkata"])),
    st.tuples(st.sampled_from(["again", "restart_usage"])),  # nothing changed (the kept table); usage rebuilt
)
weights_st = st.fixed_dictionaries({
    "FS": st.sampled_from([None, 100, 0.5]), "PROC": st.sampled_from([None, -2, 1]),
    "MEM": st.sampled_from([None, 0.01, 0.333]), "JPRIORITY": st.sampled_from([None, 1, 1.7]),
    "QPRIORITY": st.sampled_from([None, 10])})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(weights=weights_st, limit=st.sampled_from([None, 60]),
       grace=st.sampled_from([None, ("FS", 120), ("QPRIORITY", 300), ("MEM", 45), ("RSRC", 600)]),
       prios=st.tuples(st.sampled_from([30, 50]), st.sampled_from([30, 40, 60]), st.sampled_from([20, 30, 50])),
       over=st.sampled_from([None, "1/1", "7/3"]), wide=st.booleans(),
       first=st.lists(job_st, min_size=1, max_size=25), steps=st.lists(step_st, max_size=8))
def test_the_bulk_listing_equals_the_job_by_job_listing(tmp_path_factory, weights, limit, grace, prios, over, wide,
                                                        first, steps):
    queues, params = _config(weights, limit, grace, prios, over)
    cl = _cluster(tmp_path_factory.mktemp("c"), queues, params)
    tz = "UTC"
    try:
        for j in first:
            cl.submit(_spec(*j))
        _check(cl, tz, wide)
        for step in steps:
            kind = step[0]
            if kind == "submit":
                for j in step[1]:
                    cl.submit(_spec(*j))
            elif kind == "advance":
                cl.advance(step[1])
            elif kind == "tz":
                tz = step[1]
            elif kind == "restart_usage":
                cl.restart_usage()
            elif kind == "again":
                pass
            else:
                states, act = ACTIONS[kind]
                keys = sorted(k for k, j in cl.jobs.items() if j.status in states)
                if keys:
                    act(cl, cl.jobs[keys[step[1] % len(keys)]], *step[2:])
            cl.commit()
            _check(cl, tz, wide)
    finally:
        from lsfemu.daemon.dispatch import use_timezone

        use_timezone(None)
        cl.session.close()
        cl.engine.dispose()


def test_the_last_table_is_kept_until_something_changes(tmp_path, monkeypatch):
    from lsfemu.engine import listing

    made = []
    real_order = listing.ApsListing.order

    def order(self, pending, now):
        made.append(now)
        return real_order(self, pending, now)

    monkeypatch.setattr(listing.ApsListing, "order", order)
    weights = {"FS": 100, "PROC": None, "MEM": 0.333, "JPRIORITY": 1.7, "QPRIORITY": None}
    queues, params = _config(weights, 60, ("FS", 120), (30, 40, 20), "1/1")
    cl = _cluster(tmp_path, queues, params)
    tz = "UTC"

    def listed(expect_kept: bool) -> None:
        n = len(made)
        text = bjobs(cl, ["-u", "all", "-aps"], tz)
        assert text == reference_text(cl, cl.now(), wide=False)
        assert len(made) == (n if expect_kept else n + 1)

    def changed() -> None:
        """After a change: made again; kept from the next listing on (or the
        one after: a new job's columns filled in by the store are read back
        while the first table is made, and that refresh counts as a change)."""
        listed(False)
        n = len(made)
        bjobs(cl, ["-u", "all", "-aps"], tz)
        assert len(made) - n <= 1
        listed(True)

    try:
        for i in range(30):  # more than the 12 slots
            cl.submit(_spec(USERS[i % 4], ["high", "low", "plain"][i % 3], 1 + i % 2, None, 100 * i, 300 + 200 * (i % 5)))
        cl.commit()
        cl.advance(1200)  # jobs run and end: usage history, FS factors below the top
        cl.commit()
        changed()
        assert bjobs(cl, ["-u", "ua", "-aps"], tz) != bjobs(cl, ["-u", "all", "-aps"], tz)  # other options: made
        pend = sorted(k for k, j in cl.jobs.items() if j.status == "PEND")
        assert len(pend) >= 3 and any(j.status == "DONE" for j in cl.jobs.values())
        changes = [
            lambda: cl.submit(_spec("ub", "high", 2, 70, 400, 100)),
            lambda: cl.set_priority(cl.jobs[pend[0]], 99, "lsfadmin"),
            lambda: cl.set_aps(cl.jobs[pend[1]], "admin", 7.5, "lsfadmin"),
            lambda: setattr(cl.jobs[pend[2]], "name", "renamed"),
            lambda: cl.advance(1),  # the instant moves (escalation, grace, fairshare decay)
            lambda: cl.restart_usage(),  # usage history written set-based
        ]
        for change in changes:
            change()
            cl.commit()
            changed()
        # a set-based write behind the loaded objects' back: the usage history doubled
        from sqlalchemy import update

        from lsfemu.store.models import UserUsage
        cl.session.execute(update(UserUsage).values(hist_run_s=UserUsage.hist_run_s * 2))
        changed()
        # another table's object changed through the ORM: one user's usage history
        from sqlalchemy import select

        usage = cl.session.scalars(select(UserUsage).where(UserUsage.queue == "high")).first()
        usage.hist_run_s = usage.hist_run_s * 3 + 3600
        cl.commit()
        changed()
        # the instant alone (nothing written: the clock's row is written when the command ends)
        cl.clock.virtual_now += 30
        changed()
        tz = "Asia/Kolkata"
        changed()
        lsb = Path(cl.envdir) / "lsbatch/cluster1/configdir"
        (lsb / "lsb.queues").write_text(queues.replace("[FS, 100]", "[FS, 5]"))
        assert not [i for i in cl.reconfig() if i.fatal]
        changed()
    finally:
        from lsfemu.daemon.dispatch import use_timezone

        use_timezone(None)
        cl.session.close()
        cl.engine.dispose()


@pytest.mark.parametrize("fs_weight", [100, None])
def test_kept_places_follow_the_clock_and_other_jobs(tmp_path, fs_weight):
    """A job's place and value kept from the last listing (its row unchanged)
    are not reused at another instant (escalation moved its priority), nor
    where FS counts after another job of its user ended (its FS factor moved)."""
    weights = {"FS": fs_weight, "PROC": None, "MEM": None, "JPRIORITY": 1, "QPRIORITY": None}
    queues, params = _config(weights, None, None, (30, 40, 20), "1/1")
    cl = _cluster(tmp_path, queues, params)
    try:
        for i in range(20):
            cl.submit(_spec(USERS[i % 2], "high", 1, 10 + i, None, 5000))
        cl.commit()
        cl.advance(30)  # 12 jobs run, 8 pend
        cl.commit()
        _check(cl, "UTC", False)
        running = next(j for j in cl.jobs.values() if j.status == "RUN" and j.user == "ua")
        cl.kill(running, "lsfadmin")  # at the same instant: ua's usage, so its FS factor, changes
        cl.commit()
        _check(cl, "UTC", False)
        cl.advance(10)  # the pass that fills the slot
        cl.commit()
        _check(cl, "UTC", False)
        before = {j.id: s_v for j, *s_v in cl.aps_listing.order(
            [(j, cl.row(j)) for j in cl.jobs.values() if j.status == "PEND"], cl.now())}
        cl.clock.virtual_now += 600  # ten escalation steps; nothing else changes, no pass is due
        _check(cl, "UTC", False)
        after = {j.id: s_v for j, *s_v in cl.aps_listing.order(
            [(j, cl.row(j)) for j in cl.jobs.values() if j.status == "PEND"], cl.now())}
        assert before.keys() == after.keys() and all(before[k] != after[k] for k in before)
    finally:
        cl.session.close()
        cl.engine.dispose()
