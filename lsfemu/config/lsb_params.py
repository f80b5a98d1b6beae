"""lsb.params: the Parameters section into `Params` (the scheduler's
intervals and limits, the fairshare factors, DEFAULT_QUEUE,
JOB_PRIORITY_OVER_TIME; the real keys lsfemu keeps for later in `extra`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsfemu.config.lexer import Reporter, keyword_pairs, show
from lsfemu.config.model import Params
from lsfemu.config.values import (INT_MAX, PEND_LIMIT_KEYS, bad_keyword, dedupe, empty_value, not_built, one_minutes,
                                  read_sections, to_bool, to_float, to_int, unsupported)

# KEY -> (Params attribute, minimum, maximum)
_P_INT: dict[str, tuple[str, int, int]] = {
    "MBD_SLEEP_TIME": ("mbd_sleep_time", 1, INT_MAX),
    "SBD_SLEEP_TIME": ("sbd_sleep_time", 1, INT_MAX),
    "JOB_ACCEPT_INTERVAL": ("job_accept_interval", 0, INT_MAX),
    "CLEAN_PERIOD": ("clean_period", 1, INT_MAX),
    "MAX_JOB_NUM": ("max_job_num", 0, INT_MAX),
    "MAX_USER_PRIORITY": ("max_user_priority", 1, INT_MAX),
    "MAX_JOBID": ("max_jobid", 1, 2147483646),
    "JOB_TERMINATE_INTERVAL": ("job_terminate_interval", 0, INT_MAX),
    "MAX_JOB_ARRAY_SIZE": ("max_job_array_size", 1, 2147483646),
    "PG_SUSP_IT": ("pg_susp_it", 0, INT_MAX),
    "MAX_SBD_FAIL": ("max_sbd_fail", 1, INT_MAX),
    "MAX_JOB_PREEMPT": ("max_job_preempt", 1, 2147483646),
    "ACCT_ARCHIVE_AGE": ("acct_archive_age", 1, INT_MAX),
    "ACCT_ARCHIVE_SIZE": ("acct_archive_size", 1, INT_MAX),
    "MAX_ACCT_ARCHIVE_FILE": ("max_acct_archive_file", 1, INT_MAX),
    # host exceptions (bhosts -x): jobs exited per JOB_EXIT_RATE_DURATION minutes
    "GLOBAL_EXIT_RATE": ("global_exit_rate", 0, INT_MAX),
    "JOB_EXIT_RATE_DURATION": ("job_exit_rate_duration", 1, INT_MAX),
}
FACTORS = (
    "CPU_TIME_FACTOR", "RUN_TIME_FACTOR", "RUN_JOB_FACTOR", "FAIRSHARE_ADJUSTMENT_FACTOR",
    "HIST_HOURS", "COMMITTED_RUN_TIME_FACTOR", "GPU_RUN_TIME_FACTOR", "FWD_JOB_FACTOR",
)
_P_FLOAT = {k: k.lower() for k in FACTORS}
_P_BOOL = {"ENABLE_HIST_RUN_TIME": "enable_hist_run_time", "RUN_TIME_DECAY": "run_time_decay",
           "TRACK_ELIGIBLE_PENDINFO": "track_eligible_pendinfo"}
_P_HANDLED = set(_P_INT) | set(_P_FLOAT) | set(_P_BOOL) | {"DEFAULT_QUEUE", "JOB_PRIORITY_OVER_TIME", "DEFAULT_PROJECT",
                                                            "ACCT_ARCHIVE_TIME"}
# Real lsb.params keys that lsfemu keeps verbatim in Params.extra. Those in
# PARAMS_ACTING are read where they act; the others are LSF's but not built:
# a warning names them (never silently ignored).
PARAMS_ACTING = frozenset({
    "FAIRSHARE_ADJUSTMENT_PLUGIN", "JOB_DEP_LAST_SUB", "JOB_SCHEDULING_INTERVAL", "LOCAL_MAX_PREEXEC_RETRY", "MAX_TOTAL_TIME_PREEMPT",
    "NO_PREEMPT_FINISH_TIME", "NO_PREEMPT_INTERVAL", "NO_PREEMPT_RUN_TIME",
    "PREEMPT_FOR", "PREEMPT_JOBTYPE", "RESOURCE_RESERVE_PER_SLOT",
    "RESOURCE_RESERVE_PER_TASK", "SCHED_METRIC_ENABLE", "SCHED_METRIC_SAMPLE_PERIOD",
})
PARAMS_EXTRA_KEYS = frozenset({
    "ABS_RUNLIMIT", "CHUNK_JOB_DURATION",
    "CONDENSE_PENDING_REASONS", "DEFAULT_APPLICATION", "DEFAULT_HOST_SPEC", "DEFAULT_JOBGROUP",
    "DEFAULT_USER_GROUP", "DETECT_IDLE_JOB_AFTER", "EADMIN_TRIGGER_DURATION", "ENABLE_USER_RESUME",
    "ENFORCE_ONE_UG_LIMITS", "EVENT_UPDATE_INTERVAL", "FAIRSHARE_ADJUSTMENT_PLUGIN", "JOB_DEP_LAST_SUB",
    "JOB_POSITION_CONTROL_BY_ADMIN", "JOB_RUNLIMIT_RATIO", "JOB_SCHEDULING_INTERVAL", "JOB_SPOOL_DIR",
    "LOCAL_MAX_PREEXEC_RETRY", "MAX_CONCURRENT_QUERY", "MAX_JOB_REQUEUE", "MAX_PEND_JOBS", "MAX_TOTAL_TIME_PREEMPT",
    "MAX_PEND_SLOTS", "MAX_PREEXEC_RETRY", "MBD_REFRESH_TIME", "NEWJOB_REFRESH", "NO_PREEMPT_FINISH_TIME",
    "NO_PREEMPT_INTERVAL", "NO_PREEMPT_RUN_TIME", "PARALLEL_SCHED_BY_SLOT",
    "PEND_REASON_UPDATE_INTERVAL", "PREEMPT_FOR", "PREEMPT_JOBTYPE", "PREEMPTABLE_RESOURCES", "PREEMPTION_WAIT_TIME",
    "RELAX_JOB_DISPATCH_ORDER", "RESOURCE_RESERVE_PER_SLOT", "RESOURCE_RESERVE_PER_TASK", "SCHED_METRIC_ENABLE",
    "SCHED_METRIC_SAMPLE_PERIOD", "SUB_TRY_INTERVAL", "USE_SUSP_SLOTS",
})

# PREEMPT_FOR's and PREEMPT_JOBTYPE's keywords: those lsfemu acts on
# (MINI_JOB: lsfemu always preempts only the jobs needed, see
# lsfemu.sched.preempt.choose) and those it names in a warning.
PREEMPT_WORDS = {
    "PREEMPT_FOR": (frozenset({"LEAST_RUN_TIME", "MINI_JOB"}),
                    frozenset({"GROUP_JLP", "GROUP_MAX", "HOST_JLU", "USER_JLP", "OPTIMAL_MINI_JOB"})),
    "PREEMPT_JOBTYPE": (frozenset({"BACKFILL", "EXCLUSIVE"}), frozenset({"AFFINITY"})),
}


def _keywords(key: str, value: str, rep: Reporter, line: int) -> frozenset[str]:
    """*key*'s keywords (any case, space-separated) that act."""
    acting, not_built_words = PREEMPT_WORDS[key]
    out = set()
    for word in value.upper().split():
        if word in acting:
            out.add(word)
        elif word in not_built_words:
            rep.warn(line, f"{key}: {word} is not supported by lsfemu; ignored")
        else:
            rep.warn(line, f"{key}: unknown keyword {show(word)}; ignored")
    return frozenset(out)


