"""The record types of a real LSF 10 ``lsb.events`` that lsfemu reads but never writes.

mbatchd logs many types besides the ones lsfemu's daemon writes
(:mod:`lsfemu.events.records`): the LIM's load index names, checkpoints,
migrations, external messages, job chunks, resize notices, job group and
power events, and the MultiCluster job-forwarding records. A reader of a
real file must take them without complaint: bhist and ``lsfemu replay``
used to skip them with ``unknown event type`` warnings.

Three are read field by field, because bhist and replay use them (the
layouts of IBM's lsb.events(5) and of the lsbatch API's jobForwardLog,
jobAcceptLog and jobAcceptAckLog structures; the LSF 9/10 tail fields are
optional, as older writers end earlier)::

    "JOB_FORWARD" ver time jobId numReserHosts "cluster" "host"... idx
                  [jobRmtAttr srcJobId "srcCluster" dstJobId "effectiveResReq"]
    "JOB_ACCEPT"  ver time jobId remoteJid "cluster" idx
                  [jobRmtAttr "dstCluster" dstJobId]
    "JOB_ACCEPTACK" ver time jobId idx jobRmtAttr "srcCluster" srcJobId
                  "dstCluster" dstJobId

JOB_FORWARD: the submission cluster sent the job to ``cluster`` (bhist:
``Forwarded job to cluster <c>;``); JOB_ACCEPT: this cluster (the execution
one) took job ``remoteJid`` of ``cluster`` as ``jobId``; JOB_ACCEPTACK: the
submission cluster heard that ``dstCluster`` accepted it as ``dstJobId``.
Where the count of JOB_FORWARD's hosts stands before the cluster name (as
the lsb.events(5) field list puts it) is [doc]; the optional tail's order
is the structures' [inferred].

Every other type of :data:`KNOWN` is taken as it is: its event time and its
fields as written (:class:`OtherRecord`), which no reader interprets.
Records of the three MultiCluster types that do not parse are corrupt (the
reader names file and line).

This module imports only :mod:`lsfemu.events.records`; the reference
decoder (:func:`lsfemu.events.codec._decode_slow`) hands it the tokens of a
line whose type :data:`~lsfemu.events.records.RECORD_TYPES` lacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence

from lsfemu.events.records import Record

#: LSF 10's other record types (lsb.events(5)'s list, the lsbatch API's
#: EVENT_* names, OpenLava's lsb.log.c), taken without a warning
KNOWN = frozenset((
    "JOB_FORWARD", "JOB_ACCEPT", "JOB_ACCEPTACK", "JOB_CHKPNT", "CHKPNT", "JOB_SWITCH2", "UNFULFILL",
    "LOAD_INDEX", "JOB_SIGACT", "MIG", "JOB_EXCEPTION", "JOB_EXT_MSG", "JOB_ATTA_DATA", "JOB_CHUNK",
    "SBD_UNREPORTED_STATUS", "SBD_JOB_STATUS", "PRE_EXEC_START", "GRP_ADD", "GRP_MOD", "JGRP_ADD",
    "JGRP_MOD", "JGRP_CTRL", "JGRP_STATUS", "LOG_SWITCH", "JOB_MODIFY", "JOB_ATTR_SET", "JOB_MSG",
    "JOB_MSG_ACK", "JOB_ROUTE", "JOB_OCCUPY_REQ", "JOB_VACATED", "STATUS_ACK", "CAL_NEW", "CAL_MODIFY",
    "CAL_DELETE", "CAL_UNDELETE", "JOB_RESIZE_NOTIFY_START", "JOB_RESIZE_NOTIFY_ACCEPT",
    "JOB_RESIZE_NOTIFY_DONE", "JOB_RESIZE_RELEASE", "JOB_RESIZE_CANCEL", "JOB_RESIZE", "HOST_POWER_STATUS",
    "JOB_PROV_HOST", "HGHOST_CTRL", "ADRSV_FINISH", "EVENT_ADRSV_FINISH", "CPUPROFILE_STATUS",
    "DATA_LOGGING", "JOB_RUN_RUSAGE", "SLA_RECOMPUTE", "METRIC_LOG", "JOB_STARTLIMIT", "JOB_STATUS2",
    "JOB_PENDING_REASONS",
))
# JOB_FINISH (and lsb.stream's JOB_FINISH2, TASK_FINISH, END_OF_STREAM) are not lsb.events
# records: such a line says an accounting file was given, and stays an unknown type.

#: what a parser gets: the fields after the event time, each with ``text``
#: (decoded), ``quoted`` and ``raw`` (as written): :class:`lsfemu.events.codec.Token`
Fields = Sequence[Any]


class BadFields(ValueError):
    """A record of a MultiCluster type that does not parse (the message says why)."""


@dataclass(kw_only=True)
class OtherRecord(Record):
    """A record of one of the :data:`KNOWN` types no reader interprets:
    ``fields`` holds its fields after the event time, as decoded."""

    TYPE: ClassVar[str] = ""
    type_name: str = ""
    fields: tuple[str, ...] = ()
    raw: tuple[str, ...] = ()

    @property
    def job_key(self) -> tuple[int, int] | None:
        return None


@dataclass(kw_only=True)
class JobForward(Record):
    """JOB_FORWARD: the job went to ``cluster`` (MultiCluster job forwarding)."""

    TYPE: ClassVar[str] = "JOB_FORWARD"
    job_id: int = 0
    cluster: str = ""
    reser_hosts: tuple[str, ...] = ()
    idx: int = 0
    job_rmt_attr: int = 0
    src_job_id: int = 0
    src_cluster: str = ""
    dst_job_id: int = 0
    effective_res_req: str = ""
    raw: tuple[str, ...] = ()  # the fields after the event time, as written


@dataclass(kw_only=True)
class JobAccept(Record):
    """JOB_ACCEPT: job ``remote_jid`` of ``cluster`` was accepted here as ``job_id``."""

    TYPE: ClassVar[str] = "JOB_ACCEPT"
    job_id: int = 0
    remote_jid: int = 0
    cluster: str = ""
    idx: int = 0
    job_rmt_attr: int = 0
    dst_cluster: str = ""
    dst_job_id: int = 0
    raw: tuple[str, ...] = ()


@dataclass(kw_only=True)
class JobAcceptAck(Record):
    """JOB_ACCEPTACK: ``dst_cluster`` accepted the job as ``dst_job_id``."""

    TYPE: ClassVar[str] = "JOB_ACCEPTACK"
    job_id: int = 0
    idx: int = 0
    job_rmt_attr: int = 0
    src_cluster: str = ""
    src_job_id: int = 0
    dst_cluster: str = ""
    dst_job_id: int = 0
    raw: tuple[str, ...] = ()


class _Fields:
    """A cursor over a record's fields: numbers bare, strings quoted."""

    def __init__(self, etype: str, fields: Fields):
        self.etype, self.fields, self.pos = etype, fields, 0

    def more(self) -> bool:
        return self.pos < len(self.fields)

    def _next(self, what: str) -> tuple[str, bool]:
        if self.pos >= len(self.fields):
            raise BadFields(f"{self.etype}: {what} missing")
        f = self.fields[self.pos]
        self.pos += 1
        return f.text, f.quoted

    def int(self, what: str) -> int:
        text, quoted = self._next(what)
        if quoted or not text.lstrip("-").isdigit() or not text.isascii():
            raise BadFields(f"{self.etype}: {what}: expected an integer, got {text!r}")
        return int(text)

    def str(self, what: str) -> str:
        text, quoted = self._next(what)
        if not quoted:
            raise BadFields(f"{self.etype}: {what}: expected a quoted string, got {text!r}")
        return text

    def rest(self) -> tuple[str, ...]:
        out = tuple(f.raw for f in self.fields[self.pos:])
        self.pos = len(self.fields)
        return out


