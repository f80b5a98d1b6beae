"""Which jobs a command names: job IDs and index lists, `0` for all of the
caller's unfinished jobs, the -u/-q/-J/-g/-m/-app filters and bkill's -stat (bkill,
bstop, bresume, bswitch, bmig, brequeue; bjobs and bmod use the pieces)."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from lsfemu.jobstate import ANY_SUSPENDED, ON_HOST, PENDING
from lsfemu.sched.arrayspec import ArraySpecError, count_of, in_ranges, parse_index_list

#: jobs a signal can reach: not an UNKWN job (its host is lost), not a finished one
SIGNALLABLE = PENDING + ON_HOST

#: bkill -stat: the states each word names (pend and susp as bjobs -p and -s count them)
STAT_STATES = {"run": ("RUN",), "pend": PENDING, "susp": ANY_SUSPENDED}


def users(config, caller_user: str, u: str | None) -> set[str] | None:
    """The users `-u u` names (None = all users); no -u is the caller."""
    if u is None:
        return {caller_user}
    if u == "all":
        return None
    if u in config.user_groups:
        return config.group_members(u) if "all" not in config.user_groups[u].members else None
    return {u}


def jobs_of(jobs: dict, jid: int, ranges: tuple | None) -> list:
    """The rows of job `jid` (a plain job, or the elements of an array in
    `ranges`; all elements when None), by index. *jobs* is keyed (job ID,
    array index): a plain job's key and the named elements are looked up,
    not found among every job (bjobs -l ID at 10k jobs, issue 23)."""
    plain = jobs.get((jid, 0))
    if plain is not None:  # an ID is a plain job's (index 0) or an array's (1, 2, ...), never both
        return [plain] if ranges is None or in_ranges(0, ranges) else []
    if ranges is not None and count_of(ranges) <= len(jobs):  # (steps >= 1, start <= end: parse_index_list)
        named = sorted({i for s, e, st in ranges for i in range(s, e + 1, st)})
        return [jobs[(jid, i)] for i in named if (jid, i) in jobs]
    found = [j for (k, i), j in jobs.items() if k == jid and (ranges is None or in_ranges(i, ranges))]
    found.sort(key=lambda j: j.array_index)
    return found


def name_matches(pattern: str, job) -> bool:
    """`-J pattern` against a job's name (its command when it has none):
    wildcards as before, and `name[index_list]` for elements of a job array."""
    base = job.name if job.name is not None else job.command
    m = re.fullmatch(r"(.*)\[([0-9][0-9,:\-]*)\]", pattern)
    if m and job.array_index:
        try:
            ranges = parse_index_list(m.group(2))
        except ArraySpecError:
            return False
        return fnmatch.fnmatchcase(base, m.group(1)) and in_ranges(job.array_index, ranges)
    return fnmatch.fnmatchcase(base, pattern)


@dataclass(frozen=True)
class Selection:
    """The jobs a control command names: `refs` as `cli.base.parse_job_refs`
    gives them (job ID, index ranges or None, as typed), the arguments that did
    not parse (`bad`: (argument, LSF's reason)), and the filters."""

    refs: tuple = ()
    bad: tuple = ()
    user: str | None = None
    queue: str | None = None
    name: str | None = None
    job_group: str | None = None  # -g: jobs of that group only (not of its subgroups: bkill(1))
    #: -m: the jobs that run on this host (or on a host of this host group)
    host: str | None = None
    #: bkill -stat: a key of STAT_STATES; jobs in other states are left out, job IDs too
    stat: str | None = None
    app: str | None = None  # -app: jobs submitted with that application profile


def hosts_named(config, name: str) -> set[str] | None:
    """The hosts `-m name` stands for (a host, or an lsb.hosts host group); None
    when the cluster has no such host or group."""
    if name in config.host_groups:
        return {h for m in config.host_groups[name] for h in config.host_groups.get(m, [m])}
    return {name} if name in config.host_names else None


def targets(cluster, caller_user: str, sel: Selection) -> list[tuple[object | None, str]]:
    """(job or None when unknown, the ID as typed) for every job to act on.
    A job array named by its ID alone is one target: the list of its
    elements, answered in one line (`Job <123> is being terminated`); an
    index list (`123[1-5]`) gives one target per element that exists."""
    out = _targets(cluster, caller_user, sel)
    if sel.stat is None:
        return out
    keep = STAT_STATES[sel.stat]
    kept: list[tuple[object | None, str]] = []
    for job, typed in out:
        if isinstance(job, list):
            job = [e for e in job if e.status in keep]
            if job:
                kept.append((job, typed))
        elif job is not None and job.status in keep:
            kept.append((job, typed))
    return kept


def _targets(cluster, caller_user: str, sel: Selection) -> list[tuple[object | None, str]]:
    out: list[tuple[object | None, str]] = []
    if sel.refs and not any(i[0] == 0 for i in sel.refs):
        for jid, ranges, typed in sel.refs:
            found = jobs_of(cluster.jobs, jid, ranges)
            if sel.job_group is not None:
                found = [j for j in found if j.job_group == sel.job_group]
            if sel.app is not None:
                found = [j for j in found if j.app_profile == sel.app]
            if not found:
                out.append((None, typed))
            elif ranges is None and found[0].array_index:
                out.append((found, typed))
            elif len(found) == 1:
                out.append((found[0], typed))
            else:
                out.extend((j, f"{j.id}[{j.array_index}]") for j in found)
        return out
    named = users(cluster.config, caller_user, sel.user)
    on = hosts_named(cluster.config, sel.host) if sel.host is not None else None
    for j in sorted(cluster.jobs.values(), key=lambda j: j.position):
        if j.status not in SIGNALLABLE:
            continue
        if named is not None and j.user not in named:
            continue
        if sel.queue is not None and j.queue != sel.queue:
            continue
        if sel.name is not None and not name_matches(sel.name, j):
            continue
        if sel.job_group is not None and j.job_group != sel.job_group:
            continue
        if sel.app is not None and j.app_profile != sel.app:
            continue
        if on is not None and on.isdisjoint(j.exec_hosts.split()):
            continue
        out.append((j, str(j.id) if not j.array_index else f"{j.id}[{j.array_index}]"))
    return out
