"""bjobs -x (issue 21, part 1): the jobs that raised a job exception of their
queue -- lsb.queues JOB_OVERRUN, JOB_UNDERRUN, JOB_IDLE (IBM's "Handle job
exceptions in queues") -- on one cluster in virtual time; -a adds the
finished ones (an underrun is raised by a job that exits); -l's EXCEPTION
STATUS line and -o's exception_status show them."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest

from lsfemu.config.sample import write_cluster
from lsfemu.testing import LsfCluster

pytestmark = pytest.mark.slow(4)  # seconds, quiet machine

WATCHED = """
Begin Queue
QUEUE_NAME   = watched
PRIORITY     = 35
JOB_OVERRUN  = 2
JOB_UNDERRUN = 3
JOB_IDLE     = 0.5
End Queue
"""


@pytest.fixture(scope="module")
def c():
    root = Path(tempfile.mkdtemp(prefix="lsfexc-"))
    probe = Path(tempfile.mkdtemp(prefix="lsfexc-conf-"))
    write_cluster(str(probe), clock="virtual", force=True)  # the sample lsb.queues, and the watched queue after it
    queues = next(probe.rglob("lsb.queues")).read_text() + WATCHED
    shutil.rmtree(probe, ignore_errors=True)
    cl = LsfCluster(root, files={"lsb.queues": queues})
    yield cl
    cl.stop()
    shutil.rmtree(root, ignore_errors=True)


def sub(c, cmd, env=None):
    r = c.run(cmd, user="user1", env=env)
    assert r.rc == 0, r.text
    return re.search(r"Job <(\d+)>", r.out).group(1)


def listed(c, cmd):
    r = c.run(cmd, user="user1")
    return [line.split()[0] for line in r.out.splitlines()[1:]], r.err


def test_x_lists_overrun_underrun_and_idle_jobs(c):
    long_run = sub(c, "bsub -q watched sleep 1000")  # runs past JOB_OVERRUN (2 minutes)
    idle = sub(c, "bsub -q watched sleep 1000", env={"LSFEMU_CPUTIME": "100"})  # 0.1 CPU s per second
    busy = sub(c, "bsub -q watched sleep 1000")  # the same in a queue without exceptions: never listed
    plain = sub(c, "bsub -q normal sleep 1000", env={"LSFEMU_CPUTIME": "1"})
    short_fail = sub(c, "bsub -q watched sleep 30", env={"LSFEMU_EXIT_CODE": "3"})  # exits after 30 s: underrun
    short_ok = sub(c, "bsub -q watched sleep 30")  # ends as early, but DONE: no underrun
    c.advance("50s")
    # at 40 s of running: no overrun yet, the idle factor not judged before a minute, the failed job exited
    assert listed(c, "bjobs -x") == ([], "No unfinished job found\n")
    assert listed(c, "bjobs -x -a") == ([short_fail], "")
    c.advance("30s")  # 70 s: idle's factor 0.1 is below 0.5
    assert listed(c, "bjobs -x") == ([idle], "")
    c.advance("60s")  # 130 s: both watched long jobs past 2 minutes; the normal queue's job is idle, not watched
    assert listed(c, "bjobs -x") == ([long_run, idle, busy], "")
    assert listed(c, "bjobs -x -a")[0] == [long_run, idle, busy, short_fail]
    # an ID -x drops is not found, as one -r drops (semantics.md, bjobs -x)
    assert listed(c, f"bjobs -x {plain} {short_ok}") == ([], f"Job <{plain}> is not found\nJob <{short_ok}> is not found\n")
    assert listed(c, "bjobs -x -p") == ([], "No pending job found\n")
    assert listed(c, f"bjobs -x -a {short_fail} {short_ok}") == ([short_fail], f"Job <{short_ok}> is not found\n")
    # -l's EXCEPTION STATUS after the thresholds, -o's exception_status: what -x judged [inferred layout]
    text = c.run("bjobs -x -l " + idle, user="user1").out
    assert text.startswith(f"\nJob <{idle}>") and "\n\n EXCEPTION STATUS:  overrun  idle\n" in text
    assert text.index(" SCHEDULING PARAMETERS:") < text.index(" EXCEPTION STATUS:")
    assert " EXCEPTION STATUS:" not in c.run(f"bjobs -l {plain}", user="user1").out
    r = c.run(f"bjobs -noheader -o 'jobid except_stat' {long_run} {idle} {plain} {short_fail}", user="user1")
    assert r.out == f"{long_run} overrun\n{idle} overrun idle\n{plain} -\n{short_fail} underrun\n"
    for jid in (long_run, idle, busy, plain):
        c.run(f"bkill {jid}", user="user1")


def test_runtime_est_exceeded_in_any_queue_once_the_run_time_passes_the_estimate(c):
    est = sub(c, "bsub -q normal -We 1 sleep 1000")  # no exception threshold in the queue: the estimate is one
    plain = sub(c, "bsub -q normal sleep 1000")
    c.advance("50s")
    assert listed(c, f"bjobs -x {est} {plain}") == ([], f"Job <{est}> is not found\nJob <{plain}> is not found\n")
    c.advance("30s")  # past the 1 minute estimate: -WL's X, the runtime_est_exceeded exception
    assert listed(c, f"bjobs -x {est} {plain}") == ([est], f"Job <{plain}> is not found\n")
    r = c.run(f"bjobs -noheader -o 'jobid except_stat' {est} {plain}", user="user1")
    assert r.out == f"{est} runtime_est_exceeded\n{plain} -\n"
    assert "\n\n EXCEPTION STATUS:  runtime_est_exceeded\n" in c.run(f"bjobs -l {est}", user="user1").out
    c.run(f"bkill {est} {plain}", user="user1")


def test_bad_thresholds_are_warned_and_ignored(c):
    path = c.path_of("lsb.queues")
    path.write_text(path.read_text().replace("JOB_IDLE     = 0.5", "JOB_IDLE     = 2").replace(
        "JOB_OVERRUN  = 2", "JOB_OVERRUN  = soon"))
    r = c.run("badmin ckconfig")
    assert "JOB_IDLE: value <2> is not a number between 0.0 and 1.0; ignored" in r.err
    assert "JOB_OVERRUN: value <soon> is not a run time in minutes (a whole number); ignored" in r.err
