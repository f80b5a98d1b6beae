"""LSF's accounting file ``lsb.acct``: the JOB_FINISH record, its exact text, and a tolerant reader.

``lsb.acct`` (``LSB_SHAREDIR/<cluster>/logdir/lsb.acct``) holds one line per
finished job, no header. A line is ``"JOB_FINISH" "<version>" <event time>``
followed by the fields of :data:`SCHEMA` in LSF 10.1's order (IBM's lsb.acct
page; value shapes from real records -- see lsf-breadth.md section 1.3 and
the corpus in tests/data/lsbacct):

* strings are always double-quoted, ``"`` inside doubled (LSF's ``addQStr``);
  control characters are written as Unicode Control Pictures exactly as in
  ``lsb.events`` (:func:`lsfemu.events.codec.quote`), so a record stays one
  line; real files contain none of those code points and read unchanged;
* integers ``%d``; ``hostFactor`` ``%.1f``; ``ru_utime``/``ru_stime`` and
  ``serial_job_energy`` ``%f``; ``cpi gips gbs gflops`` ``%.2f``;
* lists are a count then the items; the execution host list has one entry
  per slot (``N*host`` entries with SHORT_EVENTFILE: :attr:`AcctRecord.slot_hosts`);
  per-host rusage entries are six values with a bare host name, submitEXT
  values quoted strings or bare integers (as real records have them).

Versions. LSF appended fields over the years (the corpus's real records end:
"5.1" at ``rsvId``, "7.06" at ``submitEXT``, "9.11" at ``affinity``, "10.1" at
the GPU rusage; "10.108" adds storage info and the ``finishKVP`` pairs). :func:`parse_record` accepts any record
that reaches at least ``commandSpool`` (the OpenLava / LSF 6 base record) and
stops at whichever later field boundary the line ends on; the record keeps
how many schema fields it had (``fields_present``) and any tokens beyond the
schema (``extra``, raw), so :func:`format_record` gives back the line it read,
byte for byte, when the writer used LSF's number formats. Records built by
lsfemu have every field (the "10.108" layout).

Fields 80-82 (order note in the reference): the IBM page lists options3,
runLimit, avgMem, but every real record reads as runLimit (``-1`` = none),
then the flags word, then avgMem; this module follows the real records.

Errors. A damaged line raises :class:`AcctSyntaxError` (the message says what
and where); a well-formed record of another type (``JOB_RESIZE``,
``EVENT_ADRSV_FINISH``) raises its subclass :class:`NotJobFinish`.
:func:`read_acct` streams a file, yields the JOB_FINISH records, skips other
types silently (bacct and every known client ignore them) and reports each
damaged line as ``file:line: message`` to its ``on_warning`` callback --
stderr when none is given -- never raising for a line's content.

Standard library only; no clock, no store.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from lsfemu.events.codec import _FLOAT_RE, _INT_RE, EventSyntaxError, Token, _fmt_float, quote, tokenize
from lsfemu.events.schema import _F, fields_from_schema

#: the version string lsfemu writes (LSF 10.1 fix pack layout with storage info and finishKVP)
VERSION = "10.108"
EVENT_TYPE = "JOB_FINISH"

#: jStatus values
JOB_STAT_EXIT = 32
JOB_STAT_DONE = 64

_VERSION_RE = re.compile(r"[0-9]+(?:\.[0-9]+)*\Z")
_SHORT_RE = re.compile(r"([0-9]+)\*(.+)\Z")
_WORD_RE = re.compile(r'[^\s"]+\Z')


class AcctSyntaxError(ValueError):
    """A line that is not a well-formed lsb.acct record."""


class NotJobFinish(AcctSyntaxError):
    """A well-formed record of another type (JOB_RESIZE, EVENT_ADRSV_FINISH, ...)."""

    def __init__(self, event_type: str):
        super().__init__(f"not a JOB_FINISH record: {event_type!r}")
        self.event_type = event_type


@dataclass(frozen=True)
class Rusage:
    """LSF's ``lsfRusage`` block: seconds (``ru_utime``, ``ru_stime``) and
    counts / KB; ``-1`` = unknown (what LSF writes for a job that never ran)."""

    ru_utime: float = -1.0
    ru_stime: float = -1.0
    ru_maxrss: int = -1
    ru_ixrss: int = -1
    ru_ismrss: int = -1
    ru_idrss: int = -1
    ru_isrss: int = -1
    ru_minflt: int = -1
    ru_majflt: int = -1
    ru_nswap: int = -1
    ru_inblock: int = -1
    ru_oublock: int = -1
    ru_ioch: int = -1
    ru_msgsnd: int = -1
    ru_msgrcv: int = -1
    ru_nsignals: int = -1
    ru_nvcsw: int = -1
    ru_nivcsw: int = -1
    ru_exutime: int = -1


_RUSAGE_FIELDS = tuple(f.name for f in dataclasses.fields(Rusage))

# Item shapes of the list fields: a tuple of scalar kinds ("i" int, "s" string,
# "w" a word LSF writes bare: read bare or quoted) or a nested list (a 1-tuple
# holding its own shape).
# hostname, mem, swap, utime, stime and a sixth number the page does not name:
# real LSF 9.1 records write the host name bare and six values per entry
# (Open XDMoD's test record; its shredder skips six values too).
_HOST_RUSAGE = ("w", "i", "i", "i", "i", "i")
_NETWORK = ("s", "i")  # networkID, num_window
_RANGE = ("i", "i", "i")  # start, end, step
_KV = ("s", "s")
# key number, value: quoted, or a bare integer (both seen in one real 10.1 record); the
# value is kept as a str or an int accordingly, so the record is written back as read
_SUBMIT_EXT = ("i", "v")
_GPU = ("s", (_KV,))  # hostname, numKVP + (key, value) pairs


def _s(*names: str) -> list[_F]:
    return [_F(n, "s") for n in names]


def _i(*names: str, default: int | None = None) -> list[_F]:
    return [_F(n, "i") if default is None else _F(n, "i", default=default) for n in names]


def _list(name: str, shape: tuple) -> _F:
    return _F(name, "list", shape=shape)


# The positions of a record (:class:`lsfemu.events.schema._F`): ``kind`` is ``i``,
# ``f`` (written with ``fmt``), ``s``, ``qs`` (a string LSF documents as an
# integer but writes quoted; read bare or quoted), ``ru`` (the rusage block),
# ``list`` (count + items of ``shape``; one-string items are stored as plain
# strings); ``default``: the attribute's default, when not its kind's (_KINDS).
SCHEMA: tuple[_F, ...] = tuple(
    _i("job_id", "user_id", "options") + _i("num_processors", default=1)
    + _i("submit_time", "begin_time", "term_time", "start_time")
    + _s("user_name", "queue", "res_req", "depend_cond", "pre_exec_cmd", "from_host", "cwd", "in_file",
         "out_file", "err_file", "job_file")
    + [_list("asked_hosts", ("s",)), _list("exec_hosts", ("s",)),
       _F("j_status", "i", default=JOB_STAT_DONE), _F("host_factor", "f", "%.1f", default=1.0)]
    + _s("job_name", "command") + [_F("lsf_rusage", "ru")]
    + _s("mail_user") + [_F("project_name", "s", default="default")]
    + _i("exit_status") + _i("max_num_processors", default=1)
    + _s("login_shell", "time_event") + _i("idx", "max_r_mem", "max_r_swap")
    + _s("in_file_spool", "command_spool")
    # LSF 7
    + _s("rsv_id", "sla") + _i("except_mask") + _s("additional_info") + _i("exit_info")
    + _s("warning_action") + _i("warning_time_period", default=-1) + _s("charged_saap", "license_project")
    # LSF 8 / 9
    + _s("app", "post_exec_cmd") + _i("runtime_estimation", default=-1) + _s("job_group_name", "requeue_evalues")
    + _i("options2") + _s("resize_notify_cmd") + _i("last_resize_time") + _s("rsv_id2", "job_description")
    + [_list("submit_ext", _SUBMIT_EXT), _list("host_rusage", _HOST_RUSAGE)]
    + _i("run_limit", default=-1) + _i("options3", "avg_mem") + _s("effective_res_req", "src_cluster")
    + _i("src_job_id", default=-1) + _s("dst_cluster") + _i("dst_job_id", default=-1) + _i("forward_time")
    + [_F("flow_id", "qs")]
    + _i("ac_job_wait_time", "total_provision_time") + _s("outdir") + _i("run_time") + _s("subcwd")
    # LSF 10.1
    + [_list("network_alloc", _NETWORK), _F("affinity", "s"), _F("serial_job_energy", "f", "%f", default=0.0)]
    + [_F(n, "f", "%.2f") for n in ("cpi", "gips", "gbs", "gflops")]
    + [_list("alloc_slots", ("s",))] + _i("ineligible_pend_time", default=-1)
    + [_list("index_ranges", _RANGE)] + _i("requeue_time") + [_list("gpu_rusage", _GPU)]
    # LSF 10.1 fix packs ("10.108")
    + [_list("storage_info", ("s",)), _list("finish_kvp", _KV)]
)

#: each kind's attribute type and default (a field's own default wins)
_KINDS: dict[str, tuple[type, Any]] = {
    "i": (int, 0), "f": (float, 0.0), "s": (str, ""), "qs": (str, ""), "ru": (Rusage, Rusage()), "list": (tuple, ()),
}

#: positions a record must have at least (the LSF 6 / OpenLava base record, up to commandSpool)
MIN_FIELDS = [f.name for f in SCHEMA].index("command_spool") + 1


@dataclass(frozen=True)
@fields_from_schema(SCHEMA, _KINDS)
class AcctRecord:
    """One JOB_FINISH record (LSF 10.1 field names in snake_case; the second
    ``rsvId`` of the page is ``rsv_id2``): the attributes are :data:`SCHEMA`'s
    positions, made from it (each field written once), after the ones below.
    Times are epoch seconds, 0 when none; strings ``""`` when unknown; rusage
    ``-1`` when unknown. List fields are tuples: host names as strings;
    ``submit_ext`` (key, value: str, or int when LSF wrote it bare),
    ``host_rusage`` (host, mem, swap, utime, stime, a sixth number), ``network_alloc`` (id,
    windows), ``index_ranges`` (start, end, step), ``gpu_rusage`` (host,
    ((key, value), ...)), ``finish_kvp`` (key, value)."""

    job_id: int  # (required: first)
    version: str = VERSION
    event_time: int = 0
    #: how many SCHEMA positions the line had (older LSF writes fewer)
    fields_present: int = len(SCHEMA)
    #: raw tokens after the last known field (newer LSF), written back verbatim
    extra: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        """The job's exit code as bacct prints it (``exitStatus >> 8``)."""
        return (self.exit_status >> 8) & 0xFF

    @property
    def finished(self) -> bool:
        return self.j_status == JOB_STAT_DONE

    @property
    def slot_hosts(self) -> tuple[str, ...]:
        """``exec_hosts`` one entry per slot. With LSF_HPC_EXTENSIONS=SHORT_EVENTFILE
        LSF writes ``N*host`` entries (and counts hosts): expanded here; the
        record itself keeps them as written."""
        out: list[str] = []
        for entry in self.exec_hosts:
            m = _SHORT_RE.match(entry)
            out.extend([m.group(2)] * int(m.group(1)) if m else [entry])
        return tuple(out)


