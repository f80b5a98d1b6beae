"""Jobs held as small records (issue 23, part 3): what the daemon keeps of a
job between requests is a `JobRecord`, the job's column values in slots
(some 700 bytes), not an ORM object (its attribute dict of 82 columns and
the ORM's bookkeeping, 2.1 KB).

A record reads as a Job does (the same attribute names, at the speed of a
slot). The first assignment to one of its attributes makes it an ORM object
*in place*: `Job` and `JobRecord` share one memory layout
(lsfemu.store.models.JobSlots), so `upgrade` assigns the object's class,
gives it its values as loaded and attaches it to the session as a stored
object (no SELECT, no INSERT); the assignment then goes through the ORM as
before (its attribute events tell the engine's caches, the flush writes
it). A new job is a record from the start (`new`: lsfemu.store.newrows
writes its row). Whoever held the record holds the ORM object: the cluster's job dict,
the pass's row cache, the tally and the loop's heap of ends are keyed by the
object and never see a copy. After each commit the jobs made ORM objects
since become records again (`downgrade`: out of the session, their values back in their
slots), so that only a request's own jobs are ORM objects, and only while
it runs.

Readers that took a loaded ORM object's values from its `__dict__` (to skip
the ORM's attribute machinery) see an empty mapping on a record and fall
back to the attribute, which on a record is the fast path; `key_of` and
`set_loaded` are the two operations that must tell the kinds apart.
"""

from __future__ import annotations

from math import copysign
from sys import intern
from operator import attrgetter, itemgetter
from types import MappingProxyType

from sqlalchemy import event, select
from sqlalchemy.orm import Session, make_transient_to_detached
from sqlalchemy.orm.instrumentation import manager_of_class

from lsfemu.jobstate import UNFINISHED
from lsfemu.store.models import Job, JobSlots
from lsfemu.store.rowcache import job_made

#: the jobs table's columns, in the table's order (a Core row's order)
COLUMNS: tuple[str, ...] = tuple(Job.__table__.columns.keys())
_values = attrgetter(*COLUMNS)  # a record's values, in COLUMNS' order (one C call)
_ROW_VALUES = itemgetter(*COLUMNS)  # a row dict's values in COLUMNS' order, in one C call (a bsub -pack's thousands)
_SLOT = {k: getattr(JobSlots, k) for k in COLUMNS}  # the slots' own descriptors (Job's attributes shadow them)
#: the columns whose equal values records share (a job's position is its own: not looked up)
_TEXT = tuple(i for i, c in enumerate(Job.__table__.columns) if c.type.python_type is str)
_FLOAT = tuple(i for i, c in enumerate(Job.__table__.columns)
               if c.type.python_type is float and c.key != "position")
_MANAGER = manager_of_class(Job)
LOAD_CHUNK = 2000  # rows read at a time by Records.load


class _Fill(JobSlots):
    """The layout without JobRecord's __setattr__: its __init__ (made below)
    fills every slot from a tuple in one unpacking (an object of this class
    becomes a record at once)."""

    __slots__ = ()


exec(compile(f"def __init__(self, v):\n    ({', '.join('self.' + k for k in COLUMNS)},) = v\n",  # noqa: S102
             __file__, "exec"), globals(), ns := {})
_Fill.__init__ = ns["__init__"]


class JobRecord(JobSlots):
    """A job held without the ORM (see the module docstring). Each session's
    `Records` has its own subclass, which knows it (`_records`)."""

    __slots__ = ()
    __dict__ = MappingProxyType({})  # (readers of loaded values: nothing loaded the ORM's way)
    _records: "Records"

    def __setattr__(self, key: str, value) -> None:
        self._records.upgrade(self)  # now a Job: the assignment goes through the ORM
        setattr(self, key, value)

    def __delattr__(self, key: str) -> None:
        self._records.upgrade(self)
        delattr(self, key)

    def __repr__(self) -> str:
        return f"<JobRecord {self.id}[{self.array_index}] {self.status}>"


def is_record(job) -> bool:
    return isinstance(job, JobRecord)


def key_of(job) -> tuple:
    """A job object's (id, array_index) as loaded, without a load: an expired
    ORM object (a request rolled back) gives (None, None)."""
    if isinstance(job, JobRecord):
        return (job.id, job.array_index)
    d = job.__dict__
    return (d.get("id"), d.get("array_index"))


def set_loaded(job, key: str, value) -> None:
    """Give a job the value the store now holds for *key* (written with a
    set-based UPDATE), without an attribute event or a change to flush."""
    if isinstance(job, JobRecord):
        _SLOT[key].__set__(job, value)
    else:
        job.__dict__[key] = value


