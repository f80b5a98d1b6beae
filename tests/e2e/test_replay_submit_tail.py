"""`lsfemu replay --into` gives the replayed jobs what bsub was given that
lsb.events' JOB_NEW carries in LSF 9/10's tail (issue 21): -cwd, -Jd, -g
(its job group made too), -We -- bjobs -l in the replayed cluster shows what
it showed in the live one."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.slow(8)  # seconds, quiet machine


def _long(c, env=None) -> str:
    text = c.run("bjobs -l 1", user="user1", env=env).out
    return re.sub(r"\n {21}", "", text)  # bjobs -l's continuation lines joined


def test_replayed_job_keeps_cwd_description_group_and_estimate(lsf_cluster, tmp_path):
    c = lsf_cluster
    r = c.run(["bsub", "-cwd", "/tmp/w/%J", "-Jd", "a described job", "-g", "/g1/sub", "-We", "20",
               "sleep", "600"], user="user1")
    assert r.rc == 0, r.text
    c.advance("1m")
    live = _long(c)
    for item in (", Specified CWD </tmp/w/%J>", "a described job", "/g1/sub"):
        assert item in live, live
    est = ["bjobs", "-noheader", "-o", "estimated_run_time", "1"]
    live_est = c.run(est, user="user1").out
    assert live_est.strip() not in ("", "-"), live_est
    into = tmp_path / "into"
    r = c.run(["lsfemu", "replay", str(c.home / "logdir" / "lsb.events"), "--into", str(into)])
    assert r.rc == 0, r.text
    env = {"LSF_ENVDIR": str(into), "LSFEMU_HOME": str(into / "state")}
    try:
        rep = _long(c, env)
        for item in (", Specified CWD </tmp/w/%J>", "a described job", "/g1/sub"):
            assert item in rep, rep
        # the job's header and submit lines are the live one's (but the job priority: the
        # replayed cluster's configuration, made from the log, has no MAX_USER_PRIORITY)
        keep = [re.sub(r"Job Priority <\d+>, ", "", ln) for ln in live.splitlines()
                if "Job <1>" in ln or "Submitted from" in ln]
        missing = [ln for ln in keep if ln not in rep.splitlines()]
        assert keep and not missing, "\n".join(missing) + "\n----\n" + rep
        assert c.run(est, user="user1", env=env).out == live_est  # -We 20
        groups = c.run("bjgroup", user="user1", env=env).out
        assert re.search(r"^/g1/sub\s+1\s", groups, re.M), groups
    finally:
        c.run("lsfemu daemon stop", env=env)
