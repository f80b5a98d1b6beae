"""lsb.users JL/P and MAX_PEND_JOBS, lsb.hosts JL/U (docs/semantics.md
"lsb.users JL/P and MAX_PEND_JOBS, lsb.hosts JL/U act"), on an in-process
cluster under the virtual clock: what a pass starts, the pending reasons it
leaves (bjobs -p's), what `lsfemu explain pending` says host by host, and
the pending-job count bsub checks.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lsfemu.engine import userlimits
from lsfemu.ops import explain
from lsfemu.sched import limits as L

pytestmark = pytest.mark.slow(8)  # seconds, quiet machine (the first test imports the engine)

PARAMS = "Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 10\nEnd Parameters\n"
QUEUES = "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n"


def _cluster(root: Path, hosts: str, users: str, ncpus=(4, 4)):
    from lsfemu.config.sample import write_cluster
    from lsfemu.engine.cluster import Cluster

    envdir = Path(write_cluster(str(root / "conf"), force=True))
    lsb = envdir / "lsbatch/cluster1/configdir"
    (lsb / "lsb.queues").write_text(QUEUES)
    (lsb / "lsb.params").write_text(PARAMS)
    (lsb / "lsb.hosts").write_text(hosts)
    (lsb / "lsb.users").write_text(users)
    (envdir / "lsf.cluster.cluster1").write_text(
        "Begin ClusterAdmins\nAdministrators = lsfadmin\nEnd ClusterAdmins\n\nBegin Host\n"
        "HOSTNAME model type server ncpus RESOURCES\n"
        + "".join(f"h{i} ! ! 1 {n} ()\n" for i, n in enumerate(ncpus)) + "End Host\n")
    os.environ["LSFEMU_CLOCK_START"] = "1767603600"
    cl = Cluster(str(envdir), str(root / "home"))
    assert not [w.message for w in cl.config.warnings], cl.config.warnings
    return cl


def _spec(user: str, slots: int = 1, name: str | None = None):
    from lsfemu.engine.jobs import SubmitSpec
    from lsfemu.sched.arrayspec import parse_array_name

    return SubmitSpec(user=user, queue="normal", default_queue_used=False, command="sleep 1000", name=name,
                      num_processors=slots, max_processors=None, cwd="/", home="/", specified_cwd=None,
                      output_file=None, error_file=None, output_overwrite=False, error_overwrite=False,
                      run_limit_min=None, submit_priority=None, res_req=None, mem_req_mb=None, project="default",
                      user_group=None, env={}, from_host="h0",
                      array=parse_array_name(name, 1000) if name else None)


def _run(cl, *specs):
    """Submit *specs* and run one pass: {job ID: (status, exec hosts, reasons)}."""
    jobs = [cl.submit(s) for s in specs]
    cl.scheduling_pass(cl.now())
    cl.commit()
    return {j.id: (j.status, j.exec_hosts, j.pend_reasons) for j in jobs}


NO_USERS = "Begin UserGroup\nGROUP_NAME GROUP_MEMBER\nEnd UserGroup\n"


def test_jl_u_caps_each_users_slots_on_the_host(tmp_path):
    hosts = "Begin Host\nHOST_NAME MXJ JL/U\nh0 4 1\ndefault 4 2\nEnd Host\n"
    cl = _cluster(tmp_path, hosts, NO_USERS)
    got = _run(cl, _spec("ua"), _spec("ua"), _spec("ua"), _spec("ua"), _spec("ub"))
    # ua: one slot on h0 (its JL/U), two on h1 (the default row's); ub still gets h0
    assert [got[i][:2] for i in sorted(got)] == [("RUN", "h0"), ("RUN", "h1"), ("RUN", "h1"), ("PEND", ""),
                                                 ("RUN", "h0")]
    assert got[4][2] == f"{L.HOST_USER_LIMIT}: 2 hosts"
    # lsfemu explain pending: host by host, the same reason
    why = explain.pending(cl, (4, 0, "4"))
    assert why.reasons == [f"{L.HOST_USER_LIMIT}: 2 hosts"]
    assert why.hosts == [("h0", [L.HOST_USER_LIMIT], 0), ("h1", [L.HOST_USER_LIMIT], 0)]


def test_jl_p_per_user_group_member_and_group(tmp_path):
    hosts = "Begin Host\nHOST_NAME MXJ\ndefault 8\nEnd Host\n"
    users = ("Begin UserGroup\nGROUP_NAME GROUP_MEMBER\nteam (ub uc)\nduo (ud ue)\nEnd UserGroup\n\n"
             "Begin User\nUSER_NAME MAX_JOBS JL/P\nua - 0.3\nteam@ - 0.25\nduo - 0.5\nEnd User\n")
    # ua: ceil(0.3 x 4) = 2 slots a host; ub, uc: 1 each a host; ud and ue together: 2 a host
    cl = _cluster(tmp_path, hosts, users)
    got = _run(cl, _spec("ua", 3), _spec("ua", 2), _spec("ua"),
               _spec("ub", 2), _spec("ub"), _spec("uc", 2),
               _spec("ud", 3), _spec("ue"), _spec("ue"), _spec("ue"))
    st = {i: got[i] for i in sorted(got)}
    assert st[1][:2] == ("RUN", "h0 h0 h1")
    assert st[2] == ("PEND", "", f"{L.USER_PROC_LIMIT}: 1 host\nNot enough job slot(s): 1 host")
    assert st[3][:2] == ("RUN", "h1")  # ua's last slot: h1's second
    assert st[4][:2] == ("RUN", "h0 h1")  # team@: each member alone
    assert st[5][0] == "PEND" and st[5][2] == f"{L.USER_PROC_LIMIT}: 2 hosts"
    assert st[6][:2] == ("RUN", "h0 h1")
    assert st[7][:2] == ("RUN", "h0 h0 h1")  # duo: its members together, 2 a host
    assert st[8][:2] == ("RUN", "h1")
    assert st[9][2] == st[10][2] == f"{L.UGRP_PROC_LIMIT}: 2 hosts"


def test_jl_p_fraction_rounds_up_and_default_row(tmp_path):
    hosts = "Begin Host\nHOST_NAME MXJ\ndefault 8\nEnd Host\n"
    users = "Begin User\nUSER_NAME MAX_JOBS JL/P\nua 5 -\ndefault - 0.1\nEnd User\n"
    cl = _cluster(tmp_path, hosts, users, ncpus=(4, 1))
    got = _run(cl, _spec("ub"), _spec("ub"), _spec("ub"), _spec("ua", 4))
    # ub (the default row): ceil(0.1 x 4) = 1 on h0, ceil(0.1 x 1) = 1 on h1; ua's own row: no JL/P
    assert [got[i][:2] for i in sorted(got)] == [("RUN", "h0"), ("RUN", "h1"), ("PEND", ""),
                                                 ("RUN", "h0 h0 h0 h0")]


def test_max_pend_jobs_counts_pending_jobs_and_array_elements(tmp_path):
    hosts = "Begin Host\nHOST_NAME MXJ\ndefault 1\nEnd Host\n"
    users = ("Begin UserGroup\nGROUP_NAME GROUP_MEMBER\nteam (ub uc)\nEnd UserGroup\n\n"
             "Begin User\nUSER_NAME MAX_JOBS JL/P MAX_PEND_JOBS\nua - - 2\nteam - - 3\ndefault - - 5\nEnd User\n")
    cl = _cluster(tmp_path, hosts, users, ncpus=(1,))
    _run(cl, _spec("ua"), _spec("ua", 2), _spec("ua", 4))  # one runs, two pend (slots do not count)
    assert userlimits.pend_refusal(cl, "ua", 1) == "User <ua>"
    assert userlimits.pend_refusal(cl, "ud", 5) is None and userlimits.pend_refusal(cl, "ud", 6) == "User <ud>"
    _run(cl, _spec("ub", name="a[1-2]"))  # the host is full: both elements pend
    assert userlimits.pend_refusal(cl, "uc", 1) is None
    assert userlimits.pend_refusal(cl, "uc", 2) == "Group <team>"  # the group's 2 + 2 > 3
    # a stopped pending job (PSUSP) still counts; a killed one no longer
    job = next(j for j in cl.jobs.values() if j.user == "ub")
    cl.stop(job, "lsfadmin")
    assert job.status == "PSUSP" and userlimits.pend_refusal(cl, "uc", 2) == "Group <team>"
    cl.kill(job, "lsfadmin")
    cl.commit()
    assert userlimits.pend_refusal(cl, "uc", 2) is None


def test_a_groups_max_jobs_holds_its_members_together(tmp_path):
    """A group's own row (no `@`): MAX_JOBS is its members' slots together
    (OpenLava PEND_UGRP_JOB_LIMIT / PEND_UGRP_PJOB_LIMIT, job-level reasons),
    besides each member's own limit; `group@` stays per member."""
    hosts = "Begin Host\nHOST_NAME MXJ\ndefault 8\nEnd Host\n"
    users = ("Begin UserGroup\nGROUP_NAME GROUP_MEMBER\nteam (ub uc)\nEnd UserGroup\n\n"
             "Begin User\nUSER_NAME MAX_JOBS\nteam 3\nteam@ 2\nEnd User\n")
    cl = _cluster(tmp_path, hosts, users)
    got = _run(cl, _spec("ub", 2), _spec("uc", 2), _spec("uc"), _spec("ub"), _spec("ua", 4))
    st = {i: got[i] for i in sorted(got)}
    assert [st[i][0] for i in st] == ["RUN", "PEND", "RUN", "PEND", "RUN"]
    assert st[2][2] == L.UGRP_JOB_LIMIT[1]  # 2 of 3 used, 2 asked
    assert st[4][2] == "The user has reached his/her job slot limit"  # ub's own (team@) 2, checked first
    cl.kill(cl.jobs[(3, 0)], "lsfadmin")
    got = _run(cl, _spec("uc"), _spec("uc"))
    assert [got[i][0] for i in sorted(got)] == ["RUN", "PEND"]
    assert got[max(got)][2] == L.UGRP_JOB_LIMIT[0]
