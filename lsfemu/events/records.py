"""The ``lsb.events`` record types: one dataclass per event type, with its schema.

The event log is an ASCII file with one record per line (``lsb.events(5)``).
The first line of the current ``lsb.events`` is a header ``#<history seek
position>`` (the byte offset where the history of this file starts, after the
records LSF copied over from the previous file at the last switch); the first
line of an archived ``lsb.events.N`` is ``#<time of its most recent event>``.
Lines starting with ``#`` are never records. Every record line is::

    "JOB_STATUS" "10.1" 1610297412 873209 32 0 0 0.0000 1610297412 0 32512 0 0

* field 1: the event type, quoted; field 2: the version, quoted ("10.1");
  field 3: the event time (epoch seconds, bare integer); then the type's
  fields in LSF's order (the ``_SCHEMA`` of each record class below);
* numbers are bare (``%d`` integers, floats with the field's fixed precision);
* strings are always double-quoted; a ``"`` inside is doubled (``""``), exactly
  as LSF's ``addQStr``/``stripQStr`` do; nothing else is escaped by LSF;
* lists are a count followed by the items (``2 "hostA" "hostB"``);
* some fields exist only when a bit is set in the record's ``options`` word
  (as in LSF: e.g. JOB_NEW's ``nios_port`` only for interactive jobs, the
  JOB_STATUS rusage block only when ``ru`` is non-zero, most JOB_MODIFY2
  fields only when their ``SUB_*`` bit says the parameter was changed);
* fields after the last one this module knows are kept verbatim in the
  record's ``extra`` tuple (newer LSF versions append fields; LSF's own reader
  ignores trailing data the same way) and written back by
  :func:`~lsfemu.events.codec.encode`;
* trailing fields marked *optional* may be missing (older writers) and then
  take their neutral default.

Each record class declares its fields twice: as dataclass fields (the
attributes and their defaults) and, in ``_SCHEMA``, as LSF writes them (order,
kind, option-bit gate, optional tail); :func:`_register` checks that the two
name the same fields. Field orders follow OpenLava's ``lsb.log.c`` (the
Platform LSF 7 code base) and were checked against real LSF 9.1.3
``JOB_NEW``/``JOB_EXECUTE`` lines; details that differ in IBM LSF 10 or could
not be verified are marked [inferred] next to the field.

The schemas are all the codec (:mod:`lsfemu.events.codec`, the text of a
record) and the generated decoders (:mod:`lsfemu.events.fastdecode`) know of
a type. This module is a data table excepted from the project's ~600-line
rule: its record classes are a declarative table (~550 lines), kept in one
file so that one file shows every record type; the code around it is what
the table needs (the field spec, the registry, the defaults).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator

from lsfemu.events.lsbatch import (
    DEFAULT_RLIMIT, JOB_STAT_RUN, NUM_RLIMITS, NUM_RUSAGE, SUB2_BSUB_BLOCK, SUB2_IN_FILE_SPOOL, SUB2_JOB_CMD_SPOOL,
    SUB2_EXTSCHED, SUB2_JOB_GROUP, SUB2_JOB_PRIORITY, SUB2_LICENSE_PROJECT, SUB2_MODIFY_CMD, SUB2_SLA,
    SUB2_USE_RSV, SUB2_WARNING_ACTION, SUB3_DESCRIPTION, SUB_CHKPNT_DIR, SUB_CHKPNT_PERIOD, SUB_DEPEND_COND, SUB_ERR_FILE, SUB_HOST,
    SUB_HOST_SPEC, SUB_IN_FILE, SUB_INTERACTIVE, SUB_JOB_NAME, SUB_LOGIN_SHELL, SUB_MAIL_USER, SUB_OTHER_FILES,
    SUB_OUT_FILE, SUB_PRE_EXEC, SUB_PROJECT_NAME, SUB_QUEUE, SUB_RES_REQ, TO_TOP,
)

#: the version string lsfemu writes into every record
VERSION = "10.1"

# ---------------------------------------------------------------------------
# schema machinery
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _F:
    """One field of a record type: ``kind`` is ``i`` (int), ``f`` (float,
    written with ``fmt``), ``s`` (string), ``slist`` (count + strings),
    ``ints`` / ``floats`` (exactly ``size`` bare numbers), ``xf`` (count +
    (subFn, execFn, options) triples). ``when`` gates the field on values
    that come before it; ``optional`` fields may be missing at the end of a
    line (older writers)."""

    name: str
    kind: str
    fmt: str = "%.2f"
    size: int = 0
    when: Callable[[dict[str, Any]], bool] | None = None
    optional: bool = False


def _gate(source: str, *words: str) -> Callable[[dict[str, Any]], bool]:
    """A field's ``when``: the test *source* (an expression of ``v``, the
    values decoded so far) as a function, marked with its source (generated
    decoders inline it) and the fields it reads (a decoder of some fields
    only, :func:`~lsfemu.events.fastdecode.reader`, converts those too)."""
    test = eval(f"lambda v: bool({source})", {})  # noqa: S307 -- our own schema's expressions
    test.source = source
    test.words = words
    return test


def _opt(bit: int, word: str = "options") -> Callable[[dict[str, Any]], bool]:
    return _gate(f"v[{word!r}] & {bit}", word)



# ---------------------------------------------------------------------------
# records
# ---------------------------------------------------------------------------


@dataclass(kw_only=True)
class Record:
    """Fields every record has. ``extra`` holds trailing fields this module
    does not know (raw text, written back verbatim)."""

    TYPE: ClassVar[str] = ""
    _SCHEMA: ClassVar[tuple[_F, ...]] = ()
    #: its gated fields are seldom present (the fast decoder's shape may then read a run of them)
    _RARE_GATES: ClassVar[bool] = False

    event_time: int = 0
    version: str = VERSION
    extra: tuple[str, ...] = ()

    @property
    def job_key(self) -> tuple[int, int] | None:
        """``(job_id, array_index)`` for job records, else None."""
        jid = getattr(self, "job_id", None)
        if jid is None:
            return None
        return (jid, getattr(self, "idx", 0))


RECORD_TYPES: dict[str, type[Record]] = {}


def _register(cls: type[Record]) -> type[Record]:
    names = {f.name for f in dataclasses.fields(cls)}
    for spec in cls._SCHEMA:
        assert spec.name in names, (cls.__name__, spec.name)
    RECORD_TYPES[cls.TYPE] = cls
    return cls


_NEG1_LIMITS = (DEFAULT_RLIMIT,) * NUM_RLIMITS


@_register
@dataclass(kw_only=True)
class MbdStart(Record):
    """mbatchd started."""

    TYPE: ClassVar[str] = "MBD_START"
    master: str = ""
    cluster: str = ""
    num_hosts: int = 0
    num_queues: int = 0
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("master", "s"),
        _F("cluster", "s"),
        _F("num_hosts", "i"),
        _F("num_queues", "i"),
    )


@_register
@dataclass(kw_only=True)
class MbdDie(Record):
    """mbatchd stopped. ``ctrl_comments`` (LSF 7+) [inferred]."""

    TYPE: ClassVar[str] = "MBD_DIE"
    master: str = ""
    num_remove_jobs: int = 0
    exit_code: int = 0
    ctrl_comments: str = ""
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("master", "s"),
        _F("num_remove_jobs", "i"),
        _F("exit_code", "i"),
        _F("ctrl_comments", "s", optional=True),
    )


@_register
@dataclass(kw_only=True)
class JobNew(Record):
    """A job was submitted (bsub).

    Awk positions (1-based, the type is field 1): 4 job ID, 5 uid, 14 user
    name, 29 queue, 42 job name and 43 command when ``asked_hosts`` is empty
    -- the positions the snakemake LSF plugin relies on. The three strings
    between ``login_shell`` and ``options2`` are in real LSF 9 lines (always
    ``""`` in the samples; the last one's meaning is unknown).

    The LSF 9/10 tail after ``user_priority`` (issue 21): the names and their
    order are the lsbatch API's ``jobNewLog``; that a real LSF 9.1.3 line
    fits it (kind by kind, ``subcwd`` where its directory is) is the check;
    the gates of the strings it lacks (``rsv_id`` ... ``license_project``,
    ``job_description``) are [inferred] from their absence there. What lsfemu
    writes in it: ``job_group`` (-g), ``app`` (-app), ``post_exec_cmd``
    (-Ep), ``runtime_estimation`` (-We, seconds), ``job_description`` (-Jd),
    ``subcwd`` (-cwd: the specified CWD, with SUB3_CWD) and ``outdir``
    (-outdir); ``options3``'s bits are lsfemu's (as in JOB_MODIFY2). Fields
    after ``dc_vm_actions`` (LSF 10's network, ...) go to ``extra``."""

    TYPE: ClassVar[str] = "JOB_NEW"
    _RARE_GATES: ClassVar[bool] = True  # -g, -sla, -ext, ... (a job group's lines take the slow way)
    job_id: int = 0
    user_id: int = 0
    options: int = 0
    num_processors: int = 1
    submit_time: int = 0
    begin_time: int = 0
    term_time: int = 0
    sig_value: int = 0
    chkpnt_period: int = 0
    restart_pid: int = 0
    user_name: str = ""
    rlimits: tuple[int, ...] = _NEG1_LIMITS
    host_spec: str = ""
    host_factor: float = 1.0
    umask: int = 18
    queue: str = ""
    res_req: str = ""
    from_host: str = ""
    cwd: str = ""
    chkpnt_dir: str = ""
    in_file: str = ""
    out_file: str = ""
    err_file: str = ""
    sub_home_dir: str = ""
    job_file: str = ""
    asked_hosts: tuple[str, ...] = ()
    depend_cond: str = ""
    pre_exec_cmd: str = ""
    job_name: str = ""
    command: str = ""
    xfiles: tuple[tuple[str, str, int], ...] = ()
    mail_user: str = ""
    project_name: str = "default"
    nios_port: int = 0
    max_num_processors: int = 1
    sched_host_type: str = ""
    login_shell: str = ""
    user_group: str = ""
    except_list: str = ""
    reserved_str: str = ""
    options2: int = 0
    idx: int = 0
    nios_port2: int = 0
    in_file_spool: str = ""
    command_spool: str = ""
    job_spool_dir: str = ""
    user_priority: int = -1
    rsv_id: str = ""
    job_group: str = ""
    extsched: str = ""
    warning_time_period: int = -1
    warning_action: str = ""
    sla: str = ""
    sla_run_limit: int = -1
    license_project: str = ""
    options3: int = 0
    app: str = ""
    post_exec_cmd: str = ""
    runtime_estimation: int = -1
    requeue_evalues: str = ""
    init_chkpnt_period: int = 0
    mig_threshold: int = -1
    notify_cmd: str = ""
    job_description: str = ""
    submit_ext: tuple[str, ...] = ()
    options4: int = 0
    asked_clusters: tuple[str, ...] = ()
    src_cluster: str = ""
    src_job_id: int = -1
    dst_cluster: str = ""
    dst_job_id: int = -1
    flow_id: str = ""
    subcwd: str = ""
    outdir: str = ""
    dc_tmpls: str = ""
    dc_vm_actions: str = ""
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id", "i"),
        _F("user_id", "i"),
        _F("options", "i"),
        _F("num_processors", "i"),
        _F("submit_time", "i"),
        _F("begin_time", "i"),
        _F("term_time", "i"),
        _F("sig_value", "i"),
        _F("chkpnt_period", "i"),
        _F("restart_pid", "i"),
        _F("user_name", "s"),
        _F("rlimits", "ints", size=NUM_RLIMITS),
        _F("host_spec", "s"),
        _F("host_factor", "f", "%.2f"),
        _F("umask", "i"),
        _F("queue", "s"),
        _F("res_req", "s"),
        _F("from_host", "s"),
        _F("cwd", "s"),
        _F("chkpnt_dir", "s"),
        _F("in_file", "s"),
        _F("out_file", "s"),
        _F("err_file", "s"),
        _F("sub_home_dir", "s"),
        _F("job_file", "s"),
        _F("asked_hosts", "slist"),
        _F("depend_cond", "s"),
        _F("pre_exec_cmd", "s"),
        _F("job_name", "s"),
        _F("command", "s"),
        _F("xfiles", "xf"),
        _F("mail_user", "s"),
        _F("project_name", "s"),
        _F("nios_port", "i", when=_opt(SUB_INTERACTIVE)),
        _F("max_num_processors", "i"),
        _F("sched_host_type", "s"),
        _F("login_shell", "s"),
        _F("user_group", "s"),
        _F("except_list", "s"),
        _F("reserved_str", "s"),
        _F("options2", "i"),
        _F("idx", "i"),
        _F("nios_port2", "i", when=_opt(SUB2_BSUB_BLOCK, "options2")),
        _F("in_file_spool", "s", optional=True),
        _F("command_spool", "s", optional=True),
        _F("job_spool_dir", "s", optional=True),
        _F("user_priority", "i", optional=True),
        # LSF 9/10 (issue 21): every field optional (lsfemu's older lines and LSF 7's end before)
        _F("rsv_id", "s", when=_opt(SUB2_USE_RSV, "options2"), optional=True),
        _F("job_group", "s", when=_opt(SUB2_JOB_GROUP, "options2"), optional=True),
        _F("extsched", "s", when=_opt(SUB2_EXTSCHED, "options2"), optional=True),
        _F("warning_time_period", "i", optional=True),
        _F("warning_action", "s", when=_opt(SUB2_WARNING_ACTION, "options2"), optional=True),
        _F("sla", "s", when=_opt(SUB2_SLA, "options2"), optional=True),
        _F("sla_run_limit", "i", optional=True),
        _F("license_project", "s", when=_opt(SUB2_LICENSE_PROJECT, "options2"), optional=True),
        _F("options3", "i", optional=True),
        _F("app", "s", optional=True),
        _F("post_exec_cmd", "s", optional=True),
        _F("runtime_estimation", "i", optional=True),
        _F("requeue_evalues", "s", optional=True),
        _F("init_chkpnt_period", "i", optional=True),
        _F("mig_threshold", "i", optional=True),
        _F("notify_cmd", "s", optional=True),
        _F("job_description", "s", when=_opt(SUB3_DESCRIPTION, "options3"), optional=True),
        _F("submit_ext", "slist", optional=True),  # [inferred] lsfemu writes none: 0
        _F("options4", "i", optional=True),
        _F("asked_clusters", "slist", optional=True),
        _F("src_cluster", "s", optional=True),
        _F("src_job_id", "i", optional=True),
        _F("dst_cluster", "s", optional=True),
        _F("dst_job_id", "i", optional=True),
        _F("flow_id", "s", optional=True),
        _F("subcwd", "s", optional=True),
        _F("outdir", "s", optional=True),
        _F("dc_tmpls", "s", optional=True),
        _F("dc_vm_actions", "s", optional=True),
    )


@_register
@dataclass(kw_only=True)
class JobModify2(Record):
    """Parameters of a job were changed (bmod). OpenLava's layout: most
    fields are present only when their bit is set in ``options`` /
    ``options2`` (the parameter was given to bmod); ``del_options`` /
    ``del_options2`` carry the ``-Xn`` (reset) bits. The tail ``options3``,
    ``del_options3``, ``aps_string`` (bmod -aps / -apsn; options3 also
    marks bmod -cwd / -cwdn, whose directory is ``cwd``) ``user_group``
    (bmod -G, with SUB_USER_GROUP), ``job_description`` and ``outdir`` (bmod
    -Jd, -outdir, with their options3 bits), ``job_group`` and ``app`` (bmod
    -g/-gn, -app/-appn, with SUB3_JOB_GROUP / SUB3_APP) is lsfemu's [lsfemu]; optional on reading. Use :func:`job_modify` to build one."""

    TYPE: ClassVar[str] = "JOB_MODIFY2"
    job_id_str: str = ""
    options: int = 0
    options2: int = 0
    del_options: int = 0
    user_id: int = 0
    user_name: str = ""
    submit_time: int = 0
    umask: int = 0
    num_processors: int = 0
    begin_time: int = 0
    term_time: int = 0
    sig_value: int = 0
    restart_pid: int = 0
    job_name: str = ""
    queue: str = ""
    asked_hosts: tuple[str, ...] = ()
    res_req: str = ""
    rlimits: tuple[int, ...] = _NEG1_LIMITS
    host_spec: str = ""
    depend_cond: str = ""
    sub_home_dir: str = ""
    in_file: str = ""
    out_file: str = ""
    err_file: str = ""
    command: str = ""
    chkpnt_period: int = 0
    chkpnt_dir: str = ""
    xfiles: tuple[tuple[str, str, int], ...] = ()
    job_file: str = ""
    from_host: str = ""
    cwd: str = ""
    pre_exec_cmd: str = ""
    mail_user: str = ""
    project_name: str = ""
    nios_port: int = 0
    max_num_processors: int = 0
    login_shell: str = ""
    sched_host_type: str = ""
    del_options2: int = 0
    in_file_spool: str = ""
    command_spool: str = ""
    user_priority: int = -1
    options3: int = 0
    del_options3: int = 0
    aps_string: str = ""
    user_group: str = ""
    job_description: str = ""
    outdir: str = ""
    job_group: str = ""
    app: str = ""
    post_exec_cmd: str = ""
    runtime_estimate: int = 0
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id_str", "s"),
        _F("options", "i"),
        _F("options2", "i"),
        _F("del_options", "i"),
        _F("user_id", "i"),
        _F("user_name", "s"),
        _F("submit_time", "i"),
        _F("umask", "i"),
        _F("num_processors", "i"),
        _F("begin_time", "i"),
        _F("term_time", "i"),
        _F("sig_value", "i"),
        _F("restart_pid", "i"),
        _F("job_name", "s", when=_opt(SUB_JOB_NAME)),
        _F("queue", "s", when=_opt(SUB_QUEUE)),
        _F("asked_hosts", "slist", when=_opt(SUB_HOST)),
        _F("res_req", "s", when=_opt(SUB_RES_REQ)),
        _F("rlimits", "ints", size=NUM_RLIMITS),
        _F("host_spec", "s", when=_opt(SUB_HOST_SPEC)),
        _F("depend_cond", "s", when=_opt(SUB_DEPEND_COND)),
        _F("sub_home_dir", "s"),
        _F("in_file", "s", when=_gate(f"v['options'] & {SUB_IN_FILE} or v['options2'] & {SUB2_IN_FILE_SPOOL}",
                                         "options", "options2")),
        _F("out_file", "s", when=_opt(SUB_OUT_FILE)),
        _F("err_file", "s", when=_opt(SUB_ERR_FILE)),
        _F("command", "s", when=_opt(SUB2_MODIFY_CMD, "options2")),
        _F("chkpnt_period", "i", when=_opt(SUB_CHKPNT_PERIOD)),
        _F("chkpnt_dir", "s", when=_opt(SUB_CHKPNT_DIR)),
        _F("xfiles", "xf", when=_opt(SUB_OTHER_FILES)),
        _F("job_file", "s"),
        _F("from_host", "s"),
        _F("cwd", "s"),
        _F("pre_exec_cmd", "s", when=_opt(SUB_PRE_EXEC)),
        _F("mail_user", "s", when=_opt(SUB_MAIL_USER)),
        _F("project_name", "s", when=_opt(SUB_PROJECT_NAME)),
        _F("nios_port", "i"),
        _F("max_num_processors", "i"),
        _F("login_shell", "s", when=_opt(SUB_LOGIN_SHELL)),
        _F("sched_host_type", "s"),
        _F("del_options2", "i"),
        _F("in_file_spool", "s", when=_opt(SUB2_IN_FILE_SPOOL, "options2")),
        _F("command_spool", "s", when=_opt(SUB2_JOB_CMD_SPOOL, "options2")),
        _F("user_priority", "i", when=_opt(SUB2_JOB_PRIORITY, "options2")),
        _F("options3", "i", optional=True),
        _F("del_options3", "i", optional=True),
        _F("aps_string", "s", optional=True),
        _F("user_group", "s", optional=True),
        _F("job_description", "s", optional=True),
        _F("outdir", "s", optional=True),
        _F("job_group", "s", optional=True),
        _F("app", "s", optional=True),
        _F("post_exec_cmd", "s", optional=True),
        _F("runtime_estimate", "i", optional=True),
    )

    @property
    def job_key(self) -> tuple[int, int] | None:
        try:
            return parse_job_id_str(self.job_id_str)
        except ValueError:
            return None


