"""Real execution in wall clock mode (lsfemu.engine.runner, lsfemu.engine.jobwrap):
jobs run as process groups with LSF's environment, write LSF's job report, end
DONE/EXIT with their exit code, obey bkill/bstop/bresume and run limits, and
survive daemon restarts. Every job here is short; MBD_SLEEP_TIME=1 and
JOB_TERMINATE_INTERVAL=1 keep the waits short."""

import json
import os
import re
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest

from lsfemu.testing import LsfCluster

pytestmark = pytest.mark.slow(46)  # seconds, quiet machine: scheduled early (tests/conftest.py)

PARAMS = ("Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 1\nJOB_TERMINATE_INTERVAL = 1\n"
          "End Parameters\n")


@pytest.fixture
def wall(lsf_cluster_factory):
    def make(lsf_conf_extra: str = "", files: dict | None = None):
        c = lsf_cluster_factory(clock="wall", files={"lsb.params": PARAMS, **(files or {})})
        if lsf_conf_extra:
            with open(c.path_of("lsf.conf"), "a") as f:
                f.write(lsf_conf_extra)
        (c.root / "work").mkdir()
        return c
    return make


@pytest.fixture(scope="module")
def shared():
    """One wall-clock cluster for the tests that leave its daemon alone (each waits for its jobs to end)."""
    root = Path(tempfile.mkdtemp(prefix="lsfemu-"))
    c = LsfCluster(root, files={"lsb.params": PARAMS}, clock="wall")
    (root / "work").mkdir()
    yield c
    c.stop()
    shutil.rmtree(root, ignore_errors=True)


def sub(c, args: str, user: str = "user1", env: dict | None = None) -> int:
    r = c.run(["bsub"] + args, user=user, cwd=str(c.root / "work"), env=env)
    assert r.rc == 0, r.text
    return int(re.match(r"Job <(\d+)>", r.out).group(1))


def field(c, jid: int, fmt: str) -> str:
    return c.run(f"bjobs -a -noheader -o '{fmt}' {jid}").out.strip()


def wait_stat(c, jid: int, want: tuple[str, ...], timeout: float = 15.0) -> str:
    deadline = time.time() + timeout
    stat = ""
    while time.time() < deadline:
        stat = field(c, jid, "stat")
        if stat in want:
            return stat
        time.sleep(0.2)
    raise AssertionError(f"job {jid} is {stat}, not {want}")


def wait_file(path: Path, text: str, timeout: float = 10.0) -> str:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if path.exists() and text in path.read_text():
            return path.read_text()
        time.sleep(0.1)
    raise AssertionError(f"{path} never contained {text!r}")


def job_pgid(c, jid: int) -> int:
    """The job's process group, from the wrapper's `started` file. The job may
    write its first output before the wrapper (its parent) writes that file:
    wait for it a while (a loaded machine)."""
    deadline = time.time() + 15
    while True:
        started = list((c.home / "jobs").glob(f"{jid}.0.*/started"))
        if started or time.time() > deadline:
            break
        time.sleep(0.05)
    assert len(started) == 1, started
    return json.loads(started[0].read_text())["pgid"]


def proc_state(pid: int) -> str | None:
    try:
        data = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return data[data.rfind(")") + 2]


