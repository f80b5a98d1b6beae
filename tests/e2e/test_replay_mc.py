"""`lsfemu replay --into` of a MultiCluster submission cluster's lsb.events
(tests/data/mclog: real-format lines, a job forwarded and run on
`hostB@cluster2`, one forwarded and pending, LOAD_INDEX and other records
lsfemu does not write): no warning, and a cluster its daemon accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow(8)  # seconds, quiet machine

LOG = Path(__file__).parents[1] / "data" / "mclog" / "lsb.events"


def test_replay_of_forwarded_jobs(lsf_cluster, tmp_path):
    c = lsf_cluster
    into = tmp_path / "mc"
    r = c.run(["lsfemu", "replay", str(LOG), "--into", str(into)])
    assert r.rc == 0, r.text
    assert "unknown event type" not in r.err and "corrupt" not in r.err, r.err
    assert "Replayed 17 events of 2 jobs into cluster <sub_cluster>" in r.out
    # the remote host is not one of the replayed cluster's (lsf.cluster would refuse host@cluster)
    assert "@" not in (into / "lsf.cluster.sub_cluster").read_text()
    env = {"LSF_ENVDIR": str(into), "LSFEMU_HOME": str(into / "state")}
    try:
        out = c.run("bjobs -a -u all -w", env=env)
        assert out.rc == 0, out.text
        rows = [line.split() for line in out.out.splitlines()[1:]]
        assert [row[:6] for row in rows] == [["102", "userB", "PEND", "send", "hostA", "-"],
                                             ["101", "userA", "DONE", "send", "hostA", "hostB@cluster2"]]
        hist = c.run("bhist -l -u all 102", env=env)
        assert "Forwarded job to cluster <cluster3>;" in hist.out and hist.err == ""
        hosts = [line.split()[0] for line in c.run("bhosts -w", env=env).out.splitlines()[1:]]
        assert hosts == ["hostA"]  # the submission cluster's master, from MBD_START
    finally:
        c.run("lsfemu daemon stop", env=env)
