"""What bjobs' formats share: the constants of the -l blocks (also read by
bqueues -l and bhist -l) and the small text helpers (job names and IDs,
host lists, memory and limit values, APS numbers).
"""

from __future__ import annotations

from typing import Sequence

from lsfemu.jobstate import PENDING
from lsfemu.render.timefmt import long_prefix
from lsfemu.sched import hostfile
from lsfemu.views import JobView

#: separator between jobs in bjobs -l / -UF
JOB_SEPARATOR = "-" * 78

#: the load threshold table of ``SCHEDULING PARAMETERS`` (rows end with two spaces)
LOAD_HEADER = "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem"
LOAD_SCHED = " loadSched   -     -     -     -       -     -    -     -     -      -      -  "
LOAD_STOP = " loadStop    -     -     -     -       -     -    -     -     -      -      -  "
LOAD_TABLE = f"{LOAD_HEADER}\n{LOAD_SCHED}\n{LOAD_STOP}\n"

#: bjobs -l limit block for RUNLIMIT (title padded to 25 columns, as seen)
RUNLIMIT_TITLE = " RUNLIMIT                "
CPULIMIT_TITLE = " CPULIMIT                "  # (both " %-24s", OpenLava's prtResourceLimit)


def time_limit_lines(cpu_min: float | None, run_min: float | None) -> list[str]:
    """The CPULIMIT / RUNLIMIT rows of the limit block (bjobs -l, bhist -l): a name
    row and a value row, each limit a column of 25 (OpenLava's prtResourceLimit:
    " %-24s" names, " %-.1f min" values padded to 25); the last value is not
    padded, as LSF 10 prints RUNLIMIT's. No limit: no rows."""
    return limit_rows([(t, v) for t, v in ((CPULIMIT_TITLE, cpu_min), (RUNLIMIT_TITLE, run_min)) if v is not None])


def limit_rows(items: list[tuple[str, float]]) -> list[str]:
    """A name row and a value row (minutes, ``%.1f min``), each (title, value) a
    column as wide as its title (at least 25: ``" %-24s"``); the last value is
    not padded. No item: no rows."""
    if not items:
        return []
    values = [f" {v:.1f} min" for _, v in items]
    widths = [max(25, len(t)) for t, _ in items]
    return ["".join(t for t, _ in items), "".join(f"{v:<{w}}" for v, w in zip(values[:-1], widths)) + values[-1]]


#: bjobs -l's pending time limits (issue 21) [inferred layout: the RUNLIMIT group's, IBM's names]
PEND_LIMIT_TITLE = " PENDING TIME LIMIT      "
EPEND_LIMIT_TITLE = " ELIGIBLE PENDING TIME LIMIT"

# ---------------------------------------------------------------------------
# small helpers shared by the formats
# ---------------------------------------------------------------------------


def job_name(job: JobView) -> str:
    """JOB_NAME as displayed: the -J name (or the command), ``name[idx]`` for
    array elements."""
    base = job.name if job.name is not None else job.command
    return f"{base}[{job.array_index}]" if job.array_index else base


def display_id(job: JobView) -> str:
    """``1234`` or ``1234[5]``."""
    return f"{job.job_id}[{job.array_index}]" if job.array_index else str(job.job_id)


def name_trunc(text: str, width: int) -> str:
    """Cut at the left with a ``*`` marker so the result is exactly *width* long."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "*"[:width]
    return "*" + text[-(width - 1):]


def compress_hosts(hosts: Sequence[str]) -> list[tuple[int, str]]:
    """Consecutive equal hosts as (count, host) pairs, dispatch order kept."""
    groups: list[tuple[int, str]] = []
    for h in hosts:
        if groups and groups[-1][1] == h:
            groups[-1] = (groups[-1][0] + 1, h)
        else:
            groups.append((1, h))
    return groups


def host_group_text(count: int, host: str) -> str:
    return f"{count}*{host}" if count > 1 else host


def short_hosts(hosts: Sequence[str]) -> list[str]:
    """``N*host`` forms of :func:`compress_hosts`."""
    return [host_group_text(c, h) for c, h in compress_hosts(hosts)]


def home_relative(path: str, home: str) -> str:
    """``$HOME`` / ``$HOME/sub`` when *path* lies in *home*, else *path*."""
    if not path:
        return "$HOME"
    if home:
        h = home.rstrip("/") or "/"
        if path == h or path == h + "/":
            return "$HOME"
        if h != "/" and path.startswith(h + "/"):
            return "$HOME/" + path[len(h) + 1:]
    return path


def mem_text(kb: int | float) -> str:
    """LSF 10's auto-scaled memory: ``344 Mbytes``, ``1.3 Gbytes``, ``0 Mbytes``."""
    kb = max(0, kb)
    if kb < 1024 * 1024:
        return f"{int(kb // 1024)} Mbytes"
    if kb < 1024**3:
        return f"{kb / 1024**2:.1f} Gbytes"
    return f"{kb / 1024**3:.1f} Tbytes"


