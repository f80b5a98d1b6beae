"""bsub's plain options of issue 18 (part 3), checked and turned into the
stored job's fields: -Jd (description), -H (hold), -b and -t (begin and
termination times), -rn (never rerunnable), -env (the job's environment),
-outdir, -L (login shell), -i / -is (standard input; -is keeps a copy made
at submission, `spool_input`), -ptl / -eptl (pending time limits,
`pend_limits`); -x and -m (`placement_fields`: exclusive
execution, candidate hosts); -hostfile (`host_file_fields`).

`submission_fields(r, now)` reads them from a `SubmitRequest` and returns the
`SubmitSpec` fields they set, or raises NotSubmitted (nothing is stored).
The readings where LSF is silent are in docs/semantics.md ("bsub's plain
options").
"""

from __future__ import annotations

import os
import re
import time

from lsfemu.config import resourcemap
from lsfemu.engine.execopts import spool_path
from lsfemu.errors import NotSubmitted
from lsfemu.render import messages as M
from lsfemu.sched import hostfile, hostpick, placement, resmerge, resreq, select

#: LSF 10.1's bsub -Jd: "The maximum length is 4094 characters"; mbatchd keeps the
#: first characters of a longer one (OpenLava's mbd.job.c truncates to its buffer)
MAX_DESCRIPTION = 4094

_FIELD = re.compile(r"[0-9]{1,4}")
#: bsub -u: OpenLava's limit (MAXHOSTNAMELEN - 1), "Mail destination name too long"
MAX_MAIL_USER = 63
#: LSF 10.1: "the entire argument of -env can contain up to 4094 characters"; file paths likewise
MAX_ARG = 4094
#: an -env item: ~NAME, NAME, or NAME=value (a value with commas in single quotes)
_ENV_ITEM = re.compile(r"\s*(~?)([^,~=\"'\s]+)\s*(?:=\s*('[^']*'|[^,]*?))?\s*(?:,|$)")


_PEND_LIMIT = re.compile(r"(?:([0-9]{1,9}):)?([0-9]{1,9})")


def parse_pend_limit(text: str) -> float:
    """-ptl / -eptl's `[hour:]minute` (IBM: "The minutes can be specified as a
    number greater than 59") -> minutes; a positive value that fits LSF's 32-bit
    seconds, else `text: Bad pending time limit specification` [inferred wording]."""
    m = _PEND_LIMIT.fullmatch(text.strip())
    total = int(m.group(1) or 0) * 60 + int(m.group(2)) if m else 0
    if total <= 0 or total > 2147483647 // 60:
        raise NotSubmitted(M.BAD_PEND_LIMIT, text)
    return float(total)


def pend_limits(ptl: str | None, eptl: str | None, cfg) -> dict:
    """The SubmitSpec fields of -ptl and -eptl (bmod's too: a None value is not
    given). -eptl needs lsb.params TRACK_ELIGIBLE_PENDINFO=Y (IBM's bsub -eptl:
    it "must be defined in the lsb.params file to use the bsub -eptl option")."""
    out: dict = {}
    if ptl is not None:
        out["pend_limit_min"] = parse_pend_limit(ptl)
    if eptl is not None:
        if not cfg.params.track_eligible_pendinfo:
            raise NotSubmitted(M.EPTL_NOT_TRACKED)
        out["epend_limit_min"] = parse_pend_limit(eptl)
    return out


def parse_time(text: str, now: float) -> float:
    """`-b`/`-t`'s `[[year:][month:]day:]hour:minute` as LSF reads it (OpenLava's
    gettimefor, and LSF 10's year field): the next such instant after *now*, in
    the caller's local time (the daemon runs each command in the caller's TZ).
    hour:minute already past today means tomorrow; day:hour:minute past this
    month means next month; month:... past this year means next year; with
    the year the instant is exact and must not be in the past. Seconds are
    0. A bad value: `value: Bad time specification. Job not submitted.`"""
    parts = text.strip().split(":")
    if not 2 <= len(parts) <= 5 or not all(_FIELD.fullmatch(p) for p in parts):
        raise NotSubmitted(M.BAD_TIME, text)
    nums = [int(p) for p in parts]
    minute, hour = nums[-1], nums[-2]
    day = nums[-3] if len(nums) >= 3 else None
    month = nums[-4] if len(nums) >= 4 else None
    year = nums[-5] if len(nums) == 5 else None
    if not (0 <= minute <= 59 and 0 <= hour <= 23) or (day is not None and not 1 <= day <= 31) \
            or (month is not None and not 1 <= month <= 12) or (year is not None and year <= 1970):
        raise NotSubmitted(M.BAD_TIME, text)
    lt = time.localtime(int(now))
    y, mo, d = lt.tm_year, lt.tm_mon, lt.tm_mday
    if year is not None:
        y, mo, d = year, month, day
    elif month is not None:
        y, mo, d = y + ((month, day, hour, minute) < (lt.tm_mon, lt.tm_mday, lt.tm_hour, lt.tm_min)), month, day
    elif day is not None:
        if (day, hour, minute) < (lt.tm_mday, lt.tm_hour, lt.tm_min):
            y, mo = (y + 1, 1) if mo == 12 else (y, mo + 1)
        d = day
    t = _mktime(y, mo, d, hour, minute, text)
    if year is None and day is None and t <= now:
        t = _mktime(y, mo, d + 1, hour, minute, text)  # mktime normalises the day after
    if t < now and year is not None:
        raise NotSubmitted(M.BAD_TIME, text)  # "If the year field is specified and the time is in the past"
    return t


