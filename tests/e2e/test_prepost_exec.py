"""bsub -E / -Ep (issue 18, part 2; lsfemu.engine.prepost, lsfemu.engine.jobwrap):
pre-execution commands really run before the job in wall mode, with its
directory, environment and output file; a failing one sends the job back to
PEND (lsb.events JOB_STATUS PEND, reason PEND_JOB_PRE_EXEC) and LSF tries
again, up to LOCAL_MAX_PREEXEC_RETRY (then PSUSP); post-execution commands run
after the job with LSB_JOBEXIT_STAT, their result logged as PDONE / PERR
(bhist -l: `Post job process ...`). In virtual mode the outcome comes from
LSFEMU_PREEXEC_FAILS and LSFEMU_POSTEXEC_EXIT."""

import json
import re
import time

import pytest

from tests.e2e.test_command_words import _long_command
from tests.e2e.test_execution import shared  # noqa: F401 - the module's wall-clock cluster (a fixture)
from tests.hardening.test_shell_quoting import _wait_done

pytestmark = pytest.mark.slow(15)  # seconds, quiet machine: scheduled early (tests/conftest.py)


def _sub(c, args: list[str], env: dict | None = None, cwd: str | None = None) -> int:
    r = c.run(["bsub"] + args, user="user1", env=env, cwd=cwd)
    assert r.rc == 0, r.text
    return int(re.match(r"Job <(\d+)>", r.out).group(1))


def _statuses(c, jid: int) -> list[tuple[int, int]]:
    """(status, reason) of the job's JOB_STATUS records in lsb.events."""
    out = []
    for line in (c.home / "logdir" / "lsb.events").read_text().splitlines():
        f = line.split(" ")
        if f[0] == '"JOB_STATUS"' and f[3] == str(jid):
            out.append((int(f[4]), int(f[5])))
    return out


def _stat(c, jid: int) -> str:
    return c.run(f"bjobs -a -noheader -o stat {jid}").out.strip()


# -- wall clock: really run ------------------------------------------------------------------------
def test_pre_and_post_exec_really_run_around_the_job(shared):
    c = shared
    work = c.root / "work"
    pre = 'echo "pre in $(pwd) sees $MYVAR"'
    post = 'echo "post: $LSB_JOBEXIT_STAT" > post.txt'
    jid = _sub(c, ["-o", "pp.out", "-E", pre, "-Ep", post, "sh", "-c", "echo job; exit 3"],
               env={"MYVAR": "forty two"}, cwd=str(work))
    assert _wait_done(c, jid) == "EXIT"
    out = (work / "pp.out").read_text()
    assert f"pre in {work} sees forty two\njob\n" in out  # the pre-exec's output first, in the job's file
    deadline = time.time() + 5
    while not (work / "post.txt").exists() and time.time() < deadline:
        time.sleep(0.1)
    assert (work / "post.txt").read_text() == "post: 768\n"  # the job's wait status: exit 3
    # bjobs -l shows both (OpenLava's wording); JOB_NEW logs the pre-exec command; the
    # post-exec's success is logged after the EXIT (JOB_STAT_EXIT | JOB_STAT_PDONE)
    long = c.run(f"bjobs -l {jid}").out.replace("\n" + " " * 21, "")
    assert f"Pre-execute Command <{pre}>, Post-execute Command <{post}>" in long
    rec = json.loads(c.run(f"bjobs -a -o 'pre_cmd post_exec_command' -json {jid}").out)["RECORDS"][0]
    assert rec == {"PRE_EXEC_COMMAND": pre, "POST_EXEC_COMMAND": post}
    new = next(l for l in (c.home / "logdir" / "lsb.events").read_text().splitlines()
               if l.startswith('"JOB_NEW"') and l.split(" ")[3] == str(jid))
    assert '"' + pre.replace('"', '""') + '"' in new
    assert [s for s, _ in _statuses(c, jid)][-2:] == [0x20, 0x20 | 0x80]
    assert "Post job process done successfully;" in c.run(f"bhist -l {jid}").out


