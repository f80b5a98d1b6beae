"""Fairshare scheduling state: dynamic priorities over a share tree, kept
current as jobs start and finish, the choice of the next user, and the rows
bqueues -r and `lsfemu explain priority` show.

Choosing (:meth:`FairshareState.choose`): from the root, among the children
that have a candidate below them the highest dynamic priority wins (ties: the
configuration order) and the walk goes down into it; a group's priority uses
its own shares at its level and the summed usage of its members. Usage is
updated as jobs start/finish (:meth:`FairshareState.job_started`,
:meth:`FairshareState.job_finished`) so the next choice in the same pass sees
it. :func:`fairshare_order` is the whole loop for one queue.

Host-partition fairshare needs nothing special: build the tree from the
partition's USER_SHARES (:func:`lsfemu.sched.fairshare.partition_user_shares`)
and sum each user's usage over the jobs running on the partition's hosts,
whatever their queue; every queue using those hosts then shares that one
:class:`FairshareState`. Usage is charged to the job's user only (bsub -G is
not modelled).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence, TypeVar

from lsfemu.sched.fairshare.factors import (
    MIN_DENOMINATOR, Factors, Term, Usage, _ZERO, denominator, dynamic_priority, priority_terms,
)
from lsfemu.sched.fairshare.tree import ROOT, ShareNode, ShareTree

@dataclass(frozen=True)
class ShareRow:
    """One row of a SHARE_INFO_FOR block."""

    name: str
    shares: float
    priority: float
    started: int
    reserved: int
    cpu_time_s: float
    run_time_s: int
    adjust: float
    is_group: bool = False


@dataclass(frozen=True)
class LevelInfo:
    name: str
    kind: str
    shares: float
    level_shares: float  # total shares of the accounts at this level
    fraction: float
    priority: float


@dataclass(frozen=True)
class Explanation:
    """Everything `lsfemu explain priority` prints for one user."""

    user: str
    covered: bool  # False: no share account, cannot run
    account: str | None
    account_kind: str | None
    levels: list[LevelInfo]
    usage: Usage
    factors: Factors
    terms: list[Term]
    raw_denominator: float
    denominator: float
    floored: bool
    shares: float
    priority: float
    entitlement: float


Adjust = Callable[[ShareNode, Usage], float]


class FairshareState:
    """Dynamic priorities over a share tree, updated as jobs start and finish.

    *usage_by_user* maps each user to their summed :class:`Usage` in this
    queue (or host partition). *adjust*, when given, is called as
    ``adjust(account_node, summed_usage)`` and its result is the
    fairshare_adjustment of that account (see
    :func:`lsfemu.sched.fairshare_plugins.make_adjust`).

    Priorities are cached until the usage under a node changes; call
    :meth:`invalidate` if the data behind *adjust* changes (setting
    ``adjust`` or ``factors`` does it).
    """

    def __init__(self, tree: ShareTree, factors: Factors, usage_by_user: dict[str, Usage] | None = None,
                 adjust: Adjust | None = None):
        self.tree = tree
        self._factors = factors
        self._adjust = adjust
        self._usage: dict[str, Usage] = dict(usage_by_user or {})
        self._agg: dict[int, Usage] | None = None
        self._prio: dict[int, float] = {}

    @property
    def factors(self) -> Factors:
        return self._factors

    @factors.setter
    def factors(self, value: Factors) -> None:
        self._factors = value
        self._prio.clear()

    @property
    def adjust(self) -> Adjust | None:
        return self._adjust

    @adjust.setter
    def adjust(self, value: Adjust | None) -> None:
        self._adjust = value
        self._prio.clear()

    def invalidate(self) -> None:
        """Forget cached sums and priorities."""
        self._agg = None
        self._prio.clear()

    # -- usage ---------------------------------------------------------------
    def user_usage(self, user: str) -> Usage:
        return self._usage.get(user, _ZERO)

    def set_usage(self, user: str, usage: Usage) -> None:
        self._usage[user] = usage
        self.invalidate()

    def _aggregate(self) -> dict[int, Usage]:
        if self._agg is None:
            agg: dict[int, Usage] = {}
            for user in sorted(self._usage):
                path = self.tree.account_path(user)
                if not path:
                    continue
                u = self._usage[user]
                for n in path:
                    agg[id(n)] = agg[id(n)] + u if id(n) in agg else u
            self._agg = agg
        return self._agg

    def users_under(self, node: ShareNode) -> list[str]:
        """Users with recorded usage whose account is *node* or below it
        (e.g. ``make_adjust(..., members_of=state.users_under)``)."""
        out = []
        for user in sorted(self._usage):
            path = self.tree.account_path(user)
            if path and (node.kind == ROOT or any(n is node for n in path)):
                out.append(user)
        return out

    def usage(self, node: ShareNode) -> Usage:
        """The summed usage of everybody under *node* (adjustment applied)."""
        u = self._aggregate().get(id(node), _ZERO)
        if self._adjust is not None and node.kind != ROOT:
            u = replace(u, adjustment=float(self._adjust(node, u)))
        return u

    def priority(self, node: ShareNode) -> float:
        p = self._prio.get(id(node))
        if p is None:
            p = self._prio[id(node)] = dynamic_priority(node.shares, self.usage(node), self._factors)
        return p

    def user_priority(self, user: str) -> float | None:
        """The dynamic priority of the user's account (None: no account)."""
        acct = self.tree.account(user)
        return None if acct is None else self.priority(acct)

    # -- choosing ------------------------------------------------------------
    def choose_account(self, candidates: Iterable[str]) -> tuple[ShareNode, list[str]] | None:
        """The account the walk ends in and its candidates in the given order."""
        cands = _ordered(candidates)
        live: list[tuple[str, list[ShareNode]]] = []
        below: set[int] = set()
        path_of = self.tree.account_path
        for u in cands:
            p = path_of(u)
            if p:
                live.append((u, p))
                below.update(map(id, p))
        if not live:
            return None
        node = self.tree.root
        while not node.is_account_leaf:
            best: ShareNode | None = None
            best_p = -math.inf
            for c in node.children:
                if id(c) not in below:
                    continue
                p = self.priority(c)
                if best is None or (p > best_p and not math.isclose(p, best_p, rel_tol=1e-12, abs_tol=0.0)):
                    best, best_p = c, p
            if best is None:
                return None
            node = best
        return node, [u for u, p in live if p[-1] is node]

    def choose(self, candidates: Iterable[str]) -> str | None:
        """The user whose job goes next, or None when no candidate has an account.

        Inside a shared account (a group without a share tree, ``others``,
        ``all``) members compete first come, first served: the first such
        candidate in the iteration order of *candidates* wins, so pass users
        ordered by their best pending job (a list). A set is taken in name
        order, for determinism.
        """
        res = self.choose_account(candidates)
        return None if res is None else res[1][0]

    # -- events --------------------------------------------------------------
    def job_started(self, user: str, slots: float, committed_run_time_h: float = 0.0,
                    ngpus_physical: float = 0.0) -> None:
        """A job of *user* started: its slots (and committed run time) count at once."""
        delta = Usage(job_slots=float(slots), committed_run_time=float(committed_run_time_h),
                      ngpus_physical=float(ngpus_physical))
        agg, prio = self._agg, self._prio
        self._usage[user] = self.user_usage(user) + delta
        path = self.tree.account_path(user)
        if agg is None or not path:
            self.invalidate()
            return
        # Usage addition is associative for every term: update the sums along the path only.
        for n in path:
            agg[id(n)] = agg[id(n)] + delta if id(n) in agg else delta
            prio.pop(id(n), None)

    def job_finished(self, user: str, slots: float, run_time_h: float = 0.0, committed_run_time_h: float = 0.0,
                     ngpus_physical: float = 0.0, gpu_run_time_h: float | None = None) -> None:
        """A job of *user* finished after *run_time_h* hours (as counted while
        it ran): slots, run time and commitment leave at once, the run time
        becomes historical run time (counted only with ENABLE_HIST_RUN_TIME,
        then decaying), its GPU run time (*gpu_run_time_h*, default the run
        time) becomes historical GPU run time."""
        u = self.user_usage(user)
        r = float(run_time_h)
        rem = max(0.0, u.remaining_commitment - max(0.0, float(committed_run_time_h) - r))
        run = max(0.0, u.run_time - r)
        n = u.ngpus_physical
        g, hg = u.gpu_run_time, u.hist_gpu_run_time
        if ngpus_physical > 0 and n > 0:
            moved = (r if gpu_run_time_h is None else float(gpu_run_time_h)) * float(ngpus_physical)
            g = max(0.0, (u.gpu_run_time * n - moved) / n)
            hg = (u.hist_gpu_run_time * n + moved) / n
        self.set_usage(user, replace(
            u,
            job_slots=max(0.0, u.job_slots - float(slots)),
            run_time=run,
            committed_run_time=run + rem,
            hist_run_time=u.hist_run_time + r,
            gpu_run_time=g,
            hist_gpu_run_time=hg,
        ))

    def reserve(self, user: str, slots: float) -> None:
        """Reserve (positive) or release (negative) slots for a pending job of *user*."""
        u = self.user_usage(user)
        self.set_usage(user, replace(u, reserved_slots=max(0.0, u.reserved_slots + float(slots))))

    # -- display -------------------------------------------------------------
    def share_info(self, level_path: Sequence[str] = ()) -> list[ShareRow]:
        """Rows of the SHARE_INFO_FOR block of one level, in configuration
        order (``default`` accounts where ``default`` is listed, in creation
        order). RUN_TIME is run time plus historical run time when
        ENABLE_HIST_RUN_TIME=Y (LSF: "the sum of the actual, accumulated run
        time and the historical run time")."""
        node = self.tree.node(level_path)
        rows: list[ShareRow] = []
        for c in node.children:
            u = self.usage(c)
            run_h = u.run_time + (u.hist_run_time if self.factors.enable_hist_run_time else 0.0)
            rows.append(ShareRow(
                name=c.name, shares=c.shares, priority=dynamic_priority(c.shares, u, self.factors),
                started=int(round(u.job_slots)), reserved=int(round(u.reserved_slots)),
                cpu_time_s=u.cpu_time * 3600.0, run_time_s=int(round(run_h * 3600.0)),
                adjust=u.adjustment, is_group=c.is_group,
            ))
        return rows

    def entitlement(self, user: str) -> float:
        return self.tree.entitlement(user)

    def explain(self, user: str) -> Explanation:
        path = self.tree.account_path(user)
        if not path:
            u = self.user_usage(user)
            return Explanation(user, False, None, None, [], u, self.factors, priority_terms(0.0, u, self.factors),
                               denominator(u, self.factors), max(denominator(u, self.factors), MIN_DENOMINATOR),
                               False, 0.0, 0.0, 0.0)
        levels = []
        for n in path:
            total = sum(c.shares for c in n.parent.children) if n.parent else n.shares
            levels.append(LevelInfo(n.name, n.kind, n.shares, total, self.tree.fraction(n), self.priority(n)))
        acct = path[-1]
        u = self.usage(acct)
        raw = denominator(u, self.factors)
        floored = not raw >= MIN_DENOMINATOR
        return Explanation(
            user=user, covered=True, account=acct.name, account_kind=acct.kind, levels=levels, usage=u,
            factors=self.factors, terms=priority_terms(acct.shares, u, self.factors), raw_denominator=raw,
            denominator=MIN_DENOMINATOR if floored else raw, floored=floored, shares=acct.shares,
            priority=dynamic_priority(acct.shares, u, self.factors), entitlement=self.tree.entitlement(user),
        )