@_register
@dataclass(kw_only=True)
class JobStart(Record):
    """A job was dispatched. ``exec_hosts`` has one entry per slot. The
    ``user_group`` position follows the LSF documentation (OpenLava's writer
    omits it); the tail after ``idx`` is [inferred] and optional."""

    TYPE: ClassVar[str] = "JOB_START"
    job_id: int = 0
    status: int = JOB_STAT_RUN
    job_pid: int = 0
    job_pgid: int = 0
    host_factor: float = 1.0
    exec_hosts: tuple[str, ...] = ()
    queue_pre_cmd: str = ""
    queue_post_cmd: str = ""
    jflags: int = 0
    user_group: str = ""
    idx: int = 0
    additional_info: str = ""
    duration4_preempt_backfill: int = 0
    jflags2: int = 0
    effective_res_req: str = ""
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id", "i"),
        _F("status", "i"),
        _F("job_pid", "i"),
        _F("job_pgid", "i"),
        _F("host_factor", "f", "%.1f"),
        _F("exec_hosts", "slist"),
        _F("queue_pre_cmd", "s"),
        _F("queue_post_cmd", "s"),
        _F("jflags", "i"),
        _F("user_group", "s"),
        _F("idx", "i"),
        _F("additional_info", "s", optional=True),
        _F("duration4_preempt_backfill", "i", optional=True),
        _F("jflags2", "i", optional=True),
        _F("effective_res_req", "s", optional=True),
    )