assert len({f.name for f in SCHEMA}) == len(SCHEMA)  # (a position named twice would be one attribute)

# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------


# A string with nothing to double or picture is written as it is: the daemon writes
# a record per finished job, mostly of such strings (codec.quote looks at every character).
_PLAIN = re.compile('[^"\x00-\x1f\x7f\u2400-\u2426]*\\Z').match


def _fmt_int(value: Any, what: str) -> str:
    if value.__class__ is not int:
        raise TypeError(f"JOB_FINISH.{what}: expected an integer, got {value!r}")
    return str(value)


def _fmt_str(value: Any, what: str) -> str:
    if value.__class__ is not str:
        if not isinstance(value, str):
            raise TypeError(f"JOB_FINISH.{what}: expected a string, got {value!r}")
        value = str(value)
    return f'"{value}"' if _PLAIN(value) else quote(value)


def _fmt_item(shape: tuple, item: Any, what: str, out: list[str]) -> None:
    if shape == ("s",):
        out.append(_fmt_str(item, what))
        return
    if len(item) != len(shape):
        raise ValueError(f"JOB_FINISH.{what}: item {item!r} needs {len(shape)} values")
    for sub, value in zip(shape, item):
        if sub == "i":
            out.append(_fmt_int(value, what))
        elif sub == "s":
            out.append(_fmt_str(value, what))
        elif sub == "v":
            out.append(_fmt_int(value, what) if isinstance(value, int) else _fmt_str(value, what))
        elif sub == "w":
            if not isinstance(value, str) or not _WORD_RE.match(value):
                raise ValueError(f"JOB_FINISH.{what}: {value!r} is not a word that can be written bare")
            out.append(value)
        else:  # nested list
            out.append(str(len(value)))
            for v in value:
                _fmt_item(sub[0], v, what, out)


