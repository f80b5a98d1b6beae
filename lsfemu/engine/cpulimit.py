"""bsub -c / bmod -c: a job's CPU time limit as the execution host applies it.

LSF 10.1 (bsub -c): the limit is "[hour:]minute[/host_name | /host_model]",
CPU time normalized to the host or host model named; without one, to the
submission host. On the execution host it is scaled by the two CPU factors
(lsf.shared's HostModel table, a host's through its model):

    seconds = minutes * 60 * cpuf(normalization host) / cpuf(execution host)

so a faster execution host (a larger CPU factor) gets fewer seconds. A host
lsfemu does not know (a submission host outside the cluster) counts as the
execution host's own factor: the limit is then taken as it is.

Enforced in virtual mode by the job's simulated CPU time (lsfemu.sched.
simulate.end_of_run) and in wall mode by RLIMIT_CPU (lsfemu.engine.jobwrap);
a job that reaches it ends EXIT, TERM_CPULIMIT, exit code 152 (SIGXCPU).
"""

from __future__ import annotations

from lsfemu.sched.hostres import DEFAULT_CPUF, DEFAULT_MODEL

#: SIGXCPU's default action ends the job: 128 + 24, as LSF reports a job killed by a signal
CPULIMIT_EXIT_CODE = 152
CPULIMIT_REASON = "TERM_CPULIMIT: job killed after reaching LSF CPU usage limit"


def cpu_factor(cfg, name: str) -> float | None:
    """The CPU factor of a host (its model's) or of a host model; None for a name
    that is neither."""
    models = cfg.shared.host_models
    for h in cfg.cluster_hosts:
        if h.name == name:
            model = DEFAULT_MODEL if h.model == "!" else h.model
            return models[model][0] if model in models else DEFAULT_CPUF
    if name in models:
        return models[name][0]
    return None


def limit_seconds(cfg, job) -> float | None:
    """The job's CPU limit in seconds on its (first) execution host; None: no limit."""
    if job.cpu_limit_min is None:
        return None
    seconds = job.cpu_limit_min * 60.0
    hosts = job.exec_hosts.split()
    exec_f = cpu_factor(cfg, hosts[0]) if hosts else None
    norm_f = cpu_factor(cfg, job.cpu_limit_host or job.from_host)
    if exec_f and norm_f:
        seconds *= norm_f / exec_f
    return seconds