@_register
@dataclass(kw_only=True)
class JobStartAccept(Record):
    """The job started on its execution host (``Starting (Pid N)``)."""

    TYPE: ClassVar[str] = "JOB_START_ACCEPT"
    job_id: int = 0
    job_pid: int = 0
    job_pgid: int = 0
    idx: int = 0
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id", "i"),
        _F("job_pid", "i"),
        _F("job_pgid", "i"),
        _F("idx", "i"),
    )


@_register
@dataclass(kw_only=True)
class JobExecute(Record):
    """The job runs (execution user, home, cwd and pid). Real LSF 9/10 lines
    carry more fields after ``idx`` (kept in ``extra``)."""

    TYPE: ClassVar[str] = "JOB_EXECUTE"
    job_id: int = 0
    exec_uid: int = 0
    job_pgid: int = 0
    exec_cwd: str = ""
    exec_home: str = ""
    exec_username: str = ""
    job_pid: int = 0
    idx: int = 0
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id", "i"),
        _F("exec_uid", "i"),
        _F("job_pgid", "i"),
        _F("exec_cwd", "s"),
        _F("exec_home", "s"),
        _F("exec_username", "s"),
        _F("job_pid", "i"),
        _F("idx", "i"),
    )


@_register
@dataclass(kw_only=True)
class JobStatus(Record):
    """A job changed state after dispatch (or PEND/PSUSP changes).

    Awk positions: 4 job ID, 5 status (JOB_STAT_* word, e.g. 64 DONE, 192
    DONE + post-job done). ``exit_status`` is a wait(2) word (see
    :func:`~lsfemu.events.lsbatch.wait_status`); ``rusage`` holds 19 values when ``ru`` != 0;
    ``exit_info`` is the TERM_* reason (LSF 7+, optional on reading)."""

    TYPE: ClassVar[str] = "JOB_STATUS"
    job_id: int = 0
    status: int = 0
    reason: int = 0
    subreasons: int = 0
    cpu_time: float = 0.0
    end_time: int = 0
    ru: int = 0
    rusage: tuple[float, ...] = ()
    exit_status: int = 0
    idx: int = 0
    exit_info: int = 0
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id", "i"),
        _F("status", "i"),
        _F("reason", "i"),
        _F("subreasons", "i"),
        _F("cpu_time", "f", "%.4f"),
        _F("end_time", "i"),
        _F("ru", "i"),
        _F("rusage", "floats", "%.6f", size=NUM_RUSAGE, when=_gate("v['ru'] != 0", "ru")),
        _F("exit_status", "i"),
        _F("idx", "i"),
        _F("exit_info", "i", optional=True),
    )


