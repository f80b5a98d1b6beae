"""bparams output formats (reference section 6): data in, text out.

``short`` is the four-line default display (two spaces after each colon,
"Job Accepting Interval" = JOB_ACCEPT_INTERVAL x MBD_SLEEP_TIME seconds).
``long`` is ``bparams -l``: an empty line, then paragraphs of a description
line, one ``    NAME = value`` line and an empty line, in OpenLava's order
(the Platform-era texts; the two lines seen verbatim on LSF 10 match). The
priority paragraph appears only when MAX_USER_PRIORITY is set, the
JOB_PRIORITY_OVER_TIME one only when that is set; fairshare factors use C's
``%f``.
"""

from __future__ import annotations

from lsfemu.views import ParamsView


def short(p: ParamsView) -> str:
    lines = [f"Default Queues:  {' '.join(p.default_queues)}"]
    if p.default_host_spec:
        lines.append(f"Default Host Specification:  {p.default_host_spec}")
    lines.append(f"Job Dispatch Interval:  {p.mbd_sleep_time} seconds")
    lines.append(f"Job Checking Interval:  {p.sbd_sleep_time} seconds")
    lines.append(f"Job Accepting Interval:  {p.job_accept_interval * p.mbd_sleep_time} seconds")
    return "\n".join(lines) + "\n"


def _para(description: str, value_line: str | None = None) -> list[str]:
    out = [description]
    if value_line is not None:
        out.append("    " + value_line)
    out.append("")
    return out


def long(p: ParamsView) -> str:
    out: list[str] = [""]
    out += _para("System default queues for automatic queue selection:",
                 f"DEFAULT_QUEUE = {' '.join(p.default_queues)}")
    if p.default_host_spec:
        out += _para("The default host or host model for adjusting the CPU time limit:",
                     f"DEFAULT_HOST_SPEC = {p.default_host_spec}")
    out += _para("The interval for dispatching jobs by master batch daemon:",
                 f"MBD_SLEEP_TIME = {p.mbd_sleep_time} (seconds)")
    out += _para("The interval for checking jobs by slave batch daemon:",
                 f"SBD_SLEEP_TIME = {p.sbd_sleep_time} (seconds)")
    out += _para("The interval for a host to accept two batch jobs:",
                 f"JOB_ACCEPT_INTERVAL = {p.job_accept_interval} (* MBD_SLEEP_TIME)")
    out += _para("The idle time of a host for resuming pg suspended jobs:",
                 f"PG_SUSP_IT = {p.pg_susp_it} (seconds)")
    out += _para("The amount of time during which finished jobs are kept in core:",
                 f"CLEAN_PERIOD = {p.clean_period} (seconds)")
    out += _para("The maximum number of finished jobs that can be stored in current events file:",
                 f"MAX_JOB_NUM = {p.max_job_num}")
    out += _para("The maximum number of retries for reaching a slave batch daemon:",
                 f"MAX_SBD_FAIL = {p.max_sbd_fail}")
    out += _para("The default project assigned to jobs.",
                 f"DEFAULT_PROJECT = {p.default_project}")
    out += _para("The interval to terminate a job.",
                 f"JOB_TERMINATE_INTERVAL = {p.job_terminate_interval} ")
    out += _para("The maximum number of jobs in a job array.",
                 f"MAX_JOB_ARRAY_SIZE = {p.max_job_array_size}")
    out += _para("User level account mapping for remote jobs is permitted.")
    if p.max_user_priority is not None:
        out += [
            "Maximal job priority defined for all users: ",
            f"    MAX_USER_PRIORITY = {p.max_user_priority}",
            f"The default job priority is: {max(1, p.max_user_priority // 2)}",
            "",
        ]
    if p.job_priority_over_time:
        out += _para("Job priority is increased by the system dynamically based on waiting time.",
                     f"JOB_PRIORITY_OVER_TIME = {p.job_priority_over_time} (minutes)")
    out += _para("The Maximum JobId defined in the system:", f"MAX_JOBID = {p.max_jobid}")
    text = "\n".join(out) + "\n"
    # The fairshare factors, every one (lsfemu.render.fairshare owns their wording).
    from lsfemu.render.fairshare import bparams_factor_paragraphs

    return text + bparams_factor_paragraphs(p)
    return "\n".join(out) + "\n"
