"""Workflow tools, unchanged, against lsfemu in wall clock mode: dask-jobqueue's
LSFCluster and parsl's LSFProvider submit real jobs with bsub, the jobs run here
and connect back, and the tools cancel them with bkill. No patch, no mock: the
tools call the lsfemu commands found on PATH, as they would call LSF's.

Also `bsub job_script` with and without LSB_BSUB_PARSE_SCRIPT=Y (parsl submits
that way). MBD_SLEEP_TIME=1 keeps dispatch quick; every wait is bounded."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import pytest

from lsfemu.testing import LsfCluster

pytestmark = pytest.mark.slow(40)  # seconds, quiet machine: scheduled early (tests/conftest.py)

PARAMS = ("Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 1\nJOB_TERMINATE_INTERVAL = 1\n"
          "End Parameters\n")
BIN = Path(__file__).resolve().parents[2] / "bin"


def _wall_cluster(lsf_conf_extra: str = "") -> LsfCluster:
    root = Path(tempfile.mkdtemp(prefix="lsfemu-"))
    c = LsfCluster(root, files={"lsb.params": PARAMS}, clock="wall")
    if lsf_conf_extra:
        with open(c.path_of("lsf.conf"), "a") as f:
            f.write(lsf_conf_extra)
    (root / "work").mkdir()
    # The tools run `bsub`, `bjobs`, `bkill` from PATH, and their jobs run this
    # interpreter's scripts (process_worker_pool.py): both on PATH, first.
    c.env["PATH"] = os.pathsep.join([str(BIN), os.path.dirname(sys.executable), c.env.get("PATH", "")])
    return c


def _teardown(c: LsfCluster) -> None:
    """Stop the daemon and kill whatever job still runs (a failed test leaves workers behind)."""
    c.run(["lsfemu", "daemon", "stop", "--kill-jobs"], user="lsfadmin")
    c.stop()
    for started in (c.home / "jobs").glob("*/started") if (c.home / "jobs").exists() else []:
        try:
            pgid = int(re.search(r'"pgid":\s*(\d+)', started.read_text()).group(1))
            os.killpg(pgid, signal.SIGKILL)
        except (OSError, AttributeError, ValueError):
            pass
    shutil.rmtree(c.root, ignore_errors=True)


@pytest.fixture
def tool_env(monkeypatch):
    """A wall-clock cluster whose environment is this process's (the tools spawn the commands)."""
    made: list[LsfCluster] = []

    def make(lsf_conf_extra: str = "") -> LsfCluster:
        c = _wall_cluster(lsf_conf_extra)
        made.append(c)
        for k in [k for k in os.environ if k.startswith(("LSF", "LSB_"))]:
            monkeypatch.delenv(k)
        for k, v in c.env.items():
            monkeypatch.setenv(k, v)
        monkeypatch.setenv("LSFEMU_USER", "user1")
        monkeypatch.chdir(c.root / "work")
        return c

    yield make
    for c in made:
        _teardown(c)


def stat_of(c: LsfCluster, jid: str) -> str:
    return c.run(f"bjobs -a -noheader -o stat {jid}").out.strip()


def wait_for(pred, timeout: float, what: str):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


# -- bsub job_script ---------------------------------------------------------------------------

SCRIPT = "#!/bin/sh\n#BSUB -J parsed\n#BSUB -o out.%J\necho ran as $LSB_JOBNAME\n"


def test_job_script_runs_as_a_command_without_lsb_bsub_parse_script(tool_env):
    c = tool_env()
    work = c.root / "work"
    (work / "job.sh").write_text(SCRIPT)
    (work / "job.sh").chmod(0o755)
    r = c.run("bsub ./job.sh", cwd=str(work), user="user1")
    assert r.rc == 0 and r.out == "Job <1> is submitted to default queue <normal>.\n", r.text
    # The #BSUB lines are comments: no name, no output file; the file is the command.
    assert c.run("bjobs -a -noheader -o 'name command output_file' 1").out == "./job.sh ./job.sh -\n"
    wait_for(lambda: stat_of(c, "1") == "DONE", 30, "job 1 DONE")
    mail = (c.home / "output" / "1.out").read_text()
    assert "ran as ./job.sh" in mail and not (work / "out.1").exists()
    # A script that is not executable cannot run as a command: the job fails (126, the shell's
    # "Permission denied"), as parsl's default `bsub /path/x.submit` does on such a cluster.
    (work / "plain.sh").write_text(SCRIPT)
    c.run(f"bsub {work / 'plain.sh'}", cwd=str(work), user="user1")
    wait_for(lambda: stat_of(c, "2") == "EXIT", 30, "job 2 EXIT")
    assert c.run("bjobs -a -noheader -o exit_code 2").out == "126\n"