def format_record(rec: AcctRecord) -> str:
    """The record's line as LSF 10.1 writes it, without the newline. Raises
    TypeError/ValueError for values that cannot be written."""
    if not _VERSION_RE.match(rec.version):
        raise ValueError(f"JOB_FINISH: bad version {rec.version!r}")
    if not MIN_FIELDS <= rec.fields_present <= len(SCHEMA):
        raise ValueError(f"JOB_FINISH: fields_present {rec.fields_present} out of range")
    out = [quote(EVENT_TYPE), quote(rec.version), _fmt_int(rec.event_time, "event_time")]
    values = rec.__dict__
    for spec in SCHEMA[:rec.fields_present]:
        value = values[spec.name]
        k = spec.kind
        # (the common cases inline: a record per finished job, ~90 fields)
        if k == "i":
            out.append(str(value) if value.__class__ is int else _fmt_int(value, spec.name))
        elif k == "s" or k == "qs":
            out.append(f'"{value}"' if value.__class__ is str and _PLAIN(value) else _fmt_str(value, spec.name))
        elif k == "f":
            out.append(_fmt_float(value, spec.fmt))
        elif k == "ru":
            out.append(_fmt_float(value.ru_utime, "%f"))
            out.append(_fmt_float(value.ru_stime, "%f"))
            out.extend(_fmt_int(getattr(value, n), n) for n in _RUSAGE_FIELDS[2:])
        else:
            out.append(str(len(value)))
            for item in value:
                _fmt_item(spec.shape, item, spec.name, out)
    out.extend(rec.extra)
    return " ".join(out)


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------


