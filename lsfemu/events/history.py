"""Per-job histories: what bhist shows, built from event records (or added
change by change by the daemon).

A :class:`JobHistory` holds the job's identity (ID, array index, user, queue,
name, command, project, submission host, cwd, home), its list of
:class:`Change` entries ``(time, kind, data)`` in log order, and the state
transitions used for the "time spent in various states" accounting.

Change kinds and their ``data`` keys (all optional unless noted):

=========== =================================================================
SUBMIT      from_host, queue, cwd, home, specified_cwd, output_file,
            error_file, output_overwrite, error_overwrite, num_processors,
            max_processors, res_req, dependency, user_priority, hold (bool:
            bsub -H, the job starts PSUSP), description, job_group,
            app_profile, post_exec, outdir, est_runtime_min (JOB_NEW's LSF
            9/10 tail)
DISPATCH    hosts (list, one per slot), effective_res_req, host_factor (the
            execution host's CPU factor)
STARTING    pid
EXECUTE     exec_home, exec_cwd, pid
STATUS      status (required: PEND PSUSP RUN USUSP SSUSP UNKWN), reason
            (text after ``Pending:`` / ``Suspended:``)
FINISH      status (required: DONE or EXIT), exit_code, cpu_time,
            exit_reason (``TERM_OWNER: job killed by owner``)
POST        ok (bool): post-job process done / failed
SIGNAL      signal (``KILL``, ``DELETEJOB``...), user, reason (bkill/bstop/bresume -C)
SWITCH      queue, user
MOVE        position, top (bool), user
MODIFY      items (list of bhist item texts, without ``;``), user
REQUEUE     user
FORWARD     cluster (JOB_FORWARD: sent to that cluster; the job stays pending)
ACCEPTED    cluster, remote_job_id (JOB_ACCEPTACK; nothing shown)
ACCEPT      cluster, remote_job_id (JOB_ACCEPT: taken from that cluster; nothing shown)
=========== =================================================================

State accounting follows OpenLava's bhist: each state lasts from its change
to the next state change; DONE/EXIT end the accounting (the finish time)
unless the job is requeued, in which case the time between the finish and
the requeue counts as PEND; post-job events do not change the state.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, NamedTuple

from lsfemu.events import lsbatch
from lsfemu.events.modifyitems import modify_items
from lsfemu.events.others import JobAccept, JobAcceptAck, JobForward
from lsfemu.events.records import (
    JobClean, JobExecute, JobMove, JobNew, JobRequeue, JobSignal, JobStart, JobStartAccept, JobStatus,
    JobForce, JobSwitch, Record, parse_job_id_str,
)
from lsfemu.jobstate import FINISHED, UNFINISHED
from lsfemu.sched.arrayspec import ArraySpecError, count_of, parse_array_name
from lsfemu.sched import hostfile

#: the states of the accounting, in bhist's column order
STATES = UNFINISHED  # the states bhist -l counts time in, in its order

#: kinds that change the job's state
_STATEFUL = {"SUBMIT", "DISPATCH", "STATUS", "FINISH", "REQUEUE"}


class Change(NamedTuple):
    """One entry of a job's history."""

    time: float
    kind: str
    data: dict[str, Any]


def display_id(job_id: int, array_index: int) -> str:
    """A job's ID as bhist prints it: ``123``, ``123[4]`` for an array element."""
    return f"{job_id}[{array_index}]" if array_index else str(job_id)