_UNIT_POWER = {"K": 0, "M": 1, "G": 2, "T": 3, "P": 4, "E": 5}


def mem_in_unit(kb: int | float, unit: str) -> str:
    """Memory forced to a unit by ``-o "mem::G"``: value and unit letter, no
    "bytes" (``5.2 G``; KB as an integer) [inferred]."""
    p = _UNIT_POWER[unit]
    if p == 0:
        return f"{int(kb)} K"
    return f"{kb / 1024**p:.1f} {unit}"


def limit_text(kb: int | float, unit: str) -> str:
    """A limit in bjobs -l's limit rows: in LSF_UNIT_FOR_LIMITS (`unit`), moved up
    by 1024s while it is at least 1024 (`4000` MB -> `3.9 G`, as in an LSF 10
    capture), a whole number as such (`0 M`, `500 M`), else one decimal."""
    p = _UNIT_POWER.get((unit or "KB").upper()[:1], 0)
    value = kb / 1024**p
    letters = "KMGTPE"
    while value >= 1024 and p < len(letters) - 1:
        value /= 1024
        p += 1
    text = str(int(value)) if float(value).is_integer() else f"{value:.1f}"
    return f"{text} {letters[p]}"


def aps_number(value: float) -> str:
    """APS values as bmod/bjobs -l show them: ``10`` for 10.0, else 2 decimals."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}"


def has_started(job: JobView) -> bool:
    """Whether the job has a start time and is not pending."""
    return job.start_time is not None and job.status not in PENDING


def specified_times(begin: float | None, term: float | None) -> list[str]:
    """bsub -b / -t in the submit record, right after the host (OpenLava's
    prtBTTime): ``, Specified Start Time <Wed Nov 26 22:00:00>`` (ctime without
    the year) and ``, Specified Termination Time <...>``."""
    shown = (("Start", begin), ("Termination", term))
    return [f", Specified {what} Time <{long_prefix(t)}>" for what, t in shown if t is not None]


def input_text(name: str, spooled: bool) -> str:
    """bsub -i / -is in the submit record: ``, Input File <f>`` / ``, Input File(Spooled) <f>``
    (OpenLava's prtFileNames), before the output files."""
    return f", Input File(Spooled) <{name}>" if spooled else f", Input File <{name}>"


def placement_texts(exclusive: bool, asked_hosts: str | None) -> tuple[str, str]:
    """bsub -x and -m in the submit record (OpenLava's prtSubDetails): ``, Exclusive
    Execution`` (after the notification, before Re-runnable) and ``, Specified Hosts
    <h1>, <h2+2>`` (after the login shell); each "" when not asked."""
    excl = ", Exclusive Execution" if exclusive else ""
    words = (asked_hosts or "").split() if hostfile.decode(asked_hosts) is None else []
    hosts = ", Specified Hosts " + ", ".join(f"<{w}>" for w in words) if words else ""
    return excl, hosts


def host_file_item(asked_hosts: str | None) -> str:
    """bsub -hostfile in the submit record, after the CWD (IBM's bjobs -hostfile
    sample: ``, Host file </home/userG/myhostfile>``); "" for a job without one."""
    listed = hostfile.decode(asked_hosts)
    return f", Host file <{listed[0]}>" if listed is not None else ""


def host_file_section(asked_hosts: str | None) -> str:
    """bjobs/bhist -l -hostfile's table of the job's host file (IBM's bjobs
    -hostfile sample: the title, ``HOST`` in 16 columns then ``SLOTS``, each
    line's count right-aligned in 3), after an empty line; "" without one."""
    listed = hostfile.decode(asked_hosts)
    if listed is None:
        return ""
    rows = "".join(f"{h:<16}{n:>3}\n" for h, n in listed[1])
    return "\nUSER-SPECIFIED HOST FILE:\nHOST            SLOTS\n" + rows


def notify_text(begin: bool, end: bool) -> str:
    """bsub -B / -N in the submit record (OpenLava's prtSubDetails), before Exclusive Execution."""
    if begin and end:
        return ", Notify when job begins/ends"
    return ", Notify when job begins" if begin else ", Notify when job ends" if end else ""
