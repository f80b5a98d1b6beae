"""``bjobs -l`` and ``bjobs -UF`` (reference 3.7, 3.8): one block of records
per job (header, submit, start, usage, finish), the limits, the scheduling
parameters and the resource requirement details. Fix pack 13's wording (see
the package's docstring).
"""

from __future__ import annotations

from typing import Iterable

from lsfemu.jobstate import FINISHED, PENDING, SUSPENDED
from lsfemu.render.bjobs.common import (
    EPEND_LIMIT_TITLE, JOB_SEPARATOR, LOAD_TABLE, PEND_LIMIT_TITLE, aps_number, display_id, has_started,
    home_relative, host_file_item, host_file_section, job_name, input_text, limit_rows, limit_text, mem_text,
    notify_text, placement_texts, short_hosts, specified_times, time_limit_lines,
)
from lsfemu.render.timefmt import PREFIX_LEN, PREFIX_LEN_YEAR, long_prefix
from lsfemu.render.wrap import SOFT_SPACE, host_list, wrap_record
from lsfemu.views import JobView


#: bsub -I, -Ip, -Is as bjobs -l's header names them
INTERACTIVE_MODES = {"I": "Interactive mode", "Ip": "Interactive pseudo-terminal mode",
                     "Is": "Interactive pseudo-terminal shell mode"}


def header_record(job: JobView, *, max_user_priority_set: bool) -> str:
    """The unwrapped header record of bjobs -l (no trailing ``;``)."""
    parts = [f"Job <{display_id(job)}>"]
    if job.name is not None:
        parts.append(f", Job Name <{job_name(job)}>")
    parts.append(f", User <{job.user}>")
    parts.append(f", Project <{job.project}>")
    if job.mail_user:
        parts.append(f", Mail <{job.mail_user}>")
    if job.user_group:
        parts.append(f", User Group <{job.user_group}>")
    if job.job_group:
        parts.append(f", Job Group <{job.job_group}>")
    if job.application:
        parts.append(f", Application <{job.application}>")
    parts.append(f", Status <{job.status}>")
    parts.append(f", Queue <{job.queue}>")
    if job.interactive in INTERACTIVE_MODES:
        parts.append(f", {INTERACTIVE_MODES[job.interactive]}")
    if max_user_priority_set and job.priority is not None:
        parts.append(f", Job Priority <{job.priority}>")
    parts.append(f", Command <{job.command}>")
    if job.share_group:
        parts.append(f", Share group charged <{job.share_group}>")
    if job.description:
        parts.append(f", Job Description <{job.description}>")
    if job.aps_system is not None:
        parts.append(f", System Absolute Priority <{aps_number(job.aps_system)}>")
    if job.aps_admin is not None:
        parts.append(f", Admin factor value <{aps_number(job.aps_admin)}>")
    if job.esub:
        parts.append(f", Esub <{job.esub}>")
    return "".join(parts)


def submit_record(job: JobView, *, host_file: bool = False) -> str:
    """The submit record's text after the time stamp, ending with ``;``
    (*host_file*: bjobs -hostfile's ``, Host file <path>`` after the CWD)."""
    parts = [f"Submitted from host <{job.from_host}>"]
    parts.extend(specified_times(job.begin_time, job.term_time))
    parts.append(f", CWD <{home_relative(job.cwd, job.home)}>")
    if host_file:
        parts.append(host_file_item(job.asked_hosts))
    if job.specified_cwd:
        parts.append(f", Specified CWD <{job.specified_cwd}>")
    if job.input_file:
        parts.append(input_text(job.input_file, job.input_spooled))
    if job.output_file:
        label = "Output File (overwrite)" if job.output_overwrite else "Output File"
        parts.append(f", {label} <{job.output_file}>")
    if job.error_file:
        label = "Error File (overwrite)" if job.error_overwrite else "Error File"
        parts.append(f", {label} <{job.error_file}>")
    notify = job.notify.split(",")
    parts.append(notify_text("B" in notify, "N" in notify or "Ne" in notify))
    excl, asked = placement_texts(job.exclusive, job.asked_hosts)
    parts.append(excl)
    if job.rerunnable or job.rerun_never:
        parts.append(", Not Re-runnable" if job.rerun_never else ", Re-runnable")
    if job.interactive == "K":
        parts.append(", Synchronous Execution")  # bsub -K
    mx = job.max_processors
    if job.num_processors > 1 or (mx is not None and mx > 1):
        if mx is not None and mx != job.num_processors:
            parts.append(f", {job.num_processors}-{mx} Task(s)")
        else:
            parts.append(f", {job.num_processors} Task(s)")
    if job.res_req:
        parts.append(f", Requested Resources <{job.res_req}>")
    if job.dependency:
        parts.append(f", Dependency Condition <{job.dependency}>")
    if job.login_shell:
        parts.append(f", Login Shell <{job.login_shell}>")
    if job.pre_exec:  # (OpenLava's place for them: after the dependency)
        parts.append(f", Pre-execute Command <{job.pre_exec}>")
    if job.post_exec:
        parts.append(f", Post-execute Command <{job.post_exec}>")
    parts.append(asked)
    if job.submit_priority is not None:
        parts.append(f", User Priority <{job.submit_priority}>")
    return "".join(parts) + ";"


