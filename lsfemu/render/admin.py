"""The administrators' views (issue 21, part 4): `badmin showconf mbd` and
`lsadmin showconf lim` (lsf-breadth.md 3.6, 4.7), `badmin showstatus` (4.5),
`badmin hist`, `mbdhist`, `qhist`, `hhist` (OpenLava cmd.hist.c's lines),
`badmin perfmon view` and its `-json` (4.6); data in, text out.
"""

from __future__ import annotations

import json
from typing import Iterable, Mapping

from lsfemu.events import lsbatch
from lsfemu.render.timefmt import ctime, long_prefix
from lsfemu.views import MbdStatusView, PerfmonView


def showconf(title: str, conf: Mapping[str, str]) -> str:
    """A title line, then `    NAME = value` per parameter, sorted by name:
    clients skip the first line and split the others on ` = `."""
    return "".join([title + "\n"] + [f"    {k} = {conf[k]}\n" for k in sorted(conf)])


# --- badmin showstatus ------------------------------------------------------------------


def _line(label: str, value: object) -> str:
    """A label and its value, the value starting at column 35 (tools read the
    tokens by position: the value is the last word)."""
    return f"{label:<35}{value}" if len(label) < 35 else f"{label} {value}"


def _block(head: str, labels: tuple[str, ...], values) -> list[str]:
    return [head] + [_line(f"        {label}:", value) for label, value in zip(labels, values)]


def showstatus(v: MbdStatusView) -> str:
    """lsf-breadth.md 4.5's layout, line for line."""
    lines = [
        "LSF runtime mbatchd information",
        *_block("    Available local hosts (current/peak):", ("Clients", "Servers", "CPUs", "Cores", "Slots"),
                [f"{now}/{peak}" for now, peak in (v.clients, v.servers, v.cpus, v.cores, v.slots)]),
        "",
        *_block(_line("    Number of servers:", v.num_servers), ("Ok", "Closed", "Unreachable", "Unavailable"),
                (v.ok, v.closed, v.unreachable, v.unavailable)),
        "",
        *_block(_line("    Number of jobs:", v.num_jobs), ("Running", "Suspended", "Pending", "Finished"),
                (v.running, v.suspended, v.pending, v.finished)),
        "",
        _line("    Number of users:", v.num_users),
        _line("    Number of user groups:", v.num_user_groups),
        _line("    Number of active users:", v.active_users),
        "",
        _line("    Latest job id:", v.latest_job_id),
        "    Main scheduler daemon (mbschd): running",
        "",
        _line("    Latest mbatchd start:", ctime(v.started)),
        _line("    Active mbatchd PID:", v.pid),
        "",
        _line("    Latest mbatchd reconfig:", ctime(v.reconfigured)),
    ]
    return "\n".join(lines) + "\n"


# --- badmin hist, mbdhist, qhist, hhist ----------------------------------------------------

_QUEUE_OPS = {lsbatch.QUEUE_OPEN: "opened", lsbatch.QUEUE_CLOSED: "closed", lsbatch.QUEUE_ACTIVATE: "activated",
              lsbatch.QUEUE_INACTIVATE: "inactivated"}
_HOST_OPS = {lsbatch.HOST_OPEN: "opened", lsbatch.HOST_CLOSE: "closed", 3: "rebooted", 4: "shutdown"}
#: MBD_DIE's exit codes (lsbatch.h MASTER_*): the rest is a signal number
_DIE_WHY = {201: "master resigned.", 203: "fatal errors.", 204: "fatal memory errors.",
            205: "bad configuration file."}


def prt_line(text: str, width: int = 80, indent: int = 21) -> str:
    """OpenLava's prtLine over a command's whole output: past *width* columns
    a line continues on a new line of *indent* blanks (a blank at the break is
    dropped). Its cursor counts one more than it printed after a wrap, and
    restarts at 1, not 0, after a newline: the first line of the output holds
    80 characters, the later ones 79, the continuations 58."""
    out: list[str] = []
    cursor = 0
    i = 0
    while i < len(text):
        if cursor == width:
            out.append("\n" + " " * indent)
            cursor = indent + 1
            if text[i] == " ":
                i += 1
                if i == len(text):
                    break
        out.append(text[i])
        cursor = 0 if text[i] == "\n" else cursor
        cursor += 1
        i += 1
    return "".join(out)


