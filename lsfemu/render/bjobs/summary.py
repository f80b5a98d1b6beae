"""bjobs' counting views and the -W table (issue 21, part 1):

* :func:`sum_table` - ``bjobs -sum`` (lsf-breadth 5.2: the man page's
  layout, columns starting at 0 11 23 34 45 56 66, trailing blanks kept);
* :func:`psum_text` - ``bjobs -psum`` (5.2: jobs per pending reason, then
  the host-based reasons by occurrence);
* :func:`w_table` - ``bjobs -W`` (lsf-formats 3.3, OpenLava's printf layout).
"""

from __future__ import annotations

from typing import Iterable

from lsfemu.jobstate import PENDING
from lsfemu.render.bjobs.common import job_name, short_hosts
from lsfemu.render.bjobs.fields import host_reason
from lsfemu.render.timefmt import cpu_w, ctime, w_time
from lsfemu.views import JobView

#: -sum's columns and their widths (the man page's sample, measured)
SUM_COLUMNS = (("RUN", 11), ("SSUSP", 12), ("USUSP", 11), ("UNKNOWN", 11), ("PEND", 11), ("FWD_PEND", 10),
               ("PSUSP", 9))
#: the job states each -sum column counts the slots of
SUM_STATES = {"RUN": ("RUN",), "SSUSP": ("SSUSP",), "USUSP": ("USUSP",), "UNKNOWN": ("UNKWN",),
              "PEND": ("PEND",), "FWD_PEND": (), "PSUSP": ("PSUSP",)}


def sum_table(jobs: Iterable[JobView]) -> str:
    """``bjobs -sum``: the slots of the jobs in each state (a pending job
    counts the slots it asks for, a started one those it holds); each
    column left-justified in its width, with at least one blank after it."""
    slots = {name: 0 for name, _w in SUM_COLUMNS}
    column = {s: name for name, states in SUM_STATES.items() for s in states}
    for j in jobs:
        name = column.get(j.status)
        if name is not None:
            slots[name] += j.num_processors if j.status in PENDING or not j.exec_hosts else len(j.exec_hosts)
    head = "".join(f"{name:<{w - 1}} " for name, w in SUM_COLUMNS)
    row = "".join(f"{slots[name]:<{w - 1}} " for name, w in SUM_COLUMNS)
    return f"{head}\n{row}\n"


def psum_text(jobs: Iterable[JobView], *, cluster: str, now: float) -> str:
    """``bjobs -psum``: each pending job counted once under its main reason
    (the first reason that names no host count), or under "Individual host
    based reasons" when all its reasons are host-based; then every host-based
    reason with its occurrences (per job per host). Jobs by count descending,
    reasons by occurrences descending (ties: first seen). Labels are padded
    to one column for both parts, counts right-justified in each part's widest."""
    per_reason: dict[str, int] = {}
    occurrences: dict[str, int] = {}
    total = 0
    for j in jobs:
        if j.status not in PENDING:
            continue
        total += 1
        main, by_host = None, False
        for r in j.pend_reasons:
            counted = host_reason(r)
            if counted is None:
                main = main or r
            else:
                by_host = True
                occurrences[counted[1]] = occurrences.get(counted[1], 0) + counted[0]
        key = main or ("Individual host based reasons" if by_host else None)
        if key is not None:
            per_reason[key] = per_reason.get(key, 0) + 1
    out = [f"Pending reason summary: published {ctime(now)}"]
    if not total:
        out.append(f"Summarizing 0 pending jobs in cluster ({cluster}).")
        return "\n".join(out) + "\n"
    out.append(f"Summarizing {total} pending jobs in cluster ({cluster}):")
    jobs_rows = sorted(per_reason.items(), key=lambda kv: -kv[1])
    host_rows = sorted(occurrences.items(), key=lambda kv: -kv[1])
    width = max(len(r) + 1 for r, _n in jobs_rows + host_rows) + 2
    nw = max(len(str(n)) for _r, n in jobs_rows) if jobs_rows else 1
    out += [f"    {r + ':':<{width}}{n:>{nw}} jobs" for r, n in jobs_rows]
    if host_rows:
        hw = max(len(str(n)) for _r, n in host_rows)
        out += ["", "Individual host based reasons"]
        out += [f"    {r + ':':<{width}}{n:>{hw}} occurrences" for r, n in host_rows]
    return "\n".join(out) + "\n"


W_HEADER = ("JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME"
            "  PROJ_NAME CPU_USED MEM SWAP PIDS START_TIME FINISH_TIME")


def w_table(jobs: Iterable[JobView], *, header: bool = True) -> str:
    """``bjobs -W``: the wide row with SUBMIT_TIME as ``MM/DD-HH:MM:SS``, then
    project, CPU time ``HHH:MM:SS.hh``, memory and swap in KB, the PIDs
    comma-joined, start and finish stamps; ``-`` for what a job lacks
    (OpenLava's printf: ``%-7d %-7s %-5.5s %-10s %-11s %-11s %-10s %-14.14s``,
    `` %-10s %-10s %-6d %-6d ``, the PIDs or `` - ``, `` stamp`` or `` - `` twice)."""
    out = [W_HEADER] if header else []
    for j in jobs:
        if j.status in PENDING:
            exec_host = "   -    "
        else:
            exec_host = ":".join(short_hosts(j.exec_hosts)) or "   -   "
        line = (f"{j.job_id:<7} {j.user:<7} {j.status[:5]:<5} {j.queue:<10} {j.from_host:<11} {exec_host:<11} "
                f"{job_name(j):<10} {w_time(j.submit_time)[:14]:<14}")
        line += f" {j.project:<10} {cpu_w(j.cpu_time):<10} {j.mem_kb or 0:<6d} {j.swap_kb or 0:<6d} "
        line += ",".join(map(str, j.pids)) if j.pids else " - "
        started = j.start_time is not None and j.status not in PENDING
        line += f" {w_time(j.start_time)}" if started else " - "
        line += f" {w_time(j.finish_time)}" if j.finish_time is not None else " - "
        out.append(line)
    return "\n".join(out) + "\n" if out else ""
