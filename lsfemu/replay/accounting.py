"""The what-if replay's reading of lsb.acct: each JOB_FINISH record
(:func:`lsfemu.events.acct.read_acct`, the one parser of the format) turned
into the same per-job row the lsb.events tracker gives for a finished job
(:class:`~lsfemu.replay.tracker.JobTracker`), so that both kinds of file
feed :mod:`.whatif` alike. What is taken from a record, and what an
accounting file cannot say: docs/semantics.md ("Replay", --what-if from
lsb.acct)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from lsfemu.events import lsbatch
from lsfemu.events.acct import JOB_STAT_EXIT, AcctRecord, AcctWarning, read_acct
from lsfemu.events.log import EventWarning
from lsfemu.replay.common import Warnings
from lsfemu.replay.tracker import mem_request


def acct_row(rec: AcctRecord) -> dict[str, Any]:
    """The tracker's row of a finished job, from its JOB_FINISH record: the
    submission as bsub made it (user, queue, slots, the resource requirement
    the job asked for, run limit, command, project, ...), its dispatch (start
    time; 0 = never started) and its run (end - start, the CPU time of its
    rusage, its exit code)."""
    started = rec.start_time > 0
    end = float(rec.event_time)
    slots = rec.num_processors if rec.num_processors > 1 else 1
    runtime = max(0.0, end - rec.start_time) if started else 0.0
    ru = rec.lsf_rusage
    cpu = ru.ru_utime + ru.ru_stime if ru.ru_utime >= 0 and ru.ru_stime >= 0 else runtime * slots
    failed = rec.j_status & JOB_STAT_EXIT != 0
    return {
        "id": rec.job_id, "array_index": rec.idx, "user": rec.user_name, "queue": rec.queue,
        "num_processors": slots, "submit_time": float(rec.submit_time or rec.event_time),
        "priority": None,  # bsub -sp is not in lsb.acct
        "run_limit_min": rec.run_limit / 60.0 if rec.run_limit > 0 else None,
        "res_req": rec.res_req or None, "mem_req_mb": mem_request(rec.res_req),
        "command": rec.command, "name": rec.job_name if rec.options & lsbatch.SUB_JOB_NAME else None,
        "project": rec.project_name or "default", "cwd": rec.cwd, "home": "", "from_host": rec.from_host,
        "start_time": float(rec.start_time) if started else None, "finish_time": end,
        "sim_runtime": runtime, "sim_cputime": cpu,
        "sim_exit_code": lsbatch.exit_code_of(rec.exit_status) if failed else 0,
    }


def acct_rows(paths: list[Path], warns: Warnings, until: float | None) -> Iterator[dict[str, Any]]:
    """The rows of the jobs in *paths* (oldest first) submitted by *until*; a
    damaged line is counted and shown as the lsb.events reader's are."""
    def warn(w: AcctWarning) -> None:
        warns(EventWarning(w.path, w.lineno, "corrupt", f"{w.message}; record skipped"))

    for path in paths:
        for rec in read_acct(path, warn):
            row = acct_row(rec)
            if until is None or row["submit_time"] <= until:
                yield row
