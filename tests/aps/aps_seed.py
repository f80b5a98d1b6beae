"""The seed's bjobs -aps scenario (seed 001, "Example bjobs -aps output"), shared by the APS tests.

lsb.params: MAX_USER_PRIORITY=100, JOB_PRIORITY_OVER_TIME=5/10. lsb.queues:
``priority`` (PRIORITY 43, no APS), ``normal`` (PRIORITY 30,
APS_PRIORITY = WEIGHT[[QPRIORITY, 10] [JPRIORITY, 1]], QUEUE_GROUP = Short),
``Short`` (PRIORITY 20), ``Idle`` (PRIORITY 10). Any ``priority`` above 30 and
``Idle`` below 30 give the seed's order: the APS block sits at normal's 30.
"bjobs -aps was run at 14:41"; job 22 has bmod -aps "system=60".
"""

from __future__ import annotations

from lsfemu.config import aps as C
from lsfemu.config.model import Params, QueueConf
from lsfemu.sched import aps as A
from lsfemu.sched import aps_rank as AR
from lsfemu.sched import priority as P

PARAMS = Params(max_user_priority=100, job_priority_over_time=(5, 10))
QUEUES = [
    QueueConf("priority", priority=43),
    QueueConf("normal", priority=30, aps_priority="WEIGHT[[QPRIORITY, 10] [JPRIORITY, 1]]", queue_group=["Short"]),
    QueueConf("Short", priority=20),
    QueueConf("Idle", priority=10),
]
NOW = 14 * 60 + 41  # minutes of the day
# job id, queue, submit time (minutes of the day), system value
JOBS = [
    (2, "Short", 11 * 60, None),
    (4, "Short", 14 * 60, None),
    (5, "Idle", 14 * 60 + 1, None),
    (12, "normal", 14 * 60 + 30, None),
    (15, "priority", 14 * 60 + 30, None),
    (22, "Short", 14 * 60 + 30, 60.0),
]
#: the seed's listing: job id, queue, APS cell
EXPECTED = [
    (15, "priority", "-"),
    (22, "Short", "(60)"),
    (2, "Short", "360.00"),
    (12, "normal", "355.00"),
    (4, "Short", "270.00"),
    (5, "Idle", "-"),
]


def listed_jobs() -> list[A.ListedJob]:
    groups = C.aps_groups(QUEUES)
    by_name = {q.name: q for q in QUEUES}
    out = []
    for job_id, queue, submit, system in JOBS:
        pend = (NOW - submit) * 60
        jp = P.escalation(PARAMS.job_priority_over_time)(P.default_priority(PARAMS.max_user_priority), pend)
        result = None
        if queue in groups:
            cfg = C.parse_aps_priority(by_name[groups[queue]].aps_priority)
            result = AR.aps_value(cfg, AR.ApsJobInput(pend_seconds=pend, job_priority=jp,
                                                    queue_priority=by_name[queue].priority, system_value=system))
        out.append(A.ListedJob(job_id=job_id, queue=queue, position=submit * 60 + job_id / 1000,
                               job_priority=jp, result=result))
    return out
