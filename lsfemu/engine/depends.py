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

from lsfemu.jobstate import STARTED
from lsfemu.sched import arrayspec, depend
from lsfemu.store.jobs import job_rows


class Dependencies:
    """The cluster's `bsub -w` conditions, evaluated."""

    def __init__(self, cluster):
        self.cl = cluster
        self.trees: dict[str, object] = {}  # depend_json -> (its tree, uses an index) (lsfemu.sched.depend)
        self.gone: dict[int, list] = {}  # rows of jobs a condition names that memory no longer holds

    @staticmethod
    def state(job: Job) -> depend.JobState:
        return depend.JobState(job_id=job.id, index=job.array_index, user=job.user,
                               name=job.name if job.name is not None else job.command, status=job.status,
                               exit_code=job.exit_code, started=job.start_time is not None or job.status in STARTED,
                               submit_time=job.submit_time)

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

    def known(self) -> depend.Known:
        """The jobs a new `bsub -w` may name: those mbatchd holds in memory."""
        rows, ranges = [], {}
        for job in self.cl.jobs.values():
            rows.append(self.state(job))
            if job.array_spec and job.id not in ranges:
                spec = arrayspec.parse_array_name(job.array_spec, 2147483647)
                ranges[job.id] = spec.ranges if spec is not None else ()
        return depend.Known.of(rows, ranges)
