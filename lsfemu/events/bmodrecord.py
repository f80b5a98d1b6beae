"""The JOB_MODIFY2 record of one bmod: :func:`job_modify` builds it from bmod's parameters.

:func:`modify_kwargs` reads a stored MODIFY event's data (what
:mod:`lsfemu.ops.bmod` records: a value set, or None for its `n` form) into
:func:`job_modify`'s keywords; :mod:`lsfemu.events.emit` writes the record
of such an event with the two. The ``options``/``options2``/``options3``
bits say which parameters were set, the ``del_options*`` bits which were
reset (see :class:`~lsfemu.events.submitrecords.JobModify2`).
"""

from __future__ import annotations

from typing import Any

from lsfemu.events import lsbatch
from lsfemu.events.lsbatch import (
    DELETE_NUMBER, RLIMIT_RUN, SUB2_JOB_PRIORITY, SUB2_MODIFY_CMD, SUB3_APS, SUB3_CWD, SUB_DEPEND_COND, SUB_ERR_FILE,
    SUB_JOB_NAME, SUB_MODIFY, SUB_OUT_FILE, SUB_PROJECT_NAME, SUB_QUEUE, SUB_RES_REQ,
)
from lsfemu.events.submitrecords import _NEG1_LIMITS, JobModify2
from lsfemu.sched import hostfile