@dataclass
class JobHistory:
    """Everything bhist needs about one job (or one array element)."""

    job_id: int
    array_index: int = 0
    user: str = ""
    queue: str = ""  # the current queue (the submit record keeps the original)
    name: str | None = None  # bsub -J; None = not given
    command: str = ""
    project: str = "default"
    from_host: str = ""
    cwd: str = ""
    home: str = ""
    submit_time: float = 0.0
    user_group: str | None = None
    application: str | None = None  # bsub -app, as bmod -app / -appn leave it (bhist -app)
    description: str | None = None  # bsub -Jd, as bmod -Jd / -Jdn leave it (bhist -Jd)
    license_project: str | None = None  # JOB_NEW's licenseProject (a real LSF log's bsub -Lp; bhist -Lp)
    esub: str | None = None
    #: lines of the resource-limit block printed before the summary (e.g.
    #: ``[" CORELIMIT", "      0 M"]``); empty = no block
    limit_lines: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    status: str = "PEND"
    finish_time: float | None = None
    #: (time, state) transitions, states from STATES + FINISHED
    transitions: list[tuple[float, str]] = field(default_factory=list)
    #: dispatched since it was submitted or last requeued (kept up by add)
    started: bool = False
    #: when the builder took it in, among the histories it made (their order)
    order: int = field(default=0, compare=False)

    # -- building ---------------------------------------------------------
    def add(self, time: float, kind: str, **data: Any) -> Change:
        """Append a change and apply its effect on the state."""
        return self.append(time, kind, data)

    def append(self, time: float, kind: str, data: dict[str, Any]) -> Change:
        """:meth:`add` of a change whose *data* is a dict already (the builder's hot path)."""
        change = Change(float(time), kind, data)
        self.changes.append(change)
        if kind not in _STATEFUL and kind != "SWITCH":
            return change
        if kind == "SUBMIT":
            if not self.submit_time:
                self.submit_time = float(time)
            self._set_state(time, "PSUSP" if data.get("hold") else "PEND")
        elif kind == "DISPATCH":
            self._set_state(time, "RUN")
            self.started = True
        elif kind == "STATUS":
            self._set_state(time, data["status"])
        elif kind == "FINISH":
            self._set_state(time, data["status"])
            self.finish_time = float(time)
        elif kind == "REQUEUE":
            self._set_state(time, "PEND")
            self.started = False
        elif kind == "SWITCH" and data.get("queue"):
            self.queue = data["queue"]
        return change

    def _set_state(self, time: float, state: str) -> None:
        if state not in STATES and state not in FINISHED:
            raise ValueError(f"unknown job state {state!r}")
        if state not in FINISHED:
            self.finish_time = None
        self.status = state
        self.transitions.append((float(time), state))

    # -- queries ------------------------------------------------------------
    @property
    def display_id(self) -> str:
        return display_id(self.job_id, self.array_index)

    @property
    def display_name(self) -> str:
        """JOB_NAME of the summary table: the -J name or the command,
        ``name[idx]`` for array elements."""
        base = self.name if self.name is not None else self.command
        return f"{base}[{self.array_index}]" if self.array_index else base

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def summary_time(self, now: float) -> float:
        """The instant of the ``... states by <time>`` line: the time of the
        last finish or post-job event of a finished job, else *now*."""
        if not self.finished:
            return now
        t = self.finish_time if self.finish_time is not None else now
        for c in self.changes:
            if c.kind == "POST" and c.time >= t:
                t = c.time
        return t

    def state_times(self, now: float) -> dict[str, float]:
        """Seconds spent in each of STATES (negative intervals count 0) up to
        the finish time, or *now* for unfinished jobs; plus ``TOTAL``."""
        acc = {s: 0.0 for s in STATES}
        tr = self.transitions
        for i, (t, state) in enumerate(tr):
            if i + 1 < len(tr):
                end = tr[i + 1][0]
            elif state in FINISHED:
                continue  # the final DONE/EXIT ends the accounting
            else:
                end = now
            span = max(0.0, end - t)
            acc["PEND" if state in FINISHED else state] += span
        acc["TOTAL"] = sum(acc[s] for s in STATES)
        return acc


# ---------------------------------------------------------------------------
# from event records
# ---------------------------------------------------------------------------


def _pend_reason(code: int) -> str:
    if code == lsbatch.PEND_JOB_REQUEUED:
        return "Job has been requeued"
    if code == lsbatch.PEND_JOB_NEW:
        return "New job is waiting for scheduling"
    if code == lsbatch.PEND_JOB_PRE_EXEC:
        return lsbatch.PRE_EXEC_REASON
    return "Job is pending"


