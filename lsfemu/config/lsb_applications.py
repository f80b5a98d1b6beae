"""lsb.applications: each Application section into an `AppConf` (bsub -app,
bapp). The parameters lsfemu acts on: NAME, DESCRIPTION, RUNLIMIT (a job's run
limit unless it has -W), MEMLIMIT (its memory limit unless it has -M, in
LSF_UNIT_FOR_LIMITS), PEND_TIME_LIMIT and ELIGIBLE_PEND_TIME_LIMIT (over the
queue's, under bsub -ptl / -eptl).
LSF's other application parameters are accepted with lsb.params' warning
that lsfemu does not act on them (values.not_built); an unknown key gets
mbatchd's "bad keyword" warning (values.bad_keyword), as in lsb.queues.
"""

from __future__ import annotations

from lsfemu.config.lexer import Reporter, Section
from lsfemu.config.model import AppConf
from lsfemu.config.values import (INT_MAX, PEND_LIMIT_KEYS, bad_keyword, named, named_sections, not_built, one_minutes,
                                  section_keys, to_int)

#: LSF 10.1's other lsb.applications parameters (lsb.applications(5)): read, not acted on
NOT_BUILT = frozenset({
    "ABS_RUNLIMIT", "BIND_JOB", "CHKPNT_DIR", "CHKPNT_INITPERIOD", "CHKPNT_METHOD", "CHKPNT_PERIOD",
    "CHUNK_JOB_SIZE", "CONTAINER", "CORELIMIT", "CPU_FREQUENCY", "CPULIMIT", "DATALIMIT", "DJOB_COMMFAIL_ACTION",
    "DJOB_DISABLED", "DJOB_ENV_SCRIPT", "DJOB_HB_INTERVAL", "DJOB_RESIZE_GRACE_PERIOD", "DJOB_RU_INTERVAL",
    "ENV_VARS", "EXEC_DRIVER", "FILELIMIT", "GPU_REQ", "HOST_POST_EXEC",
    "HOST_PRE_EXEC", "JOB_CWD", "JOB_CWD_TTL", "JOB_INCLUDE_POSTPROC", "JOB_POSTPROC_TIMEOUT", "JOB_PREPROC_TIMEOUT",
    "JOB_SIZE_LIST", "JOB_STARTER", "LOCAL_MAX_PREEXEC_RETRY", "MAX_JOB_PREEMPT", "MAX_JOB_REQUEUE",
    "MAX_PREEXEC_RETRY", "MAX_TOTAL_TIME_PREEMPT", "MIG", "NETWORK_REQ", "NICE", "NO_PREEMPT_INTERVAL",
    "NO_PREEMPT_FINISH_TIME", "NO_PREEMPT_RUN_TIME", "PERSISTENT_HOST_ORDER", "POST_EXEC",
    "PRE_EXEC", "PREEMPT_DELAY", "PRIORITY", "PROCESSLIMIT", "PROCLIMIT", "REMOTE_MAX_PREEXEC_RETRY",
    "REQUEUE_EXIT_VALUES", "RERUNNABLE", "RESIZABLE_JOBS", "RESIZE_NOTIFY_CMD", "RESUME_CONTROL", "RTASK_GONE_ACTION",
    "RUNTIME", "STACKLIMIT", "SUCCESS_EXIT_VALUES", "SUSPEND_CONTROL", "SWAPLIMIT", "TASKLIMIT", "TERMINATE_CONTROL",
    "THREADLIMIT", "USE_PAM_CREDS", "WATCHDOG",
})
MAX_NAME = 59  # LSF: application names of up to 59 characters (LSBE_BAD_APPNAME beyond)


def parse_applications(text: str, rep: Reporter) -> dict[str, AppConf]:
    apps = named_sections(text, rep, "lsb.applications", "APPLICATION", "NAME", "application", _parse_app)
    return {a.name: a for a in apps}


def _parse_app(sec: Section, rep: Reporter) -> AppConf | None:
    app = AppConf(name="", file=rep.path, line=sec.begin)
    phrase = f"one application name (letters, digits, _ . -; at most {MAX_NAME} characters)"
    for key, value, line in section_keys(sec, rep, app, "Application", "NAME", phrase, MAX_NAME):
        if key == "DESCRIPTION":
            app.description = value or None
        elif key == "RUNLIMIT":
            app.run_limit = one_minutes(key, value, rep, line)
        elif key in PEND_LIMIT_KEYS:
            setattr(app, PEND_LIMIT_KEYS[key], one_minutes(key, value, rep, line))
        elif key == "MEMLIMIT":
            n = to_int(key, value, rep, line, 1, INT_MAX)
            if n is not None:
                app.mem_limit = n
        elif key == "RES_REQ":
            app.res_req = value or None
        elif key in NOT_BUILT:
            not_built(key, line, rep)
        else:
            bad_keyword(key, "Application", line, rep)
    return named(app, sec, rep, "Application", "NAME")