@dataclass(frozen=True)
class NoPreempt:
    """A NO_PREEMPT_RUN_TIME / NO_PREEMPT_FINISH_TIME value: minutes, or a
    percentage of the job's run limit or run time estimate."""

    amount: int
    percent: bool

    def minutes(self, duration: float | None) -> float | None:
        """The value in minutes for a job expected to run *duration* minutes
        (None: a percentage of a job with neither run limit nor estimate)."""
        if not self.percent:
            return float(self.amount)
        return None if duration is None else duration * self.amount / 100.0


_NO_PREEMPT = re.compile(r"^\s*([0-9]{1,9})\s*(%?)\s*$")


def no_preempt(text: str) -> NoPreempt:
    """``minutes`` (a positive integer) or ``percent%`` (1 to 99); ValueError otherwise."""
    m = _NO_PREEMPT.match(text)
    if m is None or int(m.group(1)) < 1 or (m.group(2) and int(m.group(1)) > 99):
        raise ValueError("expected minutes (a positive integer) or a percentage from 1% to 99%")
    return NoPreempt(int(m.group(1)), bool(m.group(2)))


def no_preempt_interval(text: str) -> int:
    """NO_PREEMPT_INTERVAL's minutes (0 or more); ValueError otherwise."""
    if not re.match(r"^\s*[0-9]{1,9}\s*$", text):
        raise ValueError("expected minutes (an integer of 0 or more)")
    return int(text)