def _ordered(candidates: Iterable[str]) -> list[str]:
    if isinstance(candidates, (set, frozenset)):
        return sorted(candidates)
    return list(dict.fromkeys(candidates))


J = TypeVar("J")


def fairshare_order(state: FairshareState, jobs: Iterable[J], try_start: Callable[[J], bool], *,
                    committed_h: Callable[[J], float] = lambda j: 0.0,
                    ngpus: Callable[[J], float] = lambda j: 0.0) -> tuple[list[J], list[J]]:
    """Dispatch one fairshare queue's pending jobs in LSF's order.

    Jobs need ``user``, ``slots``, ``priority`` and ``position`` (like
    :class:`lsfemu.sched.dispatch.PendingJob`). Repeatedly: the share tree
    picks the user (:meth:`FairshareState.choose`, users ordered by their best
    job for FCFS inside shared accounts), that user's best job (job priority,
    then submission order) is offered to *try_start*; when it returns True
    the state is charged at once, so the next pick sees the new priority.
    Returns (started, jobs of users without a share account).
    """
    def key(j: J) -> tuple[float, float]:
        return (-getattr(j, "priority", 0), getattr(j, "position", 0))

    queues: dict[str, list[J]] = {}
    for j in sorted(jobs, key=key):
        queues.setdefault(getattr(j, "user"), []).append(j)
    started: list[J] = []
    no_account: list[J] = []
    for user in list(queues):
        if state.tree.account_path(user) is None:
            no_account.extend(queues.pop(user))
    heads = {u: 0 for u in queues}
    # users ordered by their best pending job (FCFS inside shared accounts)
    order = sorted((key(q[0]), n, u) for n, (u, q) in enumerate(queues.items()))
    rank = {u: n for n, u in enumerate(queues)}
    while order:
        user = state.choose([u for _k, _n, u in order])
        if user is None:  # cannot happen: every remaining user has an account
            break
        job = queues[user][heads[user]]
        entry = (key(job), rank[user], user)
        del order[bisect.bisect_left(order, entry)]
        heads[user] += 1
        if heads[user] < len(queues[user]):
            bisect.insort(order, (key(queues[user][heads[user]]), rank[user], user))
        if try_start(job):
            state.job_started(user, getattr(job, "slots", 1), committed_h(job), ngpus(job))
            started.append(job)
    return started, no_account
