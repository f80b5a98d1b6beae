"""New jobs and their first history rows written without the ORM's unit of
work (issue 23: the submission path).

Through the ORM a new job costs its constructor (some 70 attribute sets,
each through the attribute events every Job column carries: the engine's
caches listen to them) and a flush that inserts it object by object; a
group of submissions or a `bsub -pack` makes thousands. `NewRows` instead
makes the job a record of its column values (lsfemu.store.records: the
cluster's session has its records; the job listeners are told of it) -- or,
in a session without records, an object with its column values set directly,
attached to the session as loaded from the store (`make_transient_to_detached`)
-- and keeps its row; the rows kept are written with one INSERT
(executemany) per table before anything else reaches the store through the
session: any statement (a query, a set-based UPDATE), any flush, the commit.
So the store never sees a change of a job before the job (a record written
before it is an ORM object whose change the flush sends after the INSERT),
and what it stores is what the ORM would have stored (every column given: the defaults filled in as the ORM fills them;
tests/unit/test_new_rows.py compares the two). A rollback drops the rows
kept with the transaction and takes the transaction's new job objects out
of the session (the ORM takes back only the objects it inserted itself): a
job submitted again after it gets the same ID.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, insert
from sqlalchemy.orm import Session, make_transient_to_detached

from lsfemu.store import rawsql
from lsfemu.store.models import Job, JobEvent

#: a job row before its values: every column, its scalar default or None
_JOB_BLANK: dict[str, Any] = {c.key: (c.default.arg if c.default is not None and c.default.is_scalar else None)
                              for c in Job.__table__.columns}
_EVENT_DEFAULTS: dict[str, Any] = {c.key: c.default.arg for c in JobEvent.__table__.columns
                                   if c.default is not None and c.default.is_scalar}
_INSERT_JOBS = insert(Job.__table__)
_INSERT_EVENTS = insert(JobEvent.__table__)


class NewRows:
    """New jobs and history rows of *session*, written in bulk (see the module docstring)."""

    def __init__(self, session: Session, records=None):
        self.session = session
        self.records = records  # lsfemu.store.records.Records: the new jobs become records after the commit
        self.jobs: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.made: list[Job] = []  # the transaction's new job objects
        event.listen(session, "do_orm_execute", self._before_statement)
        event.listen(session, "before_flush", self._before_flush)
        event.listen(session, "before_commit", self.write)
        event.listen(session, "after_commit", self._committed)
        event.listen(session, "after_soft_rollback", self._rolled_back)

    def job(self, values: dict[str, Any]) -> Job:
        """A new job with these column values (the others their defaults), held
        as a record (lsfemu.store.records) when the session has its records,
        else an ORM object in the session as stored."""
        row = dict(_JOB_BLANK)
        row.update(values)
        self.jobs.append(row)
        if self.records is not None:
            return self.records.new(row)
        job = Job()
        job.__dict__.update(row)  # no attribute events: nothing can hold a fact of a new object
        # Its key from the primary key, every value as loaded; this fires the
        # ORM's "expire" event of the object (with no attribute to expire), which
        # is what lsfemu.store.rowcache's job listeners hear of a new job.
        make_transient_to_detached(job)
        self.session.add(job)  # persistent at once: no INSERT of its own at the flush
        self.made.append(job)
        return job

    def history(self, job_id: int, array_index: int, time: float, kind: str, actor: str | None, data: str) -> None:
        """A job_events row, written with the jobs."""
        self.events.append({**_EVENT_DEFAULTS, "job_id": job_id, "array_index": array_index, "time": time,
                            "kind": kind, "actor": actor, "data": data})

    def write(self, _session: Session | None = None) -> None:
        """Write the rows kept (one INSERT per table)."""
        jobs, events = self.jobs, self.events
        if not jobs and not events:
            return
        self.jobs, self.events = [], []
        # On the session's connection, outside its listeners (lsfemu.store.rawsql): no
        # autoflush first (it would send a change of a new job before the job), and the
        # listings already know of the new jobs (rowcache.job_made).
        if jobs:
            rawsql.run(self.session, _INSERT_JOBS, jobs)
        if events:
            rawsql.run(self.session, _INSERT_EVENTS, events)

    def _before_statement(self, state) -> None:  # noqa: ANN001
        if self.jobs or self.events:
            self.write()

    def _before_flush(self, _session, _context, _instances) -> None:  # noqa: ANN001
        if self.jobs or self.events:
            self.write()

    def _committed(self, _session) -> None:  # noqa: ANN001
        self.made = []

    def _rolled_back(self, session, _previous) -> None:  # noqa: ANN001
        self.jobs, self.events = [], []
        made, self.made = self.made, []
        for job in made:
            if job in session:
                session.expunge(job)
