"""Reading and checking one cluster's LSF configuration files.

This module owns:

* locating the files (`find_files`): `lsf.conf` in LSF_ENVDIR, the cluster file
  `lsf.cluster.<name>`, and the lsb.* files in `LSB_CONFDIR/<cluster>/configdir`
  (or, for a flat test setup, directly in LSF_ENVDIR);
* the meaning of every key, column and section of lsf.conf, lsf.cluster.<name>,
  lsb.params, lsb.queues, lsb.users and lsb.hosts, and the checks across files
  (DEFAULT_QUEUE and QUEUE_GROUP name real queues, user groups have no cycles,
  there is at least one host and one queue, ...);
* building the typed `lsfemu.config.model.ClusterConfig`.

Public API: `load(envdir)` (raises `ConfigError` on fatal issues), `check(envdir)`
(returns the config or None plus every issue, as `badmin ckconfig` needs) and
`find_files(envdir)`. The lexical rules (comments, continuations, sections,
table rows) live in `lsfemu.config.lexer`.

Every issue is a `ConfigIssue(file, line, message, fatal)`; `file` is the path
of the file as found, `line` is 1-based (0 = about the whole file). Anything
LSF itself would reject, and any value lsfemu could not use safely, is fatal;
things lsfemu merely ignores (unknown keys, unsupported sections) are warnings.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable

from lsfemu.clock import parse_start
from lsfemu.config.lexer import (
    Reporter,
    Section,
    inner,
    is_default,
    keyword_pairs,
    logical_lines,
    read_table,
    show,
    split_sections,
    unquote,
)
from lsfemu.config.model import (
    ClusterConfig,
    ClusterHost,
    ConfigError,
    ConfigIssue,
    HostConf,
    Params,
    QueueConf,
    UserGroupConf,
    UserLimitConf,
)

__all__ = ["load", "check", "find_files", "ConfigError", "ConfigIssue"]

REQUIRED_FILES = ("lsf.conf", "lsf.cluster", "lsb.params", "lsb.queues")
OPTIONAL_FILES = ("lsb.users", "lsb.hosts")
_LSB_FILES = ("lsb.params", "lsb.queues", "lsb.users", "lsb.hosts")
_INT_MAX = 2147483647

# =============================================================================
# Value conversions. Each returns the converted value, or None after reporting.
# =============================================================================

_INT_RE = re.compile(r"^[+-]?[0-9]+$")
_INT_RE_NONNEG = re.compile(r"^\+?[0-9]+$")
_FLOAT_RE = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$")


def _int_phrase(lo: int | None, hi: int | None) -> str:
    if hi is not None and lo is not None:
        return f"an integer between {lo} and {hi}"
    if lo == 0:
        return "a non-negative integer"
    if lo == 1:
        return "a positive integer"
    if lo is not None:
        return f"an integer >= {lo}"
    return "an integer"


def to_int(key: str, value: str, rep: Reporter, line: int, lo: int | None = None, hi: int | None = _INT_MAX) -> int | None:
    v = value.strip()
    phrase = _int_phrase(lo, None if hi in (None, _INT_MAX) else hi)
    if not _INT_RE.match(v):
        rep.fatal(line, f"{key}: expected {phrase}, got {show(v)}")
        return None
    n = int(v)
    if hi is not None and n > hi and hi == _INT_MAX:
        rep.fatal(line, f"{key}: expected an integer up to {hi}, got {show(v)}")
        return None
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        rep.fatal(line, f"{key}: expected {phrase}, got {show(v)}")
        return None
    return n


def to_float(key: str, value: str, rep: Reporter, line: int, lo: float = 0.0) -> float | None:
    v = value.strip()
    if not _FLOAT_RE.match(v) or not math.isfinite(float(v)) or float(v) < lo:
        what = "a non-negative number" if lo == 0 else f"a number >= {lo:g}"
        rep.fatal(line, f"{key}: expected {what}, got {show(v)}")
        return None
    return float(v)


def to_bool(key: str, value: str, rep: Reporter, line: int) -> bool | None:
    v = value.strip().upper()
    if v in ("Y", "N"):
        return v == "Y"
    rep.fatal(line, f"{key}: expected Y or N, got {show(value.strip())}")
    return None


_DURATION = re.compile(r"^([0-9]+)(?::([0-9]+))?$")


def to_minutes(key: str, value: str, rep: Reporter, line: int) -> list[float] | None:
    """LSF's `[default_limit] maximum_limit` run limits, each `[hour:]minute`, in
    minutes and in the order given (one value: the maximum alone). A
    `/host_name` normalisation suffix is accepted and ignored with a warning.
    A default above the maximum is fatal (LSF would ignore the default)."""
    parts = value.split()
    if not parts or len(parts) > 2:
        rep.fatal(line, f"{key}: expected [default_limit] maximum_limit, each [hour:]minute, got {show(value)}")
        return None
    out: list[float] = []
    for p in parts:
        text = p
        if "/" in p:
            text, _, host = p.partition("/")
            rep.warn(line, f"{key}: host normalisation /{host} is not supported by lsfemu; ignored")
        m = _DURATION.match(text)
        if m is None:
            rep.fatal(line, f"{key}: expected [hour:]minute (e.g. 720 or 12:00), got {show(p)}")
            return None
        if m.group(2) is not None:
            if int(m.group(2)) > 59:
                rep.fatal(line, f"{key}: expected minutes below 60 in hour:minute, got {show(p)}")
                return None
            minutes = int(m.group(1)) * 60 + int(m.group(2))
        else:
            minutes = int(m.group(1))
        if minutes <= 0:
            rep.fatal(line, f"{key}: expected a positive [hour:]minute limit, got {show(p)}")
            return None
        out.append(float(minutes))
    if len(out) == 2 and out[0] > out[1]:
        rep.fatal(line, f"{key}: the default limit ({show(parts[0])}) cannot exceed the maximum limit ({show(parts[1])})")
        return None
    return out


# =============================================================================
# File reading
# =============================================================================


def _read(path: str, rep: Reporter, required: bool) -> str | None:
    """The text of a file; None when absent (fatal if required) or unreadable (fatal)."""
    try:
        if not os.path.exists(path):
            if required:
                rep.fatal(0, "file not found")
            return None
        if os.path.isdir(path):
            rep.fatal(0, "is a directory (expected a file)")
            return None
        with open(path, "rb") as fh:
            data = fh.read()
    except (OSError, ValueError) as e:
        rep.fatal(0, f"cannot read file: {getattr(e, 'strerror', None) or e}")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        rep.warn(0, "file is not valid UTF-8; undecodable bytes were replaced")
        return data.decode("utf-8", errors="replace")


def _sections(text: str, rep: Reporter) -> list[Section]:
    """Sections of a sectioned file; lines outside any section are fatal."""
    lines = logical_lines(text, rep)
    sections, loose = split_sections(lines, rep)
    for ln in loose:
        if "=" in ln.text:
            rep.fatal(ln.no, f"KEY = value line outside any Begin/End section: {show(ln.text)}")
        else:
            rep.fatal(ln.no, f"unexpected text outside any Begin/End section (expected Begin <Section>), got {show(ln.text)}")
    return sections


def _unsupported(sec: Section, rep: Reporter, fname: str) -> None:
    rep.warn(sec.begin, f"section {sec.name} is not supported by lsfemu in {fname}; ignored")


def _empty_value(key: str, line: int, rep: Reporter) -> None:
    rep.warn(line, f"{key} has no value; the default is used")


def _dedupe(pairs: list[tuple[str, str, int]], rep: Reporter, seen: dict[str, int]) -> list[tuple[str, str, int]]:
    """Warn on keys given twice (the last value wins)."""
    for key, _value, line in pairs:
        if key in seen:
            rep.warn(line, f"{key} is set twice (also at line {seen[key]}); the last value is used")
        seen[key] = line
    return pairs


# =============================================================================
# lsf.conf
# =============================================================================

_CONF_KV = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$", re.DOTALL)
_CLUSTER_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def _check_start(key: str, value: str, rep: Reporter, line: int) -> None:
    try:
        parse_start(value)
    except ValueError as e:
        rep.fatal(line, f"{key}: {e}")


def parse_lsf_conf(text: str, rep: Reporter) -> tuple[dict[str, str], dict[str, int]]:
    """lsf.conf: `KEY=value` lines; returns (values, lines) with upper-case keys.

    A key set twice keeps its last value, as when the file is sourced by a shell.
    A few keys lsfemu's commands convert are checked here so a bad value is
    reported at reconfig time rather than crashing a command later.
    """
    conf: dict[str, str] = {}
    lines: dict[str, int] = {}
    for ln in logical_lines(text, rep, directives=False):
        m = _CONF_KV.match(ln.text)
        if m is None:
            rep.fatal(ln.no, f"expected KEY=value, got {show(ln.text)}")
            continue
        key = m.group(1).upper()
        conf[key] = unquote(m.group(2), single=True)
        lines[key] = ln.no
    checks: dict[str, Callable[[str, str, int], object]] = {
        "LSB_JOBID_DISP_LENGTH": lambda k, v, n: to_int(k, v, rep, n, 1, 64),
        "LSB_BJOBS_PENDREASON_LEVEL": lambda k, v, n: to_int(k, v, rep, n, 0, 3),
        "LSB_DISPLAY_YEAR": lambda k, v, n: to_bool(k, v, rep, n),
        "LSB_HMS_TIME_FORMAT": lambda k, v, n: to_bool(k, v, rep, n),
        "LSF_UNIT_FOR_LIMITS": lambda k, v, n: v.upper() in ("KB", "MB", "GB", "TB", "PB", "EB")
        or rep.fatal(n, f"{k}: expected one of KB MB GB TB PB EB, got {show(v)}"),
        "LSB_SHORT_HOSTLIST": lambda k, v, n: v in ("0", "1") or rep.fatal(n, f"{k}: expected 1 or 0, got {show(v)}"),
        "LSFEMU_CLOCK": lambda k, v, n: v.lower() in ("wall", "virtual")
        or rep.fatal(n, f"{k}: expected wall or virtual, got {show(v)}"),
        "LSFEMU_CLOCK_START": lambda k, v, n: _check_start(k, v, rep, n),
        "LSB_MBD_PORT": lambda k, v, n: to_int(k, v, rep, n, 1, 65535),
        "LSF_CLUSTER_NAME": lambda k, v, n: _CLUSTER_NAME.match(v)
        or rep.fatal(n, f"{k}: expected a cluster name (letters, digits, _ . -), got {show(v)}"),
    }
    for key, fn in checks.items():
        if key in conf and conf[key] != "":
            fn(key, conf[key], lines[key])
    return conf, lines


# =============================================================================
# Locating files
# =============================================================================


def _resolve(envdir: str, path: str) -> str:
    return path if os.path.isabs(path) else os.path.join(envdir, path)


def _isdir(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except (OSError, ValueError):
        return False


def _locate(envdir: str, conf: dict[str, str], conf_lines: dict[str, int], conf_rep: Reporter) -> tuple[dict, list[ConfigIssue]]:
    """Where the files are. Issues about the cluster file go to the folder searched;
    a warning about an unusable LSB_CONFDIR goes to lsf.conf (`conf_rep`)."""
    issues: list[ConfigIssue] = []
    dirs: list[str] = []
    lsf_confdir = conf.get("LSF_CONFDIR", "").strip()
    if lsf_confdir and _isdir(_resolve(envdir, lsf_confdir)):
        dirs.append(_resolve(envdir, lsf_confdir))
    elif lsf_confdir:
        conf_rep.warn(conf_lines.get("LSF_CONFDIR", 0),
                      f"LSF_CONFDIR: {_resolve(envdir, lsf_confdir)} is not a folder; "
                      f"lsf.cluster.<name> is looked for in {envdir}")
    if not dirs or os.path.realpath(dirs[0]) != os.path.realpath(envdir):
        dirs.append(envdir)

    name = conf.get("LSF_CLUSTER_NAME", "").strip()
    cluster_file: str | None = None
    if name and not _CLUSTER_NAME.match(name):
        name = ""  # reported by parse_lsf_conf
        cluster_file = None
    elif name:
        cands = [os.path.join(d, f"lsf.cluster.{name}") for d in dirs]
        cluster_file = next((p for p in cands if os.path.exists(p)), cands[0])
    else:
        found: tuple[str, list[str]] | None = None
        for d in dirs:
            try:
                names = sorted(
                    f for f in os.listdir(d)
                    if f.startswith("lsf.cluster.") and len(f) > len("lsf.cluster.")
                    and not f.endswith("~") and os.path.isfile(os.path.join(d, f))
                )
            except (OSError, ValueError):
                names = []
            if names:
                found = (d, names)
                break
        if found is None:
            where = " or ".join(dirs)
            issues.append(ConfigIssue(dirs[0], 0, f"no lsf.cluster.<name> file in {where} "
                                                  "(expected exactly one, or LSF_CLUSTER_NAME in lsf.conf)"))
        elif len(found[1]) > 1:
            issues.append(ConfigIssue(found[0], 0, f"several cluster files in {found[0]}: {' '.join(found[1])} "
                                                   "(expected exactly one, or LSF_CLUSTER_NAME in lsf.conf)"))
        else:
            cluster_file = os.path.join(found[0], found[1][0])
            name = found[1][0][len("lsf.cluster."):]

    confdir = envdir
    lsb_confdir = conf.get("LSB_CONFDIR", "").strip()
    if lsb_confdir and name:
        cand = os.path.join(_resolve(envdir, lsb_confdir), name, "configdir")
        if _isdir(cand):
            confdir = cand
        else:
            conf_rep.warn(conf_lines.get("LSB_CONFDIR", 0),
                          f"LSB_CONFDIR: {cand} is not a folder; the lsb.* files are read from {envdir}")
    files: dict = {
        "envdir": envdir,
        "cluster_name": name or None,
        "confdir": confdir,
        "lsf.conf": os.path.join(envdir, "lsf.conf"),
        "lsf.cluster": cluster_file,
    }
    for f in _LSB_FILES:
        files[f] = os.path.join(confdir, f)
    return files, issues


def find_files(envdir: str) -> dict:
    """Where the configuration files of the cluster in `envdir` are.

    Returns a dict with keys `envdir`, `cluster_name` (None when unknown),
    `confdir` (folder of the lsb.* files), one key per file (`lsf.conf`,
    `lsf.cluster`, `lsb.params`, `lsb.queues`, `lsb.users`, `lsb.hosts`) giving
    the path where the file is or is expected (`lsf.cluster` is None when the
    cluster name is unknown), and `issues`: the problems found while locating
    (missing lsf.conf, missing/ambiguous cluster file, unusable LSF_CONFDIR or
    LSB_CONFDIR). Problems inside the files are not looked for (see `check`).
    """
    envdir = os.fspath(envdir)
    conf_path = os.path.join(envdir, "lsf.conf")
    conf_rep = Reporter(conf_path)
    text = _read(conf_path, conf_rep, required=True)
    conf, lines = parse_lsf_conf(text, Reporter(conf_path)) if text is not None else ({}, {})
    files, issues = _locate(envdir, conf, lines, conf_rep)
    files["issues"] = conf_rep.sorted() + issues
    return files


# =============================================================================
# lsf.cluster.<name>
# =============================================================================

_CLUSTER_SILENT_SECTIONS = {"CLUSTER", "PARAMETERS", "RESOURCEMAP", "REMOTECLUSTERS", "HOSTGROUP"}
_CLUSTER_HOST_SILENT = (
    "r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "swap", "mem",
    "nd", "RUNWINDOW", "REXPRI", "LICENSE", "maxmem", "maxswp", "maxtmp", "ncpus",
)


def parse_cluster(text: str, rep: Reporter) -> tuple[list[str], list[ClusterHost]]:
    admins: list[str] = []
    hosts: list[ClusterHost] = []
    seen: dict[str, int] = {}
    host_section: Section | None = None
    admin_section = False
    for sec in _sections(text, rep):
        if sec.key == "CLUSTERADMINS":
            admin_section = True
            for key, value, line in keyword_pairs(sec.lines, rep, "ClusterAdmins"):
                if key == "ADMINISTRATORS":
                    for a in value.split():
                        if a not in admins:
                            admins.append(a)
                else:
                    rep.warn(line, f"unknown key {key} in ClusterAdmins (expected Administrators); ignored")
        elif sec.key == "HOST":
            host_section = host_section or sec
            tab = read_table(sec, rep, required=("HOSTNAME",), known=("HOSTNAME", "MODEL", "TYPE", "SERVER", "RESOURCES"),
                             silent=_CLUSTER_HOST_SILENT)
            if tab is None:
                continue
            for line, row in tab.rows:
                name = unquote(row["HOSTNAME"])
                if is_default(name) or not re.match(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$", name):
                    rep.fatal(line, f"HOSTNAME: expected a host name, got {show(row['HOSTNAME'])}")
                    continue
                if name in seen:
                    rep.fatal(line, f"host {name} is listed twice (first at line {seen[name]})")
                    continue
                seen[name] = line
                h = ClusterHost(name=name, line=line)
                for col, attr in (("MODEL", "model"), ("TYPE", "type")):
                    if col in row and not is_default(row[col]):
                        setattr(h, attr, inner(row[col]))
                if "SERVER" in row and not is_default(row["SERVER"]):
                    v = inner(row["SERVER"])
                    if v not in ("0", "1"):
                        rep.fatal(line, f"server: expected 1 or 0, got {show(v)}")
                    h.server = v == "1"
                if "RESOURCES" in row and not is_default(row["RESOURCES"]):
                    h.resources = inner(row["RESOURCES"]).split()
                hosts.append(h)
        elif sec.key in _CLUSTER_SILENT_SECTIONS:
            pass
        else:
            _unsupported(sec, rep, "lsf.cluster")
    if not hosts and not rep.has_fatal:
        rep.fatal(host_section.begin if host_section else 0,
                  "no hosts defined (expected a Begin Host section listing at least one host)")
    if not admin_section or not admins:
        rep.warn(0, "no cluster administrators (expected Begin ClusterAdmins with Administrators = ...)")
    return admins, hosts


# =============================================================================
# lsb.params
# =============================================================================

# KEY -> (Params attribute, minimum, maximum)
_P_INT: dict[str, tuple[str, int, int]] = {
    "MBD_SLEEP_TIME": ("mbd_sleep_time", 1, _INT_MAX),
    "SBD_SLEEP_TIME": ("sbd_sleep_time", 1, _INT_MAX),
    "JOB_ACCEPT_INTERVAL": ("job_accept_interval", 0, _INT_MAX),
    "CLEAN_PERIOD": ("clean_period", 1, _INT_MAX),
    "MAX_JOB_NUM": ("max_job_num", 0, _INT_MAX),
    "MAX_USER_PRIORITY": ("max_user_priority", 1, _INT_MAX),
    "MAX_JOBID": ("max_jobid", 1, 2147483646),
    "JOB_TERMINATE_INTERVAL": ("job_terminate_interval", 0, _INT_MAX),
    "MAX_JOB_ARRAY_SIZE": ("max_job_array_size", 1, 2147483646),
    "PG_SUSP_IT": ("pg_susp_it", 0, _INT_MAX),
    "MAX_SBD_FAIL": ("max_sbd_fail", 1, _INT_MAX),
}
_FACTORS = (
    "CPU_TIME_FACTOR", "RUN_TIME_FACTOR", "RUN_JOB_FACTOR", "FAIRSHARE_ADJUSTMENT_FACTOR",
    "HIST_HOURS", "COMMITTED_RUN_TIME_FACTOR", "GPU_RUN_TIME_FACTOR", "FWD_JOB_FACTOR",
)
_P_FLOAT = {k: k.lower() for k in _FACTORS}
_P_BOOL = {"ENABLE_HIST_RUN_TIME": "enable_hist_run_time", "RUN_TIME_DECAY": "run_time_decay"}
_P_HANDLED = set(_P_INT) | set(_P_FLOAT) | set(_P_BOOL) | {"DEFAULT_QUEUE", "JOB_PRIORITY_OVER_TIME", "DEFAULT_PROJECT"}
# Real lsb.params keys that lsfemu accepts and keeps verbatim in Params.extra for later features.
PARAMS_EXTRA_KEYS = frozenset({
    "ABS_RUNLIMIT", "ACCT_ARCHIVE_AGE", "ACCT_ARCHIVE_SIZE", "ACCT_ARCHIVE_TIME", "CHUNK_JOB_DURATION",
    "CONDENSE_PENDING_REASONS", "DEFAULT_APPLICATION", "DEFAULT_HOST_SPEC", "DEFAULT_JOBGROUP",
    "DEFAULT_USER_GROUP", "DETECT_IDLE_JOB_AFTER", "EADMIN_TRIGGER_DURATION", "ENABLE_USER_RESUME",
    "ENFORCE_ONE_UG_LIMITS", "EVENT_UPDATE_INTERVAL", "FAIRSHARE_ADJUSTMENT_PLUGIN", "JOB_DEP_LAST_SUB",
    "JOB_POSITION_CONTROL_BY_ADMIN", "JOB_RUNLIMIT_RATIO", "JOB_SCHEDULING_INTERVAL", "JOB_SPOOL_DIR",
    "MAX_ACCT_ARCHIVE_FILE", "MAX_CONCURRENT_QUERY", "MAX_JOB_PREEMPT", "MAX_JOB_REQUEUE", "MAX_PEND_JOBS",
    "MAX_PEND_SLOTS", "MAX_PREEXEC_RETRY", "MBD_REFRESH_TIME", "NEWJOB_REFRESH", "PARALLEL_SCHED_BY_SLOT",
    "PEND_REASON_UPDATE_INTERVAL", "PREEMPT_FOR", "PREEMPTABLE_RESOURCES", "PREEMPTION_WAIT_TIME",
    "RELAX_JOB_DISPATCH_ORDER", "RESOURCE_RESERVE_PER_SLOT", "RESOURCE_RESERVE_PER_TASK", "SUB_TRY_INTERVAL",
    "USE_SUSP_SLOTS",
})


def parse_params(text: str, rep: Reporter) -> Params:
    p = Params()
    pairs: list[tuple[str, str, int]] = []
    n_sections = 0
    seen: dict[str, int] = {}
    for sec in _sections(text, rep):
        if sec.key == "PARAMETERS":
            n_sections += 1
            if n_sections > 1:
                rep.warn(sec.begin, "a second Begin Parameters section; its keys are merged with the first")
            pairs += _dedupe(keyword_pairs(sec.lines, rep, "Parameters"), rep, seen)
        else:
            _unsupported(sec, rep, "lsb.params")
    if n_sections == 0 and not rep.has_fatal:
        rep.warn(0, "no Begin Parameters section; LSF's defaults are used")
    for key, value, line in pairs:
        p.lines[key] = line
        if value == "":
            _empty_value(key, line, rep)
            continue
        if key in _P_INT:
            attr, lo, hi = _P_INT[key]
            n = to_int(key, value, rep, line, lo, hi)
            if n is not None:
                setattr(p, attr, n)
                if key == "MAX_JOBID" and n < 999999:
                    rep.warn(line, f"MAX_JOBID: LSF requires at least 999999, got {show(value)}; lsfemu uses it anyway")
        elif key in _P_FLOAT:
            f = to_float(key, value, rep, line)
            if f is not None:
                setattr(p, _P_FLOAT[key], f)
        elif key in _P_BOOL:
            b = to_bool(key, value, rep, line)
            if b is not None:
                setattr(p, _P_BOOL[key], b)
        elif key == "DEFAULT_QUEUE":
            p.default_queues = value.split()
        elif key == "DEFAULT_PROJECT":
            p.default_project = value
        elif key == "JOB_PRIORITY_OVER_TIME":
            m = re.match(r"^\s*([0-9]+)\s*/\s*([0-9]+)\s*$", value)
            if m is None or int(m.group(1)) < 1 or int(m.group(2)) < 1:
                rep.fatal(line, f"JOB_PRIORITY_OVER_TIME: expected increment/interval, both positive integers "
                                f"(e.g. 1/10), got {show(value)}")
            else:
                p.job_priority_over_time = (int(m.group(1)), int(m.group(2)))
        elif key in PARAMS_EXTRA_KEYS:
            p.extra[key] = value
        else:
            rep.warn(line, f"Unknown parameter {key}; ignored")
    if p.job_priority_over_time is not None and p.max_user_priority is None:
        rep.warn(p.lines["JOB_PRIORITY_OVER_TIME"],
                 "JOB_PRIORITY_OVER_TIME has no effect without MAX_USER_PRIORITY; ignored")
        p.job_priority_over_time = None
    return p


# =============================================================================
# lsb.queues
# =============================================================================

_Q_INT: dict[str, tuple[str, int | None]] = {
    "PRIORITY": ("priority", 0),
    "NICE": ("nice", None),
    "QJOB_LIMIT": ("qjob_limit", 0),
    "UJOB_LIMIT": ("ujob_limit", 0),
    "PJOB_LIMIT": ("pjob_limit", 0),
    "HJOB_LIMIT": ("hjob_limit", 0),
}
_Q_LIST = {"USERS": "users", "HOSTS": "hosts", "ADMINISTRATORS": "administrators", "QUEUE_GROUP": "queue_group"}
# Real lsb.queues keys accepted and kept verbatim in QueueConf.extra.
QUEUE_EXTRA_KEYS = frozenset({
    "BACKFILL", "CHKPNT", "CHUNK_JOB_SIZE", "CORELIMIT", "CPULIMIT", "DATALIMIT", "DEFAULT_HOST_SPEC",
    "DISPATCH_ORDER", "DISPATCH_WINDOW", "ENABLE_HIST_RUN_TIME", "EXCLUSIVE", "FILELIMIT", "INTERACTIVE",
    "JOB_ACCEPT_INTERVAL", "JOB_CONTROLS", "JOB_STARTER", "MEMLIMIT", "MIG", "NEW_JOB_SCHED_DELAY",
    "POST_EXEC", "PRE_EXEC", "PREEMPTION", "PROCESSLIMIT", "PROCLIMIT", "REQUEUE_EXIT_VALUES", "RERUNNABLE",
    "RES_REQ", "RESOURCE_RESERVE", "RESUME_COND", "RUN_TIME_DECAY", "RUN_WINDOW", "SLOT_POOL", "SLOT_RESERVE",
    "SLOT_SHARE", "STACKLIMIT", "STOP_COND", "SWAPLIMIT", "TASKLIMIT", "TERMINATE_WHEN", "THREADLIMIT",
    "USER_SHARES", "r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem",
})
_QUEUE_EXTRA_UP = frozenset(k.upper() for k in QUEUE_EXTRA_KEYS)


def parse_queues(text: str, rep: Reporter) -> list[QueueConf]:
    queues: list[QueueConf] = []
    by_name: dict[str, QueueConf] = {}
    for sec in _sections(text, rep):
        if sec.key != "QUEUE":
            _unsupported(sec, rep, "lsb.queues")
            continue
        q = _parse_queue(sec, rep)
        if q is None:
            continue
        if q.name in by_name:
            rep.fatal(q.lines.get("QUEUE_NAME", sec.begin),
                      f"queue {q.name} is defined twice (first at line {by_name[q.name].line})")
            continue
        by_name[q.name] = q
        queues.append(q)
    if not queues and not rep.has_fatal:
        rep.fatal(0, "no queues defined (expected at least one Begin Queue section)")
    return queues


def _parse_queue(sec: Section, rep: Reporter) -> QueueConf | None:
    q = QueueConf(name="", file=rep.path, line=sec.begin)
    seen: dict[str, int] = {}
    for key, value, line in _dedupe(keyword_pairs(sec.lines, rep, "Queue"), rep, seen):
        q.lines[key] = line
        if key == "QUEUE_NAME":
            if len(value.split()) != 1 or not re.match(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$", value):
                rep.fatal(line, f"QUEUE_NAME: expected one queue name (letters, digits, _ . -), got {show(value)}")
            else:
                q.name = value
            continue
        if value == "" and key != "DESCRIPTION":
            _empty_value(key, line, rep)
            continue
        if key in _Q_INT:
            attr, lo = _Q_INT[key]
            n = to_int(key, value, rep, line, lo, _INT_MAX)
            if n is not None:
                setattr(q, attr, n)
        elif key in _Q_LIST:
            setattr(q, _Q_LIST[key], value.split())
        elif key == "DESCRIPTION":
            q.description = value or None
        elif key == "RUNLIMIT":
            limits = to_minutes(key, value, rep, line)
            if limits is not None:
                q.run_limit = limits[-1]
                q.run_limit_default = limits[0] if len(limits) == 2 else None
        elif key == "FAIRSHARE":
            q.fairshare = value
        elif key == "APS_PRIORITY":
            q.aps_priority = value
        elif key in _FACTORS:
            f = to_float(key, value, rep, line)
            if f is not None:
                q.factors[key] = f
        elif key in _QUEUE_EXTRA_UP:
            q.extra[key] = value
        else:
            rep.warn(line, f"Unknown queue parameter {key}; ignored")
    if not q.name:
        if "QUEUE_NAME" not in q.lines:
            rep.fatal(sec.begin, "QUEUE_NAME is missing in this Begin Queue section (expected QUEUE_NAME = <name>)")
        return None
    return q


# =============================================================================
# lsb.users
# =============================================================================


def parse_users(text: str, rep: Reporter) -> tuple[dict[str, UserGroupConf], dict[str, UserLimitConf]]:
    groups: dict[str, UserGroupConf] = {}
    limits: dict[str, UserLimitConf] = {}
    for sec in _sections(text, rep):
        if sec.key == "USERGROUP":
            tab = read_table(sec, rep, required=("GROUP_NAME", "GROUP_MEMBER"),
                             known=("GROUP_NAME", "GROUP_MEMBER", "USER_SHARES"), unused=("GROUP_ADMIN", "PRIORITY"))
            for line, row in tab.rows if tab else ():
                name = unquote(row["GROUP_NAME"])
                if is_default(name) or not re.match(r"^[^()\[\]\s,]+$", name):
                    rep.fatal(line, f"GROUP_NAME: expected a group name, got {show(row['GROUP_NAME'])}")
                    continue
                if name in groups:
                    rep.fatal(line, f"user group {name} is defined twice (first at line {groups[name].line})")
                    continue
                members = [] if is_default(row["GROUP_MEMBER"]) else inner(row["GROUP_MEMBER"]).split()
                if "!" in members:
                    rep.warn(line, f"user group {name}: external group members (!) are not supported by lsfemu; ignored")
                    members = [m for m in members if m != "!"]
                shares = None
                if "USER_SHARES" in row and not is_default(row["USER_SHARES"]):
                    shares = inner(row["USER_SHARES"])
                groups[name] = UserGroupConf(name=name, members=members, user_shares=shares, file=rep.path, line=line)
        elif sec.key == "USER":
            tab = read_table(sec, rep, required=("USER_NAME",),
                             known=("USER_NAME", "MAX_JOBS", "JL/P", "MAX_PEND_JOBS"),
                             unused=("MAX_PEND_SLOTS", "PRIORITY"))
            for line, row in tab.rows if tab else ():
                name = unquote(row["USER_NAME"])
                if is_default(name) or not re.match(r"^[^()\[\]\s,]+$", name):
                    rep.fatal(line, f"USER_NAME: expected a user or group name, got {show(row['USER_NAME'])}")
                    continue
                if name in limits:
                    rep.fatal(line, f"user {name} is listed twice in the User section (first at line {limits[name].line})")
                    continue
                lim = UserLimitConf(name=name, line=line)
                for col, attr in (("MAX_JOBS", "max_jobs"), ("MAX_PEND_JOBS", "max_pend_jobs")):
                    if col in row and not is_default(row[col]):
                        setattr(lim, attr, to_int(col, inner(row[col]), rep, line, 0, _INT_MAX))
                if "JL/P" in row and not is_default(row["JL/P"]):
                    lim.jl_p = to_float("JL/P", inner(row["JL/P"]), rep, line)
                limits[name] = lim
        else:
            _unsupported(sec, rep, "lsb.users")
    _check_group_cycles(groups, rep)
    for name, lim in limits.items():
        if name.endswith("@") and name[:-1] not in groups:
            rep.warn(lim.line, f"{name}: {name[:-1]} is not a user group defined in lsb.users; the limit applies to nobody")
    return groups, limits


def _check_group_cycles(groups: dict[str, UserGroupConf], rep: Reporter) -> None:
    """Fatal for every cycle of group membership, reported once at its first group's line."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    reported: set[frozenset[str]] = set()

    def visit(g: str, path: list[str]) -> None:
        state[g] = 1
        path.append(g)
        for m in groups[g].members:
            if m not in groups:
                continue
            if state.get(m) == 1:
                cycle = path[path.index(m):] + [m]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    first = min(cycle[:-1], key=lambda n: groups[n].line)
                    i = cycle.index(first)
                    ring = cycle[i:-1] + cycle[:i] + [first]
                    rep.fatal(groups[first].line, f"user group cycle: {' -> '.join(ring)} "
                                                  "(expected groups not to contain themselves)")
            elif state.get(m) is None:
                visit(m, path)
        path.pop()
        state[g] = 2

    for g in groups:
        if g not in state:
            visit(g, [])


