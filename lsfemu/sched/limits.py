"""Resource allocation limits (lsb.resources Limit sections) in the
scheduling pass, pure (issue 19).

A `Rule` is one configured limit with its consumers resolved to names (the
caller expands user and host groups): for each consumer kind (users, queues,
projects, apps, hosts) a `Match` says whether a job's value falls under the
limit and which usage bucket it counts in (`*`: the listed consumers
together; the name itself for PER_USER and its kin). `Limits` holds the rules
and the usage of the started jobs, bucket by bucket (slots, jobs, and the
amounts their rusage reserves: mem, swp, tmp, any RESOURCE); the pass asks it
through the `Demand` of each pending job (one object per distinct user,
queue, project, application, slots and amounts):

* `blocked(demand)`: the reason text when a limit without a host dimension
  keeps the job pending (LSF's PEND_GENERAL_LIMIT_* texts, no host count);
* `cap(demand, free_by_host, note)`: how many slots each host may still give
  the job under the limits with HOSTS or PER_HOST (taken host by host in
  the allocation's order, so that the listed hosts together never exceed
  their limit); a host that may give none is noted with the host-based text
  (printed with its host count);
* `hold(demand, hosts)`: count a started job (the pass starts several).

What counts (IBM, "How resource allocation limits work"): the started jobs
(RUN, SSUSP, USUSP); SLOTS and JOBS count every job the limit's consumers
cover; MEM, SWP, TMP and RESOURCE only jobs that reserve that resource with
rusage, by the amount reserved (on a host: the job's amount per slot times
its slots there).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

#: the consumer kinds a job is matched on besides its hosts, in bucket-key order
KINDS = ("users", "queues", "projects", "apps")

# LSF's texts (lsbatch.h PEND_GENERAL_LIMIT_*; the cluster-wide one as IBM's
# "How resource allocation limits work" shows it). {} is the resource: slot,
# mem, swp, tmp or a RESOURCE name.
RESOURCE_REASON = {
    "user": "Resource ({}) limit defined on user or user group has been reached",
    "queue": "Resource ({}) limit defined on queue has been reached",
    "project": "Resource ({}) limit defined on project has been reached",
    "cluster": "Resource ({}) limit defined cluster-wide has been reached",
    "host": "Resource ({}) limit defined on host and/or host group has been reached",
}
JOBS_REASON = {
    "user": "JOBS limit defined for the user or user group has been reached",
    "queue": "JOBS limit defined for the queue has been reached",
    "project": "JOBS limit defined for the project has been reached",
    "cluster": "JOBS limit defined cluster-wide has been reached",
    "host": "JOBS limit defined on host or host group has been reached",
}

# The slot limits of lsb.users (JL/P) and lsb.hosts (JL/U), given the form of
# a Rule with its own text: OpenLava's lsb.reason.c PEND_USER_PROC_JLIMIT,
# PEND_UGRP_PROC_JLIMIT and PEND_HOST_USR_JLIMIT, host-based (printed with a
# host count)
USER_PROC_LIMIT = "User's per-CPU job slot limit reached"
UGRP_PROC_LIMIT = "User group's per-CPU job slot limit reached"
HOST_USER_LIMIT = "Host's per-user job slot limit reached"
# a group's MAX_JOBS (lsb.users, the group's own row): job-level, PEND_UGRP_JOB_LIMIT
# and PEND_UGRP_PJOB_LIMIT (the group has slots left, fewer than the job asks)
UGRP_JOB_LIMIT = ("One of the user's groups has reached its job slot limit",
                  "One of user's groups has not enough job slots for the parallel job")


@dataclass(frozen=True)
class Match:
    """One consumer of a limit, resolved: *members* None for everyone."""

    per: bool
    members: frozenset[str] | None
    excluded: frozenset[str] = frozenset()

    def key(self, value: str | None) -> str | None:
        """The usage bucket of *value* under this consumer (None: not covered)."""
        if value is None or value in self.excluded or (self.members is not None and value not in self.members):
            return None
        return value if self.per else "*"


@dataclass
class Rule:
    """One limit: its consumers and what it caps."""

    index: int
    name: str
    match: dict[str, Match]  # kind in KINDS -> its consumer (absent: every one, together)
    hosts: Match | None = None  # HOSTS / PER_HOST (None: the whole cluster, together)
    slots: int | None = None
    slots_per_processor: float | None = None
    jobs: int | None = None
    caps: dict[str, float] = field(default_factory=dict)  # mem / swp / tmp / RESOURCE name -> amount
    host_caps: dict[str, dict[str, float]] = field(default_factory=dict)  # host -> its caps (a MEM percentage)
    # a limit of lsb.users (JL/P, a group's MAX_JOBS) or lsb.hosts (JL/U) given
    # the same form: its own pending reason (LSF's) in place of the lsb.resources
    # texts; a pair: (no slot left, fewer slots left than the job asks)
    text: str | tuple[str, str] | None = None

    def caps_on(self, host: str | None) -> dict[str, float]:
        """What the limit caps on *host* (a percentage made an amount there)."""
        if not self.host_caps or host is None:
            return self.caps
        return {**self.caps, **self.host_caps.get(host, {})}

    @property
    def kind(self) -> str:
        """Which of LSF's texts its reasons use."""
        if self.hosts is not None:
            return "host"
        for k, word in (("users", "user"), ("queues", "queue"), ("projects", "project")):
            if k in self.match:
                return word
        return "cluster"

    def reason(self, what: str, full: bool = True) -> str:
        if self.text is not None:
            return self.text if isinstance(self.text, str) else self.text[0 if full else 1]
        return JOBS_REASON[self.kind] if what == "jobs" else RESOURCE_REASON[self.kind].format(what)


