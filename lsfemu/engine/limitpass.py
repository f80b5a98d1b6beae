"""The resource allocation limits of lsb.resources as the cluster's pass
uses them (issue 19): the configured Limit sections resolved into
lsfemu.sched.limits rules (user groups and host groups expanded), the
started jobs' usage counted each pass, and each pending job's Demand.
engine.passes calls it; blimits (ops.limits) reads the usage through it.

The slot limits of lsb.users (JL/P: a user's, or a user group's, slots per
processor on each host; a group's MAX_JOBS: its members' slots together) and
lsb.hosts (JL/U: each user's slots on the host) are rules of the same form, after lsb.resources' (blimits shows
only those): one count, one check, with their own pending reasons.
"""

from __future__ import annotations

from lsfemu.jobstate import STARTED
from lsfemu.sched import limits as L
from lsfemu.sched import resreq, select


def build(cfg) -> L.Limits | None:
    """The limits of a configuration (None: lsb.resources has none, and no
    JL/P or JL/U is configured)."""
    rules = _resource_rules(cfg) if cfg.limits else []
    rules += slot_rules(cfg, len(rules))
    if not rules:
        return None
    limits = L.Limits(rules)
    if any(r.slots_per_processor is not None for r in rules):  # SLOTS_PER_PROCESSOR, JL/P: the hosts' processors
        limits.ncpus = {h: int(cfg.host_ncpus(h)) for h in cfg.host_names}
    return limits


def _resource_rules(cfg) -> list[L.Rule]:
    """lsb.resources' Limit sections, in order (their index is their place: blimits)."""
    units = resreq.units_from_conf(cfg.lsf_conf)  # MEM/SWP/TMP as rusage reads a bare amount, into MB
    rules = []
    for i, lc in enumerate(cfg.limits):
        match = {kind: resolve(cfg, kind, c) for kind, c in lc.consumers.items() if kind != "hosts"}
        hosts = resolve(cfg, "hosts", lc.consumers["hosts"]) if "hosts" in lc.consumers else None
        caps = {res: v * select.UNIT_MB[units[res].lower()] for res, v in lc.amounts.items()}
        caps.update(lc.resources)
        host_caps = {h: {res: pct / 100.0 * cfg.host_hardware(h)["max" + res] for res, pct in lc.percents.items()}
                     for h in cfg.host_names} if lc.percents else {}
        rules.append(L.Rule(i, lc.name, match, hosts, lc.slots, lc.slots_per_processor, lc.jobs, caps, host_caps))
    return rules


def slot_rules(cfg, start: int) -> list[L.Rule]:
    """JL/P of lsb.users, a group's MAX_JOBS (its members' slots together)
    and JL/U of lsb.hosts as rules, numbered from *start*.

    JL/P: a user's own row, else the first `group@` row of a group it is in,
    else the `default` row (the row found decides, as for MAX_JOBS: a row
    with JL/P `-` leaves the user unlimited); a group's row (no `@`) limits
    its members together. Each counts per host, up to ceil(JL/P x ncpus)
    slots there. JL/U: each host's row, else `default`; per user and host."""
    rules: list[L.Rule] = []
    rows = cfg.user_limits
    named = {n for n in rows if n != "default" and not n.endswith("@") and n not in cfg.user_groups}
    taken = set(named)  # users a row already decides
    for name, row in rows.items():
        if name in named:
            if row.jl_p is not None:
                rules.append(_jl_p(start + len(rules), name, L.Match(False, frozenset((name,))), row.jl_p,
                                   L.USER_PROC_LIMIT))
        elif name.endswith("@") and name[:-1] in cfg.user_groups:
            members = cfg.group_members(name[:-1]) - taken  # (as Cluster.user_limit reads them for MAX_JOBS)
            taken |= members
            if row.jl_p is not None and members:
                rules.append(_jl_p(start + len(rules), name, L.Match(True, frozenset(members)), row.jl_p,
                                   L.USER_PROC_LIMIT))
        elif name in cfg.user_groups:
            members = cfg.group_members(name)
            users = L.Match(False, None if "all" in members else frozenset(members))
            if row.max_jobs is not None:  # the group's slots together (a user's own MAX_JOBS: the pass's user_limits)
                rules.append(L.Rule(start + len(rules), f"MAX_JOBS {name}", {"users": users}, slots=row.max_jobs,
                                    text=L.UGRP_JOB_LIMIT))
            if row.jl_p is not None:
                rules.append(_jl_p(start + len(rules), name, users, row.jl_p, L.UGRP_PROC_LIMIT))
    default = rows.get("default")
    if default is not None and default.jl_p is not None:
        rules.append(_jl_p(start + len(rules), "default", L.Match(True, None, frozenset(taken)), default.jl_p,
                           L.USER_PROC_LIMIT))
    by_value: dict[int, list[str]] = {}
    for h in cfg.host_names:
        row = cfg.hosts.get(h) or cfg.hosts.get("default")
        if row is not None and row.jl_u is not None:
            by_value.setdefault(row.jl_u, []).append(h)
    for value, hosts in by_value.items():
        rules.append(L.Rule(start + len(rules), "JL/U", {"users": L.Match(True, None)},
                            L.Match(True, frozenset(hosts)), slots=value, text=L.HOST_USER_LIMIT))
    return rules


