"""Job names, output paths, project names and other job parameters never reach
a shell unquoted: only the job's command is shell text (as in LSF). Run on the
wall clock, where jobs really run."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

PARAMS = ("Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 1\nJOB_TERMINATE_INTERVAL = 1\n"
          "End Parameters\n")


def _wait_done(c, jid: int, timeout: float = 20.0) -> str:
    deadline = time.time() + timeout
    stat = ""
    while time.time() < deadline:
        stat = c.run(f"bjobs -a -noheader -o stat {jid}").out.strip()
        if stat in ("DONE", "EXIT"):
            return stat
        time.sleep(0.2)
    raise AssertionError(f"job {jid} is {stat}")


def test_parameters_are_never_shell_text(lsf_cluster_factory, tmp_path):
    c = lsf_cluster_factory(clock="wall", files={"lsb.params": PARAMS})
    work = c.root / "work"
    work.mkdir()
    canary = tmp_path / "canary"
    evil = {
        "-J": f"x$(touch {canary}-J)`touch {canary}-J2`",
        "-P": f"p;touch {canary}-P",
        # file names cannot hold a "/": these would touch files in the job's cwd
        "-o": str(work / "out$(touch canary-o);touch canary-o2"),
        "-e": str(work / "err`touch canary-e`"),
    }
    argv = ["bsub"]
    for flag, value in evil.items():
        argv += [flag, value]
    # the command itself is shell text: it prints what the job saw
    argv.append('printf "%s\\n" "$LSB_JOBNAME" "$LSB_OUTPUTFILE" "$LSB_ERRORFILE"')
    r = c.run(argv, user="user1", cwd=str(work))
    assert r.rc == 0, r.text
    jid = int(re.match(r"Job <(\d+)>", r.out).group(1))
    assert _wait_done(c, jid) == "DONE"
    time.sleep(0.5)
    assert not list(tmp_path.glob("canary*")) + list(work.glob("canary*")), "a parameter was run by a shell"
    out = Path(evil["-o"])
    err = Path(evil["-e"])
    assert out.exists() and err.exists(), sorted(p.name for p in work.iterdir())
    seen = out.read_text()
    assert f"{evil['-J']}\n{evil['-o']}\n{evil['-e']}\n" in seen
    rec = json.loads(c.run(f"bjobs -a -o 'job_name proj_name' -json {jid}").out)["RECORDS"][0]
    assert (rec["JOB_NAME"], rec["PROJ_NAME"]) == (evil["-J"], evil["-P"])