class CannotStream(Exception):
    """A streaming :class:`HistoryBuilder` met what only a builder that keeps
    every history can show (a job ID used again, a record of a job it has
    forgotten, an array element made from its job's whole history): read the
    log again without streaming."""


class _KeySet:
    """A set of job keys ``(job_id, array_index)``, small for the usual ones
    (index 0 and IDs close together: one bit each, in pages)."""

    _PAGE = 1 << 15  # job IDs per page (4 KB)

    def __init__(self) -> None:
        self.pages: dict[int, bytearray] = {}
        self.others: set[tuple[int, int]] = set()

    def __bool__(self) -> bool:
        return bool(self.pages or self.others)

    def add(self, key: tuple[int, int]) -> None:
        job_id, idx = key
        if idx or job_id < 0:
            self.others.add(key)
            return
        page = self.pages.get(job_id // self._PAGE)
        if page is None:
            page = self.pages[job_id // self._PAGE] = bytearray(self._PAGE // 8)
        bit = job_id % self._PAGE
        page[bit >> 3] |= 1 << (bit & 7)

    def __contains__(self, key: tuple[int, int]) -> bool:
        job_id, idx = key
        if idx or job_id < 0:
            return key in self.others
        page = self.pages.get(job_id // self._PAGE)
        bit = job_id % self._PAGE
        return page is not None and bool(page[bit >> 3] & (1 << (bit & 7)))


class HistoryBuilder:
    """Feeds records in log order into per-job histories. ``histories`` keeps
    the order in which jobs first appeared. Records of unknown jobs (their
    JOB_NEW is in an older file that was not read) are ignored. A job
    array's JOB_NEW (index 0, ``name[1-10]``) makes one history per element
    (``name[3]``), which the elements' records then extend; should an element
    appear that its JOB_NEW did not list, its first record clones the
    array's history.

    Streaming (*stream* given): each change is handed to ``stream(history,
    change)`` as it is made, and histories keep only their last change; a
    finished job is forgotten once :meth:`forget_finished` is told a time
    after its finish (its key is remembered in a compact set). Memory then
    follows the jobs alive at one instant. What only the histories of every
    job could show raises :class:`CannotStream`."""

    def __init__(self, stream: Callable[[JobHistory, Change], None] | None = None) -> None:
        self.histories: dict[tuple[int, int], JobHistory] = {}
        self.stream = stream
        self._made = 0
        self._gone = _KeySet()
        self._finished: list[tuple[float, tuple[int, int], JobHistory]] = []  # streaming: to forget

    def _put(self, key: tuple[int, int], h: JobHistory) -> None:
        if self.stream is not None and (key in self.histories or key in self._gone):
            raise CannotStream(f"job <{key[0]}> submitted again")
        h.order = self._made
        self._made += 1
        self.histories[key] = h

    def _add(self, h: JobHistory, time: float, kind: str, **data: Any) -> None:
        self._told(h, h.add(time, kind, **data))

    def _told(self, h: JobHistory, change: Change) -> None:
        if self.stream is not None:
            self.stream(h, change)
            del h.changes[:-1]  # the last one is looked at again (a requeue said twice)
            h.transitions.clear()
            if change.kind == "FINISH":
                self._finished.append((change.time, (h.job_id, h.array_index), h))

    def forget_finished(self, before: float) -> None:
        """Streaming: forget the jobs that finished before *before* and are
        still finished (a later record of theirs raises CannotStream)."""
        keep = []
        for item in self._finished:
            t, key, h = item
            if t >= before:
                keep.append(item)
            elif h.finished and self.histories.get(key) is h:
                del self.histories[key]
                self._gone.add(key)
        self._finished = keep

    def _get(self, job_id: int, idx: int, inert: bool = False) -> JobHistory | None:
        """The history of a job key (cloned from its job's when an element
        appears first); *inert*: the record changes nothing (JOB_CLEAN)."""
        h = self.histories.get((job_id, idx))
        if h is not None:
            return h
        if self._gone:
            if (job_id, idx) in self._gone:
                if inert:
                    return None
                raise CannotStream(f"a record of job <{job_id}> after it was forgotten")
            if idx and (job_id, 0) in self._gone:
                raise CannotStream(f"an element of job <{job_id}> after the job was forgotten")
        if idx:
            head = self.histories.get((job_id, 0))
            if head is not None:
                if self.stream is not None:
                    raise CannotStream(f"an element of job <{job_id}> its JOB_NEW did not list")
                h = copy.deepcopy(head)
                h.array_index = idx
                self._put((job_id, idx), h)
        return h

    def job_new(self, rec: JobNew, t: float) -> None:
        """A JOB_NEW record (*t*: its event time): the job's history, one per element of an array."""
        h = JobHistory(
            job_id=rec.job_id, array_index=rec.idx, user=rec.user_name, queue=rec.queue,
            name=rec.job_name if rec.options & lsbatch.SUB_JOB_NAME else None,
            command=rec.command, project=rec.project_name, from_host=rec.from_host,
            cwd=rec.cwd, home=rec.sub_home_dir, submit_time=float(rec.submit_time or t),
            user_group=rec.user_group or None, application=rec.app or None,
            description=rec.job_description or None, license_project=rec.license_project or None,
        )
        spec = array_spec_of(rec)
        if spec is not None:
            h.name = spec.name
        data = submit_data(rec)
        rlimits = rec.rlimits
        run = rlimits[lsbatch.RLIMIT_RUN] if len(rlimits) > lsbatch.RLIMIT_RUN else -1
        data["run_limit_min"] = run / 60 if run >= 0 else None
        data["cpu_limit_min"] = rlimits[lsbatch.RLIMIT_CPU] / 60 if rlimits and rlimits[0] >= 0 else None
        data.update(tail_columns(rec))
        submit = h.append(rec.submit_time or t, "SUBMIT", data)
        if spec is None:
            self._put((rec.job_id, rec.idx), h)
            self._told(h, submit)
        else:  # a job array: one history per element, from the array's JOB_NEW
            for i in spec.indices():
                e = copy.copy(h)
                e.array_index = i
                e.changes, e.transitions, e.limit_lines = list(h.changes), list(h.transitions), list(h.limit_lines)
                self._put((rec.job_id, i), e)
                self._told(e, submit)

    def feed(self, rec: Record) -> None:
        t = float(rec.event_time)
        if rec.TYPE == "JOB_NEW":
            self.job_new(rec, t)
            return
        if rec.TYPE == "JOB_MODIFY2":
            try:
                jid, idx = parse_job_id_str(rec.job_id_str)
            except ValueError:
                return
            h = self._get(jid, idx)
            if h is None:
                return
            if rec.options & lsbatch.SUB_JOB_NAME:
                h.name = rec.job_name
            elif rec.del_options & lsbatch.SUB_JOB_NAME:
                h.name = None
            if rec.options & lsbatch.SUB_QUEUE:
                h.queue = rec.queue
            if rec.options2 & lsbatch.SUB2_MODIFY_CMD:
                h.command = rec.command
            if rec.options & lsbatch.SUB_PROJECT_NAME:
                h.project = rec.project_name
            if rec.options3 & lsbatch.SUB3_APP:
                h.application = rec.app or None
            elif rec.del_options3 & lsbatch.SUB3_APP:
                h.application = None
            if rec.options3 & lsbatch.SUB3_DESCRIPTION:
                h.description = rec.job_description or None
            elif rec.del_options3 & lsbatch.SUB3_DESCRIPTION:
                h.description = None
            hosts = {}  # bmod -m / -hostfile (-mn / -hostfilen: None), for bhist -l -hostfile
            if rec.options & lsbatch.SUB_HOST:
                hosts["asked_hosts"] = hostfile.from_log_words(rec.asked_hosts)
            elif rec.del_options & lsbatch.SUB_HOST:
                hosts["asked_hosts"] = None
            self._add(h, t, "MODIFY", items=modify_items(rec), user=rec.user_name, **hosts)
            return
        job_id = getattr(rec, "job_id", None)
        if job_id is None:
            return  # MBD_START, MBD_DIE, QUEUE_CTRL, HOST_CTRL
        kind = rec.TYPE  # records read in part are of subclasses: the type's name says what they are
        h = self._get(job_id, rec.idx, inert=kind == "JOB_CLEAN")
        if h is None:
            return
        told = TOLD.get(kind)
        if told is not None:  # JOB_CLEAN and the types bhist does not show: nothing
            told(self, h, t, rec)

    def _status(self, h: JobHistory, t: float, rec: JobStatus) -> None:
        code = rec.status
        if code & (lsbatch.JOB_STAT_PDONE | lsbatch.JOB_STAT_PERR):
            if h.finished:
                self._told(h, h.append(t, "POST", {"ok": not code & lsbatch.JOB_STAT_PERR}))
                return
        name = lsbatch.status_name(code)
        if name in FINISHED:
            if h.finished and h.status == name:
                return  # a repeated finish record
            self._told(h, h.append(rec.end_time or t, "FINISH", finish_data(rec, name, h.started)))
            if code & (lsbatch.JOB_STAT_PDONE | lsbatch.JOB_STAT_PERR):
                self._told(h, h.append(t, "POST", {"ok": not code & lsbatch.JOB_STAT_PERR}))
        elif name in STATES:
            reason = _pend_reason(rec.reason) if name == "PEND" else \
                lsbatch.PREEMPTED_REASON if name == "SSUSP" and rec.reason & lsbatch.SUSP_MBD_PREEMPT else None
            if name == "PEND" and rec.reason == lsbatch.PEND_JOB_REQUEUED and h.changes \
                    and h.changes[-1].kind == "REQUEUE":
                return  # JOB_REQUEUE already said so
            self._told(h, h.append(t, "STATUS", {"status": name, "reason": reason}))



#: record type -> (change kind, its data from the record) of the types that add one change, for a
#: reader that adds it itself (ops.chronicle's stream); TOLD's entries for them are made from these
TOLD_AS: dict[str, tuple[str, Callable[[Record], dict[str, Any]]]] = {}


def _told_as(kind: str, data: Callable[[Record], dict[str, Any]],
             etype: str = "") -> Callable[[HistoryBuilder, JobHistory, float, Record], None]:
    if etype:
        TOLD_AS[etype] = (kind, data)

    def told(b: HistoryBuilder, h: JobHistory, t: float, rec: Record) -> None:
        b._told(h, h.append(t, kind, data(rec)))
    return told


#: record type -> what :meth:`HistoryBuilder.feed` makes of it for a job it holds (JOB_NEW and
#: JOB_MODIFY2 apart): the change it adds
TOLD: dict[str, Callable[[HistoryBuilder, JobHistory, float, Record], None]] = {
    "JOB_STATUS": HistoryBuilder._status,
    "JOB_START_ACCEPT": _told_as("STARTING", lambda r: {"pid": r.job_pid}, "JOB_START_ACCEPT"),
    "JOB_EXECUTE": _told_as("EXECUTE", lambda r: {"exec_home": r.exec_home, "exec_cwd": r.exec_cwd, "pid": r.job_pid},
                            "JOB_EXECUTE"),
    "JOB_START": _told_as("DISPATCH", lambda r: {"hosts": list(r.exec_hosts),
                                                 "effective_res_req": r.effective_res_req or None,
                                                 "host_factor": r.host_factor}, "JOB_START"),
    "JOB_SIGNAL": _told_as("SIGNAL", lambda r: {"signal": r.signal_symbol, "user": r.user_name,
                                                **({"reason": r.reason} if r.reason else {})}),
    "JOB_FORCE": _told_as("FORCE", lambda r: {"user": r.user_name}),
    "JOB_SWITCH": _told_as("SWITCH", lambda r: {"queue": r.queue, "user": r.user_name}),
    "JOB_MOVE": _told_as("MOVE", lambda r: {"position": r.position, "top": r.base != lsbatch.TO_BOTTOM,
                                            "user": r.user_name}),
    "JOB_REQUEUE": _told_as("REQUEUE", lambda r: {}),
    JobForward.TYPE: _told_as("FORWARD", lambda r: {"cluster": r.cluster}),
    JobAcceptAck.TYPE: _told_as("ACCEPTED", lambda r: {"cluster": r.dst_cluster, "remote_job_id": r.dst_job_id}),
    JobAccept.TYPE: _told_as("ACCEPT", lambda r: {"cluster": r.cluster, "remote_job_id": r.remote_jid}),
}


#: what :meth:`HistoryBuilder.feed` reads of each record type (besides the event time), for a
#: reader that decodes records in part (``read_events(..., unused=BUILDER_UNUSED,
#: fields=BUILDER_FIELDS)``): of the types in BUILDER_UNUSED only the event time, of those in
#: BUILDER_FIELDS only these fields (a record read in part raises AttributeError for any other:
#: the tests that feed it would say so); JOB_MODIFY2 and the others are decoded whole
BUILDER_FIELDS: dict[str, frozenset[str]] = {
    "JOB_NEW": frozenset((
        "job_id", "idx", "user_name", "queue", "options", "options2", "options3", "job_name", "command",
        "project_name", "from_host", "cwd", "sub_home_dir", "submit_time", "user_group", "app", "rlimits",
        "out_file", "err_file", "num_processors", "max_num_processors", "res_req", "depend_cond", "user_priority",
        "begin_time", "term_time", "in_file", "login_shell", "asked_hosts", "runtime_estimation", "subcwd",
        "job_description", "job_group", "post_exec_cmd", "outdir", "license_project")),
    "JOB_STATUS": frozenset(("job_id", "idx", "status", "reason", "exit_status", "end_time", "cpu_time", "exit_info")),
    "JOB_START": frozenset(("job_id", "idx", "exec_hosts", "effective_res_req", "host_factor")),
    "JOB_START_ACCEPT": frozenset(("job_id", "idx", "job_pid")),
    "JOB_EXECUTE": frozenset(("job_id", "idx", "exec_home", "exec_cwd", "job_pid")),
    "JOB_SIGNAL": frozenset(("job_id", "idx", "signal_symbol", "user_name", "reason")),
    "JOB_FORCE": frozenset(("job_id", "idx", "user_name")),
    "JOB_SWITCH": frozenset(("job_id", "idx", "queue", "user_name")),
    "JOB_MOVE": frozenset(("job_id", "idx", "position", "base", "user_name")),
    "JOB_REQUEUE": frozenset(("job_id", "idx")),
    "JOB_CLEAN": frozenset(("job_id", "idx")),
}
#: the record types of which feed reads nothing but the event time (no job ID: nothing to look up)
BUILDER_UNUSED = frozenset(("MBD_START", "MBD_DIE", "QUEUE_CTRL", "HOST_CTRL"))

def submit_data(rec: JobNew) -> dict[str, Any]:
    """The part of a SUBMIT change's data that its bhist texts show (and
    whether it starts held), from JOB_NEW: what :meth:`HistoryBuilder.job_new`
    starts from, and all that bhist -t's stream reads of the record for its
    text (ops.chronicle: the fields read here are the key of its texts)."""
    o, o2 = rec.options, rec.options2
    # a dict display, not keywords: the same data at a fraction of the cost (every JOB_NEW of a log)
    return {
        "from_host": rec.from_host, "queue": rec.queue, "cwd": rec.cwd, "home": rec.sub_home_dir,
        "output_file": rec.out_file or None, "error_file": rec.err_file or None,
        "output_overwrite": bool(o2 & lsbatch.SUB2_OVERWRITE_OUT_FILE),
        "error_overwrite": bool(o2 & lsbatch.SUB2_OVERWRITE_ERR_FILE),
        "num_processors": rec.num_processors, "max_processors": rec.max_num_processors,
        "res_req": rec.res_req or None, "dependency": rec.depend_cond or None,
        "user_priority": rec.user_priority if o2 & lsbatch.SUB2_JOB_PRIORITY else None,
        "hold": bool(o2 & lsbatch.SUB2_HOLD),
        "begin_time": rec.begin_time or None, "term_time": rec.term_time or None,
        "rerunnable": bool(o & lsbatch.SUB_RERUNNABLE),
        "input_file": rec.in_file or None, "input_spooled": bool(o2 & lsbatch.SUB2_IN_FILE_SPOOL),
        "login_shell": rec.login_shell or None, "exclusive": bool(o & lsbatch.SUB_EXCLUSIVE),
        "asked_hosts": hostfile.from_log_words(rec.asked_hosts),
        "notify_begin": bool(o & lsbatch.SUB_NOTIFY_BEGIN),
        "notify_end": bool(o & lsbatch.SUB_NOTIFY_END),
        "specified_cwd": _specified_cwd(rec),
    }


def _specified_cwd(rec: JobNew) -> str | None:
    return rec.subcwd or None if rec.options3 & lsbatch.SUB3_CWD else None


#: the fields of JOB_NEW that :func:`submit_data` reads
SUBMIT_FIELDS = ("from_host", "queue", "cwd", "sub_home_dir", "out_file", "err_file", "options", "options2",
                 "options3", "num_processors", "max_num_processors", "res_req", "depend_cond", "user_priority",
                 "begin_time", "term_time", "in_file", "login_shell", "asked_hosts", "subcwd")


def finish_data(rec: JobStatus, name: str, started: bool) -> dict[str, Any]:
    """The data of the FINISH change of a JOB_STATUS record of state *name*
    (DONE or EXIT) for a job dispatched since its submission or last requeue
    (*started*) or not."""
    exit_code = lsbatch.exit_code_of(rec.exit_status) if name == "EXIT" else 0
    return {
        "status": name, "exit_code": exit_code if name == "EXIT" and started else None,
        "cpu_time": rec.cpu_time,
        "exit_reason": lsbatch.TERM_REASONS.get(rec.exit_info) if name == "EXIT" else None,
    }


def tail_columns(rec: JobNew) -> dict[str, Any]:
    """What JOB_NEW's LSF 9/10 tail says bsub was given (issue 21), None for
    what was not, named as the store's job columns (a SUBMIT change's data,
    a replayed job's row)."""
    est = rec.runtime_estimation if rec.options3 & lsbatch.SUB3_RUNTIME_EST and rec.runtime_estimation >= 0 else None
    return {
        "specified_cwd": _specified_cwd(rec),
        "description": rec.job_description or None, "job_group": rec.job_group or None,
        "app_profile": rec.app or None, "post_exec": rec.post_exec_cmd or None, "outdir": rec.outdir or None,
        "est_runtime_min": None if est is None else est / 60,
    }


def array_spec_of(rec: JobNew):
    """The array specification of a JOB_NEW record (index 0, a -J name with an
    index list), else None."""
    if rec.idx or not rec.options & lsbatch.SUB_JOB_NAME or "[" not in rec.job_name:
        return None
    try:
        spec = parse_array_name(rec.job_name, 2147483647)
    except ArraySpecError:
        return None
    return spec if spec is not None and count_of(spec.ranges) <= 1_000_000 else None


def build_histories(records: Iterable[Record]) -> list[JobHistory]:
    """Histories of every job whose JOB_NEW is among *records* (log order)."""
    b = HistoryBuilder()
    for rec in records:
        b.feed(rec)
    return list(b.histories.values())
