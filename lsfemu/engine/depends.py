"""Job dependencies (bsub -w) as the cluster evaluates them: the states of
the jobs a condition names, from memory or (a job finished before
CLEAN_PERIOD, whose state no longer changes) from the store, and a
condition's pending reason. The conditions themselves are
lsfemu.sched.depend's (pure).

`Dependencies` owns what it keeps between passes: each condition's parsed
tree, and the states read back from the store of jobs memory no longer
holds.
"""

from __future__ import annotations

import json

from lsfemu.jobstate import FINISHED, STARTED
from lsfemu.sched import arrayspec, depend
from lsfemu.store.jobs import job_rows


class Dependencies:
    """The cluster's `bsub -w` conditions, evaluated."""

    def __init__(self, cluster):
        self.cl = cluster
        self.trees: dict[str, object] = {}  # depend_json -> (its tree, uses an index) (lsfemu.sched.depend)
        self.gone: dict[int, list] = {}  # rows of jobs a condition names that memory no longer holds

    def state(self, job: Job) -> depend.JobState:
        return depend.JobState(job_id=job.id, index=job.array_index, user=job.user,
                               name=job.name if job.name is not None else job.command, status=job.status,
                               exit_code=job.exit_code, started=job.start_time is not None or job.status in STARTED,
                               submit_time=job.submit_time, post=self.post_result(job))

    def post_result(self, job: Job) -> bool | None:
        """How a finished job's post-execution command (bsub -Ep) ended: its
        FINISH record says (post_done / post_err); None without one."""
        if not job.post_exec or job.status not in FINISHED:
            return None
        for ev in reversed(self.cl.history(job)):
            if ev.kind == "FINISH":
                return json.loads(ev.data or "{}").get("post")
        return None

    def lookup(self):
        """job ID -> its rows now: from memory, else (a job finished before
        CLEAN_PERIOD, whose state no longer changes) from the store."""
        by_id: dict[int, list] = {}
        for (jid, _), job in self.cl.jobs.items():
            by_id.setdefault(jid, []).append(job)
        gone = self.gone
        seen: dict[int, list] = {}

        def lookup(jid: int) -> list:
            rows = seen.get(jid)
            if rows is None:
                jobs = by_id.get(jid)
                if jobs is not None:
                    rows = seen[jid] = [self.state(j) for j in jobs]
                else:
                    rows = gone.get(jid)
                    if rows is None:
                        rows = gone[jid] = [self.state(j) for j in
                                            job_rows(self.cl.session, jid)]
            return rows

        by_index: dict[int, dict[int, list]] = {}

        def element(jid: int, idx: int) -> list:
            table = by_index.get(jid)
            if table is None:
                table = by_index[jid] = {}
                for r in lookup(jid):
                    table.setdefault(r.index, []).append(r)
            return table.get(idx, [])
        lookup.element = element
        return lookup

    def reason(self, job: Job, lookup, memo: dict | None = None) -> str | None:
        """The pending reason of an unmet `bsub -w` condition, None when met.
        `memo` (one pass) shares the answer among the elements of an array."""
        trees = self.trees
        entry = trees.get(job.depend_json)
        if entry is None:
            tree = depend.from_data(json.loads(job.depend_json))
            entry = trees[job.depend_json] = (tree, depend.uses_index(tree))
        tree, per_index = entry
        key = (job.depend_json, job.array_index if per_index else 0)
        if memo is not None and key in memo:
            return memo[key]
        reason = depend.reason(depend.evaluate(tree, lookup, job.array_index, getattr(lookup, "element", None)))
        if memo is not None:
            memo[key] = reason
        return reason

    def _tree(self, job: Job):
        entry = self.trees.get(job.depend_json)
        if entry is None:
            tree = depend.from_data(json.loads(job.depend_json))
            entry = self.trees[job.depend_json] = (tree, depend.uses_index(tree))
        return entry[0]

    def state_of(self, job: Job) -> str | None:
        """bjdepinfo -l: TRUE, FALSE or INVALID for the job's condition now; None without one."""
        if not job.depend_json:
            return None
        lookup = self.lookup()
        return depend.evaluate(self._tree(job), lookup, job.array_index, lookup.element)

    def parents(self, job: Job, pending_only: bool = False) -> list[Job]:
        """bjdepinfo: the jobs in memory that the job's condition names, each
        once, in the order named; `pending_only` (-p): those of the
        conditions that are not met now (the ones that keep it pending)."""
        if not job.depend_json:
            return []
        lookup = self.lookup()
        by_id: dict[int, list[Job]] = {}
        for (jid, _), j in self.cl.jobs.items():
            by_id.setdefault(jid, []).append(j)
        out: dict[tuple[int, int], Job] = {}
        for leaf in depend.leaves(self._tree(job)):
            if pending_only and depend.evaluate(leaf, lookup, job.array_index, lookup.element) == depend.TRUE:
                continue
            if isinstance(leaf, depend.Count):
                wanted = [depend.Target(leaf.job_id)] if leaf.job_id is not None else []
            else:
                wanted = leaf.targets
            for t in wanted:
                for j in sorted(by_id.get(t.job_id, ()), key=lambda j: j.array_index):
                    if t.one_to_one and j.array_index != job.array_index:
                        continue
                    if t.ranges is not None and not arrayspec.in_ranges(j.array_index, t.ranges):
                        continue
                    out.setdefault((j.id, j.array_index), j)
        return list(out.values())

    def children(self, job: Job) -> list[Job]:
        """bjdepinfo -c: the jobs in memory whose condition names this job."""
        return [j for j in sorted(self.cl.jobs.values(), key=lambda j: (j.id, j.array_index))
                if j.depend_json and job in self.parents(j)]

    def known(self) -> depend.Known:
        """The jobs a new `bsub -w` may name: those mbatchd holds in memory."""
        rows, ranges = [], {}
        for job in self.cl.jobs.values():
            rows.append(self.state(job))
            if job.array_spec and job.id not in ranges:
                spec = arrayspec.parse_array_name(job.array_spec, 2147483647)
                ranges[job.id] = spec.ranges if spec is not None else ()
        return depend.Known.of(rows, ranges)