@_register
@dataclass(kw_only=True)
class JobSignal(Record):
    """A signal was requested for a job (bkill; ``DELETEJOB`` for removal).
    The tail ``reason`` (bkill -C, bstop -C, bresume -C; ``""`` when none
    was given) is lsfemu's [lsfemu]; optional on reading (LSF's lines end
    at ``user_name``)."""

    TYPE: ClassVar[str] = "JOB_SIGNAL"
    job_id: int = 0
    user_id: int = 0
    run_count: int = 0
    signal_symbol: str = ""
    idx: int = 0
    user_name: str = ""
    reason: str = ""
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id", "i"),
        _F("user_id", "i"),
        _F("run_count", "i"),
        _F("signal_symbol", "s"),
        _F("idx", "i"),
        _F("user_name", "s"),
        _F("reason", "s", optional=True),
    )


@_register
@dataclass(kw_only=True)
class JobMove(Record):
    """btop/bbot: ``base`` is TO_TOP (1) or TO_BOTTOM (2)."""

    TYPE: ClassVar[str] = "JOB_MOVE"
    user_id: int = 0
    job_id: int = 0
    position: int = 1
    base: int = TO_TOP
    idx: int = 0
    user_name: str = ""
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("user_id", "i"),
        _F("job_id", "i"),
        _F("position", "i"),
        _F("base", "i"),
        _F("idx", "i"),
        _F("user_name", "s"),
    )


