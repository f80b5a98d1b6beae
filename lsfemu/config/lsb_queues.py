"""lsb.queues: each Queue section into a `QueueConf` (limits, users and
hosts, RUNLIMIT, FAIRSHARE and APS_PRIORITY as text, the queue's fairshare
factors; the real keys lsfemu keeps for later in `extra`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsfemu.config.lexer import Reporter, Section, show
from lsfemu.config.lsb_params import FACTORS, NO_PREEMPT_KEYS, valid_no_preempt
from lsfemu.config.model import QueueConf
from lsfemu.config.values import (INT_MAX, PEND_LIMIT_KEYS, bad_keyword, max_reserve_time, named, named_sections,
                                  not_built, one_minutes, section_keys, to_float, to_int, to_minutes)

_Q_INT: dict[str, tuple[str, int | None]] = {
    "PRIORITY": ("priority", 0),
    "NICE": ("nice", None),
    "QJOB_LIMIT": ("qjob_limit", 0),
    "UJOB_LIMIT": ("ujob_limit", 0),
    "PJOB_LIMIT": ("pjob_limit", 0),
    "HJOB_LIMIT": ("hjob_limit", 0),
}
_Q_LIST = {"USERS": "users", "HOSTS": "hosts", "ADMINISTRATORS": "administrators", "QUEUE_GROUP": "queue_group"}
# Real lsb.queues keys kept verbatim in QueueConf.extra. Those in
# QUEUE_ACTING are read where they act (EXCLUSIVE by bsub -x, RERUNNABLE at
# submission, PREEMPTION, TERMINATE_WHEN and the protections (NO_PREEMPT_*)
# by preemption, SLOT_RESERVE /
# RESOURCE_RESERVE / BACKFILL by reservation, SLOT_POOL / SLOT_SHARE by
# fairshare pools, DISPATCH_ORDER and PROCLIMIT by APS, the fairshare
# booleans by the factors, JOB_IDLE / JOB_OVERRUN / JOB_UNDERRUN by bjobs -x);
# the others are LSF's but not built: warned about (values.not_built), never
# silently ignored.
QUEUE_ACTING = frozenset({
    "BACKFILL", "DISPATCH_ORDER", "ENABLE_GPU_HIST_RUN_TIME", "ENABLE_HIST_RUN_TIME", "EXCLUSIVE",
    "JOB_IDLE", "JOB_OVERRUN", "JOB_UNDERRUN", "MAX_TOTAL_TIME_PREEMPT", "NO_PREEMPT_FINISH_TIME",
    "NO_PREEMPT_INTERVAL", "NO_PREEMPT_RUN_TIME", "PREEMPTION",
    "PROCLIMIT", "RERUNNABLE", "RESOURCE_RESERVE", "RUN_TIME_DECAY", "SLOT_POOL", "SLOT_RESERVE", "SLOT_SHARE",
    "TERMINATE_WHEN",
})
QUEUE_EXTRA_KEYS = QUEUE_ACTING | frozenset({
    "CHKPNT", "CHUNK_JOB_SIZE", "CORELIMIT", "CPULIMIT", "DATALIMIT", "DEFAULT_HOST_SPEC", "DISPATCH_WINDOW",
    "FILELIMIT", "INTERACTIVE", "JOB_ACCEPT_INTERVAL", "JOB_CONTROLS", "JOB_STARTER", "MEMLIMIT", "MIG",
    "NEW_JOB_SCHED_DELAY", "POST_EXEC", "PRE_EXEC", "PROCESSLIMIT", "REQUEUE_EXIT_VALUES", "RESUME_COND",
    "RUN_WINDOW", "STACKLIMIT", "STOP_COND", "SWAPLIMIT", "TASKLIMIT", "THREADLIMIT",
    # more of LSF 10.1's lsb.queues(5) keys, not built
    "CPU_FREQUENCY", "DISPATCH_BY_QUEUE", "FAIRSHARE_QUEUES", "GPU_REQ",
    "HOST_POST_EXEC", "HOST_PRE_EXEC", "HOSTLIMIT_PER_JOB", "INTERRUPTIBLE_BACKFILL", "JOB_ACTION_WARNING_TIME",
    "JOB_SIZE_LIST", "JOB_WARNING_ACTION", "LOCAL_MAX_PREEXEC_RETRY",
    "MAX_JOB_PREEMPT", "MAX_JOB_REQUEUE", "MAX_PREEXEC_RETRY", "MAX_SLOTS_IN_POOL",
    "NETWORK_REQ",
    "PREEMPT_DELAY", "RCVJOBS_FROM", "REMOTE_MAX_PREEXEC_RETRY", "SNDJOBS_TO", "SUCCESS_EXIT_VALUES",
    "USE_PAM_CREDS", "USE_PRIORITY_IN_POOL",
    "r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem",
})
_QUEUE_EXTRA_UP = frozenset(k.upper() for k in QUEUE_EXTRA_KEYS)


def job_idle(value: str) -> float | None:
    """JOB_IDLE's threshold (CPU time / run time, 0.0 to 1.0); None when it is none."""
    try:
        f = float(value)
    except ValueError:
        return None
    return f if 0.0 <= f <= 1.0 else None


def parse_queues(text: str, rep: Reporter) -> list[QueueConf]:
    queues: list[QueueConf] = named_sections(text, rep, "lsb.queues", "QUEUE", "QUEUE_NAME", "queue", _parse_queue)
    if not queues and not rep.has_fatal:
        rep.fatal(0, "no queues defined (expected at least one Begin Queue section)")
    return queues


