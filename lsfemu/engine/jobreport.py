"""LSF's job report: what the job wrapper (lsfemu.engine.jobwrap) writes at a job's
end to its -o file -- `Job <name> was submitted from host ...`, the job's command,
how it ended and its resource usage summary -- and what lsfemu.engine.mail puts in
the mailbox file of a job without -o.

Standard library only: the wrapper runs isolated (`python -I -S`) and imports this
module from beside itself.
"""

from __future__ import annotations

import os
import time

DASHES = "-" * 60


def _ctime(t: float) -> str:
    return time.ctime(t)


def _mb(kb: int | None, fmt: str) -> str:
    if not kb:
        return "-"
    return fmt.format(kb / 1024.0) + " MB"


def report_body(spec: dict, st: dict, reported: float) -> str:
    """From `Job <name> was submitted ...` to the empty line after the usage summary."""
    r = spec["report"]
    hosts = r["hosts"]  # [[host, slots], ...]
    one_slot = sum(n for _, n in hosts) == 1
    shown = [f"<{h}>" if one_slot else f"<{n}*{h}>" for h, n in hosts]
    lines = [
        f"Job <{r['name']}> was submitted from host <{r['from_host']}> by user <{r['user']}> "
        f"in cluster <{r['cluster']}> at {_ctime(r['submit_time'])}",
        f"Job was executed on host(s) {shown[0]}, in queue <{r['queue']}>, as user <{r['user']}> "
        f"in cluster <{r['cluster']}> at {_ctime(st['start'])}",
    ]
    lines += [" " * 28 + h for h in shown[1:]]
    lines += [
        f"<{r['home']}> was used as the home directory.",
        f"<{st['cwd']}> was used as the working directory.",
        f"Started at {_ctime(st['start'])}",
        f"Terminated at {_ctime(st['end'])}",
        f"Results reported at {_ctime(reported)}",
        "",
        "Your job looked like:",
        "",
        DASHES,
        "# LSBATCH: User input",
        r["command"],
        DASHES,
        "",
    ]
    if st["status"] == "DONE":
        lines.append("Successfully completed.")
    else:
        if st.get("reason"):
            lines.append(st["reason"].rstrip(".") + ".")
        lines.append(f"Exited with exit code {st['exit_code']}.")
    u = st["usage"]
    req = r.get("mem_req_mb")
    delta = "-"
    if req is not None and u.get("max_mem_kb"):
        delta = f"{req - round(u['max_mem_kb'] / 1024.0):.2f} MB"

    def row(label: str, value: str) -> str:
        return f"    {label} :".ljust(49) + value

    lines += [
        "",
        "Resource usage summary:",
        "",
        row("CPU time", f"{st['cpu']:.2f} sec."),
        row("Max Memory", _mb(u.get("max_mem_kb"), "{:.0f}")),
        row("Average Memory", _mb(u.get("avg_mem_kb"), "{:.2f}")),
        row("Total Requested Memory", f"{req:.2f} MB" if req is not None else "-"),
        row("Delta Memory", delta),
        row("Max Swap", _mb(u.get("max_swap_kb"), "{:.0f}")),
        row("Max Processes", str(u["max_procs"]) if u.get("max_procs") else "-"),
        row("Max Threads", str(u["max_threads"]) if u.get("max_threads") else "-"),
        row("Run time", f"{round(st['end'] - st['start'])} sec."),
        row("Turnaround time", f"{round(st['end'] - r['submit_time'])} sec."),
        "",
    ]
    return "\n".join(lines) + "\n"


def header(spec: dict, st: dict) -> str:
    r = spec["report"]
    verdict = "Done" if st["status"] == "DONE" else "Exited"
    return (f"Sender: LSF System <{r['admin']}@{r['hosts'][0][0]}>\n"
            f"Subject: Job {r['job_id']}: <{r['name']}> in cluster <{r['cluster']}> {verdict}\n\n")


def _ps(spec: dict) -> str:
    err = spec["report"].get("error_shown")
    return f"\nPS:\n\nRead file <{err}> for stderr output of this job.\n\n" if err else ""


def open_out(path: str, overwrite: bool, mkdir: bool = False):
    """An output file; its folder is created only for `-o DIR/` (LSF: else the output is not stored)."""
    d = os.path.dirname(path)
    if d and mkdir:
        os.makedirs(d, exist_ok=True)
    return open(path, "wb" if overwrite else "ab")


def _copy(src: str, dst) -> None:
    try:
        with open(src, "rb") as f:
            while True:
                chunk = f.read(1 << 20)
                if not chunk:
                    break
                dst.write(chunk)
    except OSError:
        pass


def write_report(spec: dict, jobdir: str, st: dict) -> None:
    """LSF's job report, in the -o file (or the mailbox file without -o).

    Spooled (LSF's default): header and report, `The output (if any)
    follows:`, the output, and `PS:` naming the -e file. LSB_STDOUT_DIRECT=Y:
    the output is already in the file; the report follows it after a line of
    dashes and ends with `The output (if any) is above this job summary.`"""
    reported = time.time()
    body = header(spec, st) + report_body(spec, st, reported)
    out = spec["stdout"]
    if spec["direct"]:
        with open_out(out["path"], False, out.get("mkdir", False)) as f:
            f.write(("\n" + DASHES + "\n" + body + "The output (if any) is above this job summary.\n\n"
                     + (("\n" + _ps(spec)) if _ps(spec) else "")).encode("utf-8", "surrogateescape"))
        return
    with open_out(out["path"], out["overwrite"], out.get("mkdir", False)) as f:
        f.write((body + "The output (if any) follows:\n\n").encode("utf-8", "surrogateescape"))
        _copy(os.path.join(jobdir, "stdout"), f)
        f.write(("\n" + _ps(spec)).encode("utf-8", "surrogateescape"))
    err = spec.get("stderr")
    if err:
        with open_out(err["path"], err["overwrite"], err.get("mkdir", False)) as f:
            _copy(os.path.join(jobdir, "stderr"), f)
