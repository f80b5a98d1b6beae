"""lsb.users' User section as the cluster reads it per user: which row
decides a user's limits (its own, else the first `group@` row of a group it
is in, else `default`), and MAX_PEND_JOBS at submission.

MAX_PEND_JOBS (IBM, lsb.users): the pending jobs a user, each member of a
`group@`, or a group as a whole (its members' pending jobs together) may
have. A submission that would pass it is refused (OpenLava mbd.job.c: the
user's own limit first, then each group the user belongs to), with
`User <name>` or `Group <name>` as the subject of LSF's `Pending job
threshold reached`. A job array counts its elements; a pending job is
PEND or PSUSP (the tally's PEND bucket), counted as jobs, not slots.
"""

from __future__ import annotations

from lsfemu.config.model import UserLimitConf


def user_row(cfg, user: str) -> UserLimitConf | None:
    """The User row that decides *user*'s limits (None: no row, no limit)."""
    rows = cfg.user_limits
    row = rows.get(user)
    if row is not None:
        return row
    for name, row in rows.items():
        if name.endswith("@") and user in cfg.group_members(name[:-1]):
            return row
    return rows.get("default")


def pend_refusal(cl, user: str, count: int) -> str | None:
    """The subject of a refusal when *count* more pending jobs of *user*
    pass a MAX_PEND_JOBS (`User <u>`, `Group <g>`), else None."""
    cfg = cl.config
    rows = cfg.user_limits
    if not any(r.max_pend_jobs is not None for r in rows.values()):
        return None
    pending = cl.tally.pending_jobs()
    row = user_row(cfg, user)
    if row is not None and row.max_pend_jobs is not None and pending.get(user, 0) + count > row.max_pend_jobs:
        return f"User <{user}>"
    for name, row in rows.items():
        if row.max_pend_jobs is None or name not in cfg.user_groups:
            continue
        members = cfg.group_members(name)
        everyone = "all" in members
        if not everyone and user not in members:
            continue
        held = sum(n for u, n in pending.items() if everyone or u in members)
        if held + count > row.max_pend_jobs:
            return f"Group <{name}>"
    return None
