"""The record types of a real LSF 10 lsb.events that lsfemu reads but never
writes (lsfemu/events/others.py): LOAD_INDEX, UNFULFILL, JOB_SIGACT, ... are
read without a warning; the MultiCluster ones (JOB_FORWARD, JOB_ACCEPT,
JOB_ACCEPTACK) field by field, and bhist shows a forwarded job as LSF does.
The log is tests/data/mclog/lsb.events (its README says how it was made)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from events_helpers import assert_golden
from lsfemu.cli import bhist as B
from lsfemu.cli.base import Ctx
from lsfemu.events import codec, fastdecode
from lsfemu.events.history import build_histories
from lsfemu.events.log import read_events
from lsfemu.events.others import JobAccept, JobAcceptAck, JobForward, OtherRecord

LOG = Path(__file__).parents[1] / "data" / "mclog" / "lsb.events"


def run_bhist(*argv: str, path: Path = LOG):
    c = Ctx(cluster=None, cmd="bhist", argv=[*argv, "-f", str(path)], user="userA", uid=506, cwd="/", env={})
    return B.run(c)


def test_a_real_format_log_reads_without_warnings():
    warnings = []
    recs = [r for _, r in read_events(LOG, warnings.append)]
    # only the LSF 9/10 fields after the ones lsfemu models (which bhist, as LSF's reader, ignores silently)
    assert {(w.kind, w.message.split()[0]) for w in warnings} == {("extra", "JOB_NEW"), ("extra", "JOB_EXECUTE")}
    kinds = [r.type_name if isinstance(r, OtherRecord) else r.TYPE for r in recs]
    assert kinds.count("LOAD_INDEX") == 2
    assert {"UNFULFILL", "JOB_SIGACT", "JOB_CHUNK", "JOB_EXT_MSG", "JOB_FORWARD", "JOB_ACCEPTACK"} <= set(kinds)
    fwd = [r for r in recs if isinstance(r, JobForward)]
    assert [(r.job_id, r.cluster, r.reser_hosts, r.idx, r.src_cluster, r.src_job_id) for r in fwd] == [
        (101, "cluster2", (), 0, "sub_cluster", 101), (102, "cluster3", (), 0, "sub_cluster", 102)]
    ack = next(r for r in recs if isinstance(r, JobAcceptAck))
    assert (ack.job_id, ack.dst_cluster, ack.dst_job_id, ack.job_key) == (101, "cluster2", 2034, (101, 0))


def test_bhist_shows_the_forwarded_jobs():
    r = run_bhist("-l", "-a", "-u", "all")
    assert (r.err, r.rc) == ("", 0)
    assert_golden("bhist_l_forwarded", r.out)
    # the forwarded job that did not start yet is pending; the one that ran ran remotely
    r = run_bhist("-u", "all")
    assert r.out.splitlines()[2].split()[:4] == ["102", "userB", "wait_job", "35"]
    assert "Job <101>, forwarded job to cluster <cluster2>;" in run_bhist("-t").out
    assert run_bhist("-a", "-m", "hostB@cluster2").out.splitlines()[2].split()[0] == "101"


@pytest.mark.parametrize("line, want", [
    ('"JOB_FORWARD" "10.1" 5 7 2 "c2" "h1@c2" "h2@c2" 3', dict(job_id=7, cluster="c2", reser_hosts=("h1@c2", "h2@c2"),
                                                            idx=3, src_cluster="")),  # an older writer's end
    ('"JOB_FORWARD" "10.1" 5 7 0 "c2" 0 1 7 "c1" 0 "select[type==any]" "new"',
     dict(job_rmt_attr=1, src_job_id=7, src_cluster="c1", effective_res_req="select[type==any]", extra=('"new"',))),
    ('"JOB_ACCEPT" "10.1" 5 2034 101 "sub_cluster" 0 4 "cluster2" 2034',
     dict(job_id=2034, remote_jid=101, cluster="sub_cluster", idx=0, job_rmt_attr=4, dst_cluster="cluster2")),
    ('"JOB_ACCEPTACK" "10.1" 5 101 0', dict(job_id=101, idx=0, dst_cluster="", dst_job_id=0)),
])
def test_multicluster_fields(line, want):
    rec = fastdecode.decode(line)
    for k, v in want.items():
        assert getattr(rec, k) == v, k
    assert codec.encode(rec) == line  # written back as read
    assert codec.encode(dataclasses.replace(rec, event_time=9)).startswith(line[:line.index(" 5 ")] + " 9 ")


@pytest.mark.parametrize("line, why", [
    ('"JOB_FORWARD" "10.1" 5 7 2 "c2" "h1" 0', "JOB_FORWARD: reserHosts: expected a quoted string, got '0'"),
    ('"JOB_FORWARD" "10.1" 5 7 -1 "c2" 0', "JOB_FORWARD: numReserHosts: bad count -1"),
    ('"JOB_ACCEPT" "10.1" 5 7 x "c2" 0', "JOB_ACCEPT: remoteJid: expected an integer, got 'x'"),
    ('"JOB_ACCEPTACK" "10.1" 5 101', "JOB_ACCEPTACK: idx missing"),
])
def test_damaged_multicluster_records_are_corrupt(tmp_path, line, why):
    with pytest.raises(codec.EventSyntaxError, match="^" + why.replace("[", r"\[")):
        fastdecode.decode(line)
    path = tmp_path / "lsb.events"
    path.write_text(LOG.read_text() + line + "\n")
    r = run_bhist("-a", "101", path=path)
    assert (r.err, r.rc) == (f"File {path} at line 19: corrupt record skipped: {why}\n", 0)


def test_acceptance_on_the_execution_side():
    # the execution cluster's own log: its JOB_NEW for the job it took, then JOB_ACCEPT
    recs = [fastdecode.decode(line) for line in LOG.read_text().splitlines()[1:] if '"JOB_NEW"' in line][:1]
    recs.append(fastdecode.decode('"JOB_ACCEPT" "10.1" 1495678425 101 2034 "sub_cluster" 0 4'))
    (h,) = build_histories(recs)
    assert [(c.kind, c.data) for c in h.changes][1:] == [("ACCEPT", {"cluster": "sub_cluster", "remote_job_id": 2034})]
    assert isinstance(recs[1], JobAccept) and h.status == "PEND"
