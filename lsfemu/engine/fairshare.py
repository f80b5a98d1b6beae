"""Fairshare as the daemon applies it: which share tree governs a queue, the
usage each user has in it now (decayed history from the store plus the jobs
running), and the Order objects the scheduling pass uses.

The math is in lsfemu.sched.fairshare (pure); this module only gathers data.
Accounts: a queue with FAIRSHARE has its own usage (queue-level fairshare);
a queue without it whose hosts all lie in a HostPartition with USER_SHARES
uses the partition's tree and the usage of every job on the partition's
hosts, whatever its queue (host-partition fairshare). History (fs.History:
the ended runs' decayed usage) is kept in user_usage rows keyed by queue
name, or `hpart:<name>` for partitions; a run counts the same (run_usage)
while it runs and when it ends (charge).

`Accounts` is the cluster's component: the scopes, the kept share trees and
the adjustment plug-in of the configuration, and the charging of ended runs;
`LiveFairshare` the states at one instant, made from it.
"""

from __future__ import annotations

import os

from lsfemu.config.fairshare import load_plugin
from lsfemu.sched import dispatch
from lsfemu.sched import fairshare as fs
from lsfemu.sched import fairshare_plugins as plugins
from lsfemu.sched import simulate
from lsfemu.store.models import UserUsage
from lsfemu.store.usage import scope_usage, usage_row

HOST_MEMORY_MB_DEFAULT = 16384  # per virtual host, for the adjustment plug-in (LSFEMU_HOST_MEMORY_MB)


def partition_key(name: str) -> str:
    return f"hpart:{name}"


class Scope:
    """One fairshare scope: a queue (queue-level) or a host partition."""

    def __init__(self, key: str, title: str, shares_text: str, hosts: set[str] | None, queue):
        self.key = key  # user_usage.queue
        self.title = title  # SHARE_INFO_FOR path head
        self.shares_text = shares_text
        self.hosts = hosts  # None: the queue's own jobs count; else jobs on these hosts
        self.queue = queue  # QueueConf whose factors apply (None: lsb.params)


def scopes(cfg) -> tuple[dict[str, Scope], dict[str, Scope]]:
    """(queue name -> its scope, partition name -> its scope)."""
    parts: dict[str, Scope] = {}
    for name, raw in (cfg.host_partitions or {}).items():
        text = fs.partition_user_shares(raw)
        if text:
            parts[name] = Scope(partition_key(name), name, text, set(fs.partition_hosts(raw)), None)
    by_queue: dict[str, Scope] = {}
    for q in cfg.queues:
        if q.fairshare:
            by_queue[q.name] = Scope(q.name, q.name, q.fairshare, None, q)
            continue
        qhosts = set(cfg.queue_hosts(q))
        for p in parts.values():
            if qhosts and qhosts <= p.hosts:
                by_queue[q.name] = p
                break
    return by_queue, parts


