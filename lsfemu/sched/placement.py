"""Where a job's slots go under its resource requirement, pure (issue 19).

A job's effective requirement (bsub -R merged with its queue's and
application's RES_REQ) is compiled once into a `Req`: its alternatives
(``{...} || {...}``), each a tuple of `Term`s (one for a simple requirement,
one per ``n*{...}`` of a compound one). A term holds the compiled select[] and
order[], what rusage[] reserves (per slot, per host used, once per job), and
span[] and same[]. Jobs with the same requirement share one Req: what a pass
learns about a requirement on a host holds for all of them.

`fit` places one job on candidate hosts, as mbatchd does host by host
(OpenLava mbd.policy.c): a host whose load fails select[] gives
`Job's resource requirements not satisfied`; one without room for the
reservation `Job's requirements for reserving resource (<name>) not
satisfied`; one with fewer free slots than span[] needs `Not enough
processors to meet the job's spanning requirement`. Hosts are taken best
first by order[] when one is given (else in the candidates' order: the
cluster's, or -m's preferences), `ptile` slots a host at most (the last host
the remainder), span[hosts=1] all on one host, same[] all on hosts sharing
those resources' values. An alternative that cannot be placed passes to the
next; a compound requirement places its terms in turn.

`reservation` says what a placed job holds on each host, for the pass (while
it places more jobs) and for the engine (the jobs already running).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from lsfemu.sched.select import monotone as _select_monotone

RES_REQ = "Job's resource requirements not satisfied"
NO_SPAN = "Not enough processors to meet the job's spanning requirement"
LESS_SLOTS = "Not enough job slot(s)"
_RSV = "Job's requirements for reserving resource ({}) not satisfied"


def rsv_reason(resource: str) -> str:
    """The host reason for a reservation that does not fit (PEND_HOST_JOB_RUSAGE + resource)."""
    return _RSV.format(resource)


@dataclass(frozen=True)
class Rsv:
    """One resource rusage[] reserves: its phases' amounts (MB for mem, swp,
    tmp), durations in minutes (one per phase; the last may be missing: until
    the job ends) and decays, and how it counts: "slot" (for each slot on a
    host), "host" (once on each host used) or "job" (once, on the first host)."""

    name: str
    amounts: tuple[float, ...]
    per: str = "host"
    durations: tuple[float, ...] = ()
    decays: tuple[int, ...] = ()

    def at(self, minutes: float) -> float:
        """The amount held *minutes* after the job started: each phase for its
        duration (falling linearly to nothing over it with decay=1), the last
        phase without a duration until the job ends."""
        start = 0.0
        for i, amount in enumerate(self.amounts):
            if i >= len(self.durations):
                return amount
            d = self.durations[i]
            if minutes < start + d:
                if i < len(self.decays) and self.decays[i] and d > 0:
                    return amount * (1.0 - (minutes - start) / d)
                return amount
            start += d
        return 0.0


@dataclass(frozen=True, eq=False)
class Term:
    """One simple requirement of a job (a compound requirement has several)."""

    slots: int | None  # a compound term's slots (n*); None: the job's slots
    select: Callable[[Mapping[str, Any]], bool] | None = None  # None: every host
    order: Callable[[Mapping[str, Any]], Any] | None = None  # None: the candidates' order
    rusage: tuple[Rsv, ...] = ()
    one_host: bool = False  # span[hosts=1]
    ptile: int | None = None  # span[ptile=N]
    ptile_ncpus: bool = False  # span[ptile='!']: as many slots as the host has CPUs
    same: tuple[str, ...] = ()  # same[a:b]

    def amounts(self, per: str) -> list[tuple[str, float]]:
        """(resource, amount at the start) of the reservations counted *per*."""
        return [(r.name, r.amounts[0]) for r in self.rusage if r.per == per]


@dataclass(frozen=True, eq=False)
class Req:
    """A compiled effective requirement: its text (the key jobs share it by)
    and its alternatives, the first preferred."""

    key: str
    alternatives: tuple[tuple[Term, ...], ...]


@dataclass
class Cand:
    """A host the job may use, as the pass sees it now: its free slots, the
    values select[]/order[] read (`ns`) and what it has left to reserve
    (`avail`: resource -> amount; a resource it lacks is absent)."""

    name: str
    free: int
    ns: Mapping[str, Any]
    avail: Mapping[str, float]
    ncpus: int = 1


def _note(why: dict[str, int], reason: str) -> None:
    why[reason] = why.get(reason, 0) + 1


def _capacity(term: Term, c: Cand, free: int, avail: Mapping[str, float], why: dict[str, int]) -> int:
    """Slots the term may take on host *c* (0 with the reason noted)."""
    if term.select is not None and not term.select(c.ns):
        _note(why, RES_REQ)
        return 0
    cap = free
    for name, amount in term.amounts("host"):
        if avail.get(name, -1.0) < amount:
            _note(why, rsv_reason(name))
            return 0
    for name, amount in term.amounts("slot"):
        have = avail.get(name)
        if have is None or have < amount:
            _note(why, rsv_reason(name))
            return 0
        if amount > 0:
            cap = min(cap, int(have // amount + 1e-9))
    return cap


def _place_term(term: Term, need: int, cands: list[Cand], free: dict[str, int],
                avail: dict[str, dict[str, float]], first: bool,
                why: dict[str, int]) -> list[str] | None:
    """Place *need* slots of one term (updating *free* and *avail* when it
    fits); None when it does not (reasons noted in *why*)."""
    usable: list[tuple[Cand, int]] = []
    for c in cands:
        if free[c.name] <= 0:
            continue
        cap = _capacity(term, c, free[c.name], avail[c.name], why)
        if cap > 0:
            usable.append((c, cap))
    if term.order is not None:
        usable.sort(key=lambda cc: term.order(cc[0].ns))
    groups: list[list[tuple[Cand, int]]] = [usable]
    if term.same:  # each value of the same[] resources a group of its own, best host's first
        by: dict[tuple, list[tuple[Cand, int]]] = {}
        for cc in usable:
            by.setdefault(tuple(cc[0].ns.get(r) for r in term.same), []).append(cc)
        groups = list(by.values())
    short = 0
    for group in groups:
        alloc = _take(term, need, group, avail, first)
        if alloc is not None:
            for h in alloc:
                free[h] -= 1
            _reserve(term, alloc, avail, first)
            return alloc
        short = max(short, len(group))
    for c, cap in usable:  # hosts with room, but not as the span needs or not enough in all
        _note(why, NO_SPAN if (term.one_host or term.ptile or term.ptile_ncpus) and cap < need
              else LESS_SLOTS)
    return None


def _take(term: Term, need: int, group: list[tuple[Cand, int]], avail: dict[str, dict[str, float]],
          first: bool) -> list[str] | None:
    """Slots from *group* (best first) as span[] says, or None."""
    per_job = term.amounts("job") if first else []
    if per_job:  # the job's first host holds the per-job reservation: one with room for it first
        def room(cc: tuple[Cand, int]) -> bool:
            return all(avail[cc[0].name].get(n, -1.0) >= a for n, a in per_job)
        group = [cc for cc in group if room(cc)] + [cc for cc in group if not room(cc)]
        if not group or not room(group[0]):
            return None
    if term.one_host:
        for c, cap in group:
            if cap >= need:
                return [c.name] * need
        return None
    alloc: list[str] = []
    for c, cap in group:
        left = need - len(alloc)
        tile = c.ncpus if term.ptile_ncpus else term.ptile
        if tile is not None:
            want = min(tile, left)
            if cap < want:
                continue  # a host gives the whole tile (the last host the remainder) or nothing
            cap = want
        alloc.extend([c.name] * min(cap, left))
        if len(alloc) == need:
            return alloc
    return None


def _reserve(term: Term, alloc: list[str], avail: dict[str, dict[str, float]], first: bool) -> None:
    for host, amounts in term_reservation(term, alloc, 0.0, first).items():
        a = avail[host]
        for name, amount in amounts.items():
            if name in a:
                a[name] -= amount


def term_reservation(term: Term, alloc: list[str], minutes: float = 0.0,
                     first: bool = True) -> dict[str, dict[str, float]]:
    """What one term placed on *alloc* (one host per slot) holds, host by host,
    *minutes* after the job started (*first*: the job's first term, whose
    first host holds the per-job amounts)."""
    out: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = {}
    for h in alloc:
        counts[h] = counts.get(h, 0) + 1
    for r in term.rusage:
        amount = r.at(minutes)
        if amount <= 0:
            continue
        if r.per == "job":
            hosts = {alloc[0]: 1} if alloc and first else {}
        else:
            hosts = counts
        for h, n in hosts.items():
            mine = out.setdefault(h, {})
            mine[r.name] = mine.get(r.name, 0.0) + amount * (n if r.per == "slot" else 1)
    return out


def fit(req: Req, slots: int, cands: list[Cand]) -> tuple[list[str] | None, int, dict[str, int]]:
    """Place a job of *slots* slots: (one host per slot, the alternative
    used, {}) or (None, -1, {reason: hosts}) with the first alternative's
    reasons (LSF reports the preferred requirement's)."""
    first_why: dict[str, int] | None = None
    for i, terms in enumerate(req.alternatives):
        why: dict[str, int] = {}
        free = {c.name: c.free for c in cands}
        avail = {c.name: dict(c.avail) for c in cands}
        alloc: list[str] = []
        for k, term in enumerate(terms):
            need = slots if term.slots is None else term.slots
            part = _place_term(term, need, cands, free, avail, k == 0, why)
            if part is None:
                alloc = []
                break
            alloc.extend(part)
        else:
            if alloc:
                return alloc, i, {}
        if first_why is None:
            first_why = why
    return None, -1, first_why or {}


def reservation(req: Req, alternative: int, alloc: list[str], slots: int,
                minutes: float = 0.0) -> dict[str, dict[str, float]]:
    """What a job placed on *alloc* with alternative *alternative* holds, host
    by host, *minutes* after it started."""
    if not req.alternatives:
        return {}
    terms = req.alternatives[max(0, min(alternative, len(req.alternatives) - 1))]
    out: dict[str, dict[str, float]] = {}
    at = 0
    for k, term in enumerate(terms):
        n = slots if term.slots is None else term.slots
        for h, r in term_reservation(term, alloc[at:at + n], minutes, k == 0).items():
            mine = out.setdefault(h, {})
            for name, amount in r.items():
                mine[name] = mine.get(name, 0.0) + amount
        at += n
    return out


def monotone(req: Req, consumable: frozenset[str] | set[str]) -> bool:
    """Whether hosts that cannot place a job of *req* (at some size) still
    cannot after the pass starts more jobs -- each start only takes slots and
    *consumable* resources (mem, swp, tmp, numeric resources) away. True for
    one-term alternatives whose select[] is monotone (sched.select.monotone),
    whose same[] reads nothing consumable, and whose ptile, when given, takes
    hosts in an order no start changes (taken in a fixed order, fewer free
    slots never make a ptile fit: checked exhaustively on small cases). A
    compound alternative is not (its terms share the hosts: a start may move
    its first term elsewhere)."""
    for terms in req.alternatives:
        if len(terms) != 1:
            return False
        t = terms[0]
        sel = t.select
        if sel is not None:
            names, text = getattr(sel, "names", None), getattr(sel, "text", None)
            if names is None or text is None:  # a bare function: not known to be
                return False
            if not consumable.isdisjoint(names) and not _select_monotone(text, consumable):
                return False
        if not consumable.isdisjoint(t.same):
            return False
        if (t.ptile or t.ptile_ncpus) and (t.amounts("job") or (
                t.order is not None and not consumable.isdisjoint(getattr(t.order, "names", consumable)))):
            return False
    return True


# --- from a parsed requirement ------------------------------------------------------


def unsupported(parsed: Any) -> str | None:
    """The part of a parsed requirement (sched.resreq.ResReq) that placement
    does not build yet, named for the refusal; None when it builds it all."""
    for alt in parsed.alternatives:
        for term in alt.terms:
            s = term.simple
            if s.cu is not None:
                return "cu[]"
            if s.affinity is not None:
                return "affinity[]"
            if s.span is not None:
                for item in s.span.split(":"):
                    key, _, value = item.strip().partition("=")
                    if key.strip() in ("block", "stripe"):
                        return f"span[{key.strip()}]"
                    if key.strip() == "ptile" and (":" in value or "," in value):
                        return "span[ptile=...] per host model"
    return None


def _span(text: str | None) -> tuple[bool, int | None, bool]:
    """(hosts=1, ptile N, ptile='!') of a span[] body."""
    one, tile, ncpus = False, None, False
    for item in (text or "").split(":"):
        key, _, value = item.strip().partition("=")
        key, value = key.strip(), value.strip().strip("'\"")
        if key == "hosts" and value == "1":
            one = True
        elif key == "ptile":
            if value == "!":
                ncpus = True
            elif value.isdigit():
                tile = int(value)
    return one, tile, ncpus


def _rusage(simple: Any, per_slot: bool) -> tuple[Rsv, ...]:
    """The reservations of a simple requirement: its first rusage[] section's
    first alternative counts for each resource (a resource in a later section
    is added when the earlier did not name it)."""
    out: dict[str, Rsv] = {}
    for section in simple.rusage:
        for block in section[0]:
            for item in block.items:
                if item.name in out:
                    continue
                per = {"task": "slot", "job": "job", "host": "host"}.get(item.method, "slot" if per_slot else "host")
                out[item.name] = Rsv(item.name, tuple(item.amounts), per, tuple(block.durations), tuple(block.decays))
    return tuple(out.values())


def compile_req(key: str, parsed: Any, compile_select: Callable[[str | None], Any],
                compile_order: Callable[[str], Any], per_slot: bool) -> Req:
    """A `Req` from a parsed requirement (sched.resreq.ResReq); *compile_select*
    and *compile_order* compile a select[] / order[] text (select gets None for
    a term without one: LSF's default). *per_slot*: RESOURCE_RESERVE_PER_SLOT."""
    alts: list[tuple[Term, ...]] = []
    for alt in parsed.alternatives or ():
        terms = []
        for t in alt.terms:
            s = t.simple
            one, tile, ncpus = _span(s.span)
            same = tuple(x.strip() for x in (s.same or "").split(":") if x.strip())
            # a compound term without n* takes one slot (as rusage_amounts counts it)
            terms.append(Term((t.count or 1) if alt.compound else None, compile_select(s.select),
                              compile_order(s.order) if s.order else None, _rusage(s, per_slot),
                              one, tile, ncpus, same))
        alts.append(tuple(terms))
    if not alts:
        alts.append((Term(None, compile_select(None)),))
    return Req(key, tuple(alts))
