"""bacct's files and selection: which lsb.acct files, which JOB_FINISH records.

Files. Without ``-f`` bacct reads the cluster's current ``lsb.acct`` (in the
log directory beside ``lsb.events``: ``LSB_SHAREDIR/<cluster>/logdir``, or
``LSFEMU_HOME/logdir``); a missing file counts as an empty one. ``-f -``
reads the current file and every archive (``lsb.acct.N`` ... ``lsb.acct.1``,
oldest first). ``-f FILE`` reads that file (relative to the caller's
directory) and needs no cluster: any lsb.acct, also a real cluster's.

Selection (IBM's bacct page): by default the caller's jobs; ``-u "u1 u2"``
those users (a user group by its members when a cluster configuration is at
hand), ``-u all`` everyone; ``-q "q1 q2"`` those queues; ``-P "p1 p2"`` those
projects; ``-m "h1 hg"`` jobs that ran on those hosts (a host group of the
configuration by its members), ``-M file`` on the hosts the file lists;
``-app`` / ``-sla`` / ``-Lp`` those application profiles / service classes /
License Scheduler projects; ``-d``
DONE jobs only, ``-e`` EXIT jobs only (both: both); ``-C``/``-S``/``-D``
completion, submission and dispatch windows (LSF's time interval syntax,
:func:`lsfemu.ops.history.parse_window`: ``time0,time1``, inclusive); ``-x``
jobs that raised an exception (the record's exceptMask: overrun, underrun,
idle, run time estimate exceeded). Job IDs select those jobs (``123`` also
its array elements, ``123[4]`` the one element) whoever submitted them, as
real bacct's header says ("submitted by all users"); the other filters still
apply. Times are read against the cluster's clock, or the caller's wall
clock when there is no cluster (bacct -f, as LSF's bacct reads its file on
the client).

``-N``: a CPU factor, or a host or host model whose CPU factor the cluster's
configuration gives (``lsf.shared``/``lsf.cluster``); without a cluster
(``-f``) only a factor will do, as IBM's page says for bacct run offline.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from lsfemu.engine.cpulimit import cpu_factor as factor_of
from lsfemu.errors import LsfError
from lsfemu.events.acct import JOB_STAT_DONE, AcctRecord, AcctWarning, read_acct
from lsfemu.ops import history
from lsfemu.ops.select import hosts_named
from lsfemu.render import messages
from lsfemu.sched.arrayspec import in_ranges

#: the current accounting file's name in the log directory
CURRENT = "lsb.acct"

_ARCHIVE = re.compile(r"lsb\.acct\.([0-9]{1,9})\Z")


def archives(logdir: str | os.PathLike) -> list[Path]:
    """The current lsb.acct and its archives, oldest first (lsb.acct.1 is the newest archive)."""
    d = Path(logdir)
    found: list[tuple[int, Path]] = []
    try:
        for p in d.iterdir():
            m = _ARCHIVE.match(p.name)
            if m and p.is_file():
                found.append((int(m.group(1)), p))
    except OSError:
        pass
    files = [p for _, p in sorted(found, reverse=True)]
    cur = d / CURRENT
    if cur.is_file():
        files.append(cur)
    return files


def files(logfile: str | None, cwd: str, logdir: str | None) -> list[Path]:
    """The files bacct reads (module docstring). Raises LsfError for a named
    file that is not a regular file, or when no cluster gives a log directory."""
    if logfile is not None and logfile != "-":
        path = Path(logfile if os.path.isabs(logfile) else os.path.join(cwd, logfile))
        if not path.is_file():
            raise LsfError(messages.NOT_A_REGULAR_FILE if path.exists() else messages.NO_SUCH_FILE, logfile)
        return [path]
    if logdir is None:
        raise LsfError(messages.BACCT_NO_CLUSTER)
    if logfile == "-":
        return archives(logdir)
    cur = Path(logdir) / CURRENT
    return [cur] if cur.is_file() else []


def read(paths: Iterable[Path], warn: Callable[[AcctWarning], None]) -> Iterator[AcctRecord]:
    """Every JOB_FINISH record of *paths* in order; damaged lines go to *warn*."""
    for p in paths:
        yield from read_acct(p, warn)


# ---------------------------------------------------------------------------
# selection
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """What bacct selects (None: no restriction)."""

    users: frozenset[str] | None = None
    projects: frozenset[str] | None = None
    #: -m/-M: jobs that ran on one of these hosts
    hosts: frozenset[str] | None = None
    queues: frozenset[str] | None = None
    apps: frozenset[str] | None = None
    slas: frozenset[str] | None = None
    license_projects: frozenset[str] | None = None
    #: "done" (-d: DONE jobs), "exit" (-e: EXIT jobs) or None (both)
    status: str | None = None
    submitted: tuple[float, float] | None = None
    dispatched: tuple[float, float] | None = None
    completed: tuple[float, float] | None = None
    exception: bool = False
    #: (job ID, index ranges or None) as ``cli.base.parse_job_refs`` gives them
    job_ids: tuple[tuple[int, tuple | None], ...] | None = None

    def wants(self, r: AcctRecord) -> bool:
        if self.job_ids is not None and not any(
                r.job_id == jid and (ranges is None or in_ranges(r.idx, ranges)) for jid, ranges in self.job_ids):
            return False
        if self.users is not None and r.user_name not in self.users:
            return False
        if self.queues is not None and r.queue not in self.queues:
            return False
        if self.projects is not None and (r.project_name or "default") not in self.projects:
            return False
        if self.hosts is not None and not any(h in self.hosts for h in r.slot_hosts):
            return False
        if self.apps is not None and r.app not in self.apps:
            return False
        if self.slas is not None and r.sla not in self.slas:
            return False
        if self.license_projects is not None and r.license_project not in self.license_projects:
            return False
        if self.status is not None and (r.j_status & JOB_STAT_DONE != 0) != (self.status == "done"):
            return False
        if self.exception and not r.except_mask:
            return False
        if not history.in_window(r.event_time, self.completed):
            return False
        if not history.in_window(r.submit_time, self.submitted):
            return False
        return history.in_window(r.start_time if r.start_time > 0 else None, self.dispatched)


def users(cluster, caller: str, spec: str | None, have_ids: bool) -> frozenset[str] | None:
    """-u's users (None: all): the caller by default, everyone with job IDs."""
    if spec is None:
        return None if have_ids else frozenset([caller])
    names: set[str] = set()
    for word in spec.split():
        one = history.users(cluster, caller, word)
        if one is None:
            return None
        names |= one
    return frozenset(names)