def test_a_failing_pre_exec_sends_the_job_back_to_pend(shared):
    c = shared
    work = c.root / "work"
    # fails the first time it runs (no flag yet), succeeds the second time
    pre = "test -e flag.pre || { touch flag.pre; echo failed; exit 7; }"
    jid = _sub(c, ["-o", "fail.out", "-E", pre, "-Ep", "exit 1", "echo ran"], cwd=str(work))
    assert _wait_done(c, jid, timeout=30) == "DONE"
    out = (work / "fail.out").read_text()
    assert "ran\n" in out and "failed" not in out  # the failed attempt's output is not the job's
    statuses = _statuses(c, jid)
    assert (1, 6) in statuses  # JOB_STATUS PEND, PEND_JOB_PRE_EXEC
    assert statuses[-1][0] == 0x40 | 0x100  # DONE | PERR: the post-exec exited 1
    hist = c.run(f"bhist -l {jid}").out.replace("\n" + " " * 21, "")
    assert "Pending: The job's pre-exec command exited with non-zero status;" in hist
    assert "Post job process failed;" in hist
    assert len(re.findall(r"Starting \(Pid", hist)) == 2  # two dispatches: the failed one and the run


# -- virtual clock: the outcome is set ---------------------------------------------------------------
def test_virtual_pre_exec_fails_as_told_then_the_job_runs(lsf_cluster):
    c = lsf_cluster
    jid = _sub(c, ["-E", "/bin/check", "-Ep", "/bin/cleanup", "sleep", "60"],
               env={"LSFEMU_PREEXEC_FAILS": "2", "LSFEMU_POSTEXEC_EXIT": "1"})
    c.advance("5m")
    assert _stat(c, jid) == "DONE"
    statuses = _statuses(c, jid)
    assert statuses.count((1, 6)) == 2  # two failed attempts, each back to PEND
    assert statuses[-1][0] == 0x40 | 0x100  # DONE | PERR
    assert _long_command(c, "bjobs", jid) == "sleep 60"


def test_virtual_pre_exec_retry_limit_suspends_the_job(lsf_cluster_factory):
    c = lsf_cluster_factory(files={"lsb.params": "Begin Parameters\nDEFAULT_QUEUE = normal\n"
                                                 "LOCAL_MAX_PREEXEC_RETRY = 3\nEnd Parameters\n"})
    jid = _sub(c, ["-E", "/bin/check", "sleep", "60"], env={"LSFEMU_PREEXEC_FAILS": "100"})
    c.advance("10m")
    assert _stat(c, jid) == "PSUSP"  # three failures, then suspended
    assert _statuses(c, jid).count((1, 6)) == 3
    assert "The job's pre-exec command exited with non-zero status" in c.run(f"bjobs -l {jid}").out
    assert c.run(f"bresume {jid}", user="user1").rc == 0  # the user lets it try again
    c.advance("1m")
    assert _statuses(c, jid).count((1, 6)) == 4 and _stat(c, jid) == "PSUSP"


def test_empty_pre_or_post_exec_is_refused_with_the_usage(lsf_cluster):
    for flag in ("-E", "-Ep"):
        r = lsf_cluster.run(["bsub", flag, " ", "sleep", "1"], user="user1")
        assert r.rc == 255 and r.err.startswith("Usage: bsub ") and r.out == "", r.text
    assert lsf_cluster.run("bjobs -a -u all").err == "No job found\n"


def test_post_done_and_post_err_dependencies_follow_the_post_exec(lsf_cluster):
    c = lsf_cluster
    failing = _sub(c, ["-Ep", "/bin/cleanup", "sleep", "10"], env={"LSFEMU_POSTEXEC_EXIT": "1"})
    fine = _sub(c, ["-Ep", "/bin/cleanup", "sleep", "10"])
    on_err = _sub(c, ["-w", f"post_err({failing})", "sleep", "5"])
    on_done = _sub(c, ["-w", f"post_done({failing})", "sleep", "5"])
    after_fine = _sub(c, ["-w", f"post_done({fine}) && !post_err({fine})", "sleep", "5"])
    c.advance("3m")
    assert [_stat(c, j) for j in (failing, fine, on_err, on_done, after_fine)] == [
        "DONE", "DONE", "DONE", "PEND", "DONE"]
