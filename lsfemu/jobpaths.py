"""A job's paths with LSF's dynamic patterns: -outdir and -cwd (LSF 10.1,
case sensitive: %J job ID, %JG job group, %I index, %EJ/%EI execution job ID
and index, %P project, %U user, %G user group, %H first execution host).

One implementation for the runner (where the job really runs), the job views
(bjobs -l's Execution CWD), the JOB_EXECUTE record and the job report, so that
they never disagree. Pure: the job is any object with the store's attribute
names; nothing here touches the file system.
"""

from __future__ import annotations

import os
from typing import Any


def patterns(text: str, job: Any, host: str | None) -> str:
    """*text* with the dynamic patterns replaced (%JG and %G are nothing when the job has none)."""
    out = text.replace("%JG", (getattr(job, "job_group", None) or "").lstrip("/"))
    index = str(getattr(job, "array_index", 0) or 0)
    out = out.replace("%EJ", str(job.id)).replace("%EI", index).replace("%J", str(job.id)).replace("%I", index)
    return out.replace("%P", getattr(job, "project", None) or "default").replace("%U", job.user).replace(
        "%G", getattr(job, "user_group", None) or "").replace("%H", host or "")


def exec_cwd(job: Any, host: str | None) -> str:
    """Where the job runs: its -cwd with the patterns replaced, relative to the
    submission directory; else the submission directory."""
    spec = getattr(job, "specified_cwd", None)
    sub = getattr(job, "cwd", None) or "/"
    if not spec:
        return sub
    path = patterns(spec, job, host)
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(sub, path))


def makes_cwd(job: Any) -> bool:
    """LSF creates the job's CWD when its -cwd path has a dynamic pattern."""
    return "%" in (getattr(job, "specified_cwd", None) or "")
