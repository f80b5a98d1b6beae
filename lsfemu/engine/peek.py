"""bpeek's reading of a really running job's output so far (wall clock mode):
the spooled files in the job's folder (lsfemu.engine.jobwrap), or the -o/-e
files themselves when LSB_STDOUT_DIRECT sends the output there."""

from __future__ import annotations

import os

from lsfemu.engine.jobwrap import read_json


def output_so_far(runner, job) -> tuple[bytes | None, bytes | None] | None:
    """(stdout, stderr) as the job wrote them so far; None for a part bpeek
    does not show (stdout sent to /dev/null, no separate -e file); None as a
    whole before the job's folder is made."""
    d = runner.job_dir(job)
    spec = read_json(os.path.join(d, "spec.json"))
    if spec is None:
        return None

    def part(name: str, where: dict | None) -> bytes | None:
        if where is None or where.get("path") == os.devnull:
            return None
        try:
            with open(where["path"] if spec.get("direct") else os.path.join(d, name), "rb") as f:
                return f.read()
        except OSError:
            return b""  # nothing written yet

    return part("stdout", spec.get("stdout")), part("stderr", spec.get("stderr"))