# =============================================================================
# lsb.hosts
# =============================================================================

_HOST_SILENT = (
    "r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "swap", "mem",
    "DISPATCH_WINDOW", "EXIT_RATE", "AFFINITY", "CHKPNT", "MIG",
)


def parse_hosts(text: str, rep: Reporter) -> tuple[dict[str, HostConf], dict[str, list[str]], dict[str, dict[str, str]]]:
    hosts: dict[str, HostConf] = {}
    groups: dict[str, list[str]] = {}
    group_lines: dict[str, int] = {}
    partitions: dict[str, dict[str, str]] = {}
    for sec in _sections(text, rep):
        if sec.key == "HOST":
            tab = read_table(sec, rep, required=("HOST_NAME",), known=("HOST_NAME", "MXJ", "JL/U"),
                             silent=_HOST_SILENT, unknown_hint=" (not a built-in load index)")
            for line, row in tab.rows if tab else ():
                name = unquote(row["HOST_NAME"])
                if is_default(name) or not re.match(r"^[^()\[\]\s,]+$", name):
                    rep.fatal(line, f"HOST_NAME: expected a host name or default, got {show(row['HOST_NAME'])}")
                    continue
                if name in hosts:
                    rep.fatal(line, f"host {name} is listed twice in the Host section (first at line {hosts[name].line})")
                    continue
                h = HostConf(name=name, line=line)
                if "MXJ" in row and not is_default(row["MXJ"]):
                    v = inner(row["MXJ"])
                    if v == "!":
                        h.mxj_is_ncpus = True
                    elif _INT_RE_NONNEG.match(v) and int(v) <= _INT_MAX:
                        h.mxj = int(v)
                    else:
                        rep.fatal(line, f"MXJ: expected a non-negative integer, ! or -, got {show(v)}")
                if "JL/U" in row and not is_default(row["JL/U"]):
                    h.jl_u = to_int("JL/U", inner(row["JL/U"]), rep, line, 0, _INT_MAX)
                hosts[name] = h
        elif sec.key == "HOSTGROUP":
            tab = read_table(sec, rep, required=("GROUP_NAME", "GROUP_MEMBER"), known=("GROUP_NAME", "GROUP_MEMBER"),
                             unused=("CONDENSE", "GROUP_ADMIN"))
            for line, row in tab.rows if tab else ():
                name = unquote(row["GROUP_NAME"])
                if is_default(name):
                    rep.fatal(line, f"GROUP_NAME: expected a host group name, got {show(row['GROUP_NAME'])}")
                    continue
                if name in groups:
                    rep.fatal(line, f"host group {name} is defined twice (first at line {group_lines[name]})")
                    continue
                groups[name] = [] if is_default(row["GROUP_MEMBER"]) else inner(row["GROUP_MEMBER"]).split()
                group_lines[name] = line
        elif sec.key == "HOSTPARTITION":
            raw: dict[str, str] = {}
            for key, value, _line in keyword_pairs(sec.lines, rep, "HostPartition"):
                raw[key] = value
            pname = raw.get("HPART_NAME", "")
            if not pname:
                rep.fatal(sec.begin, "HPART_NAME is missing in this Begin HostPartition section (expected HPART_NAME = <name>)")
                continue
            rep.warn(sec.begin, f"host partition {pname}: host partition fairshare is not supported by lsfemu; "
                                "the section is kept but not used")
            partitions[pname] = raw
        else:
            _unsupported(sec, rep, "lsb.hosts")
    return hosts, groups, partitions