class Accounts:
    """The cluster's fairshare accounts: the scopes of the configuration
    (`by_queue`, `partitions`), their share trees (kept while the
    configuration and the known users stay the same), the adjustment
    plug-in, and the charging of ended runs to the users' histories."""

    def __init__(self, cluster):
        self.cl = cluster
        # The usage rows charged so far, held: the session's identity map
        # holds its objects weakly, and a row it has dropped is read again
        # at the next charge -- a query, and the autoflush before it, for
        # every job end (issue 23: most of a virtual clock's job end).
        self.rows: dict[tuple[str, str], object] = {}
        self._factors: tuple[object, dict] = (None, {})  # (the configuration, (key, queue) -> its factors)

    def configure(self, cfg) -> None:
        """The scopes, trees and plug-in of a (new) configuration."""
        self.by_queue, self.partitions = scopes(cfg)
        self.trees: dict[str, tuple[frozenset[str], fs.ShareTree]] = {}  # scope key -> (known users, tree)
        spec = cfg.params.extra.get("FAIRSHARE_ADJUSTMENT_PLUGIN")
        self.plugin = load_plugin(spec) if spec else None

    def share_tree(self, scope, known: set[str]) -> fs.ShareTree:
        """The share tree of a fairshare scope for these known users: built
        once and kept while the configuration and the known users stay the
        same (a tree depends on nothing else; usage and priorities live in
        the FairshareState made around it for each instant). A tree that
        made a default account on first sight (a user it did not know) has
        grown and is built again."""
        key = frozenset(known)
        kept = self.trees.get(scope.key)
        if kept is not None and kept[0] == key and kept[1].grown == 0:
            return kept[1]
        tree = fs.build_tree(scope.shares_text, self.cl.config.user_groups, key)
        self.trees[scope.key] = (key, tree)
        return tree

    def live(self, now: float) -> LiveFairshare:
        """Fairshare states at an instant (built lazily per queue)."""
        return LiveFairshare(self, now)

    def charge_keys(self, job) -> list[str]:
        """The usage rows a finished job's run counts in."""
        keys = [job.queue]
        hosts = set(job.exec_hosts.split())
        for name, p in self.partitions.items():
            if hosts & p.hosts:
                keys.append(p.key)
        return keys

    def scope_factors(self, key: str, queue: str) -> fs.Factors:
        """The factors of a usage row: its queue's (a queue with FAIRSHARE),
        else lsb.params' (a host partition). Kept per configuration (asked
        at every job end: issue 23, part 4)."""
        cfg = self.cl.config
        if self._factors[0] is not cfg:
            self._factors = (cfg, {})
        kept = self._factors[1].get((key, queue))
        if kept is None:
            scope = self.by_queue.get(queue) if key == queue else None
            kept = self._factors[1][(key, queue)] = fs.effective_factors(cfg.params, scope.queue if scope else None)[0]
        return kept

    def run_usage(self, job, factors: fs.Factors, now: float, end: float | None = None) -> fs.Usage:
        """What a started job's run counts for at *now* (*end*: the instant it
        ended): the one accounting of a run, while it runs and at its end."""
        work = simulate.work_at(job.work_done, job.segment_start, now if end is None else end)
        limit = self.cl.effective_run_limit(job) if end is None else None
        return fs.job_usage(slots=job.num_processors, start_s=job.start_time, now_s=now, end_s=end, run_s=work,
                            cpu_s=simulate.cpu_at(job.sim_runtime, job.sim_cputime, work),
                            committed_s=limit * 60.0 if limit is not None else None,
                            ngpus_physical=job.ngpus or 0, factors=factors)

    def charge(self, job, t: float) -> None:
        """Add a run that ends at *t* (finished, requeued, rerun, migrated) to its
        user's decayed history: exactly what the run counted for at *t* while it
        ran, so the user's usage does not jump when the job ends."""
        session = self.cl.session
        for key in self.charge_keys(job):
            factors = self.scope_factors(key, job.queue)
            u = self.rows[(job.user, key)] = usage_row(session, job.user, key, t, self.rows.get((job.user, key)))
            h = _history(u).add(self.run_usage(job, factors, t, end=t), t, factors.hist_hours)
            u.hist_cpu_s, u.hist_run_s, u.hist_gpu_s, u.updated_at = h.cpu_s, h.run_s, h.gpu_s, h.at


def _history(u: UserUsage) -> fs.History:
    return fs.History(u.hist_cpu_s, u.hist_run_s, u.hist_gpu_s or 0.0, u.updated_at)


