"""bjobs' categorized pending reasons (issue 21, part 1): ``bjobs -p2`` /
``-p3`` and LSB_BJOBS_PENDREASON_LEVEL=2/3, the host-based reasons of a job
split between its candidate and its non-candidate hosts.

The layout follows the one real LSF 10.1 sample found, a level-3 reason
text printed by IBM's lsf-python-api (pull request 60,
``examples/get_job_pendreason.py``; docs/semantics.md)::

     Candidate host pending reasons (0 of 4 hosts).

     Non-candidate host pending reasons (4 of 4 hosts):
       Closed by LSF administrator: 1 host;
       Job's resource requirements not satisfied: 1 host;

A job held by a reason of its own, its queue's or its user's (the sample's
PSUSP job) shows that single key reason, as ``-p1`` does.
"""

from __future__ import annotations

from lsfemu.jobstate import PENDING
from lsfemu.render.bjobs.fields import host_reason, key_reason
from lsfemu.sched import dispatch as D
from lsfemu.views import JobView

#: The host reasons of hosts the job could not use even were they idle: not
#: its queue's, not named by its -m, closed by an administrator, unreachable,
#: its select[] unmet, and two texts of LSF's that lsfemu's passes do not
#: give (a job's reasons read back may carry them); the sample files its
#: four reasons under non-candidate. Every other host reason -- slots taken,
#: per-host limits, exclusive jobs, a host that just took a job, a
#: reservation or span[] that does not fit now -- is a candidate host's: it
#: could run the job once freed.
NON_CANDIDATE = frozenset((D.HOST_CLOSED, D.HOST_UNREACH, D.NOT_USABLE, D.NOT_SPECIFIED, D.RES_REQ,
                           "Load information unavailable", "Not the same type as the submission host"))


def split(job: JobView) -> tuple[list[tuple[int, str, str]], list[tuple[int, str, str]]] | None:
    """The job's host reasons as (hosts, text, reason) for its candidate and
    its non-candidate hosts, each from most to least common (ties by text);
    None when a reason of the job, its queue or user holds it."""
    cand: list[tuple[int, str, str]] = []
    non: list[tuple[int, str, str]] = []
    for r in job.pend_reasons:
        counted = host_reason(r)
        if counted is None:
            return None
        n, text = counted
        (non if text in NON_CANDIDATE else cand).append((n, text, r))
    cand.sort(key=lambda c: (-c[0], c[1]))
    non.sort(key=lambda c: (-c[0], c[1]))
    return cand, non


def lines(job: JobView, level: int) -> list[str]:
    """The reason lines under a job's -p row at level 2 (candidate hosts) or
    3 (candidate, a blank line, non-candidate hosts); the key reason's line
    for a job held by a reason that is no host's."""
    if job.status not in PENDING or not job.pend_reasons:
        return []
    parts = split(job)
    if parts is None:
        return [f" {key_reason(job)};"]
    cand, non = parts
    total = sum(n for n, _t, _r in cand + non)
    out = _section("Candidate", cand, total)
    if level >= 3:
        out += [""] + _section("Non-candidate", non, total)
    return out


def _section(kind: str, reasons: list[tuple[int, str, str]], total: int) -> list[str]:
    n = sum(c for c, _t, _r in reasons)
    head = f" {kind} host pending reasons ({n} of {total} hosts)"
    if not reasons:
        return [head + "."]
    return [head + ":"] + [f"   {r};" for _n, _t, r in reasons]


def candidates_only(job: JobView) -> list[str]:
    """-p2 -psum: the reasons of the job's candidate hosts only (none for a
    job held by a reason that is no host's, or with no candidate host)."""
    parts = split(job) if job.status in PENDING else None
    return [] if parts is None else [r for _n, _t, r in parts[0]]
