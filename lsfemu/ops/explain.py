"""`lsfemu explain`: the numbers behind the scheduler, for the renderers of
render/aps.py and render/fairshare.py: a job's APS value term by term (the
one APS ranker's, through the engine), and a user's dynamic priority in each
fairshare queue, term by term."""

from __future__ import annotations

from dataclasses import dataclass

from lsfemu.errors import LsfError, NoJobFound
from lsfemu.jobstate import PENDING
from lsfemu.render import messages as M
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