def _mktime(y: int, mo: int, d: int, hour: int, minute: int, text: str) -> float:
    try:
        return float(time.mktime((y, mo, d, hour, minute, 0, 0, 0, -1)))
    except (OverflowError, ValueError):
        raise NotSubmitted(M.BAD_TIME, text) from None


def submission_fields(r, now: float) -> dict:
    """The SubmitSpec fields of -Jd, -H, -b, -t and -rn (see the module docstring)."""
    out: dict = {}
    if r.description is not None:
        out["description"] = r.description[:MAX_DESCRIPTION]
    out["hold"] = bool(r.hold)
    begin = parse_time(r.begin, now) if r.begin is not None else None
    term = parse_time(r.term, now) if r.term is not None else None
    if begin is not None and term is not None and begin > term:
        raise NotSubmitted(M.START_AFTER_TERM)
    out["begin_time"], out["term_time"] = begin, term
    if r.rerun and r.rerun_never:  # alternatives in LSF's usage ([-r | -rn])
        raise NotSubmitted(M.BAD_ARG, "-rn")
    out["rerun_never"] = bool(r.rerun_never)
    if r.env_spec is not None:
        out["env_spec"], out["exec_env"] = r.env_spec, job_environment(r.env_spec, r.env)
    if r.outdir is not None:
        out["outdir"] = check_path(r.outdir)
    if r.login_shell is not None:
        out["login_shell"] = check_path(r.login_shell)
    if r.mail_user is not None:
        out["mail_user"] = check_mail_user(r.mail_user)
    out["notify"] = ",".join(flag for flag, on in (("B", r.notify_begin), ("N", r.notify_end),
                                                   ("Ne", r.notify_exit)) if on)
    out["spooled_input"] = None
    if r.input_file is not None and r.input_spool is not None:
        raise NotSubmitted(M.INPUT_EXCLUSIVE)
    if r.input_file is not None:
        out["input_file"] = check_path(r.input_file)
    elif r.input_spool is not None:
        out["input_file"], out["input_spooled"] = check_path(r.input_spool), True
        out["spooled_input"] = _read_input(r.input_spool, r.submit_dir)
    return out


def placement_fields(r, cfg, q) -> dict:
    """-x: the queue must take exclusive jobs (EXCLUSIVE = Y), else `queue: Queue does not
    accept EXCLUSIVE jobs`. -m: every word names a host or host group of the cluster (else
    `word: Bad host name, host group name or cluster name`), and a host named must be one
    of the queue's (`host: Host or host group is not used by the queue`)."""
    out: dict = {}
    if r.exclusive:
        if str(q.extra.get("EXCLUSIVE", "")).strip().upper() not in ("Y", "YES"):
            raise NotSubmitted(M.QUEUE_NO_EXCLUSIVE, q.name)
        out["exclusive"] = True
    if r.asked_hosts is not None:
        try:
            hosts = hostpick.candidates(r.asked_hosts, cfg.host_names, cfg.host_groups)
        except hostpick.AskedHostError as e:
            raise NotSubmitted(M.BAD_HOST, e.word or None) from None
        usable = set(cfg.queue_hosts(q))
        for word in r.asked_hosts.split():
            name = re.split(r"[+!]", word, maxsplit=1)[0]
            if name in cfg.host_names and name not in usable:
                raise NotSubmitted(M.HOST_NOT_USED_BY_QUEUE, name)
        if not usable.intersection(hosts):
            raise NotSubmitted(M.HOST_NOT_USED_BY_QUEUE, r.asked_hosts.split()[0])
        out["asked_hosts"] = " ".join(r.asked_hosts.split())
    return out


def check_mail_user(text: str) -> str:
    """-u: a mail address or user name (no NUL, newline or slash, not starting with a dot:
    it names a mailbox file), at most MAX_MAIL_USER characters."""
    if not text.strip() or any(ch in text for ch in "\0\n/") or text.startswith("."):
        raise NotSubmitted(M.BAD_ARG, text if text.strip() else None)
    if len(text) > MAX_MAIL_USER:
        raise NotSubmitted(M.MAIL_USER_TOO_LONG, text)
    return text


def check_path(text: str) -> str:
    """A file or directory name as bsub takes it: not empty, no NUL or newline, at most 4094 characters."""
    if len(text) > MAX_ARG:
        raise NotSubmitted(M.FILE_NAME_TOO_LONG, text[:40] + "...")
    if not text.strip() or any(ch in text for ch in "\0\n"):
        raise NotSubmitted(M.BAD_ARG, text if text.strip() else None)
    return text


