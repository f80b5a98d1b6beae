"""`lsfemu explain`: the numbers behind the scheduler, for the renderers of
render/aps.py and render/fairshare.py: a job's APS value term by term (the
one APS ranker's, through the engine), and a user's dynamic priority in each
fairshare queue, term by term."""

from __future__ import annotations

from dataclasses import dataclass

from lsfemu.errors import LsfError, NoJobFound
from lsfemu.jobstate import PENDING
from lsfemu.render import messages as M
from lsfemu.sched import dispatch
from lsfemu.sched.fairshare import effective_factors


@dataclass
class ApsExplained:
    """A job's APS value (`result`), with the APS queue that orders it; a job of
    an APS queue that is not pending has none (`not_pending`: its state says why)."""

    job: object
    aps_queue: str | None
    aps_text: str | None
    result: object | None
    not_pending: bool = False


def aps(cluster, ref: tuple[int, int, str]) -> ApsExplained:
    """`lsfemu explain aps JOBID`: `ref` is (job ID, index, as typed)."""
    jid, idx, typed = ref
    job = cluster.jobs.get((jid, idx))
    if job is None:
        raise NoJobFound(typed)
    unit = cluster.aps_unit.get(job.queue)
    q = cluster.config.queue(unit) if unit else None
    aps_text = q.aps_priority if q else None
    if unit is not None and job.status not in PENDING:
        # A started or finished job has no APS value to show: only pending jobs are ranked.
        return ApsExplained(job, unit, aps_text, None, not_pending=True)
    return ApsExplained(job, unit, aps_text, cluster.aps_result(job, cluster.now()))


def priority(cluster, user: str, queue: str | None) -> list[tuple[object, dict, str]]:
    """`lsfemu explain priority USER [-q QUEUE]`: (the user's terms, where each
    factor comes from, queue) for the queue, or for every fairshare queue."""
    cfg = cluster.config
    candidates = [queue] if queue else [q.name for q in cfg.queues if cluster.fs_by_queue.get(q.name)]
    if queue and cfg.queue(queue) is None:
        raise LsfError(M.NO_SUCH_QUEUE, queue)
    live = cluster.fairshare()
    out = []
    for qname in candidates:
        state = live.state(qname)
        if state is None:
            raise LsfError(M.NO_FAIRSHARE, qname)
        _, sources = effective_factors(cfg.params, cluster.fs_by_queue[qname].queue)
        out.append((state.explain(user), sources, qname))
    if not out:
        raise LsfError(M.NO_FAIRSHARE_QUEUE, "lsfemu")
    return out


@dataclass
class PendingExplained:
    """Why a pending job is not running (`lsfemu explain pending`): the
    reasons the last pass stored (what bjobs -p shows), the reason that keeps
    it from every host (a dependency, a start time, a limit: `blocked`), its
    requirement, and each host of its queue as the pass judges it now
    (sched.dispatch.host_by_host), with the values its select[] reads there."""

    job: object
    reasons: list[str]
    blocked: str | None
    requirement: str | None
    hosts: list[tuple[str, list[str], int]]
    reads: list[str]
    values: dict[str, dict[str, object]]


def pending(cluster, ref: tuple[int, int, str]) -> PendingExplained:
    """`lsfemu explain pending JOBID`: `ref` is (job ID, index, as typed)."""
    jid, idx, typed = ref
    job = cluster.jobs.get((jid, idx))
    if job is None:
        raise NoJobFound(typed)
    if job.status != "PEND":
        raise LsfError(M.EXPLAIN_NOT_PENDING, f"Job <{typed}>")
    inp = cluster.pass_input(cluster.now())
    cluster.passes.reserve.show(inp.hosts, (jid, idx))  # the slots other jobs reserve are not free for it
    pj = next((p for p in inp.jobs if p.key == (jid, idx)), None)
    stored = [r for r in (job.pend_reasons or "").split("\n") if r]
    hosts = dispatch.host_by_host(pj, inp) if pj is not None and not pj.blocked else []
    reads: list[str] = []
    if pj is not None and pj.req is not None:
        for terms in pj.req.alternatives:
            for t in terms:
                for name in sorted(getattr(t.select, "names", ()) or ()):
                    if name not in reads:
                        reads.append(name)
    values = {name: {k: inp.hosts[name].view().get(k) for k in reads} for name, _, _ in hosts}
    return PendingExplained(job, stored, pj.blocked if pj is not None else None,
                            cluster.requirements.text_of(job), hosts, reads, values)
