"""What bsub's plain options change in a really run job (wall clock mode;
issue 18, part 3): the output directory (-outdir), the standard input (-i,
-is), the login shell (-L). The job's environment (-env) is decided at
submission (lsfemu.ops.subopts) and stored as the job's environment.

`outdir(job, cwd)` makes the job's output directory; `input_path(job, cwd,
spool_dir)` names its standard input; `login_argv(shell, jobfile)` the argv
that runs the job file under a login shell. lsfemu.engine.runner puts them in
the wrapper's spec. The readings: docs/semantics.md, "bsub's plain options".
"""

from __future__ import annotations

import os

from lsfemu.jobpaths import patterns


def spool_path(spool_dir: str, job_id: int) -> str:
    """Where bsub -is keeps its copy of the input file (one per job ID: an array's elements share it)."""
    return os.path.join(spool_dir, f"{job_id}.in")


def outdir(job, submit_dir: str, host: str | None) -> str | None:
    """bsub -outdir: the directory made at the job's start (mode 700), relative to the
    submission directory; None (the job's own directory is used) when it cannot be
    made, as LSF falls back to the submission directory."""
    if not job.outdir:
        return None
    path = patterns(job.outdir, job, host)
    full = os.path.normpath(path if os.path.isabs(path) else os.path.join(submit_dir, path))
    try:
        os.makedirs(full, mode=0o700, exist_ok=True)
    except OSError:
        return None
    return full


def input_path(job, cwd: str, spool_dir: str) -> str | None:
    """The job's standard input: -is's spooled copy, or -i's file (%J and %I replaced,
    relative to the job's working directory), read when the job starts."""
    if not job.input_file:
        return None
    if job.input_spooled:
        return spool_path(spool_dir, job.id)
    name = job.input_file.replace("%J", str(job.id)).replace("%I", str(job.array_index))
    return os.path.normpath(name if os.path.isabs(name) else os.path.join(cwd, name))


def login_argv(shell: str, jobfile: str) -> list[str]:
    """bsub -L: the job file run by the login shell as a login shell (it reads the
    user's profile before the job, which is how LSF initialises the environment)."""
    return [shell, "-l", jobfile]
