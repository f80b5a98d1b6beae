"""APS_PRIORITY (lsb.queues), parsed once here, and the APS checks of ``badmin ckconfig``.

Syntax (kept verbatim in QueueConf.aps_priority)::

    APS_PRIORITY = WEIGHT[[factor, value] ...] LIMIT[[factor, value] ...] GRACE_PERIOD[[factor, value] ...]

Factors: ``FS`` (the user's dynamic fairshare priority), ``RSRC`` with the
subfactors ``PROC``, ``MEM``, ``SWAP``, and ``WORK`` with ``JPRIORITY`` and
``QPRIORITY``. ``ADMIN`` is not configurable (bmod -aps "admin=V" sets it).
Weights and limits are floats, grace periods ``Ns``/``Nm``/``Nh`` (hours
without a unit). Zero is refused everywhere; limits must be positive; weights
may be negative (``[SWAP, -10]``). A subfactor's weight without its parent's
makes the parent's weight 1. Names are case-insensitive; each of WEIGHT,
LIMIT, GRACE_PERIOD appears at most once; ``WEIGHT [[...]]`` with spaces is fine.

Which queues an APS queue orders (:func:`aps_groups`): itself and the queues
of its QUEUE_GROUP; a queue belongs to one APS order only.

Seed disagreements and lsfemu's choices (docs/semantics.md repeats them):
queue-level FAIRSHARE *is* allowed in an APS queue (its only effect is the FS
factor; the seed's own examples combine them), FAIRSHARE_QUEUES,
DISPATCH_ORDER=QUEUE and host-partition fairshare are fatal in :func:`check_issues`;
only time-based SLA goals (velocity, deadline, throughput) conflict with APS
(:func:`sla_conflict`).

The value of a job and the order are lsfemu.sched.aps and lsfemu.sched.aps_rank.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

# -- factors ------------------------------------------------------------------

TOP_FACTORS = ("FS", "RSRC", "WORK")
SUBFACTORS = {"RSRC": ("PROC", "MEM", "SWAP"), "WORK": ("JPRIORITY", "QPRIORITY")}
PARENT = {sub: top for top, subs in SUBFACTORS.items() for sub in subs}
#: display order (bqueues -l, explain): each top factor followed by its subfactors
ALL_FACTORS = ("FS", "RSRC", "PROC", "MEM", "SWAP", "WORK", "JPRIORITY", "QPRIORITY")
SECTIONS = ("WEIGHT", "LIMIT", "GRACE_PERIOD")
_GRACE_UNITS = {"s": 1, "m": 60, "h": 3600}


class ApsSyntaxError(ValueError):
    """APS_PRIORITY or a bmod -aps string that cannot be used; the message says
    what was expected."""


@dataclass(frozen=True)
class ApsConfig:
    """A parsed APS_PRIORITY. ``weights``/``limits`` hold the configured values,
    ``grace`` seconds, ``grace_text`` the grace period as shown by bqueues -l
    (``3h``, ``4131s``; a bare number gets ``h``), ``implied`` the parents whose
    weight 1 comes from a weighted subfactor."""

    text: str
    weights: Mapping[str, float]
    limits: Mapping[str, float] = field(default_factory=dict)
    grace: Mapping[str, int] = field(default_factory=dict)
    grace_text: Mapping[str, str] = field(default_factory=dict)
    implied: frozenset[str] = frozenset()

    def weight(self, factor: str) -> float | None:
        """The effective weight (None = undefined, i.e. ignored)."""
        if factor in self.weights:
            return self.weights[factor]
        if factor in self.implied:
            return 1.0
        return None

    def shown(self, factor: str) -> bool:
        """Does the factor have a setting of its own (or an implied weight)?"""
        return factor in self.weights or factor in self.implied or factor in self.limits or factor in self.grace


def _show(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(text[:57] + "...")


def _number(section: str, factor: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ApsSyntaxError(f"APS_PRIORITY: {section} of {factor}: expected a number, got {_show(text)}") from None
    if not math.isfinite(value):
        raise ApsSyntaxError(f"APS_PRIORITY: {section} of {factor}: expected a finite number, got {_show(text)}")
    if value == 0:
        raise ApsSyntaxError(f"APS_PRIORITY: {section} of {factor} cannot be 0")
    return value


def _grace(factor: str, text: str) -> tuple[int, str]:
    m = re.match(r"^([0-9]+)\s*([smhSMH]?)$", text)
    if m is None:
        raise ApsSyntaxError(
            f"APS_PRIORITY: GRACE_PERIOD of {factor}: expected a positive whole number of seconds (s), "
            f"minutes (m) or hours (h, the default), e.g. 10m, got {_show(text)}")
    n = int(m.group(1))
    unit = (m.group(2) or "h").lower()
    if n == 0:
        raise ApsSyntaxError(f"APS_PRIORITY: GRACE_PERIOD of {factor} cannot be 0")
    return n * _GRACE_UNITS[unit], f"{n}{unit}"


_SECTION_RE = re.compile(r"([A-Za-z_]+)\s*\[")
_PAIR_RE = re.compile(r"\[\s*([^\[\],\s]+)\s*,\s*([^\[\],]*?)\s*\]")


def _pairs(section: str, body: str) -> list[tuple[str, str]]:
    """``[a, 1] [b, 2]`` -> pairs; anything else is refused."""
    out: list[tuple[str, str]] = []
    pos = 0
    body = body.strip()
    if not body:
        raise ApsSyntaxError(f"APS_PRIORITY: {section}[[...]] lists no factor; expected {section}[[factor, value] ...]")
    while pos < len(body):
        if body[pos].isspace():
            pos += 1
            continue
        m = _PAIR_RE.match(body, pos)
        if m is None:
            raise ApsSyntaxError(
                f"APS_PRIORITY: {section}: expected [factor, value] pairs, got {_show(body[pos:])}")
        out.append((m.group(1), m.group(2)))
        pos = m.end()
    return out


def _split_sections(text: str) -> list[tuple[str, str]]:
    """``WEIGHT[[..] [..]] LIMIT[[..]]`` -> [("WEIGHT", "[..] [..]"), ...]."""
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        m = _SECTION_RE.match(text, pos)
        if m is None:
            raise ApsSyntaxError(
                "APS_PRIORITY: expected WEIGHT[[factor, value] ...], LIMIT[[factor, value] ...] or "
                f"GRACE_PERIOD[[factor, value] ...], got {_show(text[pos:])}")
        name = m.group(1).upper()
        if name not in SECTIONS:
            raise ApsSyntaxError(
                f"APS_PRIORITY: unknown section {m.group(1)}; expected WEIGHT, LIMIT or GRACE_PERIOD")
        depth = 0
        j = m.end() - 1
        while j < len(text):
            if text[j] == "[":
                depth += 1
            elif text[j] == "]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if depth != 0:
            raise ApsSyntaxError(f"APS_PRIORITY: {name}[ is not closed with ]")
        out.append((name, text[m.end():j]))
        pos = j + 1
    return out


def parse_aps_priority(text: str) -> ApsConfig:
    """Parse an APS_PRIORITY value; :class:`ApsSyntaxError` says what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise ApsSyntaxError("APS_PRIORITY: empty; expected WEIGHT[[factor, value] ...]")
    weights: dict[str, float] = {}
    limits: dict[str, float] = {}
    grace: dict[str, int] = {}
    grace_text: dict[str, str] = {}
    seen_sections: set[str] = set()
    for section, body in _split_sections(text):
        if section in seen_sections:
            raise ApsSyntaxError(f"APS_PRIORITY: {section} is given twice")
        seen_sections.add(section)
        seen: set[str] = set()
        for name, value in _pairs(section, body):
            factor = name.upper()
            if factor == "ADMIN":
                raise ApsSyntaxError(
                    "APS_PRIORITY: ADMIN cannot be configured; administrators set it per job with "
                    'bmod -aps "admin=value"')
            if factor not in ALL_FACTORS:
                raise ApsSyntaxError(
                    f"APS_PRIORITY: unknown factor {name} in {section}; expected one of "
                    "FS, RSRC, PROC, MEM, SWAP, WORK, JPRIORITY, QPRIORITY")
            if factor in seen:
                raise ApsSyntaxError(f"APS_PRIORITY: {factor} is given twice in {section}")
            seen.add(factor)
            if section == "WEIGHT":
                weights[factor] = _number("WEIGHT", factor, value)
            elif section == "LIMIT":
                lim = _number("LIMIT", factor, value)
                if lim < 0:
                    raise ApsSyntaxError(f"APS_PRIORITY: LIMIT of {factor} must be positive, got {_show(value)}")
                limits[factor] = lim
            else:
                grace[factor], grace_text[factor] = _grace(factor, value)
    if "WEIGHT" not in seen_sections:
        raise ApsSyntaxError("APS_PRIORITY: no WEIGHT[[factor, value] ...]; every factor would be ignored")
    implied = frozenset(PARENT[f] for f in weights if f in PARENT and PARENT[f] not in weights)
    return ApsConfig(text=text, weights=weights, limits=limits, grace=grace, grace_text=grace_text, implied=implied)