# =============================================================================
# The whole cluster
# =============================================================================


def _cross_checks(
    reps: dict[str, Reporter],
    params: Params | None,
    queues: list[QueueConf] | None,
    cluster_hosts: list[ClusterHost] | None,
    hosts: dict[str, HostConf],
    host_groups: dict[str, list[str]],
) -> None:
    names = {q.name for q in queues} if queues is not None else None
    if names and params is not None:  # with no queue at all, "no queues defined" says it already
        for qn in params.default_queues:
            if qn not in names:
                reps["lsb.params"].fatal(params.lines.get("DEFAULT_QUEUE", 0),
                                         f"DEFAULT_QUEUE: queue {qn} is not defined in lsb.queues")
    if names is not None:
        for q in queues or ():
            for member in q.queue_group:
                if member not in names:
                    reps["lsb.queues"].fatal(q.lines.get("QUEUE_GROUP", q.line),
                                             f"QUEUE_GROUP of queue {q.name}: queue {member} is not defined in lsb.queues")
    if cluster_hosts:
        known = {h.name for h in cluster_hosts}
        kinds = known | {h.model for h in cluster_hosts} | {h.type for h in cluster_hosts}
        for q in queues or ():
            for h in q.hosts:
                base = re.sub(r"\+[0-9]*$", "", h.lstrip("~")).rstrip("/")
                if base in ("all", "others", "none") or base in known or base in host_groups or "@" in base:
                    continue
                reps["lsb.queues"].warn(q.lines.get("HOSTS", q.line),
                                        f"HOSTS of queue {q.name}: {h} is not a host of lsf.cluster nor a host group; ignored")
        for h in hosts.values():
            if h.name != "default" and h.name not in kinds and h.name not in host_groups:
                reps["lsb.hosts"].warn(h.line, f"host {h.name} is not a host of lsf.cluster; its row is not used")


