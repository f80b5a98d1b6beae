"""bugroup (user groups and their shares) and bhpart (host partitions and
their fairshare tables).

Layouts (no LSF 10 sample in the reference; inferred from the LSF manual
pages' descriptions and written down in docs/semantics.md):
    bugroup       GROUP_NAME / USERS table, members space-separated
    bugroup -l    GROUP_NAME:, USERS:, SHARES: lines per group, blank-separated
    bugroup -r    the members with subgroups expanded to their users (each once)
    bhpart        HOST_PARTITION_NAME / NUM_HOSTS / HOST_NAME table
    bhpart -r     HOST_PARTITION_NAME:, HOSTS:, then SHARE_INFO_FOR blocks
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional


from lsfemu.cli.base import Ctx, Result, ctx, run_command
from lsfemu.render import messages
from lsfemu.render.fairshare import share_info_block


def _expanded(groups, name: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """bugroup -r: a group's users with its subgroups expanded, each user once, in order."""
    out: dict[str, None] = {}
    for m in groups[name].members:
        if m in groups and m not in seen:
            out.update(dict.fromkeys(_expanded(groups, m, seen | {name})))
        elif m not in groups:
            out[m] = None
    return list(out)


def bugroup(
    long: bool = False,
    recursive: bool = False,
    wide: bool = False,
    names: Optional[list[str]] = None,
) -> None:
    c = ctx()
    groups = c.cluster.config.user_groups
    wanted = names or list(groups)
    rows = []
    for n in wanted:
        g = groups.get(n)
        if g is None:
            c.error(messages.object_error(n, messages.NO_SUCH_GROUP))
            continue
        rows.append(replace(g, members=_expanded(groups, n)) if recursive else g)
    if not rows:
        if not names:
            c.error("No user group defined")
        return
    if long:
        blocks = []
        for g in rows:
            lines = [f"GROUP_NAME:  {g.name}", "USERS:  " + " ".join(g.members) + " "]
            if g.user_shares:
                lines.append("SHARES:  " + g.user_shares.strip() + " ")
            blocks.append("\n".join(lines) + "\n")
        c.out.append("\n".join(blocks))
        return
    width = max([len("GROUP_NAME")] + [len(g.name) for g in rows]) + 2 if wide else 14
    c.out.append(f"{'GROUP_NAME':<{width}}USERS\n")
    for g in rows:
        c.out.append(f"{g.name:<{width}}{' '.join(g.members)}\n")


def bhpart(
    recursive: bool = False,
    names: Optional[list[str]] = None,
) -> None:
    c = ctx()
    cl = c.cluster
    parts = cl.fs_partitions
    wanted = names or list(parts)
    for n in names or []:
        if n not in parts:
            c.error(f"{n}: No such host partition")
    wanted = [n for n in wanted if n in parts]
    if not wanted:
        if not names:
            c.error("No host partition defined")
        return
    if not recursive:
        c.out.append("HOST_PARTITION_NAME  NUM_HOSTS  HOST_NAME\n")
        for n in wanted:
            hosts = sorted(parts[n].hosts)
            c.out.append(f"{n:<21}{len(hosts):<11}{' '.join(hosts)}\n")
        return
    live = cl.fairshare()
    blocks = []
    for n in wanted:
        scope = parts[n]
        state = live.scope_state(scope)
        text = [f"HOST_PARTITION_NAME: {n}", "HOSTS: " + " ".join(sorted(scope.hosts)), ""]
        for level in state.tree.levels():
            text.append(share_info_block("/".join((n,) + tuple(level)) + "/", state.share_info(level)).rstrip("\n"))
            text.append("")
        blocks.append("\n".join(text))
    c.out.append("\n".join(blocks))


def run_bugroup(c: Ctx) -> Result:
    return run_command(c, bugroup)


def run_bhpart(c: Ctx) -> Result:
    return run_command(c, bhpart)
