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

Each record class declares its fields once, in ``_SCHEMA``, as LSF writes
them (order, kind, option-bit gate, optional tail, and the attribute's
default when it is not its kind's); ``@_schema_fields`` makes the dataclass
attributes from it (:func:`lsfemu.events.schema.fields_from_schema`). Field orders follow OpenLava's ``lsb.log.c`` (the
Platform LSF 7 code base) and were checked against real LSF 9.1.3
``JOB_NEW``/``JOB_EXECUTE`` lines; details that differ in IBM LSF 10 or could
not be verified are marked [inferred] next to the field.

The schemas are all the codec (:mod:`lsfemu.events.codec`, the text of a
record) and the generated decoders (:mod:`lsfemu.events.fastdecode`) know of
a type. This module is the index of the record types: it holds the small ones and
imports the submission records (JOB_NEW, JOB_MODIFY2:
:mod:`lsfemu.events.submitrecords`), so that importing it fills
:data:`RECORD_TYPES`; the machinery (the field spec, the base record, the
registry, the defaults) is :mod:`lsfemu.events.schema`'s. Import the
registry and the record classes from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from lsfemu.events.lsbatch import JOB_STAT_RUN, NUM_RUSAGE, TO_TOP
# the registry is imported from here, where it is complete (see above)
from lsfemu.events.schema import (  # noqa: F401
    RECORD_TYPES, VERSION, Record, _F, _gate, _register, _schema_fields, iter_types, parse_job_id_str,
)
from lsfemu.events.submitrecords import JobModify2, JobNew  # noqa: F401 -- registered (and imported) through here


@_register
@dataclass(kw_only=True)
@_schema_fields
class MbdStart(Record):
    """mbatchd started."""

    TYPE: ClassVar[str] = "MBD_START"
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("master", "s"),
        _F("cluster", "s"),
        _F("num_hosts", "i"),
        _F("num_queues", "i"),
    )


@_register
@dataclass(kw_only=True)
@_schema_fields
class MbdDie(Record):
    """mbatchd stopped. ``ctrl_comments`` (LSF 7+) [inferred]."""

    TYPE: ClassVar[str] = "MBD_DIE"
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("master", "s"),
        _F("num_remove_jobs", "i"),
        _F("exit_code", "i"),
        _F("ctrl_comments", "s", optional=True),
    )


@_register
@dataclass(kw_only=True)
@_schema_fields
class JobStart(Record):
    """A job was dispatched. ``exec_hosts`` has one entry per slot. The
    ``user_group`` position follows the LSF documentation (OpenLava's writer
    omits it); the tail after ``idx`` is [inferred] and optional."""

    TYPE: ClassVar[str] = "JOB_START"
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id", "i"),
        _F("status", "i", default=JOB_STAT_RUN),
        _F("job_pid", "i"),
        _F("job_pgid", "i"),
        _F("host_factor", "f", "%.1f", default=1.0),
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
@_schema_fields
class JobStartAccept(Record):
    """The job started on its execution host (``Starting (Pid N)``)."""

    TYPE: ClassVar[str] = "JOB_START_ACCEPT"
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id", "i"),
        _F("job_pid", "i"),
        _F("job_pgid", "i"),
        _F("idx", "i"),
    )


@_register
@dataclass(kw_only=True)
@_schema_fields
class JobExecute(Record):
    """The job runs (execution user, home, cwd and pid). Real LSF 9/10 lines
    carry more fields after ``idx`` (kept in ``extra``)."""

    TYPE: ClassVar[str] = "JOB_EXECUTE"
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
@_schema_fields
class JobStatus(Record):
    """A job changed state after dispatch (or PEND/PSUSP changes).

    Awk positions: 4 job ID, 5 status (JOB_STAT_* word, e.g. 64 DONE, 192
    DONE + post-job done). ``exit_status`` is a wait(2) word (see
    :func:`~lsfemu.events.lsbatch.wait_status`); ``rusage`` holds 19 values when ``ru`` != 0;
    ``exit_info`` is the TERM_* reason (LSF 7+, optional on reading)."""

    TYPE: ClassVar[str] = "JOB_STATUS"
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
@_schema_fields
class JobSignal(Record):
    """A signal was requested for a job (bkill; ``DELETEJOB`` for removal).
    The tail ``reason`` (bkill -C, bstop -C, bresume -C; ``""`` when none
    was given) is lsfemu's [lsfemu]; optional on reading (LSF's lines end
    at ``user_name``)."""

    TYPE: ClassVar[str] = "JOB_SIGNAL"
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
@_schema_fields
class JobMove(Record):
    """btop/bbot: ``base`` is TO_TOP (1) or TO_BOTTOM (2)."""

    TYPE: ClassVar[str] = "JOB_MOVE"
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("user_id", "i"),
        _F("job_id", "i"),
        _F("position", "i", default=1),
        _F("base", "i", default=TO_TOP),
        _F("idx", "i"),
        _F("user_name", "s"),
    )


@_register
@dataclass(kw_only=True)
@_schema_fields
class JobSwitch(Record):
    """bswitch: the job moved to ``queue``."""

    TYPE: ClassVar[str] = "JOB_SWITCH"
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("user_id", "i"),
        _F("job_id", "i"),
        _F("queue", "s"),
        _F("idx", "i"),
        _F("user_name", "s"),
    )


@_register
@dataclass(kw_only=True)
@_schema_fields
class JobForce(Record):
    """brun: an administrator forced the job to run on ``exec_hosts`` (one
    entry per host named), in OpenLava's writeJobForce order."""

    TYPE: ClassVar[str] = "JOB_FORCE"
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
@_schema_fields
class JobRequeue(Record):
    """The job was requeued (it is pending again)."""

    TYPE: ClassVar[str] = "JOB_REQUEUE"
    _SCHEMA: ClassVar[tuple[_F, ...]] = (_F("job_id", "i"), _F("idx", "i"))


@_register
@dataclass(kw_only=True)
@_schema_fields
class JobClean(Record):
    """The finished job was removed from mbatchd's memory."""

    TYPE: ClassVar[str] = "JOB_CLEAN"
    _SCHEMA: ClassVar[tuple[_F, ...]] = (_F("job_id", "i"), _F("idx", "i"))


@_register
@dataclass(kw_only=True)
@_schema_fields
class QueueCtrl(Record):
    """badmin qopen/qclose/qact/qinact. ``ctrl_comments`` (badmin -C) is LSF
    7+ [inferred from HOST_CTRL]; optional on reading."""

    TYPE: ClassVar[str] = "QUEUE_CTRL"
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("opcode", "i"),
        _F("queue", "s"),
        _F("user_id", "i"),
        _F("user_name", "s"),
        _F("ctrl_comments", "s", optional=True),
    )


@_register
@dataclass(kw_only=True)
@_schema_fields
class HostCtrl(Record):
    """badmin hopen/hclose. ``ctrl_comments`` (badmin -C) documented since
    Platform LSF 6.2; optional on reading."""

    TYPE: ClassVar[str] = "HOST_CTRL"
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("opcode", "i"),
        _F("host", "s"),
        _F("user_id", "i"),
        _F("user_name", "s"),
        _F("ctrl_comments", "s", optional=True),
    )
