"""Synthetic lsb.events files: a steady stream of jobs from many users, for
the replay benchmark and for tests that need a long log.

:func:`write_events` writes, in time order, what a busy cluster logs for
each job: JOB_NEW, JOB_START, JOB_START_ACCEPT, JOB_EXECUTE, JOB_STATUS
(DONE or EXIT), and the post-job JOB_STATUS -- six records a job -- plus an
MBD_START at the top. Deterministic for a given seed. Memory holds only the
jobs running at one instant.
"""

from __future__ import annotations

import heapq
import random
from pathlib import Path

from lsfemu.events import codec, lsbatch
from lsfemu.events.records import JobExecute, JobNew, JobStart, JobStartAccept, JobStatus, MbdStart
from lsfemu.events.log import HEADER_WIDTH, header_line

RECORDS_PER_JOB = 6


def write_events(path: str | Path, events: int, *, users: int = 100, hosts: int = 10, slots_per_host: int = 8,
                 queues: tuple[str, ...] = ("normal", "short"), start: int = 1767603600, seed: int = 1) -> int:
    """Write about *events* records to *path*; returns the number of jobs."""
    rng = random.Random(seed)
    njobs = max(1, (events - 1) // RECORDS_PER_JOB)
    host_names = [f"host{i:03d}" for i in range(hosts)]
    user_names = [f"user{i:03d}" for i in range(users)]
    pending: list[tuple[int, int, str]] = []  # (time, seq, line) of records due later
    seq = 0
    t = start
    with open(path, "wb") as fh:
        fh.write(header_line(HEADER_WIDTH + 1))
        out: list[str] = [codec.encode(MbdStart(event_time=start, master=host_names[0], cluster="synth",
                                                num_hosts=hosts, num_queues=len(queues)))]

        def due_until(limit: int) -> None:
            while pending and pending[0][0] <= limit:
                out.append(heapq.heappop(pending)[2])

        for i in range(1, njobs + 1):
            t += rng.choice((0, 1, 2, 5))
            due_until(t)
            user = rng.choice(user_names)
            queue = rng.choice(queues)
            slots = rng.choice((1, 1, 1, 2, 4))
            host = rng.choice(host_names)
            runtime = rng.randint(30, 1800)
            wait = rng.randint(0, 120)
            out.append(codec.encode(JobNew(
                event_time=t, job_id=i, user_id=1000, options=lsbatch.SUB_JOB_NAME, num_processors=slots,
                submit_time=t, user_name=user, queue=queue, from_host=host_names[0], cwd="/home/" + user,
                sub_home_dir="/home/" + user, job_name=f"job{i}", command=f"sleep {runtime}",
                max_num_processors=slots)))
            ts = t + wait
            te = ts + runtime
            failed = rng.random() < 0.05
            for when, rec in (
                (ts, JobStart(event_time=ts, job_id=i, exec_hosts=(host,) * slots)),
                (ts, JobStartAccept(event_time=ts, job_id=i, job_pid=10000 + i, job_pgid=10000 + i)),
                (ts, JobExecute(event_time=ts, job_id=i, exec_uid=1000, job_pgid=10000 + i,
                                exec_cwd="/home/" + user, exec_home="/home/" + user, exec_username=user,
                                job_pid=10000 + i)),
                (te, JobStatus(event_time=te, job_id=i,
                               status=lsbatch.JOB_STAT_EXIT if failed else lsbatch.JOB_STAT_DONE,
                               cpu_time=float(runtime * slots), end_time=te,
                               exit_status=lsbatch.wait_status(1) if failed else 0)),
                (te, JobStatus(event_time=te, job_id=i,
                               status=(lsbatch.JOB_STAT_EXIT if failed else lsbatch.JOB_STAT_DONE) | lsbatch.JOB_STAT_PDONE,
                               cpu_time=float(runtime * slots), end_time=te)),
            ):
                seq += 1
                heapq.heappush(pending, (when, seq, codec.encode(rec)))
            if len(out) >= 4096:
                fh.write(("\n".join(out) + "\n").encode())
                out.clear()
        due_until(2**62)
        fh.write(("\n".join(out) + "\n").encode())
    return njobs