def _tail(f: _Fields, v: dict[str, Any], spec: tuple[tuple[str, str], ...]) -> None:
    """The optional tail: each field while there are fields (older writers end earlier)."""
    for name, kind in spec:
        if not f.more():
            return
        v[name] = f.int(name) if kind == "i" else f.str(name)


def _forward(f: _Fields) -> dict[str, Any]:
    v: dict[str, Any] = {"job_id": f.int("jobId")}
    n = f.int("numReserHosts")
    if n < 0 or n > len(f.fields):
        raise BadFields(f"JOB_FORWARD: numReserHosts: bad count {n}")
    v["cluster"] = f.str("cluster")
    v["reser_hosts"] = tuple(f.str("reserHosts") for _ in range(n))
    v["idx"] = f.int("idx")
    _tail(f, v, (("job_rmt_attr", "i"), ("src_job_id", "i"), ("src_cluster", "s"), ("dst_job_id", "i"),
                 ("effective_res_req", "s")))
    return v


def _accept(f: _Fields) -> dict[str, Any]:
    v: dict[str, Any] = {"job_id": f.int("jobId"), "remote_jid": f.int("remoteJid"),
                         "cluster": f.str("cluster"), "idx": f.int("idx")}
    _tail(f, v, (("job_rmt_attr", "i"), ("dst_cluster", "s"), ("dst_job_id", "i")))
    return v


def _accept_ack(f: _Fields) -> dict[str, Any]:
    v: dict[str, Any] = {"job_id": f.int("jobId"), "idx": f.int("idx")}
    _tail(f, v, (("job_rmt_attr", "i"), ("src_cluster", "s"), ("src_job_id", "i"), ("dst_cluster", "s"),
                 ("dst_job_id", "i")))
    return v


_PARSERS: dict[str, tuple[type[Record], Callable[[_Fields], dict[str, Any]]]] = {
    "JOB_FORWARD": (JobForward, _forward),
    "JOB_ACCEPT": (JobAccept, _accept),
    "JOB_ACCEPTACK": (JobAcceptAck, _accept_ack),
}


def decode_other(etype: str, version: str, event_time: int, fields: Fields) -> Record | None:
    """The record of a line of a :data:`KNOWN` type (None for any other
    type); *fields* are those after the event time. Raises
    :class:`BadFields` for a MultiCluster record that does not parse;
    fields after the ones known go to ``extra``."""
    if etype not in KNOWN:
        return None
    parser = _PARSERS.get(etype)
    f = _Fields(etype, fields)
    if parser is None:
        return OtherRecord(event_time=event_time, version=version, type_name=etype,
                           fields=tuple(t.text for t in fields), raw=tuple(t.raw for t in fields))
    cls, parse = parser
    values = parse(f)
    return cls(event_time=event_time, version=version, extra=f.rest(), raw=tuple(t.raw for t in fields), **values)


def encode_other(record: Record, quote: Callable[[str], str]) -> str | None:
    """The line of a record :func:`decode_other` made (its fields as they
    were written; the event time as it is now: a log redated by the daemon
    moves it), else None."""
    if not isinstance(record, (OtherRecord, JobForward, JobAccept, JobAcceptAck)):
        return None
    etype = record.type_name if isinstance(record, OtherRecord) else record.TYPE
    return " ".join([quote(etype), quote(record.version), str(int(record.event_time)), *record.raw])