class Demand:
    """What one kind of pending job asks of the limits: the rules that
    cover it, each with the bucket key it counts in."""

    __slots__ = ("slots", "amounts", "flat", "hosted", "by_host", "tag", "_fits")

    def __init__(self, slots: int, amounts: dict[str, float], flat: list, hosted: list, tag: str):
        self.slots = slots
        self.amounts = amounts
        self.flat = flat  # [(rule, key)]: rules without a host dimension
        self.hosted = hosted  # [(rule, key without the host)]: rules with HOSTS / PER_HOST
        self.by_host = bool(hosted)
        self.tag = tag  # what else a refusal depends on (project, app, amounts), for PendingJob.fit
        self._fits: dict[str, str] = {}  # a PendingJob.fit -> it with the tag (the tagged one -> itself)

    def fit(self, fit: str) -> str:
        """*fit* (a PendingJob.fit, tagged already or not) with the tag: jobs
        the pass may refuse alike still share one refusal."""
        tagged = self._fits.get(fit)
        if tagged is None:
            tagged = sys.intern(fit + self.tag)
            self._fits[fit] = self._fits[tagged] = tagged
        return tagged


class Limits:
    """The rules and the started jobs' usage (see the module docstring)."""

    def __init__(self, rules: list[Rule]):
        self.rules = rules
        self.used: dict[tuple, list] = {}  # (rule index, user, queue, project, app, host) -> [slots, jobs, {res: amount}]
        self.ncpus: dict[str, int] = {}  # host -> processors (SLOTS_PER_PROCESSOR), set by the caller
        self._demands: dict[tuple, Demand | None] = {}
        self._kinds = {k for r in rules for k in r.match}
        self._capped = ({res for r in rules for res in r.caps}  # the resources some rule caps
                        | {res for r in rules for caps in r.host_caps.values() for res in caps})

    def reset(self) -> None:
        """Forget the usage (the caller counts the started jobs again)."""
        self.used.clear()

    def demand(self, user: str, queue: str, project: str | None, app: str | None, slots: int,
               amounts: dict[str, float]) -> Demand | None:
        """The Demand of a job (None: no limit covers it)."""
        wanted = tuple(sorted((k, v) for k, v in amounts.items() if v and k in self._capped))
        ident = (user, queue, project if "projects" in self._kinds else None,
                 app if "apps" in self._kinds else None, slots, wanted)
        if ident in self._demands:
            return self._demands[ident]
        values = {"users": user, "queues": queue, "projects": project, "apps": app}
        flat, hosted = [], []
        for r in self.rules:
            key = []
            for k in KINDS:
                m = r.match.get(k)
                part = "*" if m is None else m.key(values[k])
                if part is None:
                    break
                key.append(part)
            else:
                (hosted if r.hosts is not None else flat).append((r, (r.index,) + tuple(key)))
        d = None
        if flat or hosted:
            d = Demand(slots, dict(wanted), flat, hosted, "\1" + "\0".join(map(str, ident[2:4] + (wanted,))))
        self._demands[ident] = d
        return d

    def blocked(self, d: Demand) -> str | None:
        """The reason a limit without a host dimension keeps the job pending, or None."""
        for rule, key in d.flat:
            c = self.used.get(key + ("*",))
            slots, jobs, amounts = c if c is not None else (0, 0, {})
            if rule.slots is not None and slots + d.slots > rule.slots:
                return rule.reason("slot", slots >= rule.slots)
            if rule.jobs is not None and jobs + 1 > rule.jobs:
                return rule.reason("jobs")
            for res, cap in rule.caps.items():
                need = d.amounts.get(res, 0.0)
                if need > 0 and amounts.get(res, 0.0) + need > cap + 1e-9:
                    return rule.reason(res)
        return None

    def cap(self, d: Demand, free_by_host: list[tuple[str, int]], note) -> list[tuple[str, int]]:
        """*free_by_host* ((host, free slots), in allocation order) with each
        host's slots cut to what the host-dimension limits still allow; a
        host left with none is dropped and noted with the limit's reason."""
        taken: dict[tuple, list] = {}  # bucket -> [slots, {res: amount}] this job would take there
        out = []
        for host, free in free_by_host:
            room, why, keys = free, None, []
            for rule, base in d.hosted:
                hk = rule.hosts.key(host)
                if hk is None:
                    continue
                key = base + (hk,)
                keys.append(key)
                allowed, what = self._room(rule, d, host, self.used.get(key), taken.get(key), key in taken)
                if allowed < room:
                    room = allowed
                    if allowed <= 0 and why is None:
                        why = rule.reason(what)
            if room <= 0:
                note(why)
                continue
            for key in keys:
                t = taken.setdefault(key, [0, {}])
                t[0] += room
                for res, amount in d.amounts.items():
                    t[1][res] = t[1].get(res, 0.0) + amount / max(d.slots, 1) * room
            out.append((host, room))
        return out

    def _room(self, rule: Rule, d: Demand, host: str, c: list | None, t: list | None,
              counted: bool) -> tuple[float, str]:
        """The slots *rule* still allows the job on *host* (bucket usage *c*,
        what the job takes in the bucket on earlier hosts *t*), and what caps it."""
        slots, jobs, amounts = c if c is not None else (0, 0, {})
        t_slots, t_amounts = t if t is not None else (0, {})
        room, what = math.inf, "slot"
        limit = rule.slots
        if limit is None and rule.slots_per_processor is not None:
            # (rounded up: JL/P may be a fraction; "0.5 on a 4-CPU host: 2 slots, on one CPU: 1")
            limit = math.ceil(round(rule.slots_per_processor * self.ncpus.get(host, 1), 9))
        if limit is not None:
            room = limit - slots - t_slots
        if rule.jobs is not None and not counted and jobs + 1 > rule.jobs:
            room, what = 0, "jobs"
        for res, cap in rule.caps_on(host).items():
            per = d.amounts.get(res, 0.0) / max(d.slots, 1)
            if per > 0:
                n = math.floor((cap - amounts.get(res, 0.0) - t_amounts.get(res, 0.0)) / per + 1e-9)
                if n < room:
                    room, what = n, res
        return room, what

    def hold(self, d: Demand, hosts: list[str]) -> None:
        """Count a started job (one host name per slot)."""
        used = self.used
        for _rule, key in d.flat:
            _add(used, key + ("*",), d.slots, 1, d.amounts, 1.0)
        if d.hosted:
            per_host: dict[str, int] = {}
            for h in hosts:
                per_host[h] = per_host.get(h, 0) + 1
            for rule, base in d.hosted:
                counted: set[tuple] = set()
                for h, n in per_host.items():
                    hk = rule.hosts.key(h)
                    if hk is None:
                        continue
                    key = base + (hk,)
                    _add(used, key, n, 0 if key in counted else 1, d.amounts, n / max(d.slots, 1))
                    counted.add(key)

    def state(self) -> tuple:
        """The usage, comparable (the quiet pass's state key)."""
        return tuple(sorted((k, c[0], c[1], tuple(sorted(c[2].items()))) for k, c in self.used.items()))


def _add(used: dict, key: tuple, slots: int, jobs: int, amounts: dict[str, float], share: float) -> None:
    c = used.get(key)
    if c is None:
        c = used[key] = [0, 0, {}]
    c[0] += slots
    c[1] += jobs
    for res, amount in amounts.items():
        c[2][res] = c[2].get(res, 0.0) + amount * share
