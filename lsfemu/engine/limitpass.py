"""The resource allocation limits of lsb.resources as the cluster's pass
uses them (issue 19): the configured Limit sections resolved into
lsfemu.sched.limits rules (user groups and host groups expanded), the
started jobs' usage counted each pass, and each pending job's Demand.
engine.passes calls it; blimits (ops.limits) reads the usage through it.
"""

from __future__ import annotations

from lsfemu.jobstate import STARTED
from lsfemu.sched import limits as L
from lsfemu.sched import resreq, select


def build(cfg) -> L.Limits | None:
    """The limits of a configuration (None: lsb.resources has none)."""
    if not cfg.limits:
        return None
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
    limits = L.Limits(rules)
    if any(r.slots_per_processor is not None for r in rules):  # SLOTS_PER_PROCESSOR: the hosts' processors
        limits.ncpus = {h: int(cfg.host_ncpus(h)) for h in cfg.host_names}
    return limits


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
