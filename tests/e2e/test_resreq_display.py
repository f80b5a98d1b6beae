"""What users see of a job's resource requirement (issue 19, part 3): bjobs -l's
RESOURCE REQUIREMENT DETAILS (Combined / Effective, BJOBS_RES_REQ_DISPLAY
none/brief/full), bhist -l's `Effective RES_REQ <...>` after `Dispatched to`,
lsb.events' JOB_START, the job's LSB_EFFECTIVE_RSRCREQ, and bsub's refusal of
a select[] naming no resource. The strings follow lsf-breadth.md 7.3."""

from __future__ import annotations

import time

import pytest

from lsfemu.events.log import read_events
from lsfemu.events.records import JobStart

pytestmark = pytest.mark.slow(8)

QUEUES = """Begin Queue
QUEUE_NAME = normal
PRIORITY = 30
End Queue

Begin Queue
QUEUE_NAME = big
PRIORITY = 40
RES_REQ = select[ncpus>=1] order[-mem] rusage[mem=200:duration=20] span[hosts=1]
End Queue
"""
APPS = """Begin Application
NAME = solver
RES_REQ = rusage[mem=100:swp=50:duration=60]
End Application
"""
WRAP = "\n                     "


def unwrap(text: str) -> str:
    return text.replace(WRAP, "")


@pytest.fixture
def c(lsf_cluster_factory):
    return lsf_cluster_factory(files={"lsb.queues": QUEUES, "lsb.applications": APPS})


def details(c, job: int) -> list[str]:
    out = c.run(f"bjobs -l {job}", user="user1").out
    return out[out.index(" RESOURCE REQUIREMENT DETAILS:"):].rstrip("\n").split("\n")


def test_lsf_default_for_a_job_without_requirements(c):
    c.run("bsub sleep 600", user="user1")
    assert details(c, 1) == [" RESOURCE REQUIREMENT DETAILS:", " Combined: select[type == local] order[r15s:pg]",
                             " Effective: -"]
    c.advance("30s")
    assert details(c, 1)[2] == " Effective: select[type == local] order[r15s:pg] "
    r = c.run("bhist -l 1", user="user1")
    assert "Dispatched to <hostA>, Effective RES_REQ <select[type == local] order[r15s:pg] >;" in unwrap(r.out)


def test_job_queue_and_application_merged(c):
    r = c.run(["bsub", "-q", "big", "-app", "solver", "-R", "select[mem>100] rusage[mem=50]", "sleep", "600"],
              user="user1")
    assert r.rc == 0, r.text
    combined = ("select[(mem>100) && (ncpus>=1) && (type == local)] order[r15s:pg] "
                "rusage[mem=50.00:swp=50.00:duration=1h:decay=0] span[hosts=1]")
    lines = details(c, 1)
    assert unwrap("\n".join(lines[1:])) == f" Combined: {combined}\n Effective: -"
    c.advance("30s")
    effective = ("select[((mem>100)) && ((ncpus>=1)) && (type == local)] order[r15s:pg] "
                 "rusage[mem=50.00:swp=50.00:duration=1h:decay=0] span[hosts=1] ")
    assert unwrap("\n".join(details(c, 1)[1:])) == f" Combined: {combined}\n Effective: {effective}"
    # what lsb.events keeps and bhist shows
    starts = [rec for _, rec in read_events(c.home / "logdir" / "lsb.events") if isinstance(rec, JobStart)]
    assert [s.effective_res_req for s in starts] == [effective]
    assert f"Effective RES_REQ <{effective}>;" in unwrap(c.run("bhist -l 1", user="user1").out)
    # the queue alone: its order, its select, its rusage
    c.run("bsub -q big sleep 600", user="user1")
    assert unwrap("\n".join(details(c, 2)[1:])).split("\n")[0] == (
        " Combined: select[(ncpus>=1) && (type == local)] order[-mem] rusage[mem=200.00:duration=20m:decay=0] "
        "span[hosts=1]")


def test_bqueues_l_shows_the_queues_res_req(c):
    out = c.run("bqueues -l big normal").out
    big, normal = out.split("-" * 79)
    assert "\nRES_REQ:  select[ncpus>=1] order[-mem] rusage[mem=200:duration=20] span[hosts=1]\n" in big
    assert "RES_REQ" not in normal


def test_res_req_display_none_and_full(c):
    c.run(["bsub", "-q", "big", "-app", "solver", "-R", "rusage[mem=50]", "sleep", "600"], user="user1")
    with open(c.path_of("lsf.conf"), "a") as f:
        f.write("BJOBS_RES_REQ_DISPLAY=full\n")
    c.run("badmin reconfig", user="lsfadmin")
    lines = unwrap("\n".join(details(c, 1))).split("\n")
    assert lines[:4] == [" RESOURCE REQUIREMENT DETAILS:", " Job-level: rusage[mem=50]",
                         " App-level: rusage[mem=100:swp=50:duration=60]",
                         " Queue-level: select[ncpus>=1] order[-mem] rusage[mem=200:duration=20] span[hosts=1]"]
    assert lines[4].startswith(" Combined: select[(ncpus>=1) && (type == local)] order[r15s:pg] ")
    c.write("lsf.conf", c.path_of("lsf.conf").read_text().replace("=full", "=none"))
    c.run("badmin reconfig", user="lsfadmin")
    out = c.run("bjobs -l 1", user="user1").out
    assert "RESOURCE REQUIREMENT DETAILS" not in out and "Combined" not in out


def test_unknown_resource_name_is_refused_and_nothing_stored(c):
    r = c.run(["bsub", "-R", "select[bigmem]", "sleep", "1"], user="user1")
    assert (r.out, r.err, r.rc) == (
        "", 'Error in select section: Error near "bigmem" : incorrect section name, resource name, or resource '
        "function name. Job not submitted.\n", 255)
    assert c.store_rows("SELECT COUNT(*) FROM jobs") == [(0,)]
    # built-in names, aliases, type and host names are known
    r = c.run(["bsub", "-R", "select[swap>1 && maxmem>1 && type==any && hname!=hostC]", "sleep", "1"], user="user1")
    assert r.rc == 0, r.text


def test_the_job_sees_its_effective_requirement(lsf_cluster_factory):
    c = lsf_cluster_factory(files={"lsb.queues": QUEUES}, clock="wall")
    out = c.root / "userhome" / "env.txt"
    r = c.run(["bsub", "-q", "big", "-o", str(out), "echo $LSB_EFFECTIVE_RSRCREQ"], user="user1")
    assert r.rc == 0, r.text
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (out.exists() and "select[" in out.read_text()):
        time.sleep(0.1)
    assert ("\nselect[((ncpus>=1)) && (type == local)] order[-mem] rusage[mem=200.00:duration=20m:decay=0] "
            "span[hosts=1]\n") in out.read_text()
