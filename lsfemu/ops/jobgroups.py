"""Job groups as operations: bgadd, bgmod, bgdel, and bjgroup's counts.

A group's path is absolute (`/risk_group/portfolio1`); every group below the
root belongs to the user who made it (bgadd, or the first bsub -g naming it).
Its owner (or the owner of a group above it) and cluster administrators may
change or delete it. The limit (-L) counts started jobs, one per job, of the
group and its subgroups; a group's limit may not exceed an ancestor's nor be
below a descendant's (bgmod(1)).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsfemu.engine.jobgroups import chain, within
from lsfemu.errors import LsfError
from lsfemu.jobstate import FINISHED, PENDING, UNFINISHED
from lsfemu.ops import permissions
from lsfemu.ops.permissions import Caller
from lsfemu.render import messages as M

MAX_PATH = 512  # bsub -g: "Job group names can be up to 512 characters long"
MAX_LIMIT = 2147483647
# a component: no blank, no shell or LSF syntax character (a defensible reading:
# LSF documents none; these could not be typed back on a command line unquoted)
_COMPONENT = re.compile(r"[^\s/\"'<>|&;*?\[\](){}$`\\,:=!#~]+")


def group_path(text: str, error=LsfError) -> str:
    """The path `text` names (trailing slashes dropped), or `error`
    (LsfError or NotSubmitted/NotModified) with LSF's `Bad/empty job group name`."""
    t = text.strip()
    path = t.rstrip("/")
    if not t.startswith("/") or not path or len(path) > MAX_PATH:
        raise error(M.BAD_JOB_GROUP, text)
    if not all(_COMPONENT.fullmatch(p) for p in path[1:].split("/")):
        raise error(M.BAD_JOB_GROUP, text)
    return path


def parse_limit(text: str) -> int:
    """-L: an integer from 0 to 2147483647."""
    if not re.fullmatch(r"\s*[0-9]{1,10}\s*", text) or int(text) > MAX_LIMIT:
        raise LsfError(M.BAD_ARG, text)
    return int(text)


def _may_change(cl, caller: Caller, path: str) -> bool:
    owners = {g.owner for p in chain(path) if (g := cl.job_groups.get(p)) is not None}
    return caller.user in owners or permissions.allows(cl.config, caller, "administer_cluster")


def _check_limit(cl, path: str, limit: int) -> None:
    for p in chain(path)[:-1]:
        g = cl.job_groups.get(p)
        if g is not None and g.job_limit is not None and limit > g.job_limit:
            raise LsfError(M.JOB_GROUP_LIMIT_PARENT, path)
    for g in cl.job_groups.all():
        if g.path != path and within(g.path, path) and g.job_limit is not None and g.job_limit > limit:
            raise LsfError(M.JOB_GROUP_LIMIT_CHILD, path)


def add(cl, caller: Caller, text: str, limit_text: str | None) -> str:
    """bgadd [-L limit] path: the path made."""
    path = group_path(text)
    limit = parse_limit(limit_text) if limit_text is not None else None
    if cl.job_groups.get(path) is not None:
        raise LsfError(M.JOB_GROUP_EXISTS, path)
    if limit is not None:
        _check_limit(cl, path, limit)
    cl.job_groups.add(path, caller.user, limit)
    return path


def modify(cl, caller: Caller, text: str, limit_text: str | None, no_limit: bool, owner: str | None = None) -> str:
    """bgmod [-L limit | -Ln] [-u owner] path."""
    path = group_path(text)
    if cl.job_groups.get(path) is None:
        raise LsfError(M.NO_JOB_GROUP, path)
    if not _may_change(cl, caller, path):
        raise LsfError(M.PERM_DENIED)
    if owner is not None and not re.fullmatch(r"[^\s:;<>|&'\"`$]{1,256}", owner):
        raise LsfError(M.UNKNOWN_USER, owner)
    limit = None
    if limit_text is not None:
        limit = parse_limit(limit_text)
        _check_limit(cl, path, limit)
    if limit_text is not None or no_limit:
        cl.job_groups.set_limit(path, limit)
    if owner is not None:
        cl.job_groups.set_owner(path, owner)
    return path