class _Cur:
    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.pos = 0

    def left(self) -> int:
        return len(self.tokens) - self.pos

    def take(self, what: str) -> Token:
        if self.pos >= len(self.tokens):
            raise AcctSyntaxError(f"missing field {what} (field {self.pos + 1})")
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def bad(self, what: str, tok: Token, expected: str) -> AcctSyntaxError:
        return AcctSyntaxError(f"field {self.pos} ({what}) is not {expected}: {tok.raw!r}")

    def int(self, what: str) -> int:
        tok = self.take(what)
        if tok.quoted or not _INT_RE.match(tok.text):
            raise self.bad(what, tok, "an integer")
        return int(tok.text)

    def float(self, what: str) -> float:
        tok = self.take(what)
        if tok.quoted or not _FLOAT_RE.match(tok.text):
            raise self.bad(what, tok, "a number")
        return float(tok.text)

    def str(self, what: str) -> str:
        tok = self.take(what)
        if not tok.quoted:
            raise self.bad(what, tok, "a quoted string")
        return tok.text

    def count(self, what: str) -> int:
        n = self.int(what)
        if n < 0 or n > self.left():
            raise AcctSyntaxError(f"field {self.pos} ({what}): bad count {n}")
        return n


def _read_item(cur: _Cur, shape: tuple, what: str) -> Any:
    if shape == ("s",):
        return cur.str(what)
    vals: list[Any] = []
    for sub in shape:
        if sub == "i":
            vals.append(cur.int(what))
        elif sub == "s":
            vals.append(cur.str(what))
        elif sub == "w":
            vals.append(cur.take(what).text)
        elif sub == "v":
            tok = cur.take(what)
            if not tok.quoted and not _INT_RE.match(tok.text):
                raise cur.bad(what, tok, "a quoted string or an integer")
            vals.append(tok.text if tok.quoted else int(tok.text))
        else:
            vals.append(tuple(_read_item(cur, sub[0], what) for _ in range(cur.count(what))))
    return tuple(vals)