def job_modify(
    job_id: int,
    *,
    event_time: int,
    user_name: str,
    user_id: int = 0,
    array_index: int = 0,
    submit_time: int = 0,
    job_name: str | None = None,
    queue: str | None = None,
    res_req: str | None = None,
    out_file: str | None = None,
    err_file: str | None = None,
    command: str | None = None,
    project_name: str | None = None,
    run_limit_s: int | None = None,
    run_limit_delete: bool = False,
    user_priority: int | None = None,
    user_priority_delete: bool = False,
    aps_string: str | None = None,
    aps_delete: bool = False,
    num_processors: tuple[int, int] | None = None,
    mem_limit_kb: int | None = None,
    mem_limit_delete: bool = False,
    cpu_limit_s: int | None = None,
    cpu_limit_delete: bool = False,
    depend_cond: str | None = None,
    user_group: str | None = None,
    cwd: str | None = None,
    rerunnable: bool | None = None,
    out_overwrite: bool = False,
    err_overwrite: bool = False,
    begin_time: int | None = None,
    term_time: int | None = None,
    login_shell: str | None = None,
    in_file: str | None = None,
    job_description: str | None = None,
    outdir: str | None = None,
    mail_user: str | None = None,
    pre_exec_cmd: str | None = None,
    asked_hosts: tuple[str, ...] | None = None,
    flags: int = 0,
    deleted: int = 0,
    job_group: str | None = None,
    app: str | None = None,
    post_exec_cmd: str | None = None,
    runtime_estimate_s: int | None = None,
) -> JobModify2:
    """A JOB_MODIFY2 record for one bmod call, with the option bits set for
    the parameters given (``None`` = not changed). ``deleted`` holds the
    ``options`` bits of the `n` forms given (bmod -qn, -Jn, -Rn, -on, -en,
    -Pn, -wn, -Gn, -rn, -Ln, -in); ``num_processors`` is (min, max),
    (DEL_NUMPRO, DEL_NUMPRO) for -nn; ``cwd``, ``job_description``, ``outdir``
    "" are -cwdn, -Jdn, -outdirn; ``begin_time``/``term_time`` DELETE_NUMBER
    are -bn/-tn; ``flags`` holds the ``options`` bits of the switches given
    (-x SUB_EXCLUSIVE, -B SUB_NOTIFY_BEGIN, -N SUB_NOTIFY_END)."""
    options = options2 = options3 = 0
    del_options2 = del_options3 = 0
    del_options = deleted
    options = flags
    rl = list(_NEG1_LIMITS)
    kw: dict[str, Any] = {}
    for bit, field, value in ((SUB_JOB_NAME, "job_name", job_name), (SUB_QUEUE, "queue", queue),
                              (SUB_RES_REQ, "res_req", res_req), (SUB_OUT_FILE, "out_file", out_file),
                              (SUB_ERR_FILE, "err_file", err_file), (SUB_PROJECT_NAME, "project_name", project_name),
                              (SUB_DEPEND_COND, "depend_cond", depend_cond),
                              (lsbatch.SUB_USER_GROUP, "user_group", user_group),
                              (lsbatch.SUB_LOGIN_SHELL, "login_shell", login_shell),
                              (lsbatch.SUB_IN_FILE, "in_file", in_file),
                              (lsbatch.SUB_MAIL_USER, "mail_user", mail_user),
                              (lsbatch.SUB_PRE_EXEC, "pre_exec_cmd", pre_exec_cmd),
                              (lsbatch.SUB_HOST, "asked_hosts", asked_hosts)):
        if value is not None:
            options |= bit
            kw[field] = value
    if command is not None:
        options2 |= SUB2_MODIFY_CMD
        kw["command"] = command
    if out_overwrite:
        options2 |= lsbatch.SUB2_OVERWRITE_OUT_FILE
    if err_overwrite:
        options2 |= lsbatch.SUB2_OVERWRITE_ERR_FILE
    if run_limit_s is not None:
        rl[RLIMIT_RUN] = run_limit_s
    if run_limit_delete:
        rl[RLIMIT_RUN] = DELETE_NUMBER
    if mem_limit_kb is not None:
        rl[lsbatch.RLIMIT_RSS] = mem_limit_kb
    if mem_limit_delete:
        rl[lsbatch.RLIMIT_RSS] = DELETE_NUMBER
    if cpu_limit_s is not None:
        rl[lsbatch.RLIMIT_CPU] = cpu_limit_s
    if cpu_limit_delete:
        rl[lsbatch.RLIMIT_CPU] = DELETE_NUMBER
    if num_processors is not None:
        kw["num_processors"], kw["max_num_processors"] = num_processors
    if rerunnable is True:
        options |= lsbatch.SUB_RERUNNABLE
    elif rerunnable is False:
        del_options |= lsbatch.SUB_RERUNNABLE
    for bit, field, value in ((SUB3_CWD, "cwd", cwd), (lsbatch.SUB3_DESCRIPTION, "job_description", job_description),
                              (lsbatch.SUB3_OUTDIR, "outdir", outdir)):
        if value is not None:
            (options3, del_options3) = (options3 | bit, del_options3) if value else (options3, del_options3 | bit)
            kw[field] = value
    if begin_time is not None:
        kw["begin_time"] = begin_time
    if term_time is not None:
        kw["term_time"] = term_time
    if user_priority is not None:
        options2 |= SUB2_JOB_PRIORITY
        kw["user_priority"] = user_priority
    if user_priority_delete:
        del_options2 |= SUB2_JOB_PRIORITY
    if aps_string is not None:
        options3 |= SUB3_APS
        kw["aps_string"] = aps_string
    if aps_delete:
        del_options3 |= SUB3_APS
    for bit, field, value in ((lsbatch.SUB3_JOB_GROUP, "job_group", job_group), (lsbatch.SUB3_APP, "app", app)):
        if value is not None:  # "" is the `n` form (-gn, -appn)
            (options3, del_options3) = (options3 | bit, del_options3) if value else (options3, del_options3 | bit)
            kw[field] = value
    if post_exec_cmd is not None:  # (-Epn: "" with the bit in del_options)
        (options, del_options) = ((options | lsbatch.SUB_POST_EXEC, del_options) if post_exec_cmd
                                  else (options, del_options | lsbatch.SUB_POST_EXEC))
        kw["post_exec_cmd"] = post_exec_cmd
    if runtime_estimate_s is not None:  # (-Wen: 0 with the bit in del_options3)
        (options3, del_options3) = ((options3 | lsbatch.SUB3_RUNTIME_EST, del_options3) if runtime_estimate_s
                                    else (options3, del_options3 | lsbatch.SUB3_RUNTIME_EST))
        kw["runtime_estimate"] = runtime_estimate_s
    jid = f"{job_id}[{array_index}]" if array_index else str(job_id)
    return JobModify2(
        event_time=event_time, job_id_str=jid, options=options | SUB_MODIFY, options2=options2,
        del_options=del_options, user_id=user_id, user_name=user_name, submit_time=submit_time, rlimits=tuple(rl),
        del_options2=del_options2, options3=options3, del_options3=del_options3, **kw,
    )