def aps_groups(queues: Sequence[Any]) -> dict[str, str]:
    """queue name -> the APS queue ordering its jobs (itself, or the APS queue
    whose QUEUE_GROUP lists it). The first APS queue in lsb.queues order wins
    when a queue is claimed twice (:func:`check_issues` reports that)."""
    out: dict[str, str] = {}
    for q in queues:
        if getattr(q, "aps_priority", None):
            out.setdefault(q.name, q.name)
    for q in queues:
        if getattr(q, "aps_priority", None):
            for member in getattr(q, "queue_group", []) or []:
                out.setdefault(member, q.name)
    return out


# -- configuration checks (badmin ckconfig) -------------------------------------


@dataclass(frozen=True)
class ApsIssue:
    queue: str
    key: str  # the lsb.queues key to point at (its line is the caller's)
    message: str
    fatal: bool = True

    def __str__(self) -> str:
        return self.message


SLA_TIME_GOALS = ("velocity", "deadline", "throughput")


def sla_conflict(goal_types: Iterable[str]) -> str | None:
    """Message when a service class with these goal types meets an APS queue
    (only time-based goals conflict), else None."""
    bad = [g for g in goal_types if g.lower() in SLA_TIME_GOALS]
    if bad:
        return ("APS cannot be used together with time-based SLAs (velocity, deadline or throughput goals); "
                f"this service class has {', '.join(sorted(set(g.lower() for g in bad)))}")
    return None


