"""The replay's reading of lsb.events: :class:`JobTracker` turns records into
rows of the ``jobs`` table, one per job alive, as mbatchd would hold them;
:func:`records` reads the files with the tracker's plan (the types it does
not use skimmed, the others decoded only in the fields it reads). Both
replay modes are built on it (:mod:`.into`, :mod:`.whatif`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

from lsfemu.events import lsbatch
from lsfemu.events.records import (
    HostCtrl, JobModify2, JobMove, JobNew, JobRequeue, JobStart, JobStatus, JobSwitch, MbdStart, QueueCtrl,
    RECORD_TYPES, Record, parse_job_id_str,
)
from lsfemu.events.history import array_spec_of, tail_columns
from lsfemu.events.log import EventWarning, read_event_lines
from lsfemu.jobstate import STARTED, SUSPENDED
from lsfemu.sched import hostfile, resreq


def _aps(text: str) -> tuple[str, float] | None:
    kind, _, value = text.partition("=")
    try:
        return kind.strip().lower(), float(value)
    except ValueError:
        return None


#: the record types :meth:`JobTracker.feed` reads; of the others only the event time matters
_USED = (JobNew, JobStatus, JobStart, JobSwitch, JobMove, JobRequeue, JobModify2,
         MbdStart, QueueCtrl, HostCtrl)
_UNUSED = frozenset(RECORD_TYPES) - {c.TYPE for c in _USED}
#: the fields :meth:`JobTracker.feed` reads of a type (besides the event time): the others are not
#: decoded (JOB_MODIFY2, not listed, is decoded whole); :func:`records` reads with both
_FIELDS = {
    JobNew.TYPE: frozenset((
        "job_id", "idx", "submit_time", "rlimits", "options", "options2", "user_priority", "user_name", "queue",
        "from_host", "command", "job_name", "project_name", "user_group", "cwd", "sub_home_dir", "out_file",
        "err_file", "num_processors", "max_num_processors", "res_req", "options3", "subcwd", "job_description",
        "job_group", "app", "post_exec_cmd", "outdir", "runtime_estimation", "asked_hosts")),
    JobStatus.TYPE: frozenset(("job_id", "idx", "status", "reason", "cpu_time", "end_time", "exit_status",
                               "exit_info")),
    JobStart.TYPE: frozenset(("job_id", "idx", "exec_hosts")),
    JobSwitch.TYPE: frozenset(("job_id", "idx", "queue")),
    JobMove.TYPE: frozenset(("job_id", "idx", "base")),
    JobRequeue.TYPE: frozenset(("job_id", "idx")),
    MbdStart.TYPE: frozenset(("master", "cluster")),
    QueueCtrl.TYPE: frozenset(("opcode", "queue")),
    HostCtrl.TYPE: frozenset(("opcode", "host")),
}


#: the columns of a new job's row that its JOB_NEW does not give
_NEW_ROW: dict[str, Any] = dict(
    aps_system=None, aps_admin=None, rerunnable=False, migrated=False, ngpus=0,
    default_queue_used=False, start_time=None, finish_time=None, exec_hosts="", exit_code=None, exit_reason=None,
    pend_reasons="New job is waiting for scheduling", susp_reason=None, sim_runtime=0.0, sim_cputime=0.0,
    sim_exit_code=0, work_done=0.0, segment_start=None, env_json="{}", array_spec=None, array_limit=None,
    asked_hosts=None,
)

#: the job record types :meth:`JobTracker.feed` applies to a job it holds (found by job ID and index)
_JOB_KINDS = frozenset(c.TYPE for c in (JobStatus, JobStart, JobSwitch, JobMove, JobRequeue))
#: JOB_STAT_* words -> names, as far as known (lsbatch.status_name for the others)
_STATUS_NAMES = {code: lsbatch.status_name(code) for code in lsbatch.STATUS_CODES.values()}
#: the other types it reads but JOB_NEW
_OTHER_KINDS = frozenset(c.TYPE for c in _USED) - _JOB_KINDS - {JobNew.TYPE}


class JobTracker:
    """The state of each job as mbatchd holds it, built record by record.

    ``rows[key]`` is a dict of ``jobs`` table columns for each job alive;
    :meth:`feed` returns the row of a job the record finished (the caller
    stores it and the tracker forgets it). Records of jobs it never saw
    (their JOB_NEW is in an older file) are ignored. ``host_peak`` is the
    most slots seen in use at once on each host; ``queues`` the queues in
    order of first use."""

    def __init__(self, units: dict[str, str] | None = None) -> None:
        self.units = units  # of bare rusage amounts (resreq.units_from_conf); MB when None
        self.rows: dict[tuple[int, int], dict[str, Any]] = {}
        self.position = 0
        self.top = 0.0
        self.bottom = 0.0
        self.host_used: dict[str, int] = {}
        self.host_peak: dict[str, int] = {}
        self.queues: dict[str, None] = {}
        self.users: set[str] = set()
        #: the job groups the jobs were submitted to (bsub -g, from JOB_NEW): path -> (owner, made),
        #: their parents too, as bsub -g makes them
        self.job_groups: dict[str, tuple[str, float]] = {}
        self.max_job_id = 0
        self.priorities_seen = 0
        self.max_priority_seen = 0
        self.queue_ctrl: dict[str, dict[str, bool]] = {}
        self.host_ctrl: dict[str, bool] = {}
        self.cluster = ""
        self.master = ""
        self.jobs_seen = 0
        self.finished = 0

    # -- slots -------------------------------------------------------------
    def _use(self, row: dict[str, Any], sign: int) -> None:
        used, peak = self.host_used, self.host_peak
        for h in row["exec_hosts"].split():
            n = used[h] = used.get(h, 0) + sign
            if n > peak.get(h, 0):
                peak[h] = n

    # -- records -----------------------------------------------------------
    def feed(self, rec: Record) -> dict[str, Any] | None:
        kind = rec.TYPE  # records read in part are of subclasses: the type's name says what they are
        if kind in _JOB_KINDS:
            key = (rec.job_id, rec.idx)
            row = self.rows.get(key)
            if row is None:
                return None  # a job it never saw (or one finished and stored)
            t = float(rec.event_time)
            if kind == "JOB_STATUS":
                return self._status(key, row, rec, t)
            if kind == "JOB_START":
                if row["status"] in STARTED:
                    self._use(row, -1)
                row["status"] = "RUN"
                row["start_time"] = row["segment_start"] = t
                row["work_done"] = 0.0
                row["exec_hosts"] = " ".join(rec.exec_hosts)
                row["pend_reasons"] = ""
                row["migrated"] = False
                self._use(row, +1)
            elif kind == "JOB_SWITCH":
                row["queue"] = rec.queue
                self.queues.setdefault(rec.queue)
            elif kind == "JOB_MOVE":
                if rec.base == lsbatch.TO_BOTTOM:
                    self.bottom += 1
                    row["position"] = self.bottom
                else:
                    self.top -= 1
                    row["position"] = self.top
            else:
                self._requeue(row, t)
            return None
        if kind == "JOB_NEW":
            self._new(rec, float(rec.event_time))
        elif kind not in _OTHER_KINDS:
            return None  # a type it does not read (a Skimmed record's TYPE is empty)
        elif kind == "JOB_MODIFY2":
            try:
                key = parse_job_id_str(rec.job_id_str)
            except ValueError:
                return None
            row = self.rows.get(key)
            if row is not None:
                self._modify(row, rec, float(rec.event_time))
        elif kind == "MBD_START":
            self.cluster = rec.cluster or self.cluster
            self.master = rec.master or self.master
        elif kind == "QUEUE_CTRL":
            self._queue_ctrl(rec)
        elif kind == "HOST_CTRL":
            self._host_ctrl(rec)
        return None

    def _new(self, rec: JobNew, t: float) -> None:
        job_id, idx, o2 = rec.job_id, rec.idx, rec.options2
        key = (job_id, idx)
        submit = float(rec.submit_time or t)
        rlimits = rec.rlimits
        run = rlimits[lsbatch.RLIMIT_RUN] if len(rlimits) > lsbatch.RLIMIT_RUN else -1
        prio = rec.user_priority if o2 & lsbatch.SUB2_JOB_PRIORITY and rec.user_priority > 0 else None
        if prio is not None:
            self.priorities_seen += 1
            self.max_priority_seen = max(self.max_priority_seen, prio)
        position = self.position = self.position + 1
        if position > self.bottom:
            self.bottom = float(position)
        nproc, max_nproc, res_req = rec.num_processors, rec.max_num_processors, rec.res_req
        user, queue = rec.user_name, rec.queue
        # the template's copy and one store per column: a fraction of a dict built from keywords
        row = dict(_NEW_ROW)
        row["id"] = job_id
        row["array_index"] = idx
        row["user"] = user
        row["status"] = "PSUSP" if o2 & lsbatch.SUB2_HOLD else "PEND"
        row["queue"] = queue
        row["from_host"] = rec.from_host
        row["command"] = rec.command
        row["name"] = rec.job_name if rec.options & lsbatch.SUB_JOB_NAME else None
        row["project"] = rec.project_name or "default"
        row["user_group"] = rec.user_group or None
        row["cwd"] = rec.cwd
        row["home"] = rec.sub_home_dir
        row["output_file"] = rec.out_file or None
        row["error_file"] = rec.err_file or None
        row["output_overwrite"] = bool(o2 & lsbatch.SUB2_OVERWRITE_OUT_FILE)
        row["error_overwrite"] = bool(o2 & lsbatch.SUB2_OVERWRITE_ERR_FILE)
        row["num_processors"] = nproc if nproc > 1 else 1
        row["max_processors"] = max_nproc if max_nproc > nproc else None
        row["res_req"] = res_req or None
        row["mem_req_mb"] = mem_request(res_req, self.units) if res_req else None
        row["run_limit_min"] = run / 60.0 if run > 0 else None
        row["submit_priority"] = row["priority"] = prio
        row["priority_base_time"] = row["pend_since"] = row["submit_time"] = submit
        row["position"] = float(position)
        row.update(tail_columns(rec))
        if rec.asked_hosts:  # a host file (bsub -hostfile) is kept; -m's words are not (as before)
            row["asked_hosts"] = _host_file(rec.asked_hosts)
        if row["job_group"]:
            parts = row["job_group"].strip("/").split("/")
            for n in range(1, len(parts) + 1):
                self.job_groups.setdefault("/" + "/".join(parts[:n]), (user, submit))
        self.rows[key] = row
        spec = array_spec_of(rec)
        if spec is not None:  # a job array: its JOB_NEW stands for every element
            head = self.rows.pop(key)
            for i in spec.indices():
                self.position += 1
                self.rows[(rec.job_id, i)] = dict(head, array_index=i, name=spec.name, array_spec=spec.text,
                                                  array_limit=spec.limit, position=float(self.position))
            self.bottom = max(self.bottom, float(self.position))
        self.queues.setdefault(queue)
        self.users.add(user)
        if job_id > self.max_job_id:
            self.max_job_id = job_id
        self.jobs_seen += 1

    def _modify(self, row: dict[str, Any], rec: JobModify2, t: float) -> None:
        o, o2 = rec.options, rec.options2
        if o & lsbatch.SUB_JOB_NAME:
            row["name"] = rec.job_name
        if o & lsbatch.SUB_QUEUE and rec.queue:
            row["queue"] = rec.queue
            self.queues.setdefault(rec.queue)
        if o & lsbatch.SUB_RES_REQ:
            row["res_req"] = rec.res_req or None
            row["mem_req_mb"] = mem_request(rec.res_req, self.units)
        if o2 & lsbatch.SUB2_MODIFY_CMD:
            row["command"] = rec.command
        if o & lsbatch.SUB_HOST:  # bmod -hostfile: the new lines and slots
            kept = row["asked_hosts"] = _host_file(rec.asked_hosts)
            if kept is not None:
                row["num_processors"], row["max_processors"] = hostfile.total(hostfile.decode(kept)[1]), None
        elif rec.del_options & lsbatch.SUB_HOST:
            row["asked_hosts"] = None
        if o & lsbatch.SUB_PROJECT_NAME:
            row["project"] = rec.project_name or "default"
        run = rec.rlimits[lsbatch.RLIMIT_RUN] if len(rec.rlimits) > lsbatch.RLIMIT_RUN else lsbatch.DEFAULT_RLIMIT
        if run == lsbatch.DELETE_NUMBER:
            row["run_limit_min"] = None
        elif run > 0:
            row["run_limit_min"] = run / 60.0
        if o2 & lsbatch.SUB2_JOB_PRIORITY and rec.user_priority > 0:
            row["priority"] = rec.user_priority
            row["priority_base_time"] = t
            self.priorities_seen += 1
            self.max_priority_seen = max(self.max_priority_seen, rec.user_priority)
        if rec.del_options2 & lsbatch.SUB2_JOB_PRIORITY:
            row["priority"] = None  # the default, filled in once MAX_USER_PRIORITY is known
            row["priority_base_time"] = t
        if rec.options3 & lsbatch.SUB3_APS:
            parsed = _aps(rec.aps_string)
            if parsed is not None:
                row["aps_system"] = parsed[1] if parsed[0] == "system" else None
                row["aps_admin"] = parsed[1] if parsed[0] == "admin" else None
        if rec.del_options3 & lsbatch.SUB3_APS:
            row["aps_system"] = row["aps_admin"] = None

    def _requeue(self, row: dict[str, Any], t: float) -> None:
        if row["status"] in STARTED:
            self._use(row, -1)
        row.update(status="PEND", start_time=None, segment_start=None, work_done=0.0, exec_hosts="",
                   finish_time=None, exit_code=None, exit_reason=None, pend_since=t, priority_base_time=t,
                   pend_reasons="Job has been requeued")

    def _status(self, key, row: dict[str, Any], rec: JobStatus, t: float) -> dict[str, Any] | None:
        name = _STATUS_NAMES.get(rec.status) or lsbatch.status_name(rec.status)
        was = row["status"]
        if name == "DONE" or name == "EXIT":
            end = float(rec.end_time or t)
            if row["segment_start"] is not None:
                row["work_done"] += max(0.0, end - row["segment_start"])
            if was in STARTED:
                self._use(row, -1)
            failed = name == "EXIT"
            row["exit_code"] = (lsbatch.exit_code_of(rec.exit_status)
                                if failed and row["start_time"] is not None else None)
            row["status"] = name
            row["finish_time"] = end
            row["segment_start"] = None
            row["pend_reasons"] = ""
            row["exit_reason"] = lsbatch.TERM_REASONS.get(rec.exit_info) if failed else None
            row["sim_runtime"] = row["work_done"]
            row["sim_cputime"] = float(rec.cpu_time or 0.0)
            row["sim_exit_code"] = lsbatch.exit_code_of(rec.exit_status) if failed else 0
            del self.rows[key]
            self.finished += 1
            return row
        if name == "PEND":
            if was in STARTED:  # requeued or rerun without a JOB_REQUEUE record
                self._requeue(row, t)
                if rec.reason != lsbatch.PEND_JOB_REQUEUED:
                    row["pend_reasons"] = "Job is pending"
            else:
                row["status"] = "PEND"
        elif name == "RUN":
            if row["start_time"] is not None and row["segment_start"] is None:
                row["segment_start"] = t
            if row["start_time"] is not None:
                row["status"] = "RUN"
                row["susp_reason"] = None
        elif name in SUSPENDED:
            if row["segment_start"] is not None:
                row["work_done"] += max(0.0, t - row["segment_start"])
                row["segment_start"] = None
            if row["start_time"] is not None:
                row["status"] = name
                row["susp_reason"] = "The job was suspended by user" if name == "USUSP" else \
                    "The job was suspended by LSF"
        elif name in ("PSUSP", "UNKWN"):
            row["status"] = name
        return None

    def _queue_ctrl(self, rec: QueueCtrl) -> None:
        st = self.queue_ctrl.setdefault(rec.queue, {"open": True, "active": True})
        op = rec.opcode
        if op == lsbatch.QUEUE_OPEN:
            st["open"] = True
        elif op == lsbatch.QUEUE_CLOSED:
            st["open"] = False
        elif op == lsbatch.QUEUE_ACTIVATE:
            st["active"] = True
        elif op == lsbatch.QUEUE_INACTIVATE:
            st["active"] = False

    def _host_ctrl(self, rec: HostCtrl) -> None:
        if rec.opcode == lsbatch.HOST_OPEN:
            self.host_ctrl[rec.host] = True
        elif rec.opcode == lsbatch.HOST_CLOSE:
            self.host_ctrl[rec.host] = False


def records(paths: list[Path], warn: Callable[[EventWarning], None],
            on_bytes: Callable[[int], None]) -> Iterator[tuple[int, str, Record]]:
    """(line number, line, record) of *paths* (oldest first), read as :meth:`JobTracker.feed` needs."""
    return read_event_lines(paths, warn, on_bytes=on_bytes, unused=_UNUSED, fields=_FIELDS)


def _host_file(words) -> str | None:
    """The kept host file of a record's asked-hosts list (lsfemu.sched.hostfile), None for -m's words."""
    kept = hostfile.from_log_words(words)
    return kept if hostfile.decode(kept) is not None else None


def mem_request(res_req: str | None, units: dict[str, str] | None = None) -> float | None:
    """What bsub stores as mem_req_mb: the MEM one slot reserves (None when the string is bad)."""
    if not res_req:
        return None
    try:
        return resreq.rusage_amounts(res_req, 1, False, units).get("mem")
    except resreq.ResReqError:
        return None