def _jl_p(index: int, name: str, users: L.Match, per_cpu: float, text: str) -> L.Rule:
    """A JL/P row's rule: *users* on each host (counted per host), ceil(JL/P x ncpus) slots."""
    return L.Rule(index, f"JL/P {name}", {"users": users}, L.Match(True, None), slots_per_processor=per_cpu,
                  text=text)


def resolve(cfg, kind: str, consumer) -> L.Match:
    """A consumer's words as names: `all`, user groups (recursively) and host
    groups expanded, `~name` excluded."""
    members: set[str] = set()
    excluded: set[str] = set()
    everyone = False
    for word in consumer.words:
        name = word.lstrip("~")
        target = excluded if word.startswith("~") else members
        if name == "all":
            everyone = everyone or target is members
        elif kind == "users" and name in cfg.user_groups:
            target |= cfg.group_members(name)
        elif kind == "hosts" and name in cfg.host_groups:
            target.update(cfg.host_groups[name])
        else:
            target.add(name)
    return L.Match(consumer.per, None if everyone else frozenset(members), frozenset(excluded))


def demand_of(cl, limits: L.Limits, job) -> L.Demand | None:
    """What *job* asks of the limits (its rusage amounts as the cluster reads
    them, its queue's and application's RES_REQ included)."""
    n = job.num_processors
    # (the requirement placement reads: -R with the queue's and application's RES_REQ merged in)
    return limits.demand(job.user, job.queue, job.project, job.app_profile, n,
                         cl.rusage(cl.requirements.text_of(job), n))


def count(cl, limits: L.Limits | None, inp, held) -> None:
    """The usage of the started jobs in *held*, into *limits*, given to the pass input."""
    if limits is None:
        return
    limits.reset()
    for job in held:
        if job.status in STARTED:
            d = demand_of(cl, limits, job)
            if d is not None:
                limits.hold(d, job.exec_hosts.split())
    inp.limits = limits


def attach(cl, limits: L.Limits | None, pending) -> None:
    """Each pending job's Demand (and the refusal key it implies)."""
    if limits is None:
        return
    jobs = cl.jobs
    for pj in pending:
        d = pj.limits = demand_of(cl, limits, jobs[pj.key])
        if d is not None:
            pj.fit = d.fit(pj.fit)


def usage(cl) -> L.Limits | None:
    """The limits with the started jobs' usage now (blimits)."""
    limits = build(cl.config)
    if limits is not None:
        for job in cl.passes.started_jobs():
            d = demand_of(cl, limits, job)
            if d is not None:
                limits.hold(d, job.exec_hosts.split())
    return limits