def test_job_runs_in_its_directory_with_lsf_environment(shared):
    c = shared
    script = ('echo "PWD=$(pwd)"; env | grep -E "^(LSB_|LS_SUBCWD|MYVAR)" | sort; '
              'echo "FILE=$(cat $LSB_JOBFILENAME | tail -n 1)"')
    jid = sub(c, ["-n", "2", "-J", "envjob", "-o", "out.%J", "-e", "err.%J", script], env={"MYVAR": "forty two"})
    wait_stat(c, jid, ("DONE",))
    out = (c.root / "work" / f"out.{jid}").read_text()
    lines = set(out.splitlines())
    work = str(c.root / "work")
    for want in (f"PWD={work}", f"LSB_JOBID={jid}", "LSB_JOBNAME=envjob", "LSB_QUEUE=normal",
                 "LSB_HOSTS=hostA hostA", "LSB_MCPU_HOSTS=hostA 2", "LSB_DJOB_NUMPROC=2", "LSB_SUB_HOST=hostA",
                 "LSB_JOBINDEX=0", f"LSB_OUTPUTFILE=out.{jid}", f"LSB_ERRORFILE=err.{jid}", "MYVAR=forty two",
                 f"LS_SUBCWD={work}", f"FILE={script}"):
        assert want in lines, (want, out)
    jobfile = next(l for l in lines if l.startswith("LSB_JOBFILENAME=")).split("=", 1)[1]
    assert re.fullmatch(rf"\d+\.{jid}", Path(jobfile).name)  # LSF's <submission time>.<job ID>
    assert not Path(jobfile).exists()  # removed once the job is collected, as sbatchd does
    # -cwd: the job runs there; the output file name is relative to it
    other = c.root / "elsewhere"
    other.mkdir()
    jid2 = sub(c, ["-cwd", str(other), "-oo", "o.txt", "pwd"])
    wait_stat(c, jid2, ("DONE",))
    assert f"follows:\n\n{other}\n" in (other / "o.txt").read_text()
    # -cwd with dynamic patterns (LSF 10.1): replaced, relative to the submission
    # directory, and created; bjobs -l and the JOB_EXECUTE record name the same place
    jid3 = sub(c, ["-cwd", "%U/%J_%I", "-oo", "o.txt", "pwd"])
    made = c.root / "work" / "user1" / f"{jid3}_0"
    wait_stat(c, jid3, ("DONE",))
    assert f"follows:\n\n{made}\n" in (made / "o.txt").read_text()
    assert oct(made.stat().st_mode & 0o777) == "0o700"
    # -hostfile (issue 21): the tasks where and in the order the file says -- LSB_HOSTS and
    # LSB_DJOB_HOSTFILE one per task in its order, LSB_MCPU_HOSTS each host once
    (c.root / "work" / "hf").write_text("hostB 2\nhostA\nhostB\n")
    jid4 = sub(c, ["-hostfile", "hf", "-oo", "hf.out", 'echo "H=$LSB_HOSTS"; echo "M=$LSB_MCPU_HOSTS"; '
                                                       'cat "$LSB_DJOB_HOSTFILE"'])
    wait_stat(c, jid4, ("DONE",))
    assert "\nH=hostB hostB hostA hostB\nM=hostB 3 hostA 1\nhostB\nhostB\nhostA\nhostB\n" in (
        c.root / "work" / "hf.out").read_text()
    long = "".join(c.run(["bjobs", "-l", str(jid3)]).out.split())  # LSF wraps inside the paths
    assert f"ExecutionCWD<{made}>" in long and f"SpecifiedCWD<{c.root / 'work'}/%U/%J_%I>" in long, long


def _report_re(name: str, jid: int, verdict: list[str], user: str = "user1") -> str:
    """The report LSF writes, as a regular expression (times and measured values vary)."""
    t = r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}"
    n = re.escape(name)
    lines = [
        f"Sender: LSF System <lsfadmin@hostA>",
        f"Subject: Job {jid}: <{n}> in cluster <cluster1> {'Done' if verdict[0].startswith('Succ') else 'Exited'}",
        "",
        f"Job <{n}> was submitted from host <hostA> by user <{user}> in cluster <cluster1> at {t}",
        f"Job was executed on host\\(s\\) <hostA>, in queue <normal>, as user <{user}> in cluster <cluster1> at {t}",
        "<[^>]+> was used as the home directory.",
        "<[^>]+> was used as the working directory.",
        f"Started at {t}", f"Terminated at {t}", f"Results reported at {t}",
        "", "Your job looked like:", "", "-" * 60, "# LSBATCH: User input", n, "-" * 60, "",
        *[re.escape(v) for v in verdict],
        "", "Resource usage summary:", "",
        r"    CPU time :                                   \d+\.\d\d sec\.",
        r"    Max Memory :                                 (\d+ MB|-)",
        r"    Average Memory :                             (\d+\.\d\d MB|-)",
        r"    Total Requested Memory :                     (\d+\.\d\d MB|-)",
        r"    Delta Memory :                               (-?\d+\.\d\d MB|-)",
        r"    Max Swap :                                   (\d+ MB|-)",
        r"    Max Processes :                              (\d+|-)",
        r"    Max Threads :                                (\d+|-)",
        r"    Run time :                                   \d+ sec\.",
        r"    Turnaround time :                            \d+ sec\.",
        "",
    ]
    return "\n".join(lines) + "\n"


