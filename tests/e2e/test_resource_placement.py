"""Placement by resources through the daemon (issue 19): the issue's examples
on a fresh `lsfemu init` cluster (3 hosts x 4 slots, 16 GB each), the
reasons bjobs prints, reservations held by running jobs, and what-if
replaying a log under requirements."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.slow(12)


def _submit(c, args: str, user: str = "user3") -> int:
    r = c.run(f"bsub {args}", user=user)
    m = re.search(r"Job <(\d+)>", r.out)
    assert m, r.text
    return int(m.group(1))


def _exec(c, job: int) -> str:
    return c.run(f"bjobs -noheader -o exec_host {job}").out.strip()


def _reasons(c, job: int) -> str:
    return c.run(f"bjobs -p {job}").out


@pytest.fixture
def c(lsf_cluster_factory):
    return lsf_cluster_factory()


def test_the_issues_examples_place_as_lsf_does(c):
    tile = _submit(c, "-n 3 -R 'span[ptile=1]' sleep 1000")
    big = _submit(c, "-R 'rusage[mem=20000]' sleep 1000")
    none = _submit(c, "-R 'select[mem>999999]' sleep 1000")
    named = _submit(c, "-R 'select[hname==hostC]' sleep 1000")
    wide = _submit(c, "-n 6 -R 'span[hosts=1]' sleep 1000")
    c.advance("20s")
    assert _exec(c, tile) == "hostA:hostB:hostC"
    assert _exec(c, named) == "hostC"
    assert "Job's requirements for reserving resource (mem) not satisfied: 3 hosts" in _reasons(c, big)
    assert "Job's resource requirements not satisfied: 3 hosts" in _reasons(c, none)
    assert "Not enough processors to meet the job's spanning requirement: 3 hosts" in _reasons(c, wide)
    # hostA and hostB have 3 free slots, hostC 2: four on one host cannot start either
    four = _submit(c, "-n 4 -R 'span[hosts=1]' sleep 1000")
    three = _submit(c, "-n 3 -R 'span[hosts=1]' sleep 1000")
    c.advance("20s")
    assert "Not enough processors to meet the job's spanning requirement: 3 hosts" in _reasons(c, four)
    assert _exec(c, three) == "hostA:hostA:hostA"
    long = c.run(f"bjobs -l {three}").out
    assert re.search(r"Started 3 Task\(s\) on Host\(s\) <3\*hostA>|<hostA> <hostA> <hostA>", long), long


def test_running_jobs_hold_their_reservation_until_they_end(c):
    first = _submit(c, "-R 'rusage[mem=10000] select[hname==hostA]' sleep 60")
    second = _submit(c, "-R 'rusage[mem=10000] select[hname==hostA]' sleep 60")
    c.advance("20s")
    assert _exec(c, first) == "hostA"
    assert "Job's requirements for reserving resource (mem) not satisfied: 1 host" in _reasons(c, second)
    c.advance("70s")  # the first ends: its 10000 MB come back and the second starts
    assert _exec(c, second) == "hostA"


def test_a_requirement_placement_does_not_build_is_refused_by_name(c):
    r = c.run(["bsub", "-R", "cu[maxcus=1]", "sleep", "1"], user="user1")
    assert r.rc != 0 and "cu[]: Not supported by lsfemu yet in a resource requirement. Job not submitted." in r.err
    assert "No unfinished job found" in c.run("bjobs -u all").err


def test_explain_pending_tells_host_by_host_why(c):
    filler = _submit(c, "-n 4 -R 'select[hname==hostA]' sleep 1000")
    job = _submit(c, "-n 2 -R 'select[mem>8000] rusage[mem=9000] span[hosts=1]' sleep 1000")
    blocker = _submit(c, "-R 'rusage[mem=9000] select[hname==hostB]' sleep 1000")
    c.advance("20s")
    # the filler takes hostA; the job takes hostB first (9000 MB), so the
    # blocker's 9000 do not fit in hostB's 7384 MB left
    assert _exec(c, filler) == "hostA:hostA:hostA:hostA"
    assert _exec(c, job) == "hostB:hostB"
    r = c.run(f"lsfemu explain pending {blocker}")
    assert r.rc == 0, r.text
    lines = r.out.splitlines()
    assert lines[0] == f"Job <{blocker}> is pending in queue <normal>, asking for 1 slot."
    assert lines[1] == "Resource requirement: rusage[mem=9000] select[hname==hostB]"
    assert "  Job's requirements for reserving resource (mem) not satisfied: 1 host;" in lines
    assert "  Job's resource requirements not satisfied: 1 host;" in lines
    assert "  Job slot limit reached: 1 host;" in lines
    host = {ln.split()[0]: ln for ln in lines if ln.startswith("  host")}
    assert "every job slot it has is taken" in host["hostA"]
    assert "not enough mem left to reserve" in host["hostB"]
    assert "its values do not satisfy the job's select[]" in host["hostC"]
    assert any("the select[] reads: hname=hostC" in ln for ln in lines)
    r = c.run(f"lsfemu explain pending {job}")
    assert r.rc == 255 and r.err == f"Job <{job}>: Not a pending job\n"


def test_select_reads_the_hosts_virtual_load(c):
    busy = _submit(c, "-n 3 -R 'select[hname==hostA]' sleep 1000")
    c.advance("20s")
    idle = _submit(c, "-R 'select[ut<0.5 && r15s<1]' sleep 1000")  # hostA runs 3 of its 4 CPUs: ut 0.75
    anywhere = _submit(c, "sleep 1000")
    c.advance("20s")
    assert _exec(c, busy) == "hostA:hostA:hostA"
    assert _exec(c, idle) == "hostB"
    assert _exec(c, anywhere) == "hostA"