def max_total_time_preempt(text: str) -> int:
    """MAX_TOTAL_TIME_PREEMPT's minutes (1 or more); ValueError otherwise."""
    if not re.match(r"^\s*[0-9]{1,9}\s*$", text) or int(text) < 1:
        raise ValueError("expected minutes (a positive integer)")
    return int(text)


#: the preemption protections of lsb.params and lsb.queues, each with the
#: function that reads its value (kept verbatim in `extra` when valid)
NO_PREEMPT_KEYS = {"NO_PREEMPT_RUN_TIME": no_preempt, "NO_PREEMPT_FINISH_TIME": no_preempt,
                   "NO_PREEMPT_INTERVAL": no_preempt_interval, "MAX_TOTAL_TIME_PREEMPT": max_total_time_preempt}


def valid_no_preempt(key: str, value: str, rep: Reporter, line: int) -> bool:
    """Is *value* a value of the protection *key*? If not, a warning says so (the key is ignored)."""
    try:
        NO_PREEMPT_KEYS[key](value)
    except ValueError as e:
        rep.warn(line, f"{key}: {e}, got {show(value.strip())}; ignored")
        return False
    return True


_SCHED_INTERVAL = re.compile(r"^\s*([0-9]{1,9})\s*(ms)?\s*$", re.IGNORECASE)


def scheduling_interval(text: str) -> float:
    """JOB_SCHEDULING_INTERVAL's seconds: ``N`` seconds or ``N ms``
    milliseconds (0 or more, LSF 10.1's syntax); ValueError otherwise."""
    m = _SCHED_INTERVAL.match(text)
    if m is None:
        raise ValueError("expected seconds, or milliseconds followed by ms (an integer of 0 or more)")
    return int(m.group(1)) / (1000.0 if m.group(2) else 1.0)