def test_job_script_is_parsed_with_lsb_bsub_parse_script(tool_env):
    c = tool_env("LSB_BSUB_PARSE_SCRIPT=Y\n")
    work = c.root / "work"
    (work / "plain.sh").write_text(SCRIPT)  # need not be executable: its contents run
    r = c.run("bsub -q normal plain.sh", cwd=str(work), user="user1")
    assert r.rc == 0 and r.out == "Job <1> is submitted to queue <normal>.\n", r.text
    assert c.run("bjobs -a -noheader -o 'name output_file' 1").out == "parsed out.%J\n"
    wait_for(lambda: stat_of(c, "1") == "DONE", 30, "job 1 DONE")
    assert "ran as parsed" in wait_for(lambda: (work / "out.1").exists() and (work / "out.1").read_text(), 10,
                                       "out.1")
    # Command-line options win over #BSUB lines; a command with arguments is a command.
    r = c.run("bsub -J cli plain.sh", cwd=str(work), user="user1")
    assert c.run("bjobs -a -noheader -o name 2").out == "cli\n"
    r = c.run("bsub sh plain.sh", cwd=str(work), user="user1")
    assert c.run("bjobs -a -noheader -o 'name command' 3").out == "sh plain.sh sh plain.sh\n"
    # A file that does not exist is a command, as before (and fails as one).
    r = c.run("bsub no-such-script.sh", cwd=str(work), user="user1")
    assert r.rc == 0, r.text
    wait_for(lambda: stat_of(c, "4") == "EXIT", 30, "job 4 EXIT")
    assert c.run("bjobs -a -noheader -o exit_code 4").out == "127\n"


# -- dask-jobqueue -------------------------------------------------------------------------------

def _job_ids(c: LsfCluster, name: str) -> set[str]:
    out = c.run(f"bjobs -a -noheader -o 'jobid name' -J {name}", user="user1").out
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def test_dask_jobqueue_lsfcluster_scales_up_computes_and_down(tool_env):
    dask_jobqueue = pytest.importorskip("dask_jobqueue", reason="dask-jobqueue is not installed (pip install '.[test]')")
    distributed = pytest.importorskip("distributed", reason="distributed is not installed (pip install '.[test]')")
    c = tool_env()
    logs = c.root / "work" / "logs"
    with dask_jobqueue.LSFCluster(cores=1, processes=1, memory="1GB", walltime="00:10", queue="normal",
                                  project="daskproj", log_directory=str(logs), interface="lo",
                                  use_stdin=True, death_timeout=30) as cluster:
        script = cluster.job_script()
        assert "#BSUB -M 1000" in script  # 1 GB in LSF_UNIT_FOR_LIMITS=MB, read from our lsf.conf
        cluster.scale(jobs=2)
        with distributed.Client(cluster) as client:
            client.wait_for_workers(2, timeout=60)
            ids = _job_ids(c, "dask-worker")
            assert len(ids) == 2, c.run("bjobs -a -u all").text
            for jid in ids:
                assert c.run(f"bjobs -noheader -o 'stat queue proj_name memlimit runtimelimit' {jid}").out == \
                    "RUN normal daskproj 1000 M 10.0\n"
            # The workers are the LSF jobs: each sees its own LSB_JOBID.
            seen = set(client.run(lambda: __import__("os").environ.get("LSB_JOBID")).values())
            assert seen == ids
            futures = client.map(lambda x: x * x, range(20))
            assert client.submit(sum, futures).result(timeout=60) == sum(x * x for x in range(20))
            # Scale down: dask-jobqueue runs `bkill <id>` for each job.
            cluster.scale(0)
            wait_for(lambda: all(stat_of(c, j) in ("DONE", "EXIT") for j in ids), 60, "the workers' jobs to end")
            wait_for(lambda: not cluster.workers, 30, "dask to forget its jobs")
    for jid in ids:
        # bkill of a running job: TERM_OWNER, as LSF; a second bkill finds it finished.
        assert c.run(f"bjobs -a -noheader -o 'stat exit_reason' {jid}").out.startswith("EXIT TERM_OWNER")
        r = c.run(f"bkill {jid}", user="user1")
        assert (r.rc, r.out, r.err) == (255, "", f"Job <{jid}>: Job has already finished\n")
        # dask's -e/-o files got the worker's log and LSF's job report.
        outs = list(logs.glob(f"*-{jid}.out"))  # <dask worker name>-%J.out
        assert len(outs) == 1, sorted(os.listdir(logs))
        out = outs[0].read_text()
        assert f"Subject: Job {jid}: <dask-worker> in cluster <cluster1> Exited" in out
        assert "TERM_OWNER: job killed by owner." in out
        assert "distributed.worker" in outs[0].with_suffix(".err").read_text()


