"""bhist's selection of job histories and its time windows.

Selection (OpenLava's bhist): by default the caller's unfinished jobs; ``-a``
every state; ``-d`` finished (DONE and EXIT), ``-e`` exited, ``-p`` pending
(PEND, PSUSP), ``-r`` running, ``-s`` suspended (USUSP, SSUSP, PSUSP, as
bjobs -s); several of them add up and ``-a`` overrides them. ``-u user``,
``-u all``, ``-u group`` (members, when a cluster configuration is at hand),
``-q queue`` (the job's current queue), ``-J name`` (fnmatch wildcards on the
-J name, else the command). Time windows, inclusive at both ends: ``-C``
completion (implies finished jobs unless -a/-e), ``-S`` submission, ``-D``
(last) dispatch. Job IDs select those jobs whatever their user, state, queue,
name and times (OpenLava drops every other filter); ``123`` also matches the
elements ``123[i]``.

Time window syntax (LSF's time interval format), ``start,end``; ``start,`` =
from start to now; ``,end`` = from the first event to end; a single ``spec``
= the whole period it names. A spec is ``.`` (now), ``.-N`` (N days ago),
or ``[year/][month/][day][/hour:minute|/hour:]``: ``8`` (day 8 of this
month), ``3/8`` (March 8), ``2024/3/8``, ``3/`` (March), ``2024/3/``,
``/10:`` (today 10:00-10:59), ``/10:30`` or ``10:30`` (today at that minute),
``3/8/10:30``. A start takes the beginning of the period, an end its last
second; missing year/month/day are the current ones (of the cluster clock).
A bad spec prints ``<spec>: Bad time specification``, exit 255.

``-T start,end`` (same syntax) keeps only the records logged in the window:
with ``-t`` the events listed, otherwise the records the histories are built
from (OpenLava feeds bhist only the records inside its search time). ``-m
"host ..."`` keeps the jobs whose last dispatch used one of the hosts (host
groups name their members); ``-P`` the jobs of a project (kept with job IDs,
as OpenLava does); ``-G`` the jobs submitted with ``bsub -G group`` (every
user's); ``-N host | model | factor`` divides the CPU times shown by that CPU
factor after multiplying them by the execution host's (JOB_START's
hostFactor). ``-n min,max`` reads lsb.events.min ... lsb.events.max (0 = the
current lsb.events).
"""

from __future__ import annotations

import calendar
import copy
import datetime as _dt
import re
import time as _time

from lsfemu.engine.cpulimit import cpu_factor
from lsfemu.events.history import Change, JobHistory
from lsfemu.jobstate import ANY_SUSPENDED, FINISHED, PENDING, UNFINISHED
from lsfemu.render import messages as M


class BadTime(ValueError):
    """A time window that does not parse."""


# ---------------------------------------------------------------------------
# time windows
# ---------------------------------------------------------------------------

_NUM = re.compile(r"\d{1,4}\Z")


def _epoch(d: _dt.datetime) -> float:
    return _time.mktime(d.timetuple()[:8] + (-1,))


def _int(text: str, lo: int, hi: int) -> int:
    if not _NUM.match(text):
        raise BadTime(text)
    v = int(text)
    if not lo <= v <= hi:
        raise BadTime(text)
    return v


def _period(spec: str, now: float) -> tuple[float, float]:
    """(first second, last second) of the period one spec names."""
    spec = spec.strip()
    if spec == ".":
        return now, now
    if spec.startswith(".-"):
        days = _int(spec[2:], 0, 36500)
        t = now - days * 86400
        return t, t
    cur = _dt.datetime.fromtimestamp(int(now))
    year, month, day = cur.year, cur.month, cur.day
    hour = minute = None
    if ":" in spec:
        date_part, _, time_part = spec.rpartition("/")
        h, _, m = time_part.partition(":")
        hour = _int(h, 0, 23)
        minute = _int(m, 0, 59) if m else None
    else:
        date_part, time_part = spec, None
    unit = "minute" if minute is not None else "hour" if hour is not None else "day"
    if date_part:
        segs = date_part.split("/")
        if segs[-1] == "" and time_part is None:
            segs = segs[:-1]  # "3/" or "2024/3/": a whole month
            unit = "month"
            if len(segs) == 1:
                month = _int(segs[0], 1, 12)
            elif len(segs) == 2:
                year, month = _int(segs[0], 1970, 2999), _int(segs[1], 1, 12)
            else:
                raise BadTime(spec)
        else:
            if len(segs) == 1:
                day = _int(segs[0], 1, 31)
            elif len(segs) == 2:
                month, day = _int(segs[0], 1, 12), _int(segs[1], 1, 31)
            elif len(segs) == 3:
                year, month, day = _int(segs[0], 1970, 2999), _int(segs[1], 1, 12), _int(segs[2], 1, 31)
            else:
                raise BadTime(spec)
    if unit == "month":
        start = _dt.datetime(year, month, 1)
        nxt = _dt.datetime(year + (month == 12), month % 12 + 1, 1)
        return _epoch(start), _epoch(nxt) - 1
    if day > calendar.monthrange(year, month)[1]:
        raise BadTime(spec)
    start = _dt.datetime(year, month, day, hour or 0, minute or 0)
    span = {"day": _dt.timedelta(days=1), "hour": _dt.timedelta(hours=1),
            "minute": _dt.timedelta(minutes=1)}[unit]
    return _epoch(start), _epoch(start + span) - 1


