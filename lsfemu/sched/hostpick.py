"""bsub -m and -x in the pass, pure (issue 18, part 3): which hosts a job may
use, in which order, and whether it runs alone on them.

`-m "host1 host2+2 group1 others"`: only the hosts named (host groups
expanded; `others` stands for every host not named) are candidates; `+N`
gives a preference level, higher first, hosts without one last, each level in
the cluster's order. `host!` (the first execution host of a parallel job) is
read as a candidate. `candidates` checks the names and returns the ordered
hosts; `Placement` is what the pass carries for a job with -m or -x.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: a -m word: a name, then nothing, `!`, or `+` with an optional level
_WORD = re.compile(r"([^\s+!]+)(?:(!)|\+([0-9]{0,9}))?")


class AskedHostError(Exception):
    """A -m word that names no host or host group of the cluster."""

    def __init__(self, word: str):
        super().__init__(word)
        self.word = word


def candidates(text: str, host_names: list[str], host_groups: dict[str, list[str]]) -> list[str]:
    """The hosts `-m text` allows, best first (see the module docstring)."""
    level: dict[str, int] = {}
    others: int | None = None
    words = text.split()
    if not words:
        raise AskedHostError(text)
    known = set(host_names)
    for word in words:
        m = _WORD.fullmatch(word)
        if m is None:
            raise AskedHostError(word)
        name, pref = m.group(1), int(m.group(3) or (1 if m.group(3) == "" else 0))
        if name == "others":
            others = pref
            continue
        members = host_groups.get(name, [name] if name in known else None)
        if members is None:
            raise AskedHostError(word)
        for h in _expand(members, host_groups, known):
            level[h] = max(level.get(h, pref), pref)
    if others is not None:
        for h in host_names:
            level.setdefault(h, others)
    order = {h: i for i, h in enumerate(host_names)}
    return sorted(level, key=lambda h: (-level[h], order.get(h, len(order))))


def _expand(members: list[str], host_groups: dict[str, list[str]], known: set[str]) -> list[str]:
    out: list[str] = []
    for m in members:
        name = m.split("+", 1)[0].lstrip("~")
        if name in ("all", "others"):
            out.extend(sorted(known))
        elif name in host_groups:
            out.extend(_expand(host_groups[name], {k: v for k, v in host_groups.items() if k != name}, known))
        elif name in known:
            out.append(name)
    return out


@dataclass(frozen=True)
class Placement:
    """A job's own placement rules: the candidate hosts, best first (None: its
    queue's hosts), exclusive execution (bsub -x), and a user-specified host
    file's lines (bsub -hostfile, lsfemu.sched.hostfile: exactly those hosts
    and slots, in that order; None: none)."""

    hosts: tuple[str, ...] | None = None
    exclusive: bool = False
    listed: tuple[tuple[str, int], ...] | None = None
