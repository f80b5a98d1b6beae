"""What the scheduling pass reads of each job, kept between passes.

At 100k pending jobs, reading a dozen ORM attributes per job per pass (and
re-deriving the same facts from them) costs more than the rest of the pass.
`RowCache` keeps, per job object, a plain tuple of those facts (`Row`) and
the PendingJob made of it (the pending reasons last stored are the job's
own: a record's slot, lsfemu.store.records); an entry is dropped as soon as anything
assigns one of the job's attributes, or the ORM expires or refreshes the
object (the ORM events lsfemu.store.rowcache installs), and rebuilt from the row
at the next pass. The configuration-derived facts (queue PRIORITY,
PROCLIMIT, rusage amounts) are in it too: the cluster empties the cache on
reconfiguration, and on reload after a rollback.

Only what depends on the clock or on other jobs is recomputed every pass:
escalated job priority, grace periods, fairshare, dependencies.
"""

from __future__ import annotations

import weakref
from functools import partial
from operator import attrgetter, itemgetter
from typing import NamedTuple

from lsfemu.sched import aps
from lsfemu.store.models import Job
from lsfemu.store.rowcache import in_store, on_job_change


class Row(NamedTuple):
    """The pass's view of one job (as of the last change to it). (pendmake.Maker
    unpacks a Row whole: a field added here is added there too.)"""

    status: str
    user: str
    queue: str
    slots: int
    priority: int | None  # as last set
    base_time: float  # escalation counts the pending time since (a clock origin: lsfemu.sched.priority)
    since: float  # grace periods count the pending time since (the same kind of origin)
    position: float
    migrated: bool
    array_limit: int | None
    depend_json: str | None
    aps_admin: float | None
    aps_system: float | None
    rsrc: tuple  # (proc, mem, swap), one object per distinct value (a cheap memo key: its id)
    key: tuple  # (job_id, index): the cluster's own key object when the pass gave it (one tuple per job, shared)
    fs_key: int  # one number per distinct (user, queue): what the FS factor depends on (a cheap memo key)
    parts_key: int  # one number per distinct (rsrc, queue): with the escalated priority, what the APS parts depend on
    plain: bool  # no bmod -aps value (aps_admin and aps_system None)

    # Read from the fields above rather than kept twice (a Row per pending job
    # lives between passes: 8 bytes a field; issue 23, part 3)
    @property
    def job_id(self) -> int:
        return self.key[0]

    @property
    def index(self) -> int:
        return self.key[1]

    @property
    def proc(self) -> float:  # APS PROC
        return self.rsrc[0]

    @property
    def mem(self) -> float:  # APS MEM
        return self.rsrc[1]

    @property
    def swap(self) -> float:  # APS SWAP
        return self.rsrc[2]


class RowCache:
    """job object -> Row, and the PendingJob made of it."""

    def __init__(self):
        self.rows: dict[Job, Row] = {}
        self.pending: dict[Job, object] = {}  # the dispatch.PendingJob last made of it
        self.queues: dict[str, tuple] = {}  # queue name -> (QueueConf or None, PROCLIMIT)
        self.rsrc: dict[tuple, tuple] = {}  # each distinct Row.rsrc, as its one object
        self.rsrc_of: dict[tuple, tuple] = {}  # (res_req, -n min, -n max, queue) -> (Row.rsrc, Row.parts_key)
        self.parts_keys: dict[tuple, int] = {}  # (Row.rsrc, queue) -> Row.parts_key
        self.fs_keys: dict[tuple[str, str], int] = {}  # (user, queue) -> Row.fs_key
        # Job objects changed since the last pass took them (any Job of the
        # process: the cluster keeps those it holds); past DIRTY_MAX the
        # cluster is told to look at everything (overflow) instead.
        self.dirty: set[Job] = set()
        self.overflow = False
        self.overflow_seen = False  # the last take_dirty() lost some
        _caches.append(weakref.ref(self, _caches.remove))

    def take_dirty(self) -> set[Job]:
        """The jobs changed since the last call (and forget them)."""
        dirty, self.dirty = self.dirty, set()
        if self.overflow:
            self.overflow = False
            self.overflow_seen = True
        else:
            self.overflow_seen = False
        return dirty

    def clear(self) -> None:
        self.dirty.clear()
        self.queues.clear()
        self.rsrc.clear()
        self.rsrc_of.clear()
        self.parts_keys.clear()
        self.fs_keys.clear()
        self.rows.clear()
        self.pending.clear()

    def forget(self, job: Job) -> None:
        self.rows.pop(job, None)
        self.pending.pop(job, None)


# The live caches, as weak references (a dead one takes itself off the list).
# Not a WeakSet: every attribute assigned to any job runs _changed, and a
# WeakSet's iteration guard cost more than the rest of it (issue 23).
_caches: "list[weakref.ref[RowCache]]" = []


DIRTY_MAX = 200_000


def _changed(target, *_args) -> None:
    for ref in tuple(_caches):  # (a copy: a cache collected meanwhile takes itself off the list)
        c = ref()
        if c is None:
            continue
        c.forget(target)
        if not c.overflow:
            c.dirty.add(target)
            if len(c.dirty) > DIRTY_MAX:
                c.dirty.clear()
                c.overflow = True


on_job_change(_changed)


