"""`lsfemu explain pending JOBID`, pure: why a pending job is not running,
host by host, in plain words (lsfemu's own view; bjobs -p prints LSF's
reason texts). Input: lsfemu.ops.explain.PendingExplained's parts."""

from __future__ import annotations

from lsfemu.sched import dispatch as D
from lsfemu.sched import placement as P

#: LSF's host reasons told plainly (a reservation reason is matched by its prefix)
_PLAIN = {
    D.HOST_CLOSED: "closed by an administrator (badmin hclose)",
    D.HOST_JOB_LIMIT: "every job slot it has is taken",
    D.HOST_LESS_SLOTS: "too few free job slots for the job here",
    D.QUEUE_HOST_LIMIT: "the queue's per-host job limit (JL/H) is reached here",
    D.QUEUE_PROC_LIMIT: "the queue's per-CPU job limit (JL/P) is reached here",
    D.NOT_USABLE: "not one of the queue's hosts",
    D.NOT_SPECIFIED: "not named in the job's -m host list",
    D.HOST_EXCLUSIVE: "an exclusive job (bsub -x) runs here",
    D.EXCL_NOT_SATISFIED: "the job wants the host to itself (bsub -x) and other jobs run here",
    D.JUST_STARTED: "it took a job less than JOB_ACCEPT_INTERVAL ago",
    D.HOST_UNREACH: "unreachable (lsfemu host fail)",
    P.RES_REQ: "its values do not satisfy the job's select[]",
    P.NO_SPAN: "span[] needs more slots on each host than are free here",
}


def _plain(reason: str) -> str:
    if reason in _PLAIN:
        return _PLAIN[reason]
    if reason.startswith("Job's requirements for reserving resource ("):
        name = reason[len("Job's requirements for reserving resource ("):].split(")", 1)[0]
        return f"not enough {name} left to reserve what the job's rusage[] asks"
    return reason


def _value(v: object) -> str:
    if v is None:
        return "(not defined here)"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def explain_pending(*, job_id: str, queue: str, slots: int, reasons: list[str], blocked: str | None,
                    requirement: str | None, hosts: list[tuple[str, list[str], int]], reads: list[str],
                    values: dict[str, dict[str, object]]) -> str:
    """The explanation's text (ending with a newline)."""
    out = [f"Job <{job_id}> is pending in queue <{queue}>, asking for {slots} slot{'s' if slots != 1 else ''}.",
           f"Resource requirement: {requirement}" if requirement else "Resource requirement: none (any host with free slots)"]
    if reasons:
        out.append("What the last pass said (bjobs -p):")
        out.extend(f"  {r};" for r in reasons)
    if blocked:
        out.append(f"It waits before any host is looked at: {blocked}.")
        return "\n".join(out) + "\n"
    if not hosts:
        out.append("Its queue has no hosts to look at.")
        return "\n".join(out) + "\n"
    out.append("Host by host, as the scheduler sees them now:")
    width = max(len(h) for h, _, _ in hosts)
    fits = False
    for name, why, room in hosts:
        if not why:
            fits = True
            text = "could run the whole job now"
        else:
            text = "; ".join(_plain(r) for r in why)
            if room:
                text += f" (it could give {room} slot{'s' if room != 1 else ''})"
        out.append(f"  {name:<{width}}  {text}")
        if reads and P.RES_REQ in why:
            shown = ", ".join(f"{k}={_value(values.get(name, {}).get(k))}" for k in reads)
            out.append(f"  {'':<{width}}  the select[] reads: {shown}")
    if fits:
        out.append("A host could take it now: it starts at the next scheduling pass unless jobs ahead of it take "
                   "the room first, or a limit of its queue, user or lsb.resources holds it back.")
    return "\n".join(out) + "\n"
