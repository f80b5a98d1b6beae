"""Job control of issue 18, part 5, end to end on the virtual clock: brun (an
administrator forces a dispatch), bkill's -r -d -l -stat -m, and the -m host
filter of bstop, bresume and bswitch.

The fixture's cluster: hostA..hostC with 4 slots each, MBD_SLEEP_TIME 10 s,
user1 may run 8 jobs at once, lsfadmin is the cluster administrator; the
clock starts Mon Jan 5 09:00:00 2026 UTC.
"""

from __future__ import annotations

import pytest

from lsfemu.events.log import read_events
from lsfemu.events.records import JobForce, JobSignal, JobStart, JobStatus

pytestmark = pytest.mark.slow(25)


def _stat(c, jid, field="stat"):
    return c.run(f"bjobs -a -noheader -o '{field}' {jid}", user="lsfadmin").out.strip()


def _records(c, kind):
    return [r for _, r in read_events(c.home / "logdir" / "lsb.events") if isinstance(r, kind)]


def _fill(c, n=9):
    """user1's limit of 8 running jobs: the 9th pends (its user's job slot limit)."""
    for _ in range(n):
        c.run("bsub sleep 600", user="user1")
    c.advance("10s")


# -- brun ------------------------------------------------------------------


def test_brun_forces_a_pending_job_past_the_user_limit(lsf_cluster):
    c = lsf_cluster
    _fill(c)
    assert _stat(c, 9) == "PEND"
    r = c.run("brun -m hostC 9", user="lsfadmin")
    assert (r.out, r.err, r.rc) == ("Job <9> is being forced to run.\n", "", 0)
    assert _stat(c, 9, "stat exec_host start_time") == "RUN hostC Jan  5 09:00"
    force = _records(c, JobForce)
    assert [(f.job_id, f.exec_hosts, f.user_name, f.options) for f in force] == [(9, ("hostC",), "lsfadmin", 0)]
    starts = [s for s in _records(c, JobStart) if s.job_id == 9]
    assert len(starts) == 1 and starts[0].event_time == force[0].event_time
    lines = c.run("bhist -l 9", user="user1").out.splitlines()
    at = lines.index("Mon Jan  5 09:00:10: Job is forced to run by user or administrator <lsfadmin>;")
    assert lines[at + 1] == "Mon Jan  5 09:00:10: Dispatched to <hostC>;"
    c.advance("10m")  # the forced job runs its course like any other
    assert _stat(c, 9) == "DONE"


def test_brun_places_every_slot_on_the_hosts_named(lsf_cluster):
    c = lsf_cluster
    _fill(c, 8)
    c.run("bsub -n 6 sleep 600", user="user2")  # 9: 4 slots are left, on hostC
    c.run("bsub -n 5 sleep 600", user="user2")  # 10
    c.advance("10s")
    assert (_stat(c, 9), _stat(c, 10)) == ("PEND", "PEND")
    assert c.run("brun -m 'hostA hostB' 9", user="lsfadmin").rc == 0
    assert _stat(c, 9, "exec_host") == "hostA:hostA:hostA:hostA:hostB:hostB"
    assert c.run("brun -m 'hostC#1 hostB#2 hostA' 10", user="lsfadmin").rc == 0
    assert _stat(c, 10, "exec_host") == "hostC:hostB:hostB:hostA:hostA"


def test_brun_refusals_change_nothing(lsf_cluster):
    c = lsf_cluster
    for _ in range(9):
        c.run("bsub sleep 600", user="user1")  # 1-8 run, 9 pends (user1's limit)
    c.run("bsub sleep 1", user="user2")  # 10: runs and ends
    c.run("bsub -n 10 sleep 600", user="user2")  # 11: pends
    c.run("bsub -J 'arr[1-6]' sleep 600", user="user2")  # 12: 12[5] and 12[6] pend
    c.advance("10s")
    c.run("bstop 1", user="user1")
    c.advance("1m")
    assert [_stat(c, j) for j in (9, 10, 11, "'12[6]'")] == ["PEND", "DONE", "PEND", "PEND"]
    refused = {
        ("brun -m hostA 9", "user1"): "User permission denied",
        ("brun -m hostA 99", "lsfadmin"): "No matching job found",
        ("brun -m hostA 12", "lsfadmin"): "Cannot operate on job array",
        ("brun -m hostA 1", "lsfadmin"): "Operation not supported for a suspended job",
        ("brun -m hostA 2", "lsfadmin"): "Job has already started",
        ("brun -m hostA 10", "lsfadmin"): "Job has already finished",
        ("brun -m hostZ 9", "lsfadmin"): "Bad host name, host group name or cluster name",
        ("brun -m 'hostA#x' 9", "lsfadmin"): "Bad host name, host group name or cluster name",
        ("brun -m 'hostA hostB' 11", "lsfadmin"): "Too many processors requested",
    }
    before = c.run("bjobs -a -u all -noheader -o 'jobid stat exec_host'", user="lsfadmin").out
    for (cmd, user), reason in refused.items():
        r = c.run(cmd, user=user)
        assert (r.out, r.err, r.rc) == ("", f"Failed to run the job: {reason}\n", 255), cmd
    usage = c.run("brun -h", user="user1").err
    for cmd in ("brun 9", "brun -m hostA", "brun -m hostA 9 10", "brun -m hostA x9"):
        r = c.run(cmd, user="lsfadmin")
        assert (r.out, r.err, r.rc) == ("", usage, 255), cmd
    assert c.run("bjobs -a -u all -noheader -o 'jobid stat exec_host'", user="lsfadmin").out == before
    assert _records(c, JobForce) == []
    r = c.run("brun -m hostA '12[6]'", user="lsfadmin")  # one element of the array may be forced
    assert (r.out, r.rc) == ("Job <12[6]> is being forced to run.\n", 0)
    assert _stat(c, "'12[6]'", "stat exec_host") == "RUN hostA"
