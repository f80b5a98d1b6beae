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

`Takes` is take_counter for one session at one statement per transaction
(issue 23: a group of submissions committed together takes a job ID and a
position per job): the first take locks the rows of the counters taken
together (job ID and position) and moves them on in one statement; later
takes in the same transaction count in memory, and the counts are written
back before the commit (one executemany). `Takes` and `HeldCounters` run
their statements outside the ORM's listeners (lsfemu.store.rawsql).
"""

from __future__ import annotations

from sqlalchemy import bindparam, case, event, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from lsfemu.store import rawsql
from lsfemu.store.models import Counter


def take_counter(session: Session, name: str, wrap_at: int | None = None) -> int:
    """The counter's value, moved on by one (back to 1 after `wrap_at`) in the same statement."""
    # The table, not the ORM entity: no loaded Counter object is looked for
    # (the counters taken are only ever read through this function and Takes);
    # the statements made once (building one costs more than running it).
    if wrap_at is None:
        new = session.execute(_TAKE, {"n": name}).scalar()
    else:
        new = session.execute(_TAKE_WRAPPING, {"n": name, "w": wrap_at}).scalar()
    if new is None:  # a store made before the counter existed (ensure_counters makes it): start at 1
        session.add(Counter(name=name, value=2))
        session.flush()
        return 1
    return new - 1 if (wrap_at is None or new != 1) else wrap_at


_COUNTERS = Counter.__table__
_C = _COUNTERS.c
_TAKE = update(_COUNTERS).where(_C.name == bindparam("n")).values(value=_C.value + 1).returning(_C.value)
_TAKE_WRAPPING = (update(_COUNTERS).where(_C.name == bindparam("n"))
                  .values(value=case((_C.value >= bindparam("w"), 1), else_=_C.value + 1)).returning(_C.value))
_SET = update(_COUNTERS).where(_C.name == bindparam("n")).values(value=bindparam("v"))
_GET = select(_C.value).where(_C.name == bindparam("n"))


def _get_many(n: int):
    """SELECT of the counters named n0..n{n-1} (the names as parameters, not an
    expanding IN: lsfemu.store.rawsql runs it)."""
    stmt = _GET_MANY.get(n)
    if stmt is None:
        stmt = _GET_MANY[n] = select(_C.name, _C.value).where(or_(*[_C.name == bindparam(f"n{i}") for i in range(n)]))
    return stmt


_GET_MANY: dict[int, object] = {}


class Takes:
    """take_counter for *session*, one statement per transaction for all the
    counters *together* (see the module docstring). Every take of a counter
    through the session must go through one Takes (it keeps the counter's
    next value)."""

    def __init__(self, session: Session, together: tuple[str, ...] = (), read: HeldCounters | None = None):
        self.session = session
        # Counters taken together (a submission's job ID and position): the
        # transaction's first take of any of them moves every one on in one
        # statement, and the ones not used yet are written back at the commit.
        self.together = together
        # Counters held by *read* (lsb.events' committed length, read by every commit
        # that appends) are read by the same statement, unchanged, when the
        # transaction has not read them yet: a submission's SELECT saved.
        self.read = read
        # name -> [the transaction, the next value, the value in the store]
        self.held: dict[str, list] = {}
        event.listen(session, "before_commit", self._write_back)

    def take(self, name: str, wrap_at: int | None = None) -> int:
        """take_counter's value; the row locked by the transaction's first take."""
        tx = self.session.get_transaction()
        h = self.held.get(name)
        if tx is None or h is None or h[0] is not tx:
            h = self._take_from_store(name, wrap_at)
        value = h[1]
        if wrap_at is not None and value >= wrap_at:
            value = wrap_at  # as take_counter: past the wrap, the wrap's value, then 1
        h[1] = 1 if wrap_at is not None and value >= wrap_at else value + 1
        return value

    def _take_from_store(self, name: str, wrap_at: int | None) -> list:
        """The counters moved on in the store (this one and those taken with it); the
        held entry of *name*, its next value the one taken (a wrapped value: see take)."""
        names = self.together if name in self.together else (name,)
        read = self.read
        also = read.together if read is not None and not read.values else ()
        got = dict(rawsql.run(self.session, _take_together(len(names), len(also)),
                              {"wn": name if wrap_at is not None else "", "w": wrap_at or 0,
                               **{f"n{i}": n for i, n in enumerate(names)},
                               **{f"m{i}": n for i, n in enumerate(also)}}).fetchall())
        tx = self.session.get_transaction()
        for n in also:  # (read under the write lock the statement took: as HeldCounters.get reads them)
            read.values.setdefault(n, got.pop(n, None))
        for n, new in got.items():
            # the value before the statement: the next to hand out (the store one past it)
            before = (wrap_at if new == 1 else new - 1) if n == name and wrap_at is not None else new - 1
            self.held[n] = [tx, before, new]
        if name not in got:  # a store made before the counter existed (ensure_counters makes it): start at 1
            self.session.add(Counter(name=name, value=1))
            self.session.flush()
            self.held[name] = [tx, 1, 1]
        return self.held[name]

    def set(self, name: str, value: int) -> None:
        """Set the counter's next value (in the store now)."""
        self.session.execute(_SET, {"n": name, "v": value})
        h = self.held.get(name)
        if h is not None and h[0] is self.session.get_transaction():
            h[1] = h[2] = value

    def _write_back(self, session: Session) -> None:
        tx = session.get_transaction()
        rows = []
        for name, h in self.held.items():
            if h[0] is tx and h[1] != h[2]:
                rows.append({"n": name, "v": h[1]})
                h[2] = h[1]
        if rows:
            rawsql.run(session, _SET, rows)