def _read_field(cur: _Cur, spec: _F) -> Any:
    k = spec.kind
    if k == "i":
        return cur.int(spec.name)
    if k == "s":
        return cur.str(spec.name)
    if k == "qs":
        return cur.take(spec.name).text
    if k == "f":
        return cur.float(spec.name)
    if k == "ru":
        floats = [cur.float(n) for n in _RUSAGE_FIELDS[:2]]
        # LSF prints the integer counters with %1.0f; accept a fraction from other writers
        ints = [int(round(cur.float(n))) for n in _RUSAGE_FIELDS[2:]]
        return Rusage(*floats, *ints)
    return tuple(_read_item(cur, spec.shape, spec.name) for _ in range(cur.count(spec.name)))


def parse_record(line: str) -> AcctRecord:
    """The JOB_FINISH record of *line* (one trailing newline allowed). Raises
    :class:`NotJobFinish` for another record type and
    :class:`AcctSyntaxError` for anything damaged."""
    if line.endswith("\n"):
        line = line[:-1]
        if line.endswith("\r"):
            line = line[:-1]
    try:
        tokens = tokenize(line)
    except EventSyntaxError as e:
        raise AcctSyntaxError(str(e)) from None
    if not tokens:
        raise AcctSyntaxError("empty line")
    cur = _Cur(tokens)
    etype = cur.str("event type")
    version = cur.str("version")
    if not _VERSION_RE.match(version):
        raise AcctSyntaxError(f"bad version {version!r}")
    event_time = cur.int("event time")
    if etype != EVENT_TYPE:
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", etype):
            raise AcctSyntaxError(f"bad event type {etype!r}")
        raise NotJobFinish(etype)
    values: dict[str, Any] = {}
    present = 0
    for spec in SCHEMA:
        if not cur.left() and present >= MIN_FIELDS:
            break  # an older writer: the record ends at a field boundary
        values[spec.name] = _read_field(cur, spec)
        present += 1
    extra = tuple(t.raw for t in tokens[cur.pos:])
    return AcctRecord(version=version, event_time=event_time, fields_present=present, extra=extra, **values)


@dataclass(frozen=True)
class AcctWarning:
    """A damaged line met by :func:`read_acct` (``lineno`` is 1-based)."""

    path: str
    lineno: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.lineno}: {self.message}"


def _to_stderr(w: AcctWarning) -> None:
    print(w, file=sys.stderr)


def read_acct(path: str | Path, on_warning: Callable[[AcctWarning], None] | None = None) -> Iterator[AcctRecord]:
    """Stream the JOB_FINISH records of an lsb.acct file (constant memory).
    Blank lines and records of other types are skipped silently; a damaged
    line (bad syntax, not UTF-8) is skipped and reported to *on_warning*, or
    printed as ``file:line: message`` on stderr when none is given. Raises
    only OSError for a file that cannot be opened."""
    warn = on_warning or _to_stderr
    name = str(path)
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                warn(AcctWarning(name, lineno, f"not UTF-8 text (byte {e.start + 1})"))
                continue
            if not line.strip():
                continue
            try:
                yield parse_record(line)
            except NotJobFinish:
                continue
            except AcctSyntaxError as e:
                warn(AcctWarning(name, lineno, str(e)))
