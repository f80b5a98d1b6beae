"""What lsfemu.engine.tally.JobTally keeps as the jobs change (issue 23) --
bqueues' and busers' slots per queue and per user by state, and each user's
jobs for `bjobs` -- must always equal a fresh look over the jobs in memory
(in their order), through submissions, dispatch, job ends, suspension,
switches, bmod -n, kills, a rollback, a reload and a job dropped."""

from __future__ import annotations

import os

from lsfemu.config.sample import write_cluster
from lsfemu.daemon import dispatch
from lsfemu.engine.cluster import Cluster
from lsfemu.engine.jobs import SubmitSpec
from lsfemu.engine.tally import zero

BUCKET = {"PEND": "PEND", "PSUSP": "PEND", "RUN": "RUN", "SSUSP": "SSUSP", "USUSP": "USUSP"}


def fresh(cl: Cluster, key) -> dict:
    """The count as bqueues made it before the tally: every job in memory."""
    out: dict = {}
    for j in cl.jobs.values():
        if j.status in BUCKET:
            out.setdefault(key(j), zero())[BUCKET[j.status]] += j.num_processors
    return out


def nonzero(counts: dict) -> dict:
    return {k: d for k, d in counts.items() if any(d.values())}


def check(cl: Cluster) -> None:
    assert nonzero(cl.tally.by_queue()) == fresh(cl, lambda j: j.queue)
    assert nonzero(cl.tally.by_user()) == fresh(cl, lambda j: j.user)
    for user in {j.user for j in cl.jobs.values()} | {"user9", "nobody"}:
        assert list(cl.tally.jobs_of(user)) == [j for j in cl.jobs.values() if j.user == user]


def run(cl: Cluster, line: str, user: str = "user1") -> str:
    words = line.split()
    env = {"LSF_ENVDIR": cl.envdir, "LSFEMU_USER": user, "TZ": "UTC"}
    r = dispatch.handle(cl, {"cmd": words[0], "argv": words[1:], "env": env, "cwd": "/tmp", "stdin": None},
                        os.getuid())
    assert r.rc == 0, r.err
    return r.out


def test_tally_follows_every_change(tmp_path, monkeypatch):
    monkeypatch.setenv("LSFEMU_CLOCK_START", "1767603600")
    envdir = write_cluster(str(tmp_path / "conf"))
    cl = Cluster(str(envdir), str(tmp_path / "home"))
    check(cl)  # empty
    for i in range(12):
        run(cl, f"bsub -q {'priority' if i % 3 else 'normal'} -n {1 + i % 2} sleep {60 * (1 + i % 4)}", f"user{i % 3}")
    check(cl)
    run(cl, "lsfemu clock advance 30")  # passes: some jobs run
    check(cl)
    run(cl, "bstop -u all 0", "root")
    check(cl)
    assert sum(d["USUSP"] for d in cl.tally.by_queue().values()) > 0
    run(cl, "bresume -u all 0", "root")
    check(cl)
    pending = [j for j in cl.jobs.values() if j.status == "PEND"]
    run(cl, f"bswitch normal {pending[0].id}", pending[0].user)
    run(cl, f"bmod -n 3 {pending[1].id}", pending[1].user)
    run(cl, f"bkill {pending[2].id}", pending[2].user)
    check(cl)
    assert cl.tally.by_user()[pending[1].user]["PEND"] >= 3
    run(cl, "lsfemu clock advance 10m")  # jobs end, others start
    check(cl)
    run(cl, "bsub -q normal -n 2 sleep 5", "user8")  # (a request commits)
    cl.submit(SubmitSpec(user="user9", queue="normal", default_queue_used=False, command="sleep 5", name=None,
                         num_processors=1, max_processors=None, cwd="/tmp", home="/tmp", specified_cwd=None,
                         output_file=None, error_file=None, output_overwrite=False, error_overwrite=False,
                         run_limit_min=None, submit_priority=None, res_req=None, mem_req_mb=None,
                         project="default", user_group=None, env={}, from_host="hostA"))
    check(cl)
    assert cl.tally.by_user()["user9"]["PEND"] == 1
    cl.session.rollback()
    cl.reload_jobs()  # user9's job was never committed
    check(cl)
    assert cl.tally.by_user()["user8"]["PEND"] == 2 and "user9" not in nonzero(cl.tally.by_user())
    done = next(k for k, j in cl.jobs.items() if j.status in ("DONE", "EXIT"))
    cl.drop(done)  # (what-if replay forgets finished jobs)
    check(cl)
    mine = run(cl, "bjobs -a -noheader -o jobid", "user1").split()
    assert sorted(map(int, mine)) == sorted(j.id for j in cl.tally.jobs_of("user1")) and mine
    row = next(line.split() for line in run(cl, "bqueues normal").splitlines()[1:])
    njobs, pend = int(row[7]), int(row[8])
    assert (njobs, pend) == (sum(cl.tally.by_queue()["normal"].values()), cl.tally.by_queue()["normal"]["PEND"])