class LiveFairshare:
    """Fairshare states for one instant (a scheduling pass or a query)."""

    def __init__(self, accounts: Accounts, now: float):
        self.accounts = accounts
        self.cl = accounts.cl
        self.now = now
        self._states: dict[str, fs.FairshareState] = {}
        self._known: set[str] | None = None  # the users trees know of (see known_users)

    def known_users(self) -> set[str]:
        """The users of the jobs in memory and of the user groups: made when
        the first tree is built (a pass that ranks nothing needs none)."""
        if self._known is None:
            cl = self.cl
            self._known = cl.job_users() | {u for g in cl.config.user_groups.values() for u in g.members}
        return self._known

    def scope_of(self, queue: str) -> Scope | None:
        return self.accounts.by_queue.get(queue)

    def state(self, queue: str) -> fs.FairshareState | None:
        scope = self.scope_of(queue)
        if scope is None:
            return None
        return self.scope_state(scope)

    def scope_state(self, scope: Scope) -> fs.FairshareState:
        """The state of a scope (also a partition no queue uses)."""
        st = self._states.get(scope.key)
        if st is None:
            st = self._states[scope.key] = self._build(scope)
        return st

    def factors(self, scope: Scope):
        return fs.effective_factors(self.cl.config.params, scope.queue)

    def _jobs_in(self, scope: Scope):
        for j in self.cl.passes.started_jobs():
            if scope.hosts is None:
                if j.queue == scope.key:
                    yield j
            elif scope.hosts & set(j.exec_hosts.split()):
                yield j

    def _build(self, scope: Scope) -> fs.FairshareState:
        cl = self.cl
        factors, _ = self.factors(scope)
        tree = self.accounts.share_tree(scope, self.known_users())
        usage: dict[str, fs.Usage] = {}
        rows = scope_usage(cl.session, scope.key)
        for u in rows:
            usage[u.user] = _history(u).usage(self.now, factors.hist_hours)
        memory: dict[str, float] = {}
        for j in self._jobs_in(scope):
            usage[j.user] = usage.get(j.user, fs.Usage()) + self.accounts.run_usage(j, factors, self.now)
            memory[j.user] = memory.get(j.user, 0.0) + (j.mem_req_mb or 0.0) * j.num_processors
        state = fs.FairshareState(tree, factors, usage)
        plugin = self.accounts.plugin
        if plugin is not None:
            state.adjust = plugins.make_adjust(
                plugin, fs.effective_factors(cl.config.params, None)[0],
                cluster_used_memory_mb=sum(memory.values()),
                slot_memory_mb=self._slot_memory(), memory_by_user=memory, members_of=state.users_under)
        return state

    def _slot_memory(self) -> float:
        cfg = self.cl.config
        per_host = float(cfg.lsf_conf.get("LSFEMU_HOST_MEMORY_MB", HOST_MEMORY_MB_DEFAULT))
        slots = [cfg.host_mxj(h) or (os.cpu_count() or 1) for h in cfg.host_names]
        return per_host * len(slots) / max(1, sum(slots))

    def priority(self, user: str, queue: str) -> float | None:
        st = self.state(queue)
        if st is None:
            return None
        return st.user_priority(user)


class FairshareOrder:
    """A unit's Order under fairshare: the user with the highest dynamic
    priority goes next (walking the share tree), then that user's jobs by
    job priority and submission order; a start lowers the user's priority
    before the next choice."""

    def __init__(self, state: fs.FairshareState, jobs: list, committed_h):
        self.state = state
        self.committed_h = committed_h  # job -> committed run time in hours
        self.by_user: dict[str, list] = {}
        for j in sorted(jobs, key=dispatch.fcfs_key):
            self.by_user.setdefault(j.user, []).append(j)

    def __iter__(self):
        while self.by_user:
            user = self.state.choose(sorted(self.by_user))
            if user is None:  # users without an account in this tree never run here
                return
            queue = self.by_user[user]
            job = queue.pop(0)
            if not queue:
                del self.by_user[user]
            yield job

    def started(self, job) -> None:
        self.state.job_started(job.user, job.slots, self.committed_h(job))

    def rest(self) -> list:
        """The jobs not given out yet that the order would give out (those of
        users with a share account), in no particular order: once no job can
        start, the pass needs their reasons only (lsfemu.sched.dispatch)."""
        path = self.state.tree.account_path
        return [j for user, queue in self.by_user.items() if path(user) is not None for j in queue]


class ApsWithFairshare:
    """An APS unit whose queues feed the FS factor: starts update the fairshare
    state as well, so the FS factor of that user drops before the next job."""

    def __init__(self, order, on_start):
        self.order = order
        self.on_start = on_start

    def __iter__(self):
        return iter(self.order)

    def rest(self) -> list:
        return self.order.rest()

    def skip(self, shape: tuple) -> None:
        self.order.skip(shape)

    def started(self, job) -> None:
        self.on_start(job)
        self.order.started(job)