def start_record(job: JobView, *, short_hostlist: bool = False) -> str:
    """``Started N Task(s) on Host(s) <h> ..., Allocated N Slot(s) on Host(s)
    <h> ..., Execution Home <..>, Execution CWD <..>;`` with soft host separators."""
    n = len(job.exec_hosts)
    hosts = short_hosts(job.exec_hosts) if short_hostlist else list(job.exec_hosts)
    hl = host_list(hosts)
    text = f"Started {n} Task(s) on Host(s){hl}, Allocated {n} Slot(s) on Host(s){hl}"
    if job.exec_home:
        text += f", Execution Home <{job.exec_home}>"
    if job.exec_cwd:
        text += f", Execution CWD <{job.exec_cwd}>"
    return text + ";"


def _usage_items(job: JobView) -> tuple[str | None, list[str], tuple[int, list[int]] | None]:
    cpu = f"The CPU time used is {int(job.cpu_time)} seconds." if int(job.cpu_time) > 0 else None
    mem: list[str] = []
    if job.mem_kb is not None:
        mem.append(f"MEM: {mem_text(job.mem_kb)}")
    if job.swap_kb is not None:
        mem.append(f"SWAP: {mem_text(job.swap_kb)}")
    if job.nthreads is not None and mem:
        mem.append(f"NTHREAD: {job.nthreads}")
    pid = None
    if job.pids:
        pid = (job.pgid if job.pgid is not None else job.pids[0], list(job.pids))
    return cpu, mem, pid


def _exit_text(job: JobView) -> str:
    if job.exit_code:
        return f"Exited with exit code {job.exit_code}."
    if job.exit_reason and job.exit_reason.startswith("TERM_"):
        return f"Exited by LSF signal {job.exit_reason.split(':', 1)[0].strip()}."
    return "Exited."


def _host_cpu_lines(job: JobView) -> list[str]:
    """FP13's per-host CPU split; the emulator charges all CPU to the first host."""
    hosts = []
    for h in job.exec_hosts:
        if h not in hosts:
            hosts.append(h)
    return [
        f"HOST: {h}; CPU_TIME: {int(job.cpu_time) if i == 0 else 0} seconds"
        for i, h in enumerate(hosts)
    ]