def hosts(names: list[str], config) -> frozenset[str]:
    """-m's hosts: a host group of the configuration stands for its members
    (lsb.hosts); any other name is a host -- also one no longer in the cluster,
    whose jobs the file may still hold."""
    out: set[str] = set()
    for name in names:
        members = hosts_named(config, name) if config is not None else None
        out |= members if members is not None else {name}
    return frozenset(out)


def host_file(path: str, cwd: str) -> list[str]:
    """-M host_list_file: the host names of the file (blank-separated, any lines)."""
    full = path if os.path.isabs(path) else os.path.join(cwd, path)
    if not os.path.isfile(full):
        raise LsfError(messages.NOT_A_REGULAR_FILE if os.path.exists(full) else messages.NO_SUCH_FILE, path)
    try:
        with open(full, encoding="utf-8", errors="replace") as fh:
            return fh.read().split()
    except OSError as e:
        raise LsfError(e.strerror or str(e), path) from None


def window(spec: str | None, now: float) -> tuple[float, float] | None:
    """-C/-S/-D's ``time0,time1`` (LsfError with LSF's ``Bad time specification``)."""
    if spec is None:
        return None
    try:
        return history.parse_window(spec, now)
    except history.BadTime:
        raise LsfError(messages.BAD_TIME, spec) from None


_FACTOR = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+\Z")


def cpu_factor(spec: str, config) -> float:
    """-N's CPU factor: a number, or the factor of a host or host model of
    *config* (None: no cluster at hand)."""
    if _FACTOR.fullmatch(spec):
        f = float(spec)
        if f <= 0:
            raise LsfError(messages.BAD_CPU_FACTOR, spec)
        return f
    if config is None:
        raise LsfError(messages.BACCT_OFFLINE_FACTOR, spec)
    f = factor_of(config, spec)
    if f is None:
        raise LsfError(messages.LIM_BAD_HOST, spec)
    return f
