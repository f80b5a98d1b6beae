"""Filling a cluster's store fast, for the benchmarks (issue 8).

Submitting 100,000 jobs one ``bsub`` (or one ``Cluster.submit``) at a time
takes minutes, so :func:`bulk_submit` writes what ``Cluster.submit`` would
have written for each job, in bulk: the ``jobs`` row (state PEND), its
SUBMIT history row, and its JOB_NEW record in ``lsb.events`` (the committed
length of the log in counter ``events_offset``, as the daemon keeps it), plus
the ``next_job_id`` and ``position`` counters. The daemon started afterwards
sees a store it could have written itself. Run it with no daemon running.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

START = 1767603600.0


@dataclass
class Bulk:
    """One kind of job to bulk-submit: *n* jobs of these users and queues."""

    n: int
    users: list[str]
    queues: list[str]
    runtimes: tuple[int, int] = (600, 600)  # uniform range of the simulated run time (sleep N)
    slots: tuple[int, ...] = (1,)
    seed: int = 1


def bulk_submit(envdir: str | Path, home: str | Path, bulk: Bulk, *, t: float | None = None,
                log_events: bool = True) -> int:
    """Bulk-submit *bulk*; returns the first job ID used."""
    from sqlalchemy import insert

    from lsfemu.engine.cluster import Cluster
    from lsfemu.engine.eventlog import uid_of
    from lsfemu.events import emit
    from lsfemu.sched import dispatch
    from lsfemu.store.bulk import BulkRows
    from lsfemu.store.models import Counter, Job, JobEvent

    cl = Cluster(str(envdir), str(home))
    now = cl.now() if t is None else t
    first = cl._counter("next_job_id") or 1
    pos0 = cl._counter("position") or 1
    prio = 50 if cl.config.params.max_user_priority is not None else None
    cl.session.close()
    rng = random.Random(bulk.seed)
    jobs: list[dict] = []
    events: list[dict] = []
    lines: list = []  # records
    writer = cl.events.writer
    with cl.engine.begin() as conn:
        # the store's bulk insert: SQLAlchemy's per-row parameter processing
        # costs more than SQLite's insert at a million rows.
        job_rows, event_rows = BulkRows(conn, Job), BulkRows(conn, JobEvent)

        def flush() -> None:
            job_rows.insert(jobs)
            event_rows.insert(events)
            jobs.clear()
            events.clear()

        for k in range(bulk.n):
            jid = first + k
            user = bulk.users[k % len(bulk.users)]
            queue = bulk.queues[k % len(bulk.queues)]
            run = rng.randint(*bulk.runtimes)
            slots = rng.choice(bulk.slots)
            row = dict(
                id=jid, array_index=0, user=user, status="PEND", queue=queue, from_host="hostA",
                command=f"sleep {run}", name=None, project="default", cwd="/tmp", home="/tmp",
                num_processors=slots, priority=prio, priority_base_time=now, pend_since=now, submit_time=now,
                position=float(pos0 + k), exec_hosts="", pend_reasons=dispatch.NEW_JOB,
                sim_runtime=float(run), sim_cputime=float(run * slots), sim_exit_code=0, work_done=0.0,
                env_json="{}", default_queue_used=False)
            jobs.append(row)
            events.append(dict(job_id=jid, array_index=0, time=now, kind="SUBMIT", actor=user,
                               data=json.dumps({"queue": queue})))
            if log_events:
                lines.extend(emit.records_for(Job(**row), "SUBMIT", now, user, {"queue": queue},
                                              uid_of=uid_of, cpu_time=0.0))
            if len(jobs) == 5000:
                flush()
                if lines:
                    writer.write_many(lines)
                    lines.clear()
        if jobs:
            flush()
        if lines:
            writer.write_many(lines)
        size = cl.events.size()
        counters = {"next_job_id": first + bulk.n, "position": pos0 + bulk.n, "events_offset": size}
        from sqlalchemy import delete

        conn.execute(delete(Counter).where(Counter.name.in_(list(counters))))
        conn.execute(insert(Counter), [dict(name=k, value=v) for k, v in counters.items()])
    cl.events.close()
    cl.engine.dispose()
    return first