def _parse_queue(sec: Section, rep: Reporter) -> QueueConf | None:
    q = QueueConf(name="", file=rep.path, line=sec.begin)
    for key, value, line in section_keys(sec, rep, q, "Queue", "QUEUE_NAME", "one queue name (letters, digits, _ . -)"):
        if key in _Q_INT:
            attr, lo = _Q_INT[key]
            n = to_int(key, value, rep, line, lo, INT_MAX)
            if n is not None:
                setattr(q, attr, n)
        elif key in _Q_LIST:
            setattr(q, _Q_LIST[key], value.split())
        elif key == "DESCRIPTION":
            q.description = value or None
        elif key == "RUNLIMIT":
            limits = to_minutes(key, value, rep, line)
            if limits is not None:
                q.run_limit = limits[-1]
                q.run_limit_default = limits[0] if len(limits) == 2 else None
        elif key in PEND_LIMIT_KEYS:  # over lsb.params', under the application's (engine.views.pend_limits)
            setattr(q, PEND_LIMIT_KEYS[key], one_minutes(key, value, rep, line))
        elif key == "FAIRSHARE":
            q.fairshare = value
        elif key == "APS_PRIORITY":
            q.aps_priority = value
        elif key == "RES_REQ":
            q.res_req = value or None
        elif key in FACTORS:
            f = to_float(key, value, rep, line)
            if f is not None:
                q.factors[key] = f
        elif key in ("SLOT_RESERVE", "RESOURCE_RESERVE") and max_reserve_time(value) is None:
            rep.warn(line, f"{key}: value <{value}> is not MAX_RESERVE_TIME[integer] with an integer of 1 or more; ignored")
        elif key in ("JOB_OVERRUN", "JOB_UNDERRUN") and not value.strip().isdigit():
            rep.warn(line, f"{key}: value <{value}> is not a run time in minutes (a whole number); ignored")
        elif key == "JOB_IDLE" and job_idle(value) is None:
            rep.warn(line, f"JOB_IDLE: value <{value}> is not a number between 0.0 and 1.0; ignored")
        elif key == "BACKFILL" and value.strip().upper() not in ("Y", "N"):
            rep.warn(line, f"BACKFILL: value <{value}> is not Y or N; ignored")
        elif key == "PREEMPTION":
            try:
                parse_preemption(value)
            except ValueError as e:
                rep.warn(line, f"PREEMPTION: {e} in {show(value)}; ignored")
            else:
                q.extra[key] = value
        elif key == "TERMINATE_WHEN":
            q.extra[key] = value
            for word in value.upper().split():
                if word != "PREEMPT":
                    rep.warn(line, f"TERMINATE_WHEN: {word} is not supported by lsfemu (only PREEMPT acts); ignored")
        elif key in NO_PREEMPT_KEYS:  # the queue's own, over lsb.params' (lsfemu.engine.preemption)
            if valid_no_preempt(key, value, rep, line):
                q.extra[key] = value
        elif key == "PROCLIMIT":  # LSF's job-size limit: here APS's PROC value alone
            q.extra[key] = value
            rep.warn(line, "PROCLIMIT: only APS's PROC value of a job without -n reads it; job sizes are not "
                           "limited by it (not supported by lsfemu)")
        elif key in _QUEUE_EXTRA_UP:
            q.extra[key] = value
            if key not in QUEUE_ACTING:
                not_built(key, line, rep)
        else:
            bad_keyword(key, "Queue", line, rep)
    return named(q, sec, rep, "Queue", "QUEUE_NAME")


@dataclass(frozen=True)
class Preemption:
    """A queue's PREEMPTION value. `preemptive`: PREEMPTIVE was given, with
    `low` the (queue, preference level) pairs it names (None: every
    lower-priority queue); `preemptable`: PREEMPTABLE was given, with `high`
    the queues it names (None: every higher-priority queue)."""

    preemptive: bool = False
    low: tuple[tuple[str, int], ...] | None = None
    preemptable: bool = False
    high: tuple[str, ...] | None = None


_PREEMPT_WORD = re.compile(r"\s*(PREEMPTIVE|PREEMPTABLE)\s*(\[([^\]]*)\])?", re.IGNORECASE)
_LOW_QUEUE = re.compile(r"^([A-Za-z0-9_.-]+)(\+([0-9]+))?$")


def parse_preemption(text: str) -> Preemption:
    """lsb.queues PREEMPTION: ``PREEMPTIVE[low_queue+pref ...]`` and/or
    ``PREEMPTABLE[hi_queue ...]`` (either without a list: every lower /
    higher priority queue). Raises ValueError on anything else."""
    out = {"preemptive": False, "low": None, "preemptable": False, "high": None}
    pos, text = 0, text.strip()
    if not text:
        raise ValueError("empty value")
    while pos < len(text):
        m = _PREEMPT_WORD.match(text, pos)
        if m is None:
            raise ValueError(f"expected PREEMPTIVE[...] or PREEMPTABLE[...] at {show(text[pos:])}")
        word = m.group(1).upper()
        if out[word.lower()]:
            raise ValueError(f"{word} given twice")
        out[word.lower()] = True
        if m.group(2) is not None:
            names = m.group(3).split()
            if word == "PREEMPTIVE":
                low = []
                for n in names:
                    qm = _LOW_QUEUE.match(n)
                    if qm is None:
                        raise ValueError(f"bad queue name {show(n)}")
                    low.append((qm.group(1), int(qm.group(3) or 0)))
                out["low"] = tuple(low) or None
            else:
                for n in names:
                    if _LOW_QUEUE.match(n) is None or "+" in n:
                        raise ValueError(f"bad queue name {show(n)}")
                out["high"] = tuple(names) or None
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return Preemption(**out)