def _long_one(
    job: JobView,
    *,
    now: float,
    max_user_priority_set: bool,
    year: bool,
    uf: bool,
    short_hostlist: bool,
    res_req_display: str = "brief",
    host_file: bool = False,
) -> str:
    indent = PREFIX_LEN_YEAR if year else PREFIX_LEN
    pad = " " * indent

    def rec(text: str) -> str:
        if uf:
            return text.replace(SOFT_SPACE, " ") + "\n"
        return wrap_record(text, indent)

    def stamp(t: float) -> str:
        return long_prefix(t, year) + ": "

    out: list[str] = ["\n"]
    out.append(rec(header_record(job, max_user_priority_set=max_user_priority_set)))
    out.append(rec(stamp(job.submit_time) + submit_record(job, host_file=host_file)))

    if job.status in PENDING:
        if job.reserved_hosts:  # SLOT_RESERVE / RESOURCE_RESERVE (OpenLava's prtJobReserv, LSF 10's "(s)" wording)
            hosts = short_hosts(job.reserved_hosts) if short_hostlist else job.reserved_hosts
            out.append(rec(stamp(job.reserve_time) + f"Reserved <{len(job.reserved_hosts)}> job slot(s) on "
                           f"host(s){host_list(hosts)};"))
        if job.predicted_start is not None:  # OpenLava's predictedStartTime line
            out.append(rec(stamp(job.predicted_start) + "Will be started;"))
        out.append(" PENDING REASONS:\n")
        out.extend(f" {r};\n" for r in job.pend_reasons)
    else:
        if has_started(job) and job.exec_hosts:
            out.append(rec(stamp(job.start_time) + start_record(job, short_hostlist=short_hostlist)))
        if job.status in ("RUN",) + SUSPENDED:
            cpu, mem, pid = _usage_items(job)
            if cpu or mem or pid:
                if uf:
                    items = list(mem)
                    if pid:
                        items += [f"PGID: {pid[0]}", "PIDs: " + " ".join(map(str, pid[1]))]
                    text = stamp(now) + "Resource usage collected."
                    if cpu:
                        text += " " + cpu
                    if items:
                        text += " " + "; ".join(items) + ";"
                    out.append(text + "\n")
                else:
                    out.append(stamp(now) + "Resource usage collected.\n")
                    if cpu:
                        out.append(pad + cpu + "\n")
                    if mem:
                        out.append(pad + ";  ".join(mem) + "\n")
                    if pid:
                        out.append(pad + f"PGID: {pid[0]};  PIDs: " + "".join(f"{p} " for p in pid[1]) + "\n")
        if job.status in SUSPENDED:
            out.append(" SUSPENDING REASONS:\n")
            out.extend(f" {r};\n" for r in job.susp_reasons)
        if job.status in FINISHED and job.finish_time is not None:
            ran = job.start_time is not None and bool(job.exec_hosts)
            cpu_sentence = f" The CPU time used is {job.cpu_time:.1f} seconds." if ran else ""
            verdict = "Done successfully." if job.status == "DONE" else _exit_text(job)
            host_lines = _host_cpu_lines(job) if ran else []
            if uf:
                text = stamp(job.finish_time) + verdict + cpu_sentence
                if host_lines:
                    text += " " + " ".join(h + ";" for h in host_lines)
                out.append(text + "\n")
            else:
                out.append(rec(stamp(job.finish_time) + verdict + cpu_sentence))
                out.extend(pad + h + "\n" for h in host_lines)
            if job.status == "EXIT" and job.exit_reason:
                reason = job.exit_reason if job.exit_reason.endswith(".") else job.exit_reason + "."
                out.append(rec(stamp(job.finish_time) + f"Completed <exit>; {reason}"))

    # The limit section: an empty line, then the limit groups separated by
    # empty lines; every later block is introduced by its own empty line.
    out.append("\n")
    times = time_limit_lines(job.cpu_limit_min, job.run_limit)
    out.extend(line + "\n" for line in times)
    if job.mem_limit_kb is not None:
        # LSF 10: a name row, then each value right-aligned in 6 with its unit
        # letter and a space on both sides (` CORELIMIT MEMLIMIT` / `      0 M     3.9 G `).
        if times:
            out.append("\n")
        number, letter = limit_text(job.mem_limit_kb, job.limits_unit).split(" ")
        out.append(f" MEMLIMIT\n {number:>6} {letter} \n")
    pend = limit_rows([(t, v / 60) for t, v in ((PEND_LIMIT_TITLE, job.effective_plimit),
                                               (EPEND_LIMIT_TITLE, job.effective_eplimit)) if v is not None])
    if pend:  # the effective limits, a group of their own [inferred]
        if times or job.mem_limit_kb is not None:
            out.append("\n")
        out.extend(line + "\n" for line in pend)
    if job.max_mem_kb is not None:
        avg = mem_text(job.avg_mem_kb) if job.avg_mem_kb is not None else "-"
        out.append(f"\n MEMORY USAGE:\n MAX MEM: {mem_text(job.max_mem_kb)};  AVG MEM: {avg}\n")
    out.append("\n SCHEDULING PARAMETERS:\n" + LOAD_TABLE)
    if job.exceptions:  # the job exceptions it raised (bjobs -x's), after the thresholds [inferred layout]
        out.append("\n EXCEPTION STATUS:  " + "  ".join(job.exceptions) + "\n")
    if res_req_display == "none":  # BJOBS_RES_REQ_DISPLAY=none: no block
        return "".join(out) + (host_file_section(job.asked_hosts) if host_file else "")
    out.append("\n RESOURCE REQUIREMENT DETAILS:\n")
    if res_req_display == "full":  # the levels merged, then the result
        for label, value in (("Job-level", job.res_req), ("App-level", job.app_res_req),
                             ("Queue-level", job.queue_res_req)):
            out.append(rec(f" {label}: {value or '-'}"))
    combined = job.combined_res_req if job.combined_res_req is not None else job.res_req
    if job.effective_res_req is not None:
        effective = job.effective_res_req
    else:
        effective = job.res_req if has_started(job) else None
    out.append(rec(f" Combined: {combined or '-'}"))
    out.append(rec(f" Effective: {effective or '-'}"))
    if host_file:  # bjobs -hostfile: the host file's lines, last [inferred place]
        out.append(host_file_section(job.asked_hosts))
    return "".join(out)


def long(
    jobs: Iterable[JobView],
    *,
    now: float,
    max_user_priority_set: bool,
    year: bool = False,
    uf: bool = False,
    short_hostlist: bool = False,
    res_req_display: str = "brief",
    host_file: bool = False,
) -> str:
    """``bjobs -l`` (``uf=True``: ``bjobs -UF``). Each job starts with an empty
    line; jobs are separated by 78 dashes; the output ends with an empty line.
    ``Job Priority <N>`` shows when *max_user_priority_set* and the job has a
    priority. ``short_hostlist`` mirrors ``LSB_SHORT_HOSTLIST=1``;
    ``res_req_display`` is BJOBS_RES_REQ_DISPLAY (none, brief, full); ``host_file``
    is bjobs -hostfile (a host file's path in the submit record, its table last)."""
    blocks = [
        _long_one(
            j,
            now=now,
            max_user_priority_set=max_user_priority_set,
            year=year,
            uf=uf,
            short_hostlist=short_hostlist,
            res_req_display=res_req_display,
            host_file=host_file,
        )
        for j in jobs
    ]
    if not blocks:
        return ""
    return (JOB_SEPARATOR + "\n").join(blocks) + "\n"
