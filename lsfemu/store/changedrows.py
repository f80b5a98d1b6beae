"""Changes of loaded jobs written without the ORM's unit of work (issue 23,
part 4: the virtual clock's starts and ends).

Through the ORM each column assigned to a job runs the attribute events every
Job column carries (the engine's caches listen to them) and the flush then
compares and writes the object column by column; a start or an end assigns
some eight columns, and a virtual clock makes thousands of them per request.
`ChangedRows.assign` instead puts the values straight into the job -- the
slots of a job held as a record (lsfemu.store.records), which stays one (no
ORM object is made for it), or a loaded ORM object's ``__dict__`` -- tells
the job listeners once (lsfemu.store.rowcache's `job_changed`; for an ORM object
the ORM's "expire" event with no attribute, which they hear too: the caches
drop what they held of the job), and keeps the job's changed columns; the rows kept are
written with one UPDATE (executemany, on the session's connection outside its
listeners: lsfemu.store.rawsql) per set of columns before anything else
reaches the store through the session -- any statement but an INSERT, any flush, the commit
-- and after the new rows of lsfemu.store.newrows (written first, `first`), since the INSERT of a new job's row does not
write the changes kept (an UPDATE of that job before it would reach nothing). So the store never reads a job older than memory
holds, and what it stores is what the ORM would have stored: an attribute the
ORM also has a change of is written by its flush with the value in
``__dict__``, the latest either way. A rollback drops the rows kept: the ORM
expires every object of the session and the cluster loads its records again.

A job the session does not hold as loaded (new through the ORM, another
session's record or object, detached, or with expired attributes) takes its
values through the ORM as before.
"""

from __future__ import annotations

from typing import Any, Callable

from sqlalchemy import bindparam, event, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import instance_state

from lsfemu.store import rawsql
from lsfemu.store.models import Job
from lsfemu.store.records import is_record, key_of, set_loaded
from lsfemu.store.rowcache import job_changed

_TABLE = Job.__table__
_UPDATES: dict[frozenset[str], Any] = {}  # set of columns -> its UPDATE (built once)


def _update(keys: frozenset[str]):
    stmt = _UPDATES.get(keys)
    if stmt is None:
        stmt = _UPDATES[keys] = (
            update(_TABLE).where(_TABLE.c.id == bindparam("k_id"), _TABLE.c.array_index == bindparam("k_idx"))
            .values({k: bindparam(f"v_{k}") for k in sorted(keys)}))
    return stmt


class ChangedRows:
    """Column changes of loaded jobs of *session*, written in bulk (see the module docstring)."""

    def __init__(self, session: Session, first: Callable[[], None] = lambda: None):
        self.session = session
        self.first = first  # (writes the new rows kept: lsfemu.store.newrows, whose jobs must come first)
        self.rows: dict = {}  # job (a record or a loaded Job) -> its columns changed since the last write  # job -> its columns changed since the last write
        event.listen(session, "do_orm_execute", self._before_statement)
        event.listen(session, "before_flush", self._before_flush)
        event.listen(session, "before_commit", self.write)
        event.listen(session, "after_soft_rollback", self._rolled_back)

    def assign(self, job: Job, values: dict[str, Any]) -> None:
        """Set these columns of *job*, in memory at once and in the store before its next statement."""
        if is_record(job):
            if type(job)._records.session is not self.session:
                for k, v in values.items():
                    setattr(job, k, v)
                return
            for k, v in values.items():
                set_loaded(job, k, v)  # (stays a record: no ORM object made for it)
            self._keep(job, values)
            job_changed(job)  # (the job listeners, once: lsfemu.store.rowcache)
            return
        state = instance_state(job)
        if state.key is None or state.expired_attributes or state.session_id != self.session.hash_key:
            for k, v in values.items():
                setattr(job, k, v)
            return
        job.__dict__.update(values)
        self._keep(job, values)
        state.manager.dispatch.expire(state, None)  # (the job listeners, once: lsfemu.store.rowcache)

    def _keep(self, job, values: dict[str, Any]) -> None:
        kept = self.rows.get(job)
        if kept is None:
            self.rows[job] = dict(values)
        else:
            kept.update(values)

    def write(self, _session: Session | None = None) -> None:
        """Write the rows kept (one UPDATE per set of columns)."""
        if not self.rows:
            return
        rows, self.rows = self.rows, {}  # first: the UPDATEs below come through _before_statement
        groups: dict[frozenset[str], list[dict[str, Any]]] = {}
        for job, values in rows.items():
            params = {f"v_{k}": v for k, v in values.items()}
            params["k_id"], params["k_idx"] = key_of(job)
            groups.setdefault(frozenset(values), []).append(params)
        # On the session's connection, outside its listeners (lsfemu.store.rawsql): the new
        # rows go first (their listener would have run before this statement's), the
        # listings were told of each job at its assign (job_changed, the expire event),
        # and the ORM's own changes go at the flush or commit that follows.
        self.first()
        for keys, params in groups.items():
            rawsql.run(self.session, _update(keys), params)

    def _before_statement(self, state) -> None:  # noqa: ANN001
        if self.rows and not state.is_insert:  # (see the module docstring: new rows first)
            self.write()

    def _before_flush(self, _session, _context, _instances) -> None:  # noqa: ANN001
        if self.rows:
            self.write()

    def _rolled_back(self, _session, _previous) -> None:  # noqa: ANN001
        self.rows = {}