def parse_window(text: str, now: float) -> tuple[float, float]:
    """``start,end`` / ``start,`` / ``,end`` / ``spec`` -> (start, end) in epoch
    seconds, both inclusive (see the module docstring). Raises BadTime."""
    if text.count(",") > 1:
        raise BadTime(text)
    try:
        if "," in text:
            a, _, b = text.partition(",")
            if not a.strip() and not b.strip():
                raise BadTime(text)
            start = _period(a, now)[0] if a.strip() else float("-inf")
            end = _period(b, now)[1] if b.strip() else now
            return start, end
        if not text.strip():
            raise BadTime(text)
        return _period(text, now)
    except (ValueError, OverflowError, OSError) as e:
        raise BadTime(text) from e


def users(cluster, caller_user: str, u: str | None) -> set[str] | None:
    """The users -u names (None = all users); a group by its members only when a
    cluster configuration is at hand (bhist -f runs without one)."""
    if u is None:
        return {caller_user}
    if u == "all":
        return None
    cfg = getattr(cluster, "config", None) if cluster is not None else None
    groups = getattr(cfg, "user_groups", None) or {}
    if u in groups:
        if "all" in getattr(groups[u], "members", ()):
            return None
        return set(cfg.group_members(u))
    return {u}


def dispatch_time(h: JobHistory) -> float | None:
    for ch in reversed(h.changes):
        if ch.kind == "DISPATCH":
            return ch.time
    return None


def in_window(t: float | None, window: tuple[float, float] | None) -> bool:
    if window is None:
        return True
    return t is not None and window[0] <= t <= window[1]


def wanted_states(all_: bool, done: bool, exited: bool, pend: bool, run: bool, susp: bool,
                   complete: bool, chron: bool) -> set[str] | None:
    """None = every state."""
    if all_:
        return None
    wanted: set[str] = set()
    if done:
        wanted |= set(FINISHED)
    if exited:
        wanted.add("EXIT")
    if pend:
        wanted |= set(PENDING)
    if run:
        wanted.add("RUN")
    if susp:
        wanted |= set(ANY_SUSPENDED)
    if complete and not exited:
        wanted |= set(FINISHED)
    if wanted:
        return wanted
    if chron:
        return None
    return set(UNFINISHED)


# ---------------------------------------------------------------------------
# -m, -N, -n
# ---------------------------------------------------------------------------


class BadFiles(ValueError):
    """A -n argument that does not parse; its message is bhist's line."""


def file_numbers(text: str) -> tuple[int, int | None]:
    """``-n N`` -> (N, None) (0 = every file); ``-n min,max`` -> (min, max).
    Raises BadFiles with OpenLava's message."""
    text = text.strip()
    if "," not in text:
        if not re.fullmatch(r"\d{1,9}", text):
            raise BadFiles(M.BHIST_NFILES)
        return int(text), None
    a, _, b = text.partition(",")
    if not (re.fullmatch(r"\d{1,9}", a.strip()) and re.fullmatch(r"\d{1,9}", b.strip())):
        raise BadFiles(M.BHIST_NFILES_RANGE)
    lo, hi = int(a), int(b)
    if lo > hi:
        raise BadFiles(M.BHIST_NFILES_ORDER)
    return lo, hi


def host_set(cfg, spec: str) -> tuple[set[str], list[str]]:
    """The hosts -m names (host groups by their members) and the names that are
    neither a host nor a group of *cfg* (none without a configuration)."""
    names = spec.split()
    if cfg is None:
        return set(names), []
    groups = getattr(cfg, "host_groups", None) or {}
    known = {h.name for h in getattr(cfg, "cluster_hosts", ())}
    out: set[str] = set()
    unknown = []
    for n in names:
        if n in groups:
            out.update(groups[n])
        else:
            out.add(n)
            if known and n not in known:
                unknown.append(n)
    return out, unknown


def last_hosts(h: JobHistory) -> list[str]:
    for ch in reversed(h.changes):
        if ch.kind == "DISPATCH":
            return list(ch.data.get("hosts") or [])
    return []


def normal_factor(cfg, spec: str) -> float | None:
    """The CPU factor -N names: a host model's, a host's, or a positive number
    (OpenLava's order); None when it is none of them."""
    if cfg is not None and getattr(cfg, "shared", None) is not None:
        f = cpu_factor(cfg, spec)
        if f is not None:
            return f
    try:
        f = float(spec)
    except ValueError:
        return None
    return f if f > 0 and f == f and f != float("inf") else None


def normalized(h: JobHistory, factor: float) -> JobHistory:
    """*h* with the CPU time of its finish records scaled from its execution
    host's CPU factor to *factor* (bhist -N)."""
    out = copy.copy(h)
    host_f = 1.0
    changes = []
    for ch in h.changes:
        if ch.kind == "DISPATCH":
            host_f = float(ch.data.get("host_factor") or 1.0)
        elif ch.kind == "FINISH" and ch.data.get("cpu_time"):
            ch = Change(ch.time, ch.kind, {**ch.data, "cpu_time": float(ch.data["cpu_time"]) * host_f / factor})
        changes.append(ch)
    out.changes = changes
    return out