@_register
@dataclass(kw_only=True)
class JobSwitch(Record):
    """bswitch: the job moved to ``queue``."""

    TYPE: ClassVar[str] = "JOB_SWITCH"
    user_id: int = 0
    job_id: int = 0
    queue: str = ""
    idx: int = 0
    user_name: str = ""
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("user_id", "i"),
        _F("job_id", "i"),
        _F("queue", "s"),
        _F("idx", "i"),
        _F("user_name", "s"),
    )


@_register
@dataclass(kw_only=True)
class JobForce(Record):
    """brun: an administrator forced the job to run on ``exec_hosts`` (one
    entry per host named), in OpenLava's writeJobForce order."""

    TYPE: ClassVar[str] = "JOB_FORCE"
    job_id: int = 0
    user_id: int = 0
    idx: int = 0
    options: int = 0
    exec_hosts: tuple[str, ...] = ()
    user_name: str = ""
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id", "i"),
        _F("user_id", "i"),
        _F("idx", "i"),
        _F("options", "i"),
        _F("exec_hosts", "slist"),
        _F("user_name", "s"),
    )


@_register
@dataclass(kw_only=True)
class JobRequeue(Record):
    """The job was requeued (it is pending again)."""

    TYPE: ClassVar[str] = "JOB_REQUEUE"
    job_id: int = 0
    idx: int = 0
    _SCHEMA: ClassVar[tuple[_F, ...]] = (_F("job_id", "i"), _F("idx", "i"))


