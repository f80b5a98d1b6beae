"""Named counters of the store (job IDs, dispatch positions), taken atomically.

`take_counter` reads and moves a counter on in one statement
(`UPDATE counters SET value = ... RETURNING value`), so that several
connections — several daemons or in-process commands on one PostgreSQL or
SQLite store — never get the same value. The row stays locked until the
transaction ends (PostgreSQL's row lock, SQLite's write lock): a concurrent
taker waits for the commit and then sees the committed value, so a request
that rolls back leaves no gap either. `take_write_lock` takes the store's
write lock with a no-op UPDATE of one (before reading what must not change
under the caller: lsb.events' committed length, whether the store had jobs).
"""

from __future__ import annotations

from sqlalchemy import case, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from lsfemu.store.models import Counter


def take_counter(session: Session, name: str, wrap_at: int | None = None) -> int:
    """The counter's value, moved on by one (back to 1 after `wrap_at`) in the same statement."""
    step = Counter.value + 1 if wrap_at is None else case((Counter.value >= wrap_at, 1), else_=Counter.value + 1)
    # synchronize_session="fetch": the loaded Counter (if any) is found by the
    # returned key. The default ("evaluate") tests every object in the
    # session against the WHERE clause: with a million jobs loaded, seconds
    # per submission.
    new = session.execute(update(Counter).where(Counter.name == name).values(value=step)
                          .returning(Counter.value).execution_options(synchronize_session="fetch")).scalar()
    if new is None:  # a store made before the counter existed (ensure_counters makes it): start at 1
        session.add(Counter(name=name, value=2))
        session.flush()
        return 1
    return new - 1 if (wrap_at is None or new != 1) else wrap_at


def ensure_counters(session: Session, names: tuple[str, ...]) -> None:
    """Create the counters missing (at 1) and commit, so that take_counter only ever
    updates. Two processes starting on a new store may race here: the loser finds
    the rows made and goes on."""
    for name in names:
        if session.get(Counter, name) is None:
            try:
                session.add(Counter(name=name, value=1))
                session.commit()
            except IntegrityError:
                session.rollback()


def take_write_lock(session: Session) -> None:
    """Take the store's write lock now, changing nothing (a no-op UPDATE of a
    counter): what the caller reads next no other writer can change before
    its transaction ends."""
    session.execute(update(Counter).where(Counter.name == "events_offset").values(value=Counter.value))
