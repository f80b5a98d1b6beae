"""bhist's texts of a JOB_MODIFY2 record: one item a parameter bmod set or reset.

:func:`modify_items` gives the items of a MODIFY change of a job's history
(:mod:`lsfemu.events.history`), in OpenLava's order (prtModifiedJob).
"""

from __future__ import annotations

import time

from lsfemu.events import lsbatch
from lsfemu.events.submitrecords import JobModify2
from lsfemu.sched import hostfile


def modify_items(rec: JobModify2) -> list[str]:
    """bhist's item texts for a JOB_MODIFY2 record, in the order OpenLava's
    bhist prints them (prtModifiedJob: the values set, then the ones reset);
    the job name, user group, CWD, job group, application and APS items are
    lsfemu's [inferred]."""
    items: list[str] = []
    o, o2, d = rec.options, rec.options2, rec.del_options
    limits = rec.rlimits
    run = limits[lsbatch.RLIMIT_RUN] if len(limits) > lsbatch.RLIMIT_RUN else lsbatch.DEFAULT_RLIMIT
    cpu = limits[lsbatch.RLIMIT_CPU] if limits else lsbatch.DEFAULT_RLIMIT
    mem = limits[lsbatch.RLIMIT_RSS] if len(limits) > lsbatch.RLIMIT_RSS else lsbatch.DEFAULT_RLIMIT
    nprocs = (lsbatch.DEFAULT_NUMPRO, lsbatch.DEL_NUMPRO, 0)
    if o & lsbatch.SUB_JOB_NAME:
        items.append(f"Job name changes to : {rec.job_name}")
    if o & lsbatch.SUB_QUEUE:
        items.append(f"Job queue changes to : {rec.queue}")
    if o & lsbatch.SUB_HOST and rec.asked_hosts:
        listed = hostfile.decode(hostfile.from_log_words(rec.asked_hosts))
        if listed is not None:  # bmod -hostfile [lsfemu's wording: LSF's was not found]
            items.append(f"User-specified host file changes to : {listed[0]}")
        else:
            items.append("Hosts change to : " + " ".join(rec.asked_hosts))
    if o & lsbatch.SUB_IN_FILE:
        items.append(f"Input file change to : {rec.in_file}")
    if o & lsbatch.SUB_OUT_FILE:
        items.append(f"Output file change to : {rec.out_file}")
    if o & lsbatch.SUB_ERR_FILE:
        items.append(f"Error file change to : {rec.err_file}")
    for bit, text in ((lsbatch.SUB_EXCLUSIVE, "Job changes to exclusive"),
                      (lsbatch.SUB_NOTIFY_END, "Job will send mail to user when job ends"),
                      (lsbatch.SUB_NOTIFY_BEGIN, "Job will send mail to user when job begins")):
        if o & bit:
            items.append(text)
    if o & lsbatch.SUB_RERUNNABLE:
        items.append("Job changes to rerunnable")
    if o & lsbatch.SUB_DEPEND_COND:
        items.append(f"Dependances condition changes to: {rec.depend_cond}")
    if o & lsbatch.SUB_RES_REQ:
        items.append(f"Resource requirement changes to: {rec.res_req}")
    if o & lsbatch.SUB_PRE_EXEC:
        items.append(f"Pre exec command changes to : {rec.pre_exec_cmd}")
    if o & lsbatch.SUB_POST_EXEC:
        items.append(f"Post exec command changes to : {rec.post_exec_cmd}")
    if o & lsbatch.SUB_LOGIN_SHELL:
        items.append(f"Log shell changes to : {rec.login_shell}")
    if o & lsbatch.SUB_MAIL_USER:
        items.append(f"Mail user changes to : {rec.mail_user}")
    if o & lsbatch.SUB_PROJECT_NAME:
        items.append(f"Project name changes to : {rec.project_name}")
    if o & lsbatch.SUB_USER_GROUP:
        items.append(f"User group changes to : {rec.user_group}")
    if rec.options3 & lsbatch.SUB3_CWD:
        items.append(f"Job CWD changes to : {rec.cwd}")
    if rec.options3 & lsbatch.SUB3_OUTDIR:
        items.append(f"Output directory changes to : {rec.outdir}")
    if rec.options3 & lsbatch.SUB3_RUNTIME_EST:
        items.append(f"Runtime estimation changes to : {rec.runtime_estimate // 60} (minutes)")
    if rec.options3 & lsbatch.SUB3_JOB_GROUP:
        items.append(f"Job group changes to : {rec.job_group}")
    if rec.options3 & lsbatch.SUB3_APP:
        items.append(f"Application profile changes to : {rec.app}")
    if cpu > 0:
        items.append(f"CPU limit changes to : {cpu // 60} (minutes)")
    if mem > 0:
        items.append(f"Memory limit changes to : {mem} (KB)")
    if run > 0:
        items.append(f"run limit changes to : {run // 60} (minutes)")
    if o2 & lsbatch.SUB2_MODIFY_CMD:
        items.append(f"Job command changes to : {rec.command}")
    if rec.num_processors not in nprocs:
        items.append(f"New minimal num of processors is : {rec.num_processors}")
    if rec.max_num_processors not in nprocs:
        items.append(f"New max num of processors is : {rec.max_num_processors}")
    if rec.begin_time > 0:
        items.append(f"Job new begin time is : {_ctime_year(rec.begin_time)}")
    if rec.term_time > 0:
        items.append(f"Job new end time is : {_ctime_year(rec.term_time)}")
    if o2 & lsbatch.SUB2_JOB_PRIORITY:
        items.append(f"New job priority is: {rec.user_priority}")
    if rec.options3 & lsbatch.SUB3_DESCRIPTION:
        items.append(f"Job Description changes to : {rec.job_description}")
    for bit, text in ((lsbatch.SUB_QUEUE, "Job queue changes back to default"),
                      (lsbatch.SUB_HOST, "Host changes to default:"),  # (OpenLava's text ends ": ")
                      (lsbatch.SUB_IN_FILE, "Input file is disabled"),
                      (lsbatch.SUB_OUT_FILE, "Output file is disabled"), (lsbatch.SUB_ERR_FILE, "Error file is disabled"),
                      (lsbatch.SUB_EXCLUSIVE, "Job changes to nonexclusive"),
                      (lsbatch.SUB_NOTIFY_END, "No mail will be sent to user when job ends"),
                      (lsbatch.SUB_NOTIFY_BEGIN, "No mail will be to user when job begins"),  # (sic, OpenLava)
                      (lsbatch.SUB_RERUNNABLE, "Job changes to be not rerunnable"),
                      (lsbatch.SUB_DEPEND_COND, "No dependances condition"),
                      (lsbatch.SUB_RES_REQ, "No  resource requirement"),  # (two blanks: OpenLava's text)
                      (lsbatch.SUB_PRE_EXEC, "Pre exec command is disabled"),
                      (lsbatch.SUB_POST_EXEC, "Post exec command is disabled"),
                      (lsbatch.SUB_LOGIN_SHELL, "Log shell changes to default"),
                      (lsbatch.SUB_MAIL_USER, "Mail user changes to original user"),
                      (lsbatch.SUB_PROJECT_NAME, "Project name changes to default"),
                      (lsbatch.SUB_JOB_NAME, "Job name changes to default"),
                      (lsbatch.SUB_USER_GROUP, "User group changes to default")):
        if d & bit:
            items.append(text)
    if rec.del_options3 & lsbatch.SUB3_CWD:
        items.append("Job CWD changes to default")
    if rec.del_options3 & lsbatch.SUB3_OUTDIR:
        items.append("Output directory changes to default")
    if rec.del_options3 & lsbatch.SUB3_RUNTIME_EST:
        items.append("Runtime estimation is removed")
    if rec.del_options3 & lsbatch.SUB3_JOB_GROUP:
        items.append("Job group changes to default")
    if rec.del_options3 & lsbatch.SUB3_APP:
        items.append("Application profile changes to default")
    if cpu == lsbatch.DELETE_NUMBER:
        items.append("bmod -cn used. CPU limit set to queue CPU limit")
    if mem == lsbatch.DELETE_NUMBER:
        items.append("bmod -Mn used. Memory limit set to queue memory limit")
    if run == lsbatch.DELETE_NUMBER:
        items.append("bmod -Wn used. Run limit set to queue run limit")
    if rec.num_processors == lsbatch.DEL_NUMPRO:
        items.append("Minimal num of processors is removed")
    if rec.max_num_processors == lsbatch.DEL_NUMPRO:
        items.append("Max num of processors is removed")
    if rec.begin_time == lsbatch.DELETE_NUMBER:
        items.append("Job begin time is removed")
    if rec.term_time == lsbatch.DELETE_NUMBER:
        items.append("Job terminate time is removed")
    if rec.del_options2 & lsbatch.SUB2_JOB_PRIORITY:
        items.append("Job priority changes to default")
    if rec.del_options3 & lsbatch.SUB3_DESCRIPTION:
        items.append("Job Description is removed")
    if rec.options3 & lsbatch.SUB3_APS:
        items.append(f"Absolute Priority Scheduling factor string changed to : {rec.aps_string}")
    if rec.del_options3 & lsbatch.SUB3_APS:
        items.append("Absolute Priority Scheduling factor string deleted")
    return items


def _ctime_year(t: int) -> str:
    """OpenLava's CTIME_FORMAT_a_b_d_T_Y (``Wed Nov 26 22:00:00 2026``), in the reader's time zone."""
    return time.strftime("%a %b %d %H:%M:%S %Y", time.localtime(t))