@_register
@dataclass(kw_only=True)
class JobClean(Record):
    """The finished job was removed from mbatchd's memory."""

    TYPE: ClassVar[str] = "JOB_CLEAN"
    job_id: int = 0
    idx: int = 0
    _SCHEMA: ClassVar[tuple[_F, ...]] = (_F("job_id", "i"), _F("idx", "i"))


@_register
@dataclass(kw_only=True)
class QueueCtrl(Record):
    """badmin qopen/qclose/qact/qinact. ``ctrl_comments`` (badmin -C) is LSF
    7+ [inferred from HOST_CTRL]; optional on reading."""

    TYPE: ClassVar[str] = "QUEUE_CTRL"
    opcode: int = 0
    queue: str = ""
    user_id: int = 0
    user_name: str = ""
    ctrl_comments: str = ""
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("opcode", "i"),
        _F("queue", "s"),
        _F("user_id", "i"),
        _F("user_name", "s"),
        _F("ctrl_comments", "s", optional=True),
    )


@_register
@dataclass(kw_only=True)
class HostCtrl(Record):
    """badmin hopen/hclose. ``ctrl_comments`` (badmin -C) documented since
    Platform LSF 6.2; optional on reading."""

    TYPE: ClassVar[str] = "HOST_CTRL"
    opcode: int = 0
    host: str = ""
    user_id: int = 0
    user_name: str = ""
    ctrl_comments: str = ""
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("opcode", "i"),
        _F("host", "s"),
        _F("user_id", "i"),
        _F("user_name", "s"),
        _F("ctrl_comments", "s", optional=True),
    )



# ---------------------------------------------------------------------------
# defaults, types, builders
# ---------------------------------------------------------------------------


_DEFAULTS: dict[type, dict[str, Any]] = {}


def _default(cls: type[Record], name: str) -> Any:
    table = _DEFAULTS.get(cls)
    if table is None:
        table = {}
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                table[f.name] = f.default
            elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                table[f.name] = f.default_factory()  # type: ignore[misc]
        _DEFAULTS[cls] = table
    return table[name]


def _all_defaults(cls: type[Record]) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(cls):
        out[f.name] = _default(cls, f.name)
    return out



def iter_types() -> Iterator[type[Record]]:
    """Every record class, in registration order."""
    return iter(RECORD_TYPES.values())



def parse_job_id_str(text: str) -> tuple[int, int]:
    """``"108"`` -> (108, 0); ``"108[3]"`` -> (108, 3). Raises ValueError."""
    m = re.fullmatch(r"[ \t]*([0-9]+)(?:\[([0-9]+)\])?[ \t]*", text)
    if not m:
        raise ValueError(f"bad job ID {text!r}")
    return int(m.group(1)), int(m.group(2) or 0)