def _busy(cl) -> set[str]:
    """The groups that hold an unfinished job."""
    return {j.job_group for j in cl.jobs.values() if j.job_group is not None and j.status in UNFINISHED}


def delete(cl, caller: Caller, text: str, *, below: bool = False, user: str | None = None) -> list[str]:
    """bgdel path: the group and every group below it (none may hold an
    unfinished job); bgdel -c path: the empty groups of that tree, the group
    itself included; bgdel [-u user | -u all] 0: the empty groups of the caller
    (of that user, of every user: administrators only). The paths deleted,
    top first."""
    busy = _busy(cl)
    admin = permissions.allows(cl.config, caller, "administer_cluster")
    if text.strip() == "0" and not below:
        if user is not None and not admin:
            raise LsfError(M.PERM_DENIED)
        owners = None if user == "all" else {user or caller.user}
        return _delete_empty(cl, [g for g in cl.job_groups.all() if owners is None or g.owner in owners], busy, owners)
    path = group_path(text)
    if cl.job_groups.get(path) is None:
        raise LsfError(M.NO_JOB_GROUP, path)
    if not _may_change(cl, caller, path):
        raise LsfError(M.PERM_DENIED)
    if below:
        return _delete_empty(cl, [g for g in cl.job_groups.all() if within(g.path, path)], busy, None)
    if any(within(b, path) for b in busy):
        raise LsfError(M.JOB_GROUP_HAS_JOBS, path)
    cl.job_groups.delete(path)
    return [path]


def _delete_empty(cl, groups: list, busy: set[str], owners: set[str] | None) -> list[str]:
    """Delete each of `groups` whose tree holds no unfinished job (and, with
    `owners`, only groups of theirs below it), the lowest first."""
    done = []
    for g in sorted(groups, key=lambda g: -g.path.count("/")):  # (a parent may be empty once its children are gone)
        if cl.job_groups.get(g.path) is None or any(within(b, g.path) for b in busy):
            continue
        if owners is not None and any(s.owner not in owners for s in cl.job_groups.all() if within(s.path, g.path)):
            continue
        cl.job_groups.delete(g.path)
        done.append(g.path)
    return sorted(done, key=lambda p: (p.count("/"), p))


@dataclass
class GroupRow:
    """One bjgroup line: the counts are of the group and its subgroups."""

    path: str
    owner: str
    limit: int | None
    pend: int = 0
    run: int = 0
    ssusp: int = 0
    ususp: int = 0
    finish: int = 0

    @property
    def njobs(self) -> int:
        return self.pend + self.run + self.ssusp + self.ususp + self.finish

    @property
    def started(self) -> int:
        return self.run + self.ssusp + self.ususp


def listing(cl, sort: bool, only: str | None) -> list[GroupRow]:
    """bjgroup [-s [path]]: the groups in creation order, or (-s) in the tree's
    order (each group followed by its subgroups); with a path, that group and
    its subgroups, or (trailing `/`) that group alone."""
    groups = cl.job_groups.all()
    if only is not None:
        top = group_path(only)
        if cl.job_groups.get(top) is None:
            raise LsfError(M.NO_JOB_GROUP, only)
        groups = [g for g in groups if (g.path == top if only.rstrip() != top else within(g.path, top))]
    if sort:
        order = {g.path: i for i, g in enumerate(cl.job_groups.all())}
        groups.sort(key=lambda g: [order.get(p, 0) for p in chain(g.path)])
    rows = {g.path: GroupRow(g.path, g.owner, g.job_limit) for g in groups}
    if not rows:
        return []
    for j in cl.jobs.values():
        if j.job_group is None:
            continue
        field = ("pend" if j.status in PENDING else "finish" if j.status in FINISHED
                 else {"RUN": "run", "SSUSP": "ssusp", "USUSP": "ususp"}.get(j.status))
        if field is None:
            continue
        for p in chain(j.job_group):
            r = rows.get(p)
            if r is not None:
                setattr(r, field, getattr(r, field) + 1)
    return list(rows.values())