def parse_params(text: str, rep: Reporter) -> Params:
    p = Params()
    pairs: list[tuple[str, str, int]] = []
    n_sections = 0
    seen: dict[str, int] = {}
    for sec in read_sections(text, rep):
        if sec.key == "PARAMETERS":
            n_sections += 1
            if n_sections > 1:
                rep.warn(sec.begin, "a second Begin Parameters section; its keys are merged with the first")
            pairs += dedupe(keyword_pairs(sec.lines, rep, "Parameters"), rep, seen)
        else:
            unsupported(sec, rep, "lsb.params")
    if n_sections == 0 and not rep.has_fatal:
        rep.warn(0, "no Begin Parameters section; LSF's defaults are used")
    for key, value, line in pairs:
        p.lines[key] = line
        if value == "":
            empty_value(key, line, rep)
            continue
        if key in _P_INT:
            attr, lo, hi = _P_INT[key]
            n = to_int(key, value, rep, line, lo, hi)
            if n is not None:
                setattr(p, attr, n)
                if key == "MAX_JOBID" and n < 999999:
                    rep.warn(line, f"MAX_JOBID: LSF requires at least 999999, got {show(value)}; lsfemu uses it anyway")
        elif key in _P_FLOAT:
            f = to_float(key, value, rep, line)
            if f is not None:
                setattr(p, _P_FLOAT[key], f)
        elif key in _P_BOOL:
            b = to_bool(key, value, rep, line)
            if b is not None:
                setattr(p, _P_BOOL[key], b)
        elif key in PEND_LIMIT_KEYS:  # the cluster's pending time limits (engine.views.pend_limits)
            setattr(p, PEND_LIMIT_KEYS[key], one_minutes(key, value, rep, line))
        elif key == "DEFAULT_QUEUE":
            p.default_queues = value.split()
        elif key == "DEFAULT_PROJECT":
            p.default_project = value
        elif key == "ACCT_ARCHIVE_TIME":
            m = re.match(r"^\s*([0-9]{1,2}):([0-9]{2})\s*$", value)
            if m is None or int(m.group(1)) > 23 or int(m.group(2)) > 59:
                rep.fatal(line, f"ACCT_ARCHIVE_TIME: expected a time of day hh:mm (e.g. 02:30), got {show(value)}")
            else:
                p.acct_archive_time = (int(m.group(1)), int(m.group(2)))
        elif key == "JOB_PRIORITY_OVER_TIME":
            m = re.match(r"^\s*([0-9]+)\s*/\s*([0-9]+)\s*$", value)
            if m is None or int(m.group(1)) < 1 or int(m.group(2)) < 1:
                rep.fatal(line, f"JOB_PRIORITY_OVER_TIME: expected increment/interval, both positive integers "
                                f"(e.g. 1/10), got {show(value)}")
            else:
                p.job_priority_over_time = (int(m.group(1)), int(m.group(2)))
        elif key in NO_PREEMPT_KEYS and not valid_no_preempt(key, value, rep, line):
            continue
        elif key == "JOB_SCHEDULING_INTERVAL":
            try:
                p.job_scheduling_interval = scheduling_interval(value)
            except ValueError as e:
                rep.warn(line, f"{key}: {e}, got {show(value.strip())}; ignored")
                continue
            p.extra[key] = value  # (bparams -a shows it as written)
        elif key in PARAMS_EXTRA_KEYS:
            p.extra[key] = value
            if key == "PREEMPT_FOR":
                p.preempt_for = _keywords(key, value, rep, line)
            elif key == "PREEMPT_JOBTYPE":
                p.preempt_jobtype = _keywords(key, value, rep, line)
            if key not in PARAMS_ACTING:
                not_built(key, line, rep)
        else:
            bad_keyword(key, "parameters", line, rep)
    if "GLOBAL_EXIT_RATE" in p.lines:  # LSF runs eadmin on a host past it: not built (lsb.hosts EXIT_RATE too)
        rep.warn(p.lines["GLOBAL_EXIT_RATE"], "GLOBAL_EXIT_RATE: lsfemu lists the hosts past it (bhosts -x) but "
                                              "runs no eadmin (the host is not closed)")
    if p.job_priority_over_time is not None and p.max_user_priority is None:
        rep.warn(p.lines["JOB_PRIORITY_OVER_TIME"],
                 "JOB_PRIORITY_OVER_TIME has no effect without MAX_USER_PRIORITY; ignored")
        p.job_priority_over_time = None
    return p
