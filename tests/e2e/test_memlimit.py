"""bsub -M: the memory limit in LSF_UNIT_FOR_LIMITS units (or with its own unit),
shown in bjobs -l (MEMLIMIT row) and -o memlimit, logged in lsb.events (JOB_NEW
rLimits[RLIMIT_RSS], KB), enforced in wall clock mode as LSF documents: LSF kills
the job (TERM_MEMLIMIT) with LSB_JOB_MEMLIMIT=Y / LSB_MEMLIMIT_ENFORCE=Y or a hard
limit (-M N!); otherwise the limit goes to the OS (setrlimit RLIMIT_RSS)."""

from __future__ import annotations

import re
import sys
import time

import pytest

from lsfemu.events import lsbatch

pytestmark = pytest.mark.slow(21)  # seconds, quiet machine: scheduled early (tests/conftest.py)

PARAMS = ("Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 1\nJOB_TERMINATE_INTERVAL = 1\n"
          "End Parameters\n")


def jobnew_rlimits(c, jid: int) -> list[int]:
    for line in (c.home / "logdir" / "lsb.events").read_text().splitlines():
        if line.startswith('"JOB_NEW"'):
            fields = line.split(" ")
            if int(fields[3]) == jid:
                # JOB_NEW: type version time jobId userId options numProcessors submitTime
                # beginTime termTime sigValue chkpntPeriod restartPid userName rLimits[11]
                return [int(x) for x in fields[14:25]]
    raise AssertionError(f"no JOB_NEW for job {jid}")


def test_memlimit_in_bjobs_and_lsb_events(lsf_cluster):
    c = lsf_cluster  # lsfemu init writes LSF_UNIT_FOR_LIMITS=MB
    assert c.run("bsub -M 4000 -W 10 sleep 60", user="user1").rc == 0
    assert c.run("bsub -M 500 sleep 60", user="user1").rc == 0
    assert c.run("bsub -M 2GB! sleep 60", user="user1").rc == 0
    assert c.run("bsub sleep 60", user="user1").rc == 0
    long1 = c.run("bjobs -l 1").out
    # LSF 10's limit rows (a real capture: ` CORELIMIT MEMLIMIT` / `      0 M     3.9 G `).
    assert "\n RUNLIMIT                \n 10.0 min\n\n MEMLIMIT\n    3.9 G \n\n SCHEDULING PARAMETERS:\n" in long1
    assert "\n\n MEMLIMIT\n    500 M \n\n SCHEDULING PARAMETERS:\n" in c.run("bjobs -l 2").out
    assert "MEMLIMIT" not in c.run("bjobs -l 4").out
    assert c.run("bjobs -noheader -o 'jobid memlimit' 1 2 3 4").out == "1 3.9 G\n2 500 M\n3 2 G\n4 -\n"
    assert c.run("bjobs -noheader -o 'memlimit:10:K' 2").out == "512000 K  \n"
    # lsb.events: KB in rLimits[RLIMIT_RSS], next to the run limit in seconds.
    r1 = jobnew_rlimits(c, 1)
    assert r1[lsbatch.RLIMIT_RSS] == 4000 * 1024 and r1[lsbatch.RLIMIT_RUN] == 600
    assert jobnew_rlimits(c, 3)[lsbatch.RLIMIT_RSS] == 2 * 1024 * 1024
    assert jobnew_rlimits(c, 4)[lsbatch.RLIMIT_RSS] == -1
    # Also from a #BSUB line (bsub < script), command-line -M first.
    assert c.run("bsub", user="user1", stdin="#BSUB -M 300\nsleep 1\n").rc == 0
    assert c.run("bsub -M 100", user="user1", stdin="#BSUB -M 300\nsleep 1\n").rc == 0
    assert c.run("bjobs -noheader -o memlimit 5 6").out == "300 M\n100 M\n"


def test_bad_memlimit_is_refused_with_nothing_stored(lsf_cluster):
    # OpenLava's message, with its spelling (bsub's setOption_ for -M).
    for value in ["abc", "0", "-5", "1.5", "10XB", "10 !!"]:
        r = lsf_cluster.run(["bsub", "-M", value, "sleep", "1"], user="user1")
        assert (r.rc, r.out) == (255, ""), value
        assert r.err == f"{value}: MEMLIMT value should be a positive integer. Job not submitted.\n"
        r = lsf_cluster.run("bsub", user="user1", stdin=f"#BSUB -M '{value}'\nsleep 1\n")
        assert r.err == f"{value}: MEMLIMT value should be a positive integer. Job not submitted.\n"
    assert lsf_cluster.run("bsub sleep 1", user="user1").out.startswith("Job <1> ")


