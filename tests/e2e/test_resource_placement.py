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


def test_what_if_places_a_real_logs_jobs_by_their_requirements(lsf_cluster_factory, tmp_path):
    """A log written on 32 GB hosts, replayed on the 16 GB hosts of the
    default configuration: two 12000 MB jobs no longer share a host, so half
    of them wait for the others to end."""
    import json

    big = lsf_cluster_factory()
    text = big.path_of("lsf.cluster.cluster1").read_text().replace(" 16G ", " 32G ")
    big.write("lsf.cluster.cluster1", text)
    for _ in range(6):
        _submit(big, "-R 'rusage[mem=12000]' sleep 600")
    big.advance("30m")
    done = big.run("bjobs -a -noheader -o 'exec_host start_time' -u all").out.splitlines()
    assert len(done) == 6 and len({ln.split()[1:] and " ".join(ln.split()[1:]) for ln in done}) == 1  # all at once
    out = tmp_path / "r.json"
    small = lsf_cluster_factory()  # the default configuration: 16 GB hosts
    r = small.run(["lsfemu", "replay", str(big.home / "logdir" / "lsb.events"), "--what-if", str(small.envdir),
                   "--json", str(out)])
    assert r.rc == 0, r.text
    rep = json.loads(out.read_text())
    assert rep["jobs"] == 6 and rep["unstarted"] == 0
    row = rep["per_user"][0]
    assert row["mean_wait_log"] < 20 and row["mean_wait_whatif"] == pytest.approx(row["mean_wait_log"] + 300, abs=20)


def test_the_queues_res_req_is_merged_into_placement(lsf_cluster_factory):
    queues = ("Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n\n"
              "Begin Queue\nQUEUE_NAME = pinned\nPRIORITY = 40\nRES_REQ = select[cs] rusage[mem=10000]\nEnd Queue\n")
    c = lsf_cluster_factory(files={"lsb.queues": queues})
    plain = _submit(c, "-q pinned sleep 1000")  # hostA has no cs: hostB
    own = _submit(c, "-q pinned -R 'select[hname!=hostB]' sleep 1000")  # its select ANDed with the queue's: hostC
    third = _submit(c, "-q pinned sleep 1000")  # 10000 MB more fit on neither hostB nor hostC
    c.advance("20s")
    assert (_exec(c, plain), _exec(c, own)) == ("hostB", "hostC")
    reasons = _reasons(c, third)
    assert "Job's resource requirements not satisfied: 1 host" in reasons
    assert "Job's requirements for reserving resource (mem) not satisfied: 2 hosts" in reasons
    assert "Resource requirement: select[cs] order[r15s:pg] rusage[mem=10000.00]" in c.run(f"lsfemu explain pending {third}").out


def test_queue_per_cpu_limit_counts_the_hosts_ncpus(lsf_cluster_factory):
    """PJOB_LIMIT (JL/P) is per CPU of the host: lsf.cluster's ncpus (4), not
    its job slots (MXJ 8)."""
    queues = "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nPJOB_LIMIT = 1\nEnd Queue\n"
    hosts = "Begin Host\nHOST_NAME MXJ\nhostA 8\nhostB 0\nhostC 0\nEnd Host\n"
    c = lsf_cluster_factory(files={"lsb.queues": queues, "lsb.hosts": hosts})
    jobs = [_submit(c, "sleep 1000") for _ in range(6)]
    c.advance("20s")
    assert [_exec(c, j) for j in jobs[:4]] == ["hostA"] * 4
    assert "Queue's per-CPU job slot limit reached: 1 host" in _reasons(c, jobs[4])


def test_hosts_are_ordered_only_by_an_order_someone_gave(lsf_cluster_factory):
    """The queue's order[] orders its jobs' hosts; a job's -R without order[]
    replaces it with LSF's default (lsf-breadth 7.3), which placement does not
    apply: the cluster's order (sched/resmerge.py's default_order)."""
    queues = ("Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n\n"
              "Begin Queue\nQUEUE_NAME = spread\nPRIORITY = 40\nRES_REQ = order[r15s]\nEnd Queue\n")
    c = lsf_cluster_factory(files={"lsb.queues": queues})
    _submit(c, "-R 'select[hname==hostA]' sleep 1000")  # hostA: one running slot (r15s 1)
    c.advance("20s")
    by_queue = _submit(c, "-q spread sleep 1000")  # the queue's order: least loaded, hostB before hostC
    c.advance("20s")
    own = _submit(c, "-q spread -R 'rusage[mem=1]' sleep 1000")  # no order given: the cluster's, hostA
    c.advance("20s")
    assert (_exec(c, by_queue), _exec(c, own)) == ("hostB", "hostA")
    assert "order[r15s:pg]" in c.run(f"bjobs -l {own}").out  # what LSF shows: its default
