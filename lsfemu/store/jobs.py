"""The job table's queries and set-based writes, and the loads of a cluster's
state: the queue and host states (the jobs a daemon keeps in memory are
lsfemu.store.records'), a job's rows or history, job IDs in use (the search
for a free one after the count rolled over), the finished runs a restart charges again, and the pass's
pending reasons written as one UPDATE (lsfemu.engine.passes decides which).
The engine calls these with plain values and gets ORM objects back."""

from __future__ import annotations

from sqlalchemy import and_, bindparam, func, or_, select, update
from sqlalchemy.orm import Session, aliased

from lsfemu.jobstate import FINISHED
from lsfemu.store.models import HostState, Job, JobEvent, JobGroup, QueueState


def queue_states(session: Session):
    return session.scalars(select(QueueState))


def host_states(session: Session):
    return session.scalars(select(HostState))


def job_groups(session: Session):
    """Every job group (bgadd, bsub -g), in the order they were made."""
    return session.scalars(select(JobGroup).order_by(JobGroup.created, JobGroup.path))


def job_rows(session: Session, jid: int):
    """Every row of job *jid* (an array's elements and its own row)."""
    return session.scalars(select(Job).where(Job.id == jid))


def any_job(session: Session) -> bool:
    """Has the store ever held a job (finished and cleaned ones included)?"""
    return session.scalar(select(Job.id).limit(1)) is not None


def max_job_id(session: Session) -> int:
    """The highest job ID in the store (0 when it has no job)."""
    return session.scalar(select(func.max(Job.id))) or 0


def job_id_free(session: Session, jid: int) -> bool:
    return session.scalar(select(Job.id).where(Job.id == jid).limit(1)) is None


def free_job_id_after(session: Session, taken: int, below: int) -> int | None:
    """The smallest free job ID above *taken* (an ID in use) and at most
    *below*: the end of the run of used IDs that starts at *taken*, plus one."""
    nxt = aliased(Job)
    end = session.scalar(
        select(func.min(Job.id)).where(Job.id >= taken, Job.id < below,
                                       ~select(nxt.id).where(nxt.id == Job.id + 1).exists()))
    return None if end is None else end + 1


def history(session: Session, job_id: int, array_index: int) -> list[JobEvent]:
    """A job's history rows, oldest first."""
    return list(session.scalars(
        select(JobEvent).where(JobEvent.job_id == job_id, JobEvent.array_index == array_index)
        .order_by(JobEvent.id)))


def preemption_counts(session: Session) -> dict[tuple[int, int], int]:
    """How many times each job was preempted: its STATUS rows that suspended it
    for preemption (SUSP_MBD_PREEMPT, 128) and the REQUEUE rows of no one
    (TERMINATE_WHEN=PREEMPT's; brequeue's name their user)."""
    rows = session.execute(
        select(JobEvent.job_id, JobEvent.array_index, func.count())
        .where(or_(and_(JobEvent.kind == "STATUS", JobEvent.data.like('%"reason": 128%')),
                   and_(JobEvent.kind == "REQUEUE", JobEvent.actor.is_(None))))
        .group_by(JobEvent.job_id, JobEvent.array_index))
    return {(jid, idx): n for jid, idx, n in rows}


def preempted_seconds(session: Session) -> dict[tuple[int, int], float]:
    """Each job's time spent preempted, summed (MAX_TOTAL_TIME_PREEMPT): from
    each STATUS row that suspended it for preemption (SUSP_MBD_PREEMPT, 128)
    to its next STATUS row (its resuming, or whatever came next). A job
    preempted now is not counted (only a running job's total is asked for)."""
    rows = session.execute(
        select(JobEvent.job_id, JobEvent.array_index, JobEvent.time, JobEvent.data)
        .where(JobEvent.kind == "STATUS").order_by(JobEvent.job_id, JobEvent.array_index, JobEvent.id))
    out: dict[tuple[int, int], float] = {}
    since: dict[tuple[int, int], float] = {}
    for jid, idx, t, data in rows:
        key = (jid, idx)
        if key in since:
            out[key] = out.get(key, 0.0) + t - since.pop(key)
        if '"reason": 128' in data:
            since[key] = t
    return out


def finished_runs_since(session: Session, horizon: float):
    """Finished jobs that ran, finished at *horizon* or later, in order of their end."""
    return session.scalars(
        select(Job).where(Job.status.in_(FINISHED), Job.finish_time >= horizon, Job.start_time.is_not(None))
        .order_by(Job.finish_time))


def replace_pend_reasons(session: Session, old: str, new: str) -> None:
    """Every pending job whose stored reasons are *old* gets *new*, in one UPDATE
    (the ORM objects loaded are not told: the caller sets them)."""
    table = Job.__table__
    session.execute(update(table).where(table.c.status == "PEND", table.c.pend_reasons == old)
                    .values(pend_reasons=new))


def write_pend_reasons(session: Session, rows: list[dict]) -> None:
    """Stored reasons by row, in one executemany: *rows* are dicts of `k_id`,
    `k_idx` (the job's key) and `k_text` (the job's reasons)."""
    table = Job.__table__
    session.execute(
        update(table).where(table.c.id == bindparam("k_id"), table.c.array_index == bindparam("k_idx"))
        .values(pend_reasons=bindparam("k_text")),
        rows)
