"""Slot reservation, MAX_RESERVE_TIME and backfill through the daemon on the
virtual clock (issue 19, part 4): LSF 10.1's "Slot reservation" and
"Backfill scheduling" behaviours on a fresh `lsfemu init` cluster (3 hosts x
4 slots), seen with bjobs, bjobs -l, bhosts and bqueues -l."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.slow(30)

QUEUES = """Begin Queue
QUEUE_NAME = normal
PRIORITY   = 30
SLOT_RESERVE = MAX_RESERVE_TIME[{cycles}]
End Queue

Begin Queue
QUEUE_NAME = short
PRIORITY   = 20
BACKFILL   = Y
End Queue

Begin Queue
QUEUE_NAME = mem
PRIORITY   = 10
RESOURCE_RESERVE = MAX_RESERVE_TIME[{cycles}]
End Queue
"""
PARAMS = """Begin Parameters
DEFAULT_QUEUE  = normal
MBD_SLEEP_TIME = 10
End Parameters
"""


def _cluster(factory, cycles: int = 30):
    return factory(files={"lsb.queues": QUEUES.format(cycles=cycles), "lsb.params": PARAMS})


def _submit(c, args: str, user: str = "user1") -> int:
    r = c.run(f"bsub {args}", user=user)
    m = re.search(r"Job <(\d+)>", r.out)
    assert m, r.text
    return int(m.group(1))


def _stat(c, job: int) -> str:
    return c.run(f"bjobs -a -noheader -o stat {job}").out.strip()


def _filled(c, minutes: int = 30) -> None:
    """Ten 1-slot jobs with a run limit: hostA and hostB full, 2 slots left on hostC."""
    for _ in range(10):
        _submit(c, f"-W {minutes} sleep 10000", user="user2")
    c.advance("15s")  # they start at 09:00:10 and end by their run limit at 09:30:10


def test_a_parallel_job_reserves_the_free_slots_and_smaller_jobs_wait(lsf_cluster_factory):
    c = _cluster(lsf_cluster_factory)
    _filled(c)
    big = _submit(c, "-n 4 sleep 10000", user="user3")
    small = _submit(c, "sleep 10000", user="user4")
    c.advance("30s")
    assert (_stat(c, big), _stat(c, small)) == ("PEND", "PEND")  # without SLOT_RESERVE the small job would run
    long = c.run(f"bjobs -l {big}").out
    assert "Mon Jan  5 09:00:20: Reserved <2> job slot(s) on host(s) <hostC> <hostC>;\n" in long, long
    # a backfill queue exists: the predicted start, when the fillers' run limits end
    assert "Mon Jan  5 09:30:10: Will be started;\n" in long
    assert c.run(f"bjobs -noheader -o estimated_start_time {big}").out.strip() == "Jan  5 09:30"
    assert " Job slot limit reached: 3 hosts;\n" in c.run(f"bjobs -l {small}").out
    assert "  hostC  every job slot it has is taken\n" in c.run(f"lsfemu explain pending {small}").out  # reserved
    hosts = c.run("bhosts hostC").out.splitlines()[1].split()
    assert hosts == ["hostC", "closed", "-", "4", "4", "2", "0", "0", "2"]
    assert c.run("busers user3").out.splitlines()[1].split()[-1] == "2"  # RSV
    bq = c.run("bqueues -l normal short").out
    assert " 30    0  Open:Active       -    -    -    -    15     5    10     0     0    2\n" in bq  # RSV 2
    assert "Maximum slot reservation time: 300 seconds\n" in bq
    assert "SCHEDULING POLICIES:  BACKFILL\n" in bq
    c.advance("30m")  # the fillers end at 09:30:10: the big job starts first, on the slots it reserved
    assert c.run(f"bjobs -noheader -o 'stat exec_host' {big}").out.split()[0] == "RUN"
    assert "Reserved" not in c.run(f"bjobs -l {small}").out


def test_the_reservation_is_dropped_after_max_reserve_time(lsf_cluster_factory):
    c = _cluster(lsf_cluster_factory, cycles=2)  # 2 x MBD_SLEEP_TIME = 20 seconds
    _filled(c)
    big = _submit(c, "-n 4 sleep 10000", user="user3")
    small = _submit(c, "sleep 10000", user="user4")
    c.advance("15s")  # 09:00:20: the big job reserves hostC's 2 slots
    assert "Reserved <2> job slot(s)" in c.run(f"bjobs -l {big}").out
    assert _stat(c, small) == "PEND"
    c.advance("20s")  # 09:00:40: held 20 seconds: released, and the big job reserves nothing for one pass
    assert c.run(f"bjobs -noheader -o exec_host {small}").out.strip() == "hostC"
    c.advance("10s")  # then it reserves again what is free: hostC's last slot
    assert "Reserved <1> job slot(s) on host(s) <hostC>;" in c.run(f"bjobs -l {big}").out
    assert _stat(c, big) == "PEND"


def test_backfill_jobs_run_on_reserved_slots_only_if_they_end_before_the_predicted_start(lsf_cluster_factory):
    c = _cluster(lsf_cluster_factory)
    _filled(c)
    big = _submit(c, "-n 4 sleep 10000", user="user3")
    c.advance("10s")  # 09:00:20: it reserves hostC's 2 slots, predicted start 09:30:10
    fits = _submit(c, "-q short -W 20 sleep 10000", user="user4")  # ends by 09:20:30
    too_long = _submit(c, "-q short -W 60 sleep 10000", user="user4")
    no_limit = _submit(c, "-q short sleep 10000", user="user4")  # LSF: no run limit, no backfill
    c.advance("10s")
    assert c.run(f"bjobs -noheader -o exec_host {fits}").out.strip() == "hostC"
    assert (_stat(c, too_long), _stat(c, no_limit), _stat(c, big)) == ("PEND", "PEND", "PEND")
    assert "Job slot limit reached: 3 hosts" in c.run(f"bjobs -l {too_long}").out
    c.advance("21m")  # the backfill job ended by its run limit, before the big job's predicted start
    assert _stat(c, fits) == "EXIT"
    c.advance("10m")  # 09:31: the fillers ended at 09:30:10 and the big job started on time
    assert _stat(c, big) == "RUN"
    start = c.run(f"bjobs -noheader -o start_time {big}").out.strip()
    assert start == "Jan  5 09:30", start


def test_resource_reserve_accumulates_memory_for_a_sequential_job(lsf_cluster_factory):
    c = _cluster(lsf_cluster_factory)
    on_a = "select[hname==hostA]"
    first = _submit(c, f"-q mem -W 5 -R 'rusage[mem=10000] {on_a}' sleep 10000", user="user2")
    c.advance("15s")
    assert _stat(c, first) == "RUN"  # hostA: 16384 MB, 6384 left
    second = _submit(c, f"-q mem -R 'rusage[mem=10000] {on_a}' sleep 10000", user="user3")
    third = _submit(c, f"-q mem -R 'rusage[mem=4000] {on_a}' sleep 10000", user="user4")
    c.advance("20s")
    # the second reserves hostA's 6384 MB left: the third, which would fit in them, waits
    assert (_stat(c, second), _stat(c, third)) == ("PEND", "PEND")
    assert "Reserved <1> job slot(s) on host(s) <hostA>;" in c.run(f"bjobs -l {second}").out
    assert "Job's requirements for reserving resource (mem) not satisfied: 1 host" in c.run(f"bjobs -l {third}").out
    c.advance("5m")  # the first ends by its run limit: the second has its 10000 MB and starts first
    assert _stat(c, second) == "RUN"


def test_a_daemon_restart_drops_reservations_and_the_job_reserves_anew(lsf_cluster_factory):
    c = _cluster(lsf_cluster_factory)
    _filled(c)
    big = _submit(c, "-n 4 sleep 10000", user="user3")
    small = _submit(c, "sleep 10000", user="user4")
    c.advance("10s")
    assert "Mon Jan  5 09:00:20: Reserved <2> job slot(s)" in c.run(f"bjobs -l {big}").out
    assert c.run("lsfemu daemon restart").rc == 0
    assert "Reserved" not in c.run(f"bjobs -l {big}").out  # kept in the daemon's memory only
    c.advance("20s")  # the next pass: the big job (first in order) reserves again, its clock started anew
    long = c.run(f"bjobs -l {big}").out
    assert re.search(r"Mon Jan  5 09:00:[34]0: Reserved <2> job slot\(s\) on host\(s\) <hostC> <hostC>;", long), long
    assert _stat(c, small) == "PEND"