#: the columns a Row is made of, in the order _row reads them
_READ = ("status", "id", "array_index", "user", "queue", "num_processors", "max_processors", "res_req", "priority",
         "priority_base_time", "pend_since", "submit_time", "position", "migrated", "array_limit", "depend_json",
         "aps_admin", "aps_system")
COLUMNS = frozenset(_READ)
_read = itemgetter(*_READ)  # an ORM object's loaded values (KeyError if one is missing)
#: a record's values, from its slots: one C call per job for the first pass after a start (a record's
#: __dict__ is empty: reading it first sent every job of that pass through KeyError and 18 getattr calls)
_attrs = attrgetter(*_READ)
_new_row = partial(tuple.__new__, Row)  # Row(...) without the named tuple's Python-level __new__


def build_row(cluster, job: Job, cache: RowCache, key: tuple | None = None) -> Row:
    """The Row of *job* from its loaded values (kept in *cache* once the job
    is in the store: a pending object's defaults are filled in by the flush,
    which fires no event). The first pass after a start builds one per job.
    *key*: the job's key in `cluster.jobs`, kept as Row.key (and as its
    PendingJob's key) instead of a copy (issue 23, part 3: 72 bytes a job)."""
    d = job.__dict__  # an ORM object's loaded values; empty on a record (lsfemu.store.records)
    try:
        values = _read(d) if d else _attrs(job)
    except KeyError:  # expired or unset attributes: the ORM way
        values = _attrs(job)
    row = _row(cluster, cache, values, key)
    if in_store(job):  # (persistent: its defaults are filled in)
        cache.rows[job] = row
    return row


def build_all(cluster, cache: RowCache, jobs: dict) -> None:
    """The Rows of every job of *jobs* (the cluster's key -> job object) that
    has none, kept: what the first pass after a start (or a reset) needs, one
    per job. build_row's work done as a batch: the values read by one C call
    per job, the resource and fairshare facts looked up once per distinct
    (requirement, -n, queue, user) in one dict, no call per job."""
    rows = cache.rows
    memo: dict[tuple, tuple] = {}  # (res_req, -n min, -n max, queue, user) -> (rsrc, parts_key, fs_key)
    fs_keys = cache.fs_keys
    new = _new_row
    for (key, job), values in zip(jobs.items(), map(_attrs, jobs.values())):
        if job in rows:
            continue
        (status, _jid, _idx, user, queue, nproc, maxproc, res_req, prio, base, since, submit, position, migrated,
         array_limit, depend_json, admin, system) = values
        mk = (res_req, nproc, maxproc, queue, user)
        facts = memo.get(mk)
        if facts is None:
            rk = (res_req, nproc, maxproc, queue)
            got = cache.rsrc_of.get(rk)
            if got is None:
                rsrc = _rsrc(cluster, cache, queue, res_req, nproc, maxproc)
                got = cache.rsrc_of[rk] = (rsrc, cache.parts_keys.setdefault((rsrc, queue), len(cache.parts_keys)))
            fs_key = fs_keys.get((user, queue))
            if fs_key is None:
                fs_key = fs_keys[(user, queue)] = len(fs_keys)
            facts = memo[mk] = (got[0], got[1], fs_key)
        row = new((status, user, queue, nproc, prio, submit if base is None else base,
                   submit if since is None else since, position, migrated, array_limit, depend_json, admin,
                   system, facts[0], key, facts[2], facts[1], admin is None and system is None))
        if not job.__dict__ or in_store(job):  # (a record: always in the store)
            rows[job] = row


def _row(cluster, cache: RowCache, values: tuple, key: tuple | None = None) -> Row:
    """A Row of the values of the COLUMNS (in _READ's order); the
    resource facts are looked up once per distinct (rusage, -n, queue)."""
    (status, jid, idx, user, queue, nproc, maxproc, res_req, prio, base, since, submit, position, migrated,
     array_limit, depend_json, admin, system) = values
    rk = (res_req, nproc, maxproc, queue)
    facts = cache.rsrc_of.get(rk)
    if facts is None:
        rsrc = _rsrc(cluster, cache, queue, res_req, nproc, maxproc)
        facts = cache.rsrc_of[rk] = (rsrc, cache.parts_keys.setdefault((rsrc, queue), len(cache.parts_keys)))
    rsrc, parts_key = facts
    fs_keys = cache.fs_keys
    fs_key = fs_keys.get((user, queue))
    if fs_key is None:
        fs_key = fs_keys[(user, queue)] = len(fs_keys)
    return _new_row((status, user, queue, nproc, prio, submit if base is None else base,
                     submit if since is None else since, position, migrated, array_limit, depend_json, admin,
                     system, rsrc, (jid, idx) if key is None else key, fs_key, parts_key,
                     admin is None and system is None))


def _rsrc(cluster, cache: RowCache, queue: str, res_req: str | None, nproc: int, maxproc: int | None) -> tuple:
    """(APS PROC, MEM, SWAP) of a job: one tuple object per distinct value."""
    qinfo = cache.queues.get(queue)
    if qinfo is None:
        q = cluster.config.queue(queue)
        qinfo = cache.queues[queue] = (q, q.extra.get("PROCLIMIT") if q else None)
    amounts = cluster.rusage(res_req, nproc)
    rsrc = (aps.proc_value(nproc, maxproc, qinfo[1]), amounts.get("mem", 0.0), amounts.get("swp", 0.0))
    return cache.rsrc.setdefault(rsrc, rsrc)
