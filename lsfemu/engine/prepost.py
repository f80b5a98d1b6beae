"""bsub -E / -Ep: the job's pre- and post-execution commands, as LSF runs them.

LSF (bsub -E): the pre-execution command runs on the execution host before
the job, with the job's user, environment, directory and output files; when
it exits 0 the job runs; otherwise "the job and its associated
pre-execution command goes back to PEND status and is rescheduled" (to the
head of its queue, its priority kept), and LSF tries again, without limit
unless LOCAL_MAX_PREEXEC_RETRY (lsb.params) is set: past that many failed
attempts the job is suspended (PSUSP, LOCAL_MAX_PREEXEC_RETRY_ACTION's
default; bresume lets it try again). The post-execution command (bsub -Ep)
runs after the job, whatever its end, with LSB_JOBEXIT_STAT set to the job's
wait status; its result is logged (JOB_STATUS with PDONE or PERR, which bhist
shows as `Post job process done successfully;` / `... failed;`) and does not
change DONE or EXIT.

Wall mode really runs both (lsfemu.engine.jobwrap). In virtual mode nothing
runs; the outcome comes from the submission environment: the first
LSFEMU_PREEXEC_FAILS attempts (default 0) fail, and the post-execution
command exits LSFEMU_POSTEXEC_EXIT (default 0).
"""

from __future__ import annotations

import json

from lsfemu.engine import eligibility
from lsfemu.events.lsbatch import PRE_EXEC_REASON


def _env(job) -> dict:
    try:
        return json.loads(job.env_json or "{}")
    except ValueError:
        return {}


def _count(value: str | None) -> int:
    value = (value or "").strip()
    return int(value) if value.isdigit() else 0


def failed_attempts(cl, job) -> int:
    """How many times the job's pre-execution command has failed so far."""
    n = 0
    for ev in cl.history(job):
        if ev.kind == "RERUN" and json.loads(ev.data or "{}").get("reason") == "PREEXEC":
            n += 1
    return n


def simulated_preexec_fails(cl, job) -> bool:
    """Virtual mode: does this attempt's pre-execution command fail?"""
    return failed_attempts(cl, job) < _count(_env(job).get("LSFEMU_PREEXEC_FAILS"))


def simulated_post_ok(job) -> bool:
    """Virtual mode: did the post-execution command exit 0?"""
    return _count(_env(job).get("LSFEMU_POSTEXEC_EXIT")) == 0


def retry_limit(cl) -> int | None:
    """LOCAL_MAX_PREEXEC_RETRY (lsb.params): failed attempts before the job is suspended; None: no limit."""
    value = _count(cl.config.params.extra.get("LOCAL_MAX_PREEXEC_RETRY"))
    return value if value > 0 else None


def after_failure(tr, job, t: float) -> None:
    """The job's pre-execution command exited non-zero (the job is started):
    back to PEND, considered first; PSUSP once LOCAL_MAX_PREEXEC_RETRY
    attempts have failed. *tr*: the cluster's Transitions."""
    cl = tr.cl
    attempts = failed_attempts(cl, job) + 1
    tr.charge_usage(job, t)
    job.real_run = False  # the wrapper has ended: nothing of the job runs
    tr.rerun(job, t, "PREEXEC")
    job.pend_reasons = PRE_EXEC_REASON
    limit = retry_limit(cl)
    if limit is not None and attempts >= limit:
        job.status = "PSUSP"
        eligibility.note(job, t)  # held: ineligible from now (TRACK_ELIGIBLE_PENDINFO)
        cl.log(job, "STATUS", None, t, status="PSUSP")
