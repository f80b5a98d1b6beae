"""blimits' view of the resource allocation limits (lsb.resources): one row
per limit and consumer bucket the started jobs use (every limit with -a),
each resource as (used, limit), filtered by the options' consumers; and the
limits as configured (-c). The usage is counted as the pass counts it
(lsfemu.engine.limitpass)."""

from __future__ import annotations

from dataclasses import dataclass, field

from lsfemu.engine import limitpass
from lsfemu.sched.limits import KINDS

#: blimits' consumer columns: kind -> the option that filters it
FILTERS = ("users", "queues", "hosts", "projects", "apps")
#: the built-in resources of the INTERNAL table, in LSF's column order
INTERNAL = ("slots", "mem", "tmp", "swp", "jobs")


@dataclass
class LimitRow:
    name: str
    consumers: dict[str, str]  # users / queues / hosts / projects / apps -> its text ("-": not limited by it)
    internal: dict[str, tuple[float, float] | None]  # slots, mem, tmp, swp, jobs -> (used, limit); None: no limit
    external: dict[str, tuple[float, float]] = field(default_factory=dict)  # RESOURCE name -> (used, limit)


def limit_rows(cl, all_: bool = False, names=None, users=None, queues=None, hosts=None, projects=None,
               apps=None) -> list[LimitRow]:
    """The rows blimits shows (see the module docstring)."""
    limits = limitpass.usage(cl)
    if limits is None:
        return []
    cfg = cl.config
    wanted = {"users": _expand_users(cfg, users), "queues": queues, "hosts": _expand_hosts(cfg, hosts),
              "projects": projects, "apps": apps}
    used_by_rule: dict[int, list] = {}
    for key, counters in sorted(limits.used.items()):
        used_by_rule.setdefault(key[0], []).append((key, counters))
    rows = []
    for rule, lc in zip(limits.rules, cfg.limits):
        if names and rule.name not in names:
            continue
        buckets = used_by_rule.get(rule.index, [])
        if not buckets and all_:
            buckets = [(None, None)]
        for key, counters in buckets:
            consumers = _consumers(lc, key)
            if not _selected(rule, lc, key, wanted):
                continue
            rows.append(_row(rule, consumers, key, counters, limits.ncpus.get(key[-1]) if key else None))
    return rows


def _consumers(lc, key) -> dict[str, str]:
    """Each consumer column's text: the bucket's name (PER_ kinds), else the words as configured."""
    out = {}
    parts = dict(zip(KINDS + ("hosts",), key[1:])) if key else {}
    for kind in FILTERS:
        c = lc.consumers.get(kind)
        if c is None:
            out[kind] = "-"
        elif c.per and parts.get(kind, "*") != "*":
            out[kind] = parts[kind]
        else:
            out[kind] = c.words[0] if len(c.words) == 1 else "(" + " ".join(c.words) + ")"
    return out


def _selected(rule, lc, key, wanted) -> bool:
    """Whether the row covers every consumer the options name."""
    parts = dict(zip(KINDS + ("hosts",), key[1:])) if key else {}
    for kind, names in wanted.items():
        if not names:
            continue
        match = rule.hosts if kind == "hosts" else rule.match.get(kind)
        if match is None:
            return False  # the limit does not name this kind of consumer
        bucket = parts.get(kind)
        if any(match.key(n) is not None and (bucket in (None, "*") or bucket == n) for n in names):
            continue
        return False
    return True


def _row(rule, consumers, key, counters, ncpus: int | None) -> LimitRow:
    slots, jobs, amounts = counters if counters is not None else (0, 0, {})
    slot_limit = rule.slots
    if slot_limit is None and rule.slots_per_processor is not None:
        slot_limit = rule.slots_per_processor * (ncpus or 1)
    internal = {"slots": (slots, slot_limit) if slot_limit is not None else None,
                "jobs": (jobs, rule.jobs) if rule.jobs is not None else None}
    caps = rule.caps_on(key[-1] if key else None)  # (a percentage: MB on the row's host)
    capped = set(rule.caps) | {res for host_caps in rule.host_caps.values() for res in host_caps}
    for res in ("mem", "tmp", "swp"):
        internal[res] = (amounts.get(res, 0.0), caps.get(res, 0.0)) if res in capped else None
    external = {res: (amounts.get(res, 0.0), cap) for res, cap in rule.caps.items() if res not in ("mem", "tmp", "swp")}
    return LimitRow(rule.name, consumers, internal, external)


def _expand_users(cfg, names):
    if not names:
        return names
    out = []
    for n in names:
        out.extend(sorted(cfg.group_members(n)) if n in cfg.user_groups else [n])
    return out


def _expand_hosts(cfg, names):
    if not names:
        return names
    out = []
    for n in names:
        out.extend(cfg.host_groups.get(n, [n]))
    return out


def configured(cl, names=None) -> list:
    """The limits as configured (blimits -c): config.lsb_resources.LimitConf, in file order."""
    return [lc for lc in cl.config.limits if not names or lc.name in names]