def test_output_file_holds_the_report_in_lsf_layout(shared):
    c = shared
    cmd = "echo out-line; echo err-line >&2"
    jid = sub(c, ["-o", "out.%J.%I", "-e", "err.%J", "-R", "rusage[mem=100]", cmd])
    wait_stat(c, jid, ("DONE",))
    text = (c.root / "work" / f"out.{jid}.0").read_text()
    want = (_report_re(cmd, jid, ["Successfully completed."]) + re.escape(
        "The output (if any) follows:\n\nout-line\n\n\nPS:\n\n"
        f"Read file <err.{jid}> for stderr output of this job.\n\n"))
    assert re.fullmatch(want, text), text
    assert "Total Requested Memory :                     100.00 MB" in text
    assert (c.root / "work" / f"err.{jid}").read_text() == "err-line\n"
    # -o appends: a second job into the same file adds a second report
    jid2 = sub(c, ["-o", f"out.{jid}.0", "exit 3"])
    wait_stat(c, jid2, ("EXIT",))
    text2 = (c.root / "work" / f"out.{jid}.0").read_text()
    assert text2.startswith(text)
    assert re.fullmatch(_report_re("exit 3", jid2, ["Exited with exit code 3."])
                        + re.escape("The output (if any) follows:\n\n\n"), text2[len(text):]), text2[len(text):]


def test_output_folders_and_unreachable_output_files(shared):
    c = shared
    work = c.root / "work"
    jid = sub(c, ["-o", "logs/", "-e", "logs/", "echo x; echo y >&2"])
    lost = sub(c, ["-o", "nowhere/f.out", "echo z"])
    wait_stat(c, jid, ("DONE",))
    wait_stat(c, lost, ("DONE",))
    text = (work / "logs" / f"{jid}.out").read_text()  # LSF: DIR/<job ID>.out, the folder created
    assert "The output (if any) follows:\n\nx\n" in text
    assert text.endswith(f"Read file <logs/{jid}.err> for stderr output of this job.\n\n")
    assert (work / "logs" / f"{jid}.err").read_text() == "y\n"
    assert not (work / "nowhere").exists()  # LSF: an output path that cannot be reached is not stored


def test_without_o_the_report_goes_to_the_mailbox_file(shared):
    c = shared
    jid = sub(c, ["-J", "mailme", "echo hi; echo oops >&2"])
    wait_stat(c, jid, ("DONE",))
    text = (c.home / "output" / f"{jid}.out").read_text()
    assert re.fullmatch(_report_re("mailme", jid, ["Successfully completed."]).replace(
        "# LSBATCH: User input\nmailme", "# LSBATCH: User input\n" + re.escape("echo hi; echo oops >&2"))
        + re.escape("The output (if any) follows:\n\nhi\noops\n\n"), text), text


def test_stdout_direct_puts_the_report_after_the_output(wall):
    c = wall("LSB_STDOUT_DIRECT=Y\n")
    jid = sub(c, ["-o", "d.out", "-e", "d.err", "echo first; echo second >&2"])
    wait_stat(c, jid, ("DONE",))
    text = (c.root / "work" / "d.out").read_text()
    want = (re.escape("first\n\n" + "-" * 60 + "\n")
            + _report_re("echo first; echo second >&2", jid, ["Successfully completed."])
            + re.escape("The output (if any) is above this job summary.\n\n\n\n"
                        "PS:\n\nRead file <d.err> for stderr output of this job.\n\n"))
    assert re.fullmatch(want, text), text
    assert (c.root / "work" / "d.err").read_text() == "second\n"


def test_exit_status_done_and_exit(shared):
    c = shared
    ok = sub(c, ["true"])
    bad = sub(c, ["exit 7"])
    missing = sub(c, ["/no/such/command"])
    assert wait_stat(c, ok, ("DONE", "EXIT")) == "DONE"
    assert wait_stat(c, bad, ("DONE", "EXIT")) == "EXIT"
    assert wait_stat(c, missing, ("DONE", "EXIT")) == "EXIT"
    assert field(c, bad, "exit_code") == "7"
    assert field(c, missing, "exit_code") == "127"
    assert "Exited with exit code 7. The CPU time used is" in c.run(f"bjobs -l {bad}").out.replace("\n" + " " * 21, "")
    assert "Done successfully. The CPU time used is" in c.run(f"bjobs -l {ok}").out.replace("\n" + " " * 21, "")
    assert c.run(f"bjobs -l {bad}").out.count("Completed <exit>") == 0  # no TERM_ reason for a plain exit