def _hosts_overlap(a: list[str], b: list[str], groups: Mapping[str, list[str]]) -> bool:
    def expand(hosts: list[str]) -> set[str] | None:
        out: set[str] = set()
        for h in hosts:
            name = re.sub(r"\+[0-9]*$", "", h).rstrip("/")
            if name.startswith("~"):
                continue
            if name in ("all", "others"):
                return None
            out.update(groups.get(name, [name]))
        return out

    ea, eb = expand(a), expand(b)
    if ea is None or eb is None:
        return bool(a) and bool(b)
    return bool(ea & eb)


def check_issues(
    queues: Sequence[Any],
    params: Any = None,
    *,
    host_partitions: Mapping[str, Mapping[str, str]] | None = None,
    host_groups: Mapping[str, list[str]] | None = None,
) -> list[ApsIssue]:
    """Every APS problem of a configuration, fatal or not, in lsb.queues order."""
    issues: list[ApsIssue] = []
    names = {q.name for q in queues}
    claimed: dict[str, str] = {}
    host_groups = host_groups or {}
    for q in queues:
        lines = getattr(q, "lines", {}) or {}
        extra = getattr(q, "extra", {}) or {}
        group = list(getattr(q, "queue_group", []) or [])
        if not q.aps_priority:
            if group:
                issues.append(ApsIssue(q.name, "QUEUE_GROUP",
                                       f"Queue <{q.name}>: QUEUE_GROUP has no effect without APS_PRIORITY; ignored",
                                       fatal=False))
            continue
        try:
            cfg = parse_aps_priority(q.aps_priority)
        except ApsSyntaxError as e:
            issues.append(ApsIssue(q.name, "APS_PRIORITY", f"Queue <{q.name}>: {e}"))
            cfg = None
        if extra.get("DISPATCH_ORDER", "").strip().upper() == "QUEUE":
            issues.append(ApsIssue(q.name, "DISPATCH_ORDER",
                                   f"Queue <{q.name}>: APS_PRIORITY cannot be used together with "
                                   "DISPATCH_ORDER=QUEUE; remove one of them"))
        if "FAIRSHARE_QUEUES" in lines or "FAIRSHARE_QUEUES" in extra:
            issues.append(ApsIssue(q.name, "FAIRSHARE_QUEUES",
                                   f"Queue <{q.name}>: APS_PRIORITY cannot be used together with cross-queue "
                                   "fairshare (FAIRSHARE_QUEUES); use QUEUE_GROUP instead"))
        for hp_name, hp in (host_partitions or {}).items():
            hp_hosts = str(hp.get("HOSTS", "")).split()
            if _hosts_overlap(list(getattr(q, "hosts", ["all"]) or ["all"]), hp_hosts, host_groups):
                issues.append(ApsIssue(q.name, "APS_PRIORITY",
                                       f"Queue <{q.name}>: APS_PRIORITY cannot be used together with host-partition "
                                       f"fairshare (host partition {hp_name} shares this queue's hosts)"))
        if cfg is not None:
            if "FS" in cfg.weights and not getattr(q, "fairshare", None):
                issues.append(ApsIssue(q.name, "APS_PRIORITY",
                                       f"Queue <{q.name}>: the FS factor of APS_PRIORITY is ignored: "
                                       "the queue has no FAIRSHARE", fatal=False))
            for top, subs in SUBFACTORS.items():
                if top in cfg.weights and not any(s in cfg.weights for s in subs):
                    issues.append(ApsIssue(q.name, "APS_PRIORITY",
                                           f"Queue <{q.name}>: the weight of {top} has no effect: none of its "
                                           f"subfactors ({', '.join(subs)}) has a weight", fatal=False))
            if cfg.weight("JPRIORITY") is not None and params is not None \
                    and getattr(params, "max_user_priority", None) is None:
                issues.append(ApsIssue(q.name, "APS_PRIORITY",
                                       f"Queue <{q.name}>: the JPRIORITY factor needs MAX_USER_PRIORITY in "
                                       "lsb.params; without it every job priority is 0", fatal=False))
        members = [q.name] + [m for m in group if m != q.name]
        if q.name in group:
            issues.append(ApsIssue(q.name, "QUEUE_GROUP",
                                   f"Queue <{q.name}>: QUEUE_GROUP lists the queue itself; ignored", fatal=False))
        for m in members:
            if m not in names and m != q.name:
                continue  # the config parser already reports unknown queues
            if m in claimed and claimed[m] != q.name:
                issues.append(ApsIssue(q.name, "QUEUE_GROUP",
                                       f"Queue <{q.name}>: queue {m} is already ordered by the APS queue "
                                       f"{claimed[m]}; a queue belongs to one APS order only"))
            else:
                claimed[m] = q.name
    # members of an APS group: same conflicts as the APS queue itself
    by_name = {q.name: q for q in queues}
    for member, owner in sorted(aps_groups(queues).items()):
        if member == owner or member not in by_name:
            continue
        mq = by_name[member]
        extra = getattr(mq, "extra", {}) or {}
        if extra.get("DISPATCH_ORDER", "").strip().upper() == "QUEUE":
            issues.append(ApsIssue(member, "DISPATCH_ORDER",
                                   f"Queue <{member}>: DISPATCH_ORDER=QUEUE cannot be used in the QUEUE_GROUP of "
                                   f"the APS queue {owner}"))
        if "FAIRSHARE_QUEUES" in (getattr(mq, "lines", {}) or {}) or "FAIRSHARE_QUEUES" in extra:
            issues.append(ApsIssue(member, "FAIRSHARE_QUEUES",
                                   f"Queue <{member}>: FAIRSHARE_QUEUES cannot be used in the QUEUE_GROUP of the "
                                   f"APS queue {owner}; QUEUE_GROUP replaces it"))
    return issues


def check_conflicts(queues: Sequence[Any], params: Any = None, **kw: Any) -> list[str]:
    """The fatal APS problems as ckconfig messages (file/line are the caller's);
    :func:`check_issues` also gives the warnings and the key to point at."""
    return [i.message for i in check_issues(queues, params, **kw) if i.fatal]