def job_environment(spec: str, env: dict) -> dict:
    """bsub -env: the environment the job gets from the submission environment *env*.
    `none`: nothing; `all[, ~NAME ...][, NAME=value ...]`: everything but the ~NAMEs, the
    values given set; `NAME[=value], ...`: only those, with their submission values or the
    values given. A name may not be none or all nor hold , ~ = " '; a value with commas is
    put in single quotes. Anything else: `spec: Bad argument. Job not submitted.`"""
    text = spec.strip()
    if len(spec) > MAX_ARG:
        raise NotSubmitted(M.BAD_ARG, "-env")
    if text.lower() == "none":
        return {}
    items = []
    pos = 0
    while pos < len(text):
        m = _ENV_ITEM.match(text, pos)
        if m is None or m.end() == pos:
            raise NotSubmitted(M.BAD_ARG, spec)
        items.append((m.group(1), m.group(2), m.group(3)))
        pos = m.end()
    if not items:
        raise NotSubmitted(M.BAD_ARG, spec)
    every = items[0][1].lower() == "all" and not items[0][0] and items[0][2] is None
    out = dict(env) if every else {}
    for tilde, name, value in items[1:] if every else items:
        if name.lower() in ("all", "none") or (tilde and (not every or value is not None)):
            raise NotSubmitted(M.BAD_ARG, spec)
        if tilde:
            out.pop(name, None)
        elif value is not None:
            out[name] = value[1:-1] if value.startswith("'") else value
        elif name in env:
            out[name] = env[name]
    return out


def host_file_fields(name: str, submit_dir: str, cfg, q) -> tuple[dict, int]:
    """bsub/bmod -hostfile: the file read now (LSF reads it at submission; a later
    change of the file changes nothing), its hosts checked as -m's are (every one a
    host of the cluster, `host: Bad host name, ...`, and of the queue, `host: Host
    or host group is not used by the queue`). The job's `asked_hosts` (the kept
    form, lsfemu.sched.hostfile) and its task count, the slots summed."""
    if len(name) > MAX_ARG:
        raise NotSubmitted(M.FILE_NAME_TOO_LONG, name[:40])
    if "\n" in name:  # the kept form is line by line (lsfemu.sched.hostfile)
        raise NotSubmitted(M.BAD_HOSTFILE)
    path = os.path.normpath(name if os.path.isabs(name) else os.path.join(submit_dir, name))
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise NotSubmitted(e.strerror or M.BAD_ARG, name) from None
    try:
        entries = hostfile.parse(text)
    except hostfile.HostFileError:
        raise NotSubmitted(M.BAD_HOSTFILE, name) from None
    usable = set(cfg.queue_hosts(q))
    for host, _ in entries:
        if host not in cfg.host_names:
            raise NotSubmitted(M.BAD_HOST, host)
        if host not in usable:
            raise NotSubmitted(M.HOST_NOT_USED_BY_QUEUE, host)
    return {"asked_hosts": hostfile.encode(path, entries)}, hostfile.total(entries)


def _read_input(name: str, submit_dir: str) -> bytes:
    """bsub -is: the input file's contents at submission (LSF copies it to its spool)."""
    path = name if os.path.isabs(name) else os.path.join(submit_dir, name)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise NotSubmitted(e.strerror or M.BAD_ARG, name) from None


def spool_input(cl, job, data: bytes) -> None:
    """Keep -is's copy where the job reads it when it starts (lsfemu.engine.execopts)."""
    path = spool_path(os.path.join(cl.runner.home, "spool"), job.id)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def res_req_mem(text: str, units: dict[str, str], cfg=None) -> float | None:
    """-R checked as bsub and bmod check it: LSF's grammar (else `Bad resource
    requirement syntax`), every name a select[] reads a resource of the
    cluster *cfg* (built-in, lsf.shared, a host's RESOURCES: else LSF 10's
    `Error in select section: Error near "NAME" ...`), and nothing placement
    does not build yet (cu[], affinity[], span[block]/[stripe], ptile per
    model: refused naming the part; rusage[] of a resource lsf.cluster's
    ResourceMap shares between hosts: placement reserves per host, not from
    the shared pool); returns the memory one slot reserves (what the fairshare
    plug-in counts as memory in use)."""
    try:
        parsed = resreq.parse(text, units)
    except resreq.ResReqError:
        raise NotSubmitted(M.BAD_RESREQ, text) from None
    if cfg is not None:
        bad = resmerge.unknown_name(parsed, select.cluster_resources(cfg))
        if bad is not None:
            raise NotSubmitted(M.SELECT_BAD_NAME.format(bad))
    part = placement.unsupported(parsed)
    if part is None and cfg is not None:
        part = shared_rusage(parsed, cfg)
    if part is not None:
        raise NotSubmitted(M.RESREQ_NOT_BUILT, part)
    return resreq.amounts_of(parsed, 1, False).get("mem")


def shared_rusage(parsed, cfg) -> str | None:
    """`rusage[] of shared resource NAME` when *parsed* reserves a resource the
    ResourceMap shares between hosts (not built: placement has no shared pool)."""
    shared = resourcemap.shared_names(cfg.resource_map)
    for name in resreq.reserved_names(parsed):
        if name in shared:
            return f"rusage[] of shared resource {name}"
    return None
