"""The one place with ORM listeners: what tells the engine's caches that a
job object changed or that the store was written.

The scheduling pass's row cache (lsfemu.engine.passrows) and the `bjobs -aps`
listing's kept lines and tables (lsfemu.engine.listing) keep facts read from
job objects; they must drop them as soon as anything assigns one of a job's
column attributes or the ORM expires or refreshes the object, and the
listing's whole table as soon as anything is flushed or written (a set-based
UPDATE or DELETE fires no object event). The engine hands its listener
functions to `on_job_change` and `on_store_write`; they are installed as
they are (no call in between: an attribute set in a pass's hot loop calls
them directly). The job events are the mapper's (they follow any Job
object); the write events are installed on the engine's own session (the
only sessions lsfemu opens are its clusters', each installs them).
"""

from __future__ import annotations

from typing import Callable

from sqlalchemy import event, inspect
from sqlalchemy.orm import Session

from lsfemu.store.models import Job


#: every job listener: told of a new job held as a record (`job_made`), which fires no ORM event
_listeners: list[Callable] = []


def on_job_change(listener: Callable) -> None:
    """Call `listener(job, *args)` whenever a column attribute of a Job object
    is assigned, or the object is expired or refreshed, or a new job is made
    (`job_made`)."""
    _listeners.append(listener)
    for attr in inspect(Job).column_attrs:
        event.listen(getattr(Job, attr.key), "set", listener)
    event.listen(Job, "expire", listener)
    event.listen(Job, "refresh", listener)


def on_job_columns_change(keys: tuple[str, ...], listener: Callable) -> None:
    """Call `listener(job, *args)` whenever one of these column attributes of a
    Job object is assigned, or the object is expired or refreshed (only these:
    a listener on every column would run on each assignment of the pass)."""
    _listeners.append(listener)
    for key in keys:
        event.listen(getattr(Job, key), "set", listener)
    event.listen(Job, "expire", listener)
    event.listen(Job, "refresh", listener)


def job_made(job) -> None:
    """Tell the job listeners of a new job (a record of lsfemu.store.records,
    which the ORM knows nothing of), as the ORM tells them of a changed one."""
    for listener in _listeners:
        listener(job)


#: a record whose values lsfemu.store.changedrows set in place (no ORM event either): told the same way
job_changed = job_made


def on_store_write(session: Session, flushed: Callable, executed: Callable) -> None:
    """Call `flushed(session, flush_context)` after each flush of *session* and
    `executed(orm_execute_state)` on each statement run through it."""
    event.listen(session, "after_flush", flushed)
    event.listen(session, "do_orm_execute", executed)


def in_store(job: Job) -> bool:
    """Is *job* in the store (persistent: its column defaults filled in by a
    flush)? A record (lsfemu.store.records) always is: it was read from the store."""
    state = job.__dict__.get("_sa_instance_state")
    return state is None or state.key is not None