TRAPS = ("for s in INT TERM USR1; do trap \"echo $s \\$(date +%s.%N) >> sigs.$LSB_JOBID\" $s; done; "
         "echo ready > ready.$LSB_JOBID; while :; do sleep 0.1; done")


def test_bkill_sends_int_term_kill_spaced_by_job_terminate_interval(shared):
    c = shared
    jid = sub(c, [TRAPS])
    wait_file(c.root / "work" / f"ready.{jid}", "ready")
    t0 = time.time()
    r = c.run(f"bkill {jid}", user="user1")
    assert r.out == f"Job <{jid}> is being terminated\n"
    assert field(c, jid, "stat") == "RUN"  # LSF: the job runs until its process ends
    assert wait_stat(c, jid, ("EXIT",)) == "EXIT"
    took = time.time() - t0
    sigs = (c.root / "work" / f"sigs.{jid}").read_text().split()
    assert sigs[0::2] == ["INT", "TERM"], sigs
    gap = float(sigs[3]) - float(sigs[1])
    assert 0.8 <= gap <= 2.5, gap  # JOB_TERMINATE_INTERVAL = 1
    assert took >= 1.8  # the KILL came one more interval later
    assert field(c, jid, "exit_code") == "137"
    long_ = c.run(f"bjobs -l {jid}").out.replace("\n" + " " * 21, "")
    assert "Completed <exit>; TERM_OWNER: job killed by owner." in long_
    report = wait_file(c.home / "output" / f"{jid}.out", "Exited")
    assert "TERM_OWNER: job killed by owner.\nExited with exit code 137.\n" in report


def test_bkill_s_sends_just_that_signal(shared):
    c = shared
    jid = sub(c, [TRAPS])
    wait_file(c.root / "work" / f"ready.{jid}", "ready")
    assert c.run(f"bkill -s USR1 {jid}", user="user1").out == f"Job <{jid}> is being signaled\n"
    wait_file(c.root / "work" / f"sigs.{jid}", "USR1")
    time.sleep(1.2)
    assert field(c, jid, "stat") == "RUN"  # trapped: the job goes on
    assert (c.root / "work" / f"sigs.{jid}").read_text().split()[0::2] == ["USR1"]
    c.run(f"bkill -s KILL {jid}", user="lsfadmin")
    assert wait_stat(c, jid, ("EXIT",)) == "EXIT"
    assert field(c, jid, "exit_code") == "137"
    assert "TERM_ADMIN: job killed by root or LSF administrator." in c.run(f"bjobs -l {jid}").out.replace("\n" + " " * 21, "")


def test_bkill_of_a_parallel_job_sends_only_sigkill(shared):
    c = shared
    jid = sub(c, ["-n", "2", TRAPS])
    wait_file(c.root / "work" / f"ready.{jid}", "ready")
    c.run(f"bkill {jid}", user="user1")
    assert wait_stat(c, jid, ("EXIT",), timeout=5) == "EXIT"
    assert field(c, jid, "exit_code") == "137"
    assert not (c.root / "work" / f"sigs.{jid}").exists()  # no SIGINT/SIGTERM first (LSB_USE_SEQUENTIAL_SIGNAL=N)