def test_memlimit_unit_defaults_to_kb(lsf_cluster):
    conf = lsf_cluster.path_of("lsf.conf")
    conf.write_text(re.sub(r"(?m)^LSF_UNIT_FOR_LIMITS=.*\n", "", conf.read_text()))
    lsf_cluster.run("lsfemu daemon restart")
    assert lsf_cluster.run("bsub -M 2048 sleep 1", user="user1").rc == 0
    assert lsf_cluster.run("bjobs -noheader -o memlimit 1").out == "2 M\n"
    assert jobnew_rlimits(lsf_cluster, 1)[lsbatch.RLIMIT_RSS] == 2048


# -- wall clock: enforcement ---------------------------------------------------------------------

# Holds about 200 MB resident (written, so really resident) for a few seconds, and says
# which RLIMIT_RSS it runs under.
HOG = ("import resource, time\nx = b'a' * (200 << 20)\n"
       "print('rss limit', resource.getrlimit(resource.RLIMIT_RSS)[0], flush=True)\ntime.sleep(6)\n")


def _wall(factory, extra: str = ""):
    c = factory(clock="wall", files={"lsb.params": PARAMS})
    if extra:
        with open(c.path_of("lsf.conf"), "a") as f:
            f.write(extra)
    (c.root / "work").mkdir()
    (c.root / "work" / "hog.py").write_text(HOG)
    return c


def _sub(c, args: list[str]) -> int:
    r = c.run(["bsub"] + args, user="user1", cwd=str(c.root / "work"))
    assert r.rc == 0, r.text
    return int(re.match(r"Job <(\d+)>", r.out).group(1))


def _wait_end(c, jid: int, timeout: float = 40.0) -> str:
    deadline = time.time() + timeout
    while time.time() < deadline:
        st = c.run(f"bjobs -a -noheader -o stat {jid}").out.strip()
        if st in ("DONE", "EXIT"):
            return st
        time.sleep(0.3)
    raise AssertionError(f"job {jid} did not end within {timeout} s")


def test_memlimit_passed_to_the_os_by_default_and_hard_limit_killed(lsf_cluster_factory):
    c = _wall(lsf_cluster_factory)
    soft = _sub(c, ["-M", "50", "-o", "soft.out", sys.executable, "hog.py"])
    hard = _sub(c, ["-M", "50!", "-o", "hard.out", sys.executable, "hog.py"])
    # Without LSB_JOB_MEMLIMIT / LSB_MEMLIMIT_ENFORCE the limit is the process's RLIMIT_RSS
    # (which Linux does not enforce): the job runs to its end.
    assert _wait_end(c, soft) == "DONE"
    out = (c.root / "work" / "soft.out").read_text()
    assert f"rss limit {50 * 1024 * 1024}\n" in out and "Successfully completed." in out
    # A hard limit (!): LSF kills the job once it holds more than 50 MB.
    assert _wait_end(c, hard) == "EXIT"
    assert c.run(f"bjobs -a -noheader -o 'exit_code exit_reason' {hard}").out == \
        "130 TERM_MEMLIMIT: job killed after reaching LSF memory usage limit\n"
    long = re.sub(r"\n {21}", "", c.run(f"bjobs -l {hard}").out)  # joined as clients do
    assert "Completed <exit>; TERM_MEMLIMIT: job killed after reaching LSF memory usage limit." in long
    bhist = re.sub(r"\n {21}", "", c.run(f"bhist -l {hard}", user="user1").out)
    assert "Completed <exit>; TERM_MEMLIMIT: job killed after reaching LSF memory usage limit" in bhist
    report = (c.root / "work" / "hard.out").read_text()
    assert "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.\nExited with exit code 130." in report


def test_memlimit_enforced_per_job_with_lsb_job_memlimit(lsf_cluster_factory):
    c = _wall(lsf_cluster_factory, "LSB_JOB_MEMLIMIT=Y\n")
    big = _sub(c, ["-M", "50", "-o", "big.out", sys.executable, "hog.py"])
    small = _sub(c, ["-M", "1000", "-o", "small.out", sys.executable, "hog.py"])
    assert _wait_end(c, big) == "EXIT"
    assert c.run(f"bjobs -a -noheader -o exit_reason {big}").out == \
        "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit\n"
    assert _wait_end(c, small) == "DONE"  # 200 MB under a 1000 MB limit
    # LSB_JOB_MEMLIMIT=Y: LSF's per-job limit only; the OS gets no per-process limit.
    out = (c.root / "work" / "small.out").read_text()
    assert re.search(r"rss limit (-1|\d{19,})\n", out), out