def _take_together(n: int, m: int = 0):
    """UPDATE ... RETURNING of the counters named n0..n{n-1} (moved on by one, the
    one named wn wrapping at w) and of those named m0..m{m-1} (unchanged: read)."""
    stmt = _TOGETHER.get((n, m))
    if stmt is None:
        taken = [_C.name == bindparam(f"n{i}") for i in range(n)]
        read = [_C.name == bindparam(f"m{i}") for i in range(m)]
        stmt = _TOGETHER[(n, m)] = (
            update(_COUNTERS).where(or_(*taken, *read))
            .values(value=case(((_C.name == bindparam("wn")) & (_C.value >= bindparam("w")), 1),
                               *([(or_(*read), _C.value)] if read else []),
                               else_=_C.value + 1))
            .returning(_C.name, _C.value))
    return stmt


_TOGETHER: dict[tuple[int, int], object] = {}


class HeldCounters:
    """Counters read once a transaction and written back at its commit (the committed
    lengths of lsb.events and lsb.acct, set at every commit that appends):
    the values held, a changed one written with one UPDATE in the commit
    (before_commit, as Takes writes back), not through an ORM object and the
    flush's unit of work (issue 23: the submission path)."""

    def __init__(self, session: Session, together: tuple[str, ...] = ()):
        self.session = session
        # read in one SELECT at the first get of any of them (a commit reads two or three)
        self.together = together
        self.values: dict[str, int | None] = {}  # as the store has them (None: no such counter)
        self.changed: dict[str, int] = {}  # set since, to write at the commit
        event.listen(session, "before_commit", self._write_back)
        # Held for one transaction only: another process on the store (in-process commands,
        # a daemon that took over) may append and move them between two of ours, so each
        # transaction reads them again -- after its first write, under the store's write lock
        # (db.one_writer_at_a_time), which also makes the INSERT of a missing one safe.
        event.listen(session, "after_commit", self._forget)
        event.listen(session, "after_soft_rollback", self._forget)

    def get(self, name: str) -> int | None:
        if name in self.changed:
            return self.changed[name]
        if name not in self.values:
            if name in self.together:
                found = dict(rawsql.run(self.session, _get_many(len(self.together)),
                                        {f"n{i}": n for i, n in enumerate(self.together)}).fetchall())
                for n in self.together:
                    self.values.setdefault(n, found.get(n))
            else:
                self.values[name] = self.session.execute(_GET, {"n": name}).scalar()
        return self.values[name]

    def set(self, name: str, value: int) -> None:
        if self.get(name) != value:
            self.changed[name] = value

    def clear(self) -> None:
        """After a rollback: read again, nothing to write."""
        self.values.clear()
        self.changed.clear()

    def _forget(self, session: Session, *_previous) -> None:
        self.values.clear()
        self.changed.clear()  # (empty after a commit; a rolled-back transaction's to drop)

    def _write_back(self, session: Session) -> None:
        changed, self.changed = self.changed, {}
        rows = []
        for name, value in changed.items():
            if self.values.get(name) is None:
                session.execute(insert(_COUNTERS).values(name=name, value=value))
            else:
                rows.append({"n": name, "v": value})
            self.values[name] = value
        if rows:
            rawsql.run(session, _SET, rows)


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