def set_loaded_all(jobs, key: str, value) -> None:
    """`set_loaded` for each of *jobs* (a pass's pending reasons: one text for many jobs)."""
    put = _SLOT[key].__set__
    for job in jobs:
        if isinstance(job, JobRecord):
            put(job, value)
        else:
            job.__dict__[key] = value


def _shared(values: list) -> list:
    """*values* with each text one object for every record that has it: what `load` shares for
    the jobs it reads, for a job submitted or changed since (a submission's environment, some
    kilobytes, was a copy of its own in every job sent one at a time: 5.8 KB a job). sys.intern,
    not a table of our own: CPython frees an interned string with its last user."""
    for i in _TEXT:
        x = values[i]
        if x.__class__ is str:
            values[i] = intern(x)
    return values


class Records:
    """The records of one session: loads them, makes them ORM objects when
    they are written, and records again after each commit."""

    def __init__(self, session: Session):
        self.session = session
        self.cls = type("JobRecord", (JobRecord,), {"__slots__": (), "_records": self})
        self.made: list = []  # ORM objects to become records at the next commit
        event.listen(session, "after_commit", self._committed)
        event.listen(session, "after_soft_rollback", self._rolled_back)

    # -- loading -----------------------------------------------------------------
    def load(self, horizon: float) -> dict[tuple[int, int], JobRecord]:
        """The jobs the commands may see, as records by (id, array_index):
        unfinished, or finished at *horizon* or later and not cleaned before
        (bkill -b). Equal strings and floats are shared (a job's queue, user,
        hosts, status, pending reason, directories, submission and run times
        are one object for all jobs that have them); what reads them cannot
        tell (docs/semantics.md, issue 23 part 3b)."""
        t = Job.__table__.c
        rows = self.session.execute(
            select(Job.__table__).where(t.status.in_(UNFINISHED) | ((t.finish_time >= horizon)
                                                                    & t.clean_time.is_(None)))
            .execution_options(yield_per=LOAD_CHUNK))
        memo: dict = {}
        share = memo.setdefault
        out = {}
        cls = self.cls
        new = _Fill.__new__
        for row in rows:
            v = list(row)
            for i in _TEXT:
                x = v[i]
                if x is not None:
                    v[i] = share(x, x)
            for i in _FLOAT:
                x = v[i]
                if x or x == 0.0 and copysign(1.0, x) > 0:  # (None: none; -0.0 == 0.0: kept apart)
                    v[i] = share(x, x)
            rec = new(_Fill)
            rec.__init__(v)
            rec.__class__ = cls
            out[(v[0], v[1])] = rec
        return out

    # -- record <-> ORM object ---------------------------------------------------
    def upgrade(self, rec: JobRecord) -> Job:
        """*rec*, in place, as an ORM object of the session, as stored."""
        values = _values(rec)
        object.__setattr__(rec, "__class__", Job)
        job: Job = rec  # type: ignore[assignment]
        job.__dict__.update(zip(COLUMNS, values))
        _MANAGER._new_state_if_none(job)
        make_transient_to_detached(job)  # (fires the ORM's expire event: the caches hear of it)
        session = self.session
        # A query may have loaded the same row meanwhile (restart_usage's finished
        # runs): that copy, unchanged, gives way to the object the engine holds.
        other = session.identity_map.get(_MANAGER.mapper.identity_key_from_primary_key(values[:2]))
        if other is not None and other is not job and other not in session.dirty:
            session.expunge(other)
        session.add(job)
        self.made.append(job)
        return job

    def new(self, row: dict) -> JobRecord:
        """A new job held as a record: *row* has every column (lsfemu.store.newrows
        writes it); the job listeners are told of it (rowcache.job_made)."""
        rec = _Fill.__new__(_Fill)
        rec.__init__(_shared(list(_ROW_VALUES(row))))
        rec.__class__ = self.cls
        job_made(rec)
        return rec

    def downgrade(self, job) -> JobRecord:
        """A committed ORM job, in place, as a record (out of the session)."""
        if isinstance(job, JobRecord):
            return job
        d = job.__dict__
        values = [d[k] if k in d else getattr(job, k) for k in COLUMNS]
        if job in self.session:
            self.session.expunge(job)
        del job.__dict__  # (its values and the ORM's state with it)
        job.__class__ = _Fill
        job.__init__(_shared(values))
        job.__class__ = self.cls
        return job

    def _committed(self, _session) -> None:  # noqa: ANN001
        made, self.made = self.made, []
        for job in made:
            self.downgrade(job)

    def _rolled_back(self, _session, _previous) -> None:  # noqa: ANN001
        # The rollback expired them: the cluster loads its jobs again (reload_jobs)
        self.made = []