def _group_cpu(pgid: int) -> float:
    """CPU seconds (user + system) of the processes of group `pgid`, read from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            fields = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # pgrp is the 5th field; fields[0] is the state (3rd)
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def test_bstop_bresume_stop_the_process_group_and_its_cpu_time(shared):
    c = shared
    jid = sub(c, ["-J", "burn", "echo ready > ready.$LSB_JOBID; while :; do :; done"])
    wait_file(c.root / "work" / f"ready.{jid}", "ready")
    pgid = job_pgid(c, jid)
    # until the loop has burnt 0.6 s of CPU (a fixed sleep gave it less on a loaded machine)
    deadline = time.time() + 30
    while _group_cpu(pgid) < 0.6 and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(1.2)  # a sample of the daemon's after that
    assert proc_state(pgid) in ("R", "S")
    assert c.run(f"bstop {jid}", user="user1").out == f"Job <{jid}> is being stopped\n"
    assert field(c, jid, "stat") == "USUSP"
    time.sleep(1.2)  # a sample after the stop
    assert proc_state(pgid) == "T"
    cpu1 = float(field(c, jid, "cpu_used").split()[0])
    assert cpu1 >= 0.5  # measured from the processes: the loop was burning CPU
    time.sleep(1.2)
    cpu2 = float(field(c, jid, "cpu_used").split()[0])
    assert cpu2 == cpu1  # a suspended job accrues no CPU time
    assert c.run(f"bresume {jid}", user="user1").out == f"Job <{jid}> is being resumed\n"
    time.sleep(1.2)
    assert proc_state(pgid) in ("R", "S")
    assert float(field(c, jid, "cpu_used").split()[0]) > cpu2
    long_ = c.run(f"bjobs -l {jid}").out
    assert "Resource usage collected." in long_ and f"PGID: {pgid};  PIDs: {pgid} " in long_
    assert re.search(r"MEM: \d+ [MK]bytes;  SWAP: \d+ [MK]bytes;  NTHREAD: 1", long_), long_
    c.run(f"bkill -s KILL {jid}", user="user1")
    wait_stat(c, jid, ("EXIT",))
    assert proc_state(pgid) is None


def test_measured_cpu_time_is_charged_to_fairshare(wall):
    queues = ("Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n\n"
              "Begin Queue\nQUEUE_NAME = fair\nPRIORITY = 40\nFAIRSHARE = USER_SHARES[[default, 1]]\nEnd Queue\n")
    c = wall(files={"lsb.queues": queues})
    # spin until the process has used 1.2 s of CPU (a wall-clock loop gets less CPU on a busy machine)
    jid = sub(c, ["-q", "fair", "python3 -c 'import time\nwhile time.process_time() < 1.2: pass'"])
    wait_stat(c, jid, ("DONE",))
    cpu = float(field(c, jid, "cpu_used").split()[0])
    assert cpu >= 1.0  # the loop's CPU time, measured
    out = c.run("bqueues -l fair").out
    row = next(l for l in out.splitlines() if l.split()[:1] == ["user1"])
    assert abs(float(row.split()[5]) - cpu) < 0.2, out  # CPU_TIME column: the measured time, barely decayed


def test_run_limit_ends_the_job_with_term_runlimit(wall, utc):
    """-W takes minutes; the cluster's clock is moved a minute on (in this
    process) instead of waiting one: the job is a real process all the same."""
    from lsfemu.daemon import dispatch
    from lsfemu.engine.cluster import Cluster

    c = wall()
    cl = Cluster(str(c.envdir), str(c.home))
    shift = [0.0]
    cl.clock.now = lambda: time.time() + shift[0]
    env = dict(c.env, LSFEMU_USER="user1")

    def cmd(*argv):
        r = dispatch.handle(cl, {"cmd": argv[0], "argv": list(argv[1:]), "env": env, "cwd": str(c.root / "work")},
                            os.getuid())
        return r

    try:
        r = cmd("bsub", "-W", "1", "-o", "lim.%J", "sleep 30")
        assert r.rc == 0, r.err
        deadline = time.time() + 10
        while cmd("bjobs", "-noheader", "-o", "stat", "1").out.strip() != "RUN" and time.time() < deadline:
            time.sleep(0.2)
        pgid_deadline = time.time() + 5
        while not list((c.home / "jobs").glob("*/started")) and time.time() < pgid_deadline:
            time.sleep(0.05)
        assert cmd("bjobs", "-noheader", "-o", "stat", "1").out.strip() == "RUN"
        shift[0] = 61.0  # one minute and a second of run time
        deadline = time.time() + 10
        while cmd("bjobs", "-noheader", "-o", "stat", "1").out.strip() != "EXIT" and time.time() < deadline:
            time.sleep(0.2)
        assert cmd("bjobs", "-noheader", "-o", "exit_code", "1").out.strip() == "140"  # SIGUSR2
        long_ = cmd("bjobs", "-l", "1").out.replace("\n" + " " * 21, "")
        assert "Completed <exit>; TERM_RUNLIMIT: job killed after reaching LSF run time limit." in long_
        report = (c.root / "work" / "lim.1").read_text()
        assert "TERM_RUNLIMIT: job killed after reaching LSF run time limit.\nExited with exit code 140.\n" in report
    finally:
        cl.session.close()
        cl.engine.dispose()


def test_brequeue_kills_the_run_and_runs_the_job_again(shared):
    c = shared
    jid = sub(c, ["echo $$ >> runs.$LSB_JOBID; sleep 30"])
    runs = c.root / "work" / f"runs.{jid}"
    wait_file(runs, "\n")
    first = job_pgid(c, jid)
    assert c.run(f"brequeue {jid}", user="user1").rc == 0
    deadline = time.time() + 10
    while len(runs.read_text().split()) < 2 and time.time() < deadline:
        time.sleep(0.1)
    assert proc_state(first) is None  # the first run was killed
    assert len(runs.read_text().split()) == 2 and field(c, jid, "stat") == "RUN"
    c.run(f"bkill -s KILL {jid}", user="user1")
    wait_stat(c, jid, ("EXIT",))


def test_a_committed_start_that_never_launched_runs_once_after_a_restart(wall):
    """The daemon dies between committing a start and launching the job: the
    next daemon launches it; a second wrapper on the same directory does nothing."""
    import subprocess
    import sys

    from lsfemu.daemon import dispatch
    from lsfemu.engine import runner
    from lsfemu.engine.cluster import Cluster

    c = wall()
    env = dict(c.env, LSFEMU_USER="user1")
    req = {"cmd": "bsub", "argv": ["-o", "once.out", "echo ran >> ran.txt; sleep 1"], "env": env,
           "cwd": str(c.root / "work")}
    first = Cluster(str(c.envdir), str(c.home))
    first.runner.launch = lambda cl, job: None  # "crashes" before any launch
    assert dispatch.handle(first, req, os.getuid()).rc == 0
    deadline = time.time() + 5
    while first.jobs[(1, 0)].status != "RUN" and time.time() < deadline:
        time.sleep(0.2)
        first.catch_up()
        first.commit()
    assert first.jobs[(1, 0)].status == "RUN" and not (c.home / "jobs").exists()
    first.session.close()
    first.engine.dispose()
    again = Cluster(str(c.envdir), str(c.home))  # the restarted daemon
    try:
        again.catch_up()
        again.commit()
        jobdir = next((c.home / "jobs").iterdir())
        wait_file(c.root / "work" / "ran.txt", "ran")
        p = subprocess.run([sys.executable, "-I", runner.WRAPPER, str(jobdir)], timeout=10)
        assert p.returncode == 0
        deadline = time.time() + 10
        while again.jobs[(1, 0)].status == "RUN" and time.time() < deadline:
            time.sleep(0.2)
            again.catch_up()
            again.commit()
        assert again.jobs[(1, 0)].status == "DONE"
        assert (c.root / "work" / "ran.txt").read_text() == "ran\n"  # once
        assert (c.root / "work" / "once.out").read_text().count("Sender: LSF System") == 1
    finally:
        again.session.close()
        again.engine.dispose()


def test_a_run_the_store_no_longer_knows_is_killed_at_start(wall):
    """A job requeued just before a crash may leave its old run behind: a
    starting daemon kills runs that match no running job in the store."""
    import subprocess

    from lsfemu.engine.cluster import Cluster
    from lsfemu.engine.jobwrap import write_json

    c = wall()
    stray = c.home / "jobs" / "7.0.1000"
    stray.mkdir(parents=True)
    proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
    write_json(str(stray / "spec.json"), {})
    write_json(str(stray / "started"), {"pid": proc.pid, "pgid": proc.pid, "start": 1.0})
    os.utime(stray / "spec.json", (time.time() - 60, time.time() - 60))
    cl = Cluster(str(c.envdir), str(c.home))
    try:
        cl.catch_up()
        assert proc.wait(timeout=5) == -signal.SIGKILL
        assert not stray.exists()
    finally:
        cl.session.close()
        cl.engine.dispose()


def _status_records(c, jid: int) -> list[str]:
    events = (c.home / "logdir" / "lsb.events").read_text().splitlines()
    return [l.split()[4] for l in events if l.startswith('"JOB_STATUS"') and l.split()[3] == str(jid)]


def test_jobs_survive_a_daemon_killed_with_sigkill_and_are_collected_once(wall):
    c = wall()
    short = sub(c, ["-o", "short.out", "sleep 2; echo short-done"])
    # the longer job ends only when the test says so (a fixed sleep ran out on a loaded machine)
    longer = sub(c, ["-o", "long.out", "while [ ! -e long.go ]; do sleep 0.1; done; echo long-done"])
    deadline = time.time() + 10
    while c.run("bjobs -u all -noheader -o stat").out.split() != ["RUN", "RUN"] and time.time() < deadline:
        time.sleep(0.1)
    assert c.run("bjobs -u all -noheader -o stat").out.split() == ["RUN", "RUN"]
    daemon = int((c.home / "mbatchd.lock").read_text().split()[0])
    os.kill(daemon, signal.SIGKILL)
    time.sleep(2.5)  # the short job ends while no daemon runs
    assert field(c, short, "stat") == "DONE"  # a new daemon collects it
    assert field(c, longer, "stat") == "RUN"  # and watches the other one
    (c.root / "work" / "long.go").touch()
    wait_stat(c, longer, ("DONE",))
    for jid, name in ((short, "short"), (longer, "long")):
        text = (c.root / "work" / f"{name}.out").read_text()
        assert text.count("Sender: LSF System") == 1 and text.splitlines().count(f"{name}-done") == 1, text
        assert _status_records(c, jid) == ["64", "192"]  # DONE, then DONE|PDONE: collected once
    assert list((c.home / "jobs").iterdir()) == []


def test_mbdrestart_and_daemon_stop_keep_jobs_running(wall):
    c = wall()
    jid = sub(c, ["-o", "m.out", "while [ ! -e m.go ]; do sleep 0.1; done; echo m-done"])
    wait_stat(c, jid, ("RUN",))
    time.sleep(0.2)
    pgid = job_pgid(c, jid)
    assert c.run("lsfemu daemon stop").out == "daemon stopped\n"
    assert proc_state(pgid) in ("R", "S")  # the job outlives the daemon
    assert field(c, jid, "stat") == "RUN"  # a new daemon watches it
    assert c.run("badmin mbdrestart", user="lsfadmin").rc == 0
    assert field(c, jid, "stat") == "RUN"
    (c.root / "work" / "m.go").touch()
    wait_stat(c, jid, ("DONE",))
    assert (c.root / "work" / "m.out").read_text().splitlines().count("m-done") == 1
    assert _status_records(c, jid) == ["64", "192"]


def test_daemon_stop_kill_jobs(wall):
    c = wall()
    jid = sub(c, ["sleep 30"])
    wait_stat(c, jid, ("RUN",))
    time.sleep(0.3)
    pgid = job_pgid(c, jid)
    r = c.run("lsfemu daemon stop --kill-jobs", user="user1")
    assert r.rc == 1 and "User permission denied" in r.err
    r = c.run("lsfemu daemon stop --kill-jobs", user="lsfadmin")
    assert (r.out, r.rc) == ("1 running job(s) killed\ndaemon stopped\n", 0), r.text
    assert proc_state(pgid) is None
    assert field(c, jid, "stat") == "EXIT" and field(c, jid, "exit_code") == "137"


def test_job_scheduling_interval_dispatches_on_submission_and_job_end(wall):
    """JOB_SCHEDULING_INTERVAL = 0 (docs/semantics.md): the submission is scheduled
    at once, and the job's end (the wrapper tells the daemon on its wake socket)
    starts the job waiting for it at once, not on the MBD_SLEEP_TIME grid (10 s
    here: without the parameter the first would start up to 10 s later, the second
    10 s after that)."""
    c = wall(files={"lsb.params": PARAMS.replace("MBD_SLEEP_TIME = 1", "MBD_SLEEP_TIME = 10")
                    .replace("End Parameters", "JOB_SCHEDULING_INTERVAL = 0\nEnd Parameters")})
    c.run("bqueues")  # the daemon started (its grid counts from the cluster's creation)
    t0 = time.time()
    first = sub(c, ["sleep 1"])
    second = sub(c, ["-w", f"done({first})", "true"])
    wait_stat(c, second, ("DONE",), timeout=8.0)
    assert time.time() - t0 < 8.0
    assert (c.home / "mbatchd.wake").exists()


def test_virtual_clock_still_simulates(lsf_cluster):
    c = lsf_cluster
    marker = c.root / "ran"
    c.run(["bsub", f"touch {marker}"], user="user1")
    c.advance("1m")
    assert c.run("bjobs -a -noheader -o stat 1").out == "DONE\n"
    assert not marker.exists() and not (c.home / "jobs").exists()
