"""brequeue makes a job new for job priority and APS (Cluster.requeue): back to
the priority it was submitted with, escalation counted from the requeue, the
bmod -aps values dropped ("requeued jobs are treated as newly submitted")."""

from __future__ import annotations

from test_aps_listing import _cluster, _config
from test_pass_equivalence import _spec


def test_requeue_resets_job_priority_system_and_admin(tmp_path):
    queues, params = _config({"JPRIORITY": 1}, None, None, (30, 40, 20), "5/10")
    cl = _cluster(tmp_path, queues, params)
    try:
        job = cl.submit(_spec("ua", "high", 1, 50, None, 100_000))
        cl.commit()
        cl.set_priority(job, 99, "lsfadmin")
        cl.set_aps(job, "system", 60.0, "lsfadmin")
        assert cl.aps_result(job, cl.now()).system == 60.0
        cl.advance(1000)  # dispatched at the first pass
        assert job.status == "RUN"
        cl.requeue(job, "lsfadmin")
        assert (job.aps_system, job.aps_admin) == (None, None)
        r = cl.aps_result(job, cl.now())
        assert r.value == 50 and r.system is None  # JPRIORITY 50, not escalated yet
        assert cl.effective_priority(job) == 50
        cl.clock.virtual_now += 600
        assert cl.aps_result(job, cl.now()).value == 55  # escalation counts from the requeue
    finally:
        cl.session.close()
        cl.engine.dispose()
