"""Simulated job execution: how long a job runs, how much CPU it uses, and
when it ends. Pure functions over plain numbers (no clock, no store).

A simulated job needs `runtime` seconds of running (not suspended) time.
Its CPU time accrues in proportion to the work done. A run limit (minutes)
ends it early with TERM_RUNLIMIT, a CPU time limit (bsub -c) with TERM_CPULIMIT.
"""

from __future__ import annotations

import re

RUNLIMIT_EXIT_CODE = 140  # LSF kills with SIGUSR2 (12) -> 128 + 12
KILL_EXIT_CODE = 130  # bkill's first signal is SIGINT (2) -> 128 + 2

_SLEEP = re.compile(r"^\s*(?:exec\s+)?(?:/bin/|/usr/bin/)?sleep\s+(\d+(?:\.\d+)?)([smhd]?)\s*;?\s*$")


def runtime_from_command(command: str) -> float | None:
    """`sleep N` (or N with s/m/h/d) -> N seconds; None for other commands."""
    for line in command.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _SLEEP.match(line)
        if m:
            return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
        return None
    return None


def plan(command: str, env: dict[str, str], slots: int, parse_duration) -> tuple[float, float, int]:
    """(runtime s, cputime s, exit code) for a new job.

    LSFEMU_RUNTIME / LSFEMU_CPUTIME / LSFEMU_EXIT_CODE in the submission
    environment win; else `sleep N` runs N seconds; other commands run 0 s.
    CPU time defaults to run time x slots.
    """
    runtime = None
    if env.get("LSFEMU_RUNTIME"):
        runtime = parse_duration(env["LSFEMU_RUNTIME"])
    if runtime is None:
        runtime = runtime_from_command(command)
    if runtime is None:
        runtime = 0.0
    cputime = parse_duration(env["LSFEMU_CPUTIME"]) if env.get("LSFEMU_CPUTIME") else runtime * slots
    exit_code = int(env.get("LSFEMU_EXIT_CODE", "0") or 0)
    return runtime, cputime, exit_code


def work_at(work_done: float, segment_start: float | None, now: float) -> float:
    """Run time accumulated by `now` (segments that ended plus the current one)."""
    if segment_start is None:
        return work_done
    return work_done + max(0.0, now - segment_start)


def end_of_run(runtime: float, run_limit_min: float | None, work_done: float, segment_start: float,
               cputime: float = 0.0, cpu_limit_s: float | None = None) -> tuple[float, str | bool]:
    """The instant the running segment ends the job, and what ends it: False (its
    own end), "RUNLIMIT" (the run limit, minutes) or "CPULIMIT" (`cpu_limit_s`
    seconds of CPU time, which accrues with the work as cpu_at says). Ties go
    to the job's own end, then to the run limit."""
    ends: list[tuple[float, str | bool]] = [(runtime, False)]
    if run_limit_min is not None:
        ends.append((run_limit_min * 60.0, "RUNLIMIT"))
    if cpu_limit_s is not None and cputime > cpu_limit_s:
        ends.append((cpu_limit_s * runtime / cputime if runtime > 0 else 0.0, "CPULIMIT"))
    work, why = min(ends, key=lambda e: e[0])
    return segment_start + max(0.0, work - work_done), why


def cpu_at(runtime: float, cputime: float, work: float) -> float:
    if runtime <= 0:
        return cputime
    return cputime * min(1.0, work / runtime)