#: bmod's MODIFY data keys with a plain value -> (job_modify's keyword, the `n` form's ``options`` bit)
_MODIFY_VALUES = {
    "name": ("job_name", SUB_JOB_NAME), "queue": ("queue", SUB_QUEUE), "res_req": ("res_req", SUB_RES_REQ),
    "out": ("out_file", SUB_OUT_FILE), "err": ("err_file", SUB_ERR_FILE),
    "project": ("project_name", SUB_PROJECT_NAME), "command": ("command", 0),
    "depend": ("depend_cond", SUB_DEPEND_COND), "group": ("user_group", lsbatch.SUB_USER_GROUP),
    "login_shell": ("login_shell", lsbatch.SUB_LOGIN_SHELL), "in_file": ("in_file", lsbatch.SUB_IN_FILE),
    "mail_user": ("mail_user", lsbatch.SUB_MAIL_USER), "pre_exec": ("pre_exec_cmd", lsbatch.SUB_PRE_EXEC),
}
#: bmod's switches in the MODIFY data (True: set, False: its `n` form) -> their ``options`` bit
_MODIFY_SWITCHES = {"exclusive": lsbatch.SUB_EXCLUSIVE, "notify_begin": lsbatch.SUB_NOTIFY_BEGIN,
                    "notify_end": lsbatch.SUB_NOTIFY_END}


def modify_kwargs(data: dict) -> dict[str, Any]:
    """job_modify's keywords for the data of a MODIFY event (lsfemu.ops.bmod)."""
    kw: dict[str, Any] = {}
    deleted = 0
    for key, (name, bit) in _MODIFY_VALUES.items():
        if key in data:
            if data[key] is None:
                deleted |= bit
            else:
                kw[name] = str(data[key])
    if "sp" in data and data["sp"] is not None:
        kw["user_priority"] = int(data["sp"])
    if data.get("spn"):
        kw["user_priority_delete"] = True
    if "aps" in data:
        if data["aps"] is None:
            kw["aps_delete"] = True
        else:
            kw["aps_string"] = str(data["aps"])
    if "run_limit" in data:
        if data["run_limit"] is None:
            kw["run_limit_delete"] = True
        else:
            kw["run_limit_s"] = int(round(float(data["run_limit"]) * 60))
    if "cpu_limit" in data:  # bmod -c / -cn
        if data["cpu_limit"] is None:
            kw["cpu_limit_delete"] = True
        else:
            kw["cpu_limit_s"] = int(round(float(data["cpu_limit"]) * 60))
    if "mem_limit_kb" in data:
        if data["mem_limit_kb"] is None:
            kw["mem_limit_delete"] = True
        else:
            kw["mem_limit_kb"] = int(data["mem_limit_kb"])
    if "nproc" in data:
        n = data["nproc"]
        kw["num_processors"] = ((lsbatch.DEL_NUMPRO, lsbatch.DEL_NUMPRO) if n is None
                                else (int(n[0]), int(n[1] if n[1] is not None else n[0])))
    if "rerun" in data:
        kw["rerunnable"] = bool(data["rerun"])
    flags = 0
    for key, bit in _MODIFY_SWITCHES.items():
        if key in data:
            if data[key]:
                flags |= bit
            else:
                deleted |= bit
    if flags:
        kw["flags"] = flags
    if "asked_hosts" in data:
        if data["asked_hosts"] is None:
            deleted |= lsbatch.SUB_HOST
        else:
            kw["asked_hosts"] = hostfile.log_words(str(data["asked_hosts"]))
    if data.get("out_over"):
        kw["out_overwrite"] = True
    if data.get("err_over"):
        kw["err_overwrite"] = True
    for key, name in (("cwd", "cwd"), ("description", "job_description"), ("outdir", "outdir")):
        if key in data:
            kw[name] = data[key] or ""
    for key, name in (("begin", "begin_time"), ("term", "term_time")):
        if key in data:
            kw[name] = DELETE_NUMBER if data[key] is None else int(data[key])
    for key in ("job_group", "app"):
        if key in data:
            kw[key] = data[key] or ""
    if "post_exec" in data:
        kw["post_exec_cmd"] = data["post_exec"] or ""
    if "estimate" in data:
        kw["runtime_estimate_s"] = int(round(float(data["estimate"]) * 60)) if data["estimate"] is not None else 0
    if deleted:
        kw["deleted"] = deleted
    return kw