def check(envdir: str) -> tuple[ClusterConfig | None, list[ConfigIssue]]:
    """Read and check every file; returns (config or None when any issue is fatal, all issues).

    Issues come file by file (lsf.conf, cluster file, lsb.params, lsb.queues,
    lsb.users, lsb.hosts), each file's in line order.
    """
    envdir = os.fspath(envdir)
    conf_path = os.path.join(envdir, "lsf.conf")
    reps: dict[str, Reporter] = {"lsf.conf": Reporter(conf_path)}
    text = _read(conf_path, reps["lsf.conf"], required=True)
    conf, conf_lines = parse_lsf_conf(text, reps["lsf.conf"]) if text is not None else ({}, {})
    files, locate_issues = _locate(envdir, conf, conf_lines, reps["lsf.conf"])

    admins: list[str] = []
    cluster_hosts: list[ClusterHost] | None = None
    if files["lsf.cluster"] is not None:
        reps["lsf.cluster"] = rep = Reporter(files["lsf.cluster"])
        text = _read(files["lsf.cluster"], rep, required=True)
        if text is not None:
            admins, cluster_hosts = parse_cluster(text, rep)

    texts = {}
    for f in _LSB_FILES:
        reps[f] = Reporter(files[f])
        texts[f] = _read(files[f], reps[f], required=f in REQUIRED_FILES)
    params = parse_params(texts["lsb.params"], reps["lsb.params"]) if texts["lsb.params"] is not None else None
    queues = parse_queues(texts["lsb.queues"], reps["lsb.queues"]) if texts["lsb.queues"] is not None else None
    user_groups, user_limits = (parse_users(texts["lsb.users"], reps["lsb.users"])
                                if texts["lsb.users"] is not None else ({}, {}))
    hosts, host_groups, partitions = (parse_hosts(texts["lsb.hosts"], reps["lsb.hosts"])
                                      if texts["lsb.hosts"] is not None else ({}, {}, {}))
    _cross_checks(reps, params, queues, cluster_hosts, hosts, host_groups)

    issues: list[ConfigIssue] = reps["lsf.conf"].sorted() + locate_issues
    for key in ("lsf.cluster",) + _LSB_FILES:
        if key in reps:
            issues += reps[key].sorted()
    if any(i.fatal for i in issues):
        return None, issues
    assert params is not None and queues is not None and cluster_hosts is not None and files["cluster_name"]
    cfg = ClusterConfig(
        envdir=envdir,
        confdir=files["confdir"],
        cluster_name=files["cluster_name"],
        lsf_conf=conf,
        admins=admins,
        cluster_hosts=cluster_hosts,
        params=params,
        queues=queues,
        user_groups=user_groups,
        user_limits=user_limits,
        hosts=hosts,
        warnings=[i for i in issues if not i.fatal],
        host_groups=host_groups,
        host_partitions=partitions,
        files={k: v for k, v in files.items() if k in REQUIRED_FILES + OPTIONAL_FILES and v and os.path.exists(v)},
    )
    return cfg, issues


def load(envdir: str) -> ClusterConfig:
    """The configuration of the cluster in `envdir`.

    Raises `ConfigError` when any issue is fatal; its `issues` holds every issue
    found (fatal ones and warnings, as `check` returns them). Warnings of a
    loadable configuration are in `ClusterConfig.warnings`.
    """
    cfg, issues = check(envdir)
    if cfg is None:
        raise ConfigError(issues)
    return cfg