# -- parsl ---------------------------------------------------------------------------------------

def test_parsl_lsfprovider_runs_an_app_and_cancels_a_block(tool_env):
    parsl = pytest.importorskip("parsl", reason="parsl is not installed (pip install '.[test]')")
    from parsl.config import Config
    from parsl.executors import HighThroughputExecutor
    from parsl.launchers import SingleNodeLauncher
    from parsl.providers import LSFProvider

    # parsl submits `bsub /path/block.submit` (its default): LSF parses the script only
    # with LSB_BSUB_PARSE_SCRIPT=Y, as a site that uses parsl sets.
    c = tool_env("LSB_BSUB_PARSE_SCRIPT=Y\n")
    run_dir = c.root / "work" / "runinfo"
    provider = LSFProvider(init_blocks=1, min_blocks=0, max_blocks=1, walltime="00:10:00", queue="normal",
                           request_by_nodes=False, cores_per_block=1, cores_per_node=1,
                           launcher=SingleNodeLauncher(), cmd_timeout=30)
    htex = HighThroughputExecutor(label="lsf_htex", address="127.0.0.1", max_workers_per_node=1,
                                  provider=provider, encrypted=False)
    dfk = parsl.load(Config(executors=[htex], run_dir=str(run_dir), strategy="none"))
    try:
        # Defined outside any importable module, so that parsl ships the function itself
        # (the workers cannot import this test module).
        ns: dict = {"__name__": "__main__"}
        exec("def where(x):\n    import os\n"
             "    return x * 2, os.environ.get('LSB_JOBID'), os.environ.get('LSB_JOBNAME')\n", ns)
        where = parsl.python_app(ns["where"])
        value, jobid, jobname = where(21).result(timeout=60)
        assert value == 42
        assert list(provider.resources) == [jobid]  # the job parsl parsed from bsub's answer
        assert jobname.startswith("parsl.lsf_htex.block-0.")  # #BSUB -J of its script
        assert c.run(f"bjobs -noheader -o 'jobid stat' {jobid}").out == f"{jobid} RUN\n"
        assert c.run(f"bjobs -noheader -o runtimelimit {jobid}").out == "10.0\n"  # #BSUB -W 10
        assert [s.state.name for s in provider.status([jobid])] == ["RUNNING"]
        # Cancel the block: `bkill <id>`, exit 0 -> parsl marks it cancelled.
        assert htex.scale_in(1) == ["0"]
        wait_for(lambda: stat_of(c, jobid) == "EXIT", 60, f"job {jobid} to end")
        assert c.run(f"bjobs -a -noheader -o 'stat exit_reason' {jobid}").out == \
            "EXIT TERM_OWNER: job killed by owner\n"
        # LSF keeps showing a finished job by ID; parsl's poll reads it as failed.
        provider.resources[jobid]["status"] = parsl.jobs.states.JobStatus(parsl.jobs.states.JobState.RUNNING)
        assert [s.state.name for s in provider.status([jobid])] == ["FAILED"]
        # The block's -o/-e files hold the launcher's output and LSF's job report.
        stdout = wait_for(lambda: list(run_dir.glob("**/*.submit.stdout")), 10, "the block's stdout file")
        report = stdout[0].read_text()
        assert f"Subject: Job {jobid}: <{jobname}> in cluster <cluster1> Exited" in report
        assert "Launching worker: 1" in report
    finally:
        dfk.cleanup()
        parsl.clear()