def _ctrl_tail(user: str, comment: str, by: str) -> str:
    if user:
        return f" by {by} <{user}>. {comment}.\n" if comment else f" by {by} <{user}>.\n"
    return f". {comment}.\n" if comment else ".\n"


def hist_line(rec) -> str:
    """One record as badmin hist prints it (OpenLava cmd.hist.c displayEvent)."""
    when = long_prefix(rec.event_time)
    if rec.TYPE == "MBD_START":
        return (f"{when}: mbatchd started on host <{rec.master}>; cluster name <{rec.cluster}>, "
                f"{rec.num_hosts} server hosts, {rec.num_queues} queues.\n")
    if rec.TYPE == "MBD_DIE":
        why = (f"reconfiguration initiated. {rec.ctrl_comments}" if rec.exit_code == 202
               else _DIE_WHY.get(rec.exit_code, f"killed by signal <{rec.exit_code}>."))
        return f"{when}: mbatchd on host <{rec.master}> died: {why}\n"
    if rec.TYPE == "QUEUE_CTRL":
        op = _QUEUE_OPS.get(rec.opcode, f"unknown operation code <{rec.opcode}>")
        return f"{when}: Queue <{rec.queue}> {op}" + _ctrl_tail(rec.user_name, rec.ctrl_comments, "user or administrator")
    op = _HOST_OPS.get(rec.opcode, f"unknown operation code <{rec.opcode}>")
    return f"{when}: Host <{rec.host}> {op}" + _ctrl_tail(rec.user_name, rec.ctrl_comments, "administrator")


def hist(records: Iterable) -> str:
    """The records' lines, wrapped as prtLine wraps a command's output."""
    return prt_line("".join(hist_line(r) for r in records))


# --- badmin perfmon view ----------------------------------------------------------------

_RULE = "-" * 66


def _metric(name: str, *values: object) -> str:
    return f"{name:<37}" + "".join(f"{v:>6}" for v in values[:-1]) + f"{values[-1]:>8}"


def perfmon(v: PerfmonView) -> str:
    """badmin perfmon view: the sampling's times, a table of the metrics (Last,
    Max, Min, Avg, Total), the utilizations (in Total) and the daemon's file
    descriptors (derived layout: docs/semantics.md)."""
    lines = [
        f"{'Performance monitor start time:':<33}{long_prefix(v.start)}",
        f"{'End time of last sample period:':<33}{long_prefix(v.end)}",
        f"{'Sample period :':<33}{v.period} Seconds",
        _RULE, _metric("Metrics", "Last", "Max", "Min", "Avg", "Total"), _RULE,
        *(_metric(*row) for row in v.rows),
        _metric("Slot utilization", "-", "-", "-", "-", v.slot_utilization),
        _metric("Memory utilization", "-", "-", "-", "-", v.memory_utilization),
        _RULE, f"{'File Descriptor Metrics':<37}{'Free':>6}{'Used':>6}{'Total':>6}", _RULE,
        f"{'MBD file descriptor usage':<37}{v.fd[0]:>6}{v.fd[1]:>6}{v.fd[2]:>6}",
    ]
    return "\n".join(lines) + "\n"


def _cjson(value, depth: int) -> str:
    """cJSON's formatted printing (LSF's -json of badmin perfmon view): an
    object's members one per line, indented by tabs, a tab after each `:`;
    an array's elements joined by `, ` on the line of its brackets."""
    if isinstance(value, dict):
        if not value:
            return "{\n" + "\t" * (depth - 1) + "}"
        inner = ",\n".join("\t" * depth + json.dumps(k) + ":\t" + _cjson(x, depth + 1) for k, x in value.items())
        return "{\n" + inner + "\n" + "\t" * (depth - 1) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_cjson(x, depth + 1) for x in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def perfmon_json(v: PerfmonView) -> str:
    """badmin perfmon view -json (lsf-breadth.md 4.6's seen layout and keys)."""
    records = [{"name": name, "current": last, "max": mx, "min": mn, "avg": avg, "total": total}
               for name, last, mx, mn, avg, total in v.rows]
    records += [{"name": "Slot utilization", "current": "-", "total": v.slot_utilization},
                {"name": "Memory utilization", "current": "-", "total": v.memory_utilization}]
    doc = {"num": len(records), "record": records, "period": v.period, "start": int(v.start), "end": int(v.end),
           "fd": {"name": "mbatchd file descriptor usage", "free": v.fd[0], "used": v.fd[1], "total": v.fd[2]}}
    return _cjson(doc, 1) + "\n"
