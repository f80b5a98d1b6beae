"""Host exceptions (issue 21; bhosts -x): the hosts where jobs exit too often.

LSF's rule (lsb.hosts EXIT_RATE, lsb.params GLOBAL_EXIT_RATE and
JOB_EXIT_RATE_DURATION): a host is exceptional when more jobs than its
threshold exited on it over the last JOB_EXIT_RATE_DURATION minutes (5 by
default). The threshold is the host's EXIT_RATE row, else the `default`
row's, else GLOBAL_EXIT_RATE (LSF's default 2147483647: none). Counted as
LSF 10.1's default EXIT_RATE_TYPE (JOBEXIT_NONLSF) counts them: jobs that
ended EXIT for a reason of their own (a non-zero exit), not those LSF or a
person ended (bkill, run/CPU/memory limits, deadline, preemption: the
`TERM_*` reasons); a parallel job counts once on each of its hosts.

LSF then runs eadmin, which by default closes the host; lsfemu has no
eadmin (the configuration warns about it): bhosts -x lists such hosts and
they stay open.
"""

from __future__ import annotations

#: GLOBAL_EXIT_RATE's default: no threshold
NO_THRESHOLD = 2147483647


def threshold(cfg, host: str) -> int | None:
    """The host's exit rate threshold (jobs per JOB_EXIT_RATE_DURATION), None when it has none."""
    for name in (host, "default"):
        row = cfg.hosts.get(name)
        if row is not None and row.exit_rate is not None:
            return row.exit_rate
    rate = cfg.params.global_exit_rate
    return None if rate >= NO_THRESHOLD else rate


def exited(cl, hosts: list[str]) -> dict[str, int]:
    """Jobs that exited on each host of *hosts* within the last JOB_EXIT_RATE_DURATION minutes."""
    since = cl.now() - cl.config.params.job_exit_rate_duration * 60
    out = {h: 0 for h in hosts}
    for job in cl.jobs.values():
        if job.status != "EXIT" or job.finish_time is None or job.finish_time <= since:
            continue
        if (job.exit_reason or "").startswith("TERM_"):
            continue  # ended by LSF or a person, not by the host (JOBEXIT_NONLSF)
        for h in set(job.exec_hosts.split()):
            if h in out:
                out[h] += 1
    return out


def exceptional(cl) -> list[str]:
    """The server hosts past their exit rate threshold now, in cluster order."""
    cfg = cl.config
    limits = {h: threshold(cfg, h) for h in cfg.host_names}
    limits = {h: t for h, t in limits.items() if t is not None}
    if not limits:
        return []
    counts = exited(cl, list(limits))
    return [h for h in cfg.host_names if h in limits and counts[h] > limits[h]]
