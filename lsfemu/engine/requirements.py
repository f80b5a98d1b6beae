"""Resource requirements as the cluster schedules them (issue 19): each job's
compiled requirement, the hosts' resources and what the running jobs hold.

`Requirements` is the cluster's component for it:

* `of(job)` is the job's compiled `sched.placement.Req` (its bsub -R merged
  with its queue's and application profile's RES_REQ by sched/resmerge.py),
  one per distinct requirement (and queue and profile when they have one), or None when the job asks for nothing the hosts
  could refuse (no requirement, and a cluster whose hosts are all of the
  submission type: LSF's default `select[type == local]` then holds on every
  host, and the pass's slot-only path serves it);
* `frame(hosts)` gives the pass's hosts their resources and everything
  to reserve; `hold(job, hosts, t)` takes a started job's reservation off its
  hosts (at *t*: durations and decay count from the job's start); `finish(hosts)`
  computes their load indices from what runs there.

The chosen alternative of a started job (``{...} || {...}``) is kept in
memory (`started`); after a daemon restart a running job is counted with the
first alternative whose selection its hosts satisfy.
"""

from __future__ import annotations

import dataclasses

from lsfemu.engine import hostload
from lsfemu.sched import hostres, placement, resreq
from lsfemu.sched import select as selection


class Requirements:
    """The cluster's resource requirements (see the module docstring)."""

    def __init__(self, cluster):
        self.cl = cluster
        self.hosts: dict[str, hostres.HostResources] = {}
        self.memo: dict[tuple, placement.Req | None] = {}
        self.alternative: dict[tuple[int, int], int] = {}  # started job -> the alternative it was placed with
        self.local_type = "X86_64"
        self.uniform = True
        self.per_slot = False
        self.units: dict[str, str] = {}
        self.queue_reqs: set[str] = set()  # queues with a RES_REQ (merged into their jobs' -R)
        self.app_reqs: set[str] = set()  # application profiles with one
        self.running: dict[str, int] = {}  # host -> slots of RUN jobs, counted by hold() for the load
        self._totals: dict[str, dict[str, float]] = {}

    def configure(self, cfg) -> None:
        """A (new) configuration: host resources, units, and no compiled requirement kept."""
        self.hosts = hostres.from_config(cfg)
        self.per_slot = resreq.per_slot_from_params(cfg.params.extra)
        self.units = resreq.units_from_conf(cfg.lsf_conf)
        master = self.hosts.get(cfg.master_host) or next(iter(self.hosts.values()), None)
        self.local_type = master.type if master is not None else "X86_64"
        self.uniform = len({h.type for h in self.hosts.values()}) <= 1
        self.queue_reqs = {q.name for q in cfg.queues if q.res_req}
        self.app_reqs = {a.name for a in cfg.applications.values() if a.res_req}
        self.memo.clear()
        self._totals.clear()

    def totals(self, res: hostres.HostResources) -> dict[str, float]:
        """What a host has to reserve when nothing runs: mem, swp, tmp and its
        static numeric resources (one dict kept per host: not to be changed)."""
        tot = self._totals.get(res.name)
        if tot is None:
            tot = {"mem": res.maxmem, "swp": res.maxswp, "tmp": res.maxtmp}
            tot.update((k, float(v)) for k, v in res.values.items() if not isinstance(v, str))
            self._totals[res.name] = tot
        return tot

    def type_of(self, host: str | None) -> str:
        """The type `type == local` means for a job submitted from *host*
        (a host outside the cluster: the master's type)."""
        h = self.hosts.get(host or "")
        return h.type if h is not None else self.local_type

    @staticmethod
    def _fields(job) -> tuple[str | None, str | None, str]:
        """The job's -R, application profile and queue (the loaded values,
        without the ORM's attribute machinery: the pass reads every job)."""
        d = job.__dict__
        return (d["res_req"] if "res_req" in d else job.res_req,
                d["app_profile"] if "app_profile" in d else job.app_profile,
                d["queue"] if "queue" in d else job.queue)

    def text_of(self, job) -> str | None:
        """The job's requirement as placement reads it: its -R, or LSF's
        Combined string when its queue or application has a RES_REQ."""
        text, app, queue = self._fields(job)
        if queue in self.queue_reqs or (app and app in self.app_reqs):
            return self.cl.effective_req(text, app, queue)[1]
        return text

    def of(self, job) -> placement.Req | None:
        """The job's compiled requirement, or None (see the module docstring)."""
        text, app, queue = self._fields(job)
        local = self.type_of(job.from_host)
        levels = queue in self.queue_reqs or (app and app in self.app_reqs)
        if not text and not levels and self.uniform and local == self.local_type:
            return None
        key = (text, app, queue, local) if levels else (text, local)
        try:
            return self.memo[key]
        except KeyError:
            pass
        req = self.memo[key] = self.compile(key, text, app if levels else None, queue if levels else None, local)
        return req

    def compile(self, key: tuple, text: str | None, app: str | None, queue: str | None,
                local: str) -> placement.Req:
        """A requirement compiled for the pass: the job's -R merged with its
        application's and queue's RES_REQ (sched/resmerge.py, through the
        cluster's cache) when they have one. A string that no longer parses
        (taken under another configuration's units) is no requirement."""
        if app or queue:
            # the merge writes LSF's default order[r15s:pg] into the Combined
            # string; placement orders hosts only by an order someone gave
            parsed = _without_default_order(self.cl.effective_req(text, app, queue)[0])
        else:
            try:
                parsed = resreq.parse(text, self.units)
            except resreq.ResReqError:
                parsed = resreq.parse(None)
        return placement.compile_req(
            "\0".join(str(k) for k in key), parsed,
            lambda s: selection.compile_select(s, local, units=self.units),
            selection.compile_order, self.per_slot)

    # -- the pass's hosts ----------------------------------------------------------
    def frame(self, hosts: dict) -> None:
        """Give the pass's hosts (dispatch.HostInfo) their resources, all free."""
        self.running = {}
        for name, h in hosts.items():
            res = self.hosts.get(name)
            if res is None:
                continue
            h.res = res
            h.avail = dict(self.totals(res))  # (the pass takes reservations off it)

    def reservation(self, job, t: float, hosts: dict | None = None) -> dict[str, dict[str, float]]:
        """What a started job holds on each of its hosts at instant *t*: its
        requirement's reservation with the alternative it started with
        (unknown after a restart: the first whose selections *hosts*, the
        pass's HostInfos, satisfy; without them the first)."""
        req = self.of(job)
        if req is None or not req.alternatives:
            return {}
        alloc = job.exec_hosts.split()
        key = (job.id, job.array_index)
        alt = self.alternative.get(key)
        if alt is None:
            alt = 0
            if hosts is not None and len(req.alternatives) > 1:
                alt = self.alternative[key] = self._guess(req, alloc, hosts)
        start = job.start_time if job.start_time is not None else t
        return placement.reservation(req, alt, alloc, len(alloc), max(0.0, t - start) / 60.0)

    def hold(self, job, hosts: dict, t: float) -> None:
        """Take a started job's reservation off its hosts (at instant *t*) and
        count its running slots for the hosts' load."""
        if job.status == "RUN":
            for h in job.exec_hosts.split():
                self.running[h] = self.running.get(h, 0) + 1
        for h, amounts in self.reservation(job, t, hosts).items():
            hi = hosts.get(h)
            if hi is None:
                continue
            for name, amount in amounts.items():
                if name in hi.avail:
                    hi.avail[name] -= amount

    @staticmethod
    def _guess(req: placement.Req, alloc: list[str], hosts: dict) -> int:
        """The first alternative whose every selection holds on the job's hosts."""
        for i, terms in enumerate(req.alternatives):
            if all(t.select is None or all(t.select(hosts[h].view()) for h in set(alloc) if h in hosts)
                   for t in terms):
                return i
        return 0

    def started(self, pj) -> None:
        """The pass started *pj* (a dispatch.PendingJob): remember its alternative."""
        if pj.req is not None:
            self.alternative[(pj.job_id, pj.array_index)] = pj.alternative

    def finish(self, hosts: dict, held) -> None:
        """The hosts' load indices from what runs there (after `hold`); the
        alternatives of jobs no longer started are forgotten (*held*: the started jobs)."""
        if len(self.alternative) > 2 * len(held) + 64:
            keep = {(j.id, j.array_index) for j in held}
            self.alternative = {k: v for k, v in self.alternative.items() if k in keep}
        for name, h in hosts.items():
            if h.res is None:
                continue
            total = self.totals(h.res)
            reserved = {k: total[k] - v for k, v in h.avail.items() if k in total}
            h.load = load = hostload.load_of(self.cl, h.res, self.running.get(name, 0), reserved)
            for k in ("mem", "swp", "tmp"):  # (wall clock, this machine: its real free memory may be less)
                if k in load and load[k] < h.avail.get(k, 0.0):
                    h.avail[k] = load[k]
            h._view = None


def _without_default_order(req):
    """*req* (a merged sched.resreq.ResReq) without the order[] the merge
    filled in where nobody gave one (Simple.default_order)."""
    return dataclasses.replace(req, alternatives=tuple(
        dataclasses.replace(alt, terms=tuple(
            dataclasses.replace(t, simple=dataclasses.replace(t.simple, order=None)) if t.simple.default_order else t
            for t in alt.terms))
        for alt in req.alternatives))
