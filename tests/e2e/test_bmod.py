"""bmod end to end: every field it changes acts (what bjobs -l shows, what
runs, what lsb.events and bhist -l record), their `n` forms reset them, and
LSF's rules for running jobs, job arrays and permissions hold (lsfemu/ops/bmod.py)."""

from __future__ import annotations

import time

import pytest

from lsfemu.testing import FIXED_START, temporary_cluster

pytestmark = pytest.mark.slow(45)  # seconds, quiet machine; CPU 30.2 -> 27.9 s with its daemons, A/B at load 9-19

ONE_SLOT = {"lsb.hosts": "Begin Host\nHOST_NAME MXJ\nhostA 1\nhostB 0\nhostC 0\nEnd Host\n"}
CHANGED = "Parameters of job <{}> are being changed\n"


@pytest.fixture
def one_slot(lsf_cluster_factory):
    return lsf_cluster_factory(files=ONE_SLOT)


def long(c, jid):
    return c.run(f"bjobs -UF {jid}").out


def events(c, kind="JOB_MODIFY2"):
    text = (c.home / "logdir" / "lsb.events").read_text()
    return [line for line in text.splitlines() if line.startswith(f'"{kind}"')]


def history(c, jid):
    return c.run(f"bhist -l {jid}").out


def _pending_pair(c):
    """Job 1 runs on the only slot; job 2 (user1) pends."""
    c.run("bsub sleep 1000", user="user1")
    c.run("bsub sleep 100", user="user1")
    c.advance("10s")


def test_bmod_pending_fields_show_and_are_logged(one_slot):
    c = one_slot
    _pending_pair(c)
    r = c.run(["bmod", "-q", "priority", "-J", "renamed", "-P", "proj9", "-W", "30", "-o", "out.txt",
               "-e", "err.txt", "-R", "rusage[mem=100]", "-G", "research", "-Z", "sleep 7",
               "-cwd", "/tmp/work", "2"], user="user1")
    assert (r.out, r.err, r.rc) == (CHANGED.format(2), "", 0)
    text = long(c, 2)
    for piece in ("Job Name <renamed>", "Project <proj9>", "User Group <research>", "Queue <priority>",
                  "Command <sleep 7>", "Specified CWD </tmp/work>", "Output File <out.txt>",
                  "Error File <err.txt>", "Requested Resources <rusage[mem=100]>"):
        assert piece in text, piece
    assert " RUNLIMIT" in text and "30.0 min" in text
    (line,) = events(c)
    assert line.split()[3] == '"2"'
    assert '"renamed"' in line and '"priority"' in line and '"sleep 7"' in line and '"research"' in line
    h = history(c, 2)
    assert "Parameters of Job are changed:\n" in h
    for item in ("   Job name changes to : renamed\n", "   Job queue changes to : priority\n",
                 "   Output file change to : out.txt\n", "   Error file change to : err.txt\n",
                 "   Project name changes to : proj9\n", "   User group changes to : research\n",
                 "   Job CWD changes to : /tmp/work\n", "   run limit changes to : 30 (minutes)\n",
                 "   Job command changes to : sleep 7;\n"):
        assert item in h, item
    assert c.run("bmod -eo err2.txt 2", user="user1").rc == 0
    assert "Error File (overwrite) <err2.txt>" in long(c, 2)
    # The new command is what runs: job 1 is killed, job 2 starts and runs its 7 seconds.
    c.run("bkill 1", user="user1")
    c.advance("10s")
    assert c.run("bjobs -noheader -o 'jobid stat' 2").out.split() == ["2", "RUN"]
    c.advance("10s")
    assert c.run("bjobs -a -noheader -o 'jobid stat run_time' 2").out.split() == ["2", "DONE", "7", "second(s)"]


def test_bmod_slots(lsf_cluster):
    c = lsf_cluster  # 12 slots
    c.run("bsub -n 12 sleep 1000", user="user2")
    c.run("bsub sleep 100", user="user1")
    c.advance("10s")
    assert c.run("bmod -n 3 2", user="user1").out == CHANGED.format(2)
    assert ", 3 Task(s)" in long(c, 2)
    c.run("bkill 1", user="user2")
    c.advance("10s")
    assert "Started 3 Task(s)" in long(c, 2)
    assert "   New minimal num of processors is : 3\n" in history(c, 2)


def test_bmod_reset_forms(one_slot):
    c = one_slot
    c.run("bsub sleep 1000", user="user1")
    c.advance("10s")
    c.run(["bsub", "-q", "priority", "-J", "named", "-P", "p1", "-W", "20", "-o", "o.txt", "-e", "e.txt",
           "-R", "rusage[mem=10]", "-G", "research", "-M", "5000", "-n", "1,1", "-cwd", "/tmp", "-r",
           "sleep 100"], user="user1")
    c.advance("10s")
    r = c.run("bmod -qn -Jn -Pn -Wn -on -en -Rn -Gn -Mn -nn -cwdn -rn 2", user="user1")
    assert (r.out, r.rc) == (CHANGED.format(2), 0), r.err
    text = long(c, 2)
    assert "Queue <normal>" in text and "Project <default>" in text and "Command <sleep 100>" in text
    for gone in ("Job Name <", "User Group", "Output File", "Error File", "Requested Resources",
                 "Specified CWD", "RUNLIMIT", "MEMLIMIT"):
        assert gone not in text, gone
    h = history(c, 2)
    for item in ("Job queue changes back to default", "Output file is disabled", "Error file is disabled",
                 "Job changes to be not rerunnable", "No  resource requirement", "Project name changes to default",
                 "Job name changes to default", "User group changes to default", "Job CWD changes to default",
                 "bmod -Mn used. Memory limit set to queue memory limit",
                 "bmod -Wn used. Run limit set to queue run limit", "Minimal num of processors is removed"):
        assert f"   {item}" in h, item
    rows = c.store_rows("SELECT rerunnable, mem_limit_kb, run_limit_min FROM jobs WHERE id = 2")
    assert rows == [(0, None, None)]


@pytest.fixture(scope="module")
def refusing():
    """One ONE_SLOT cluster with _pending_pair's jobs for the tests whose every
    bmod is refused (each checks that no JOB_MODIFY2 record was written)."""
    with temporary_cluster(files=ONE_SLOT) as c:
        _pending_pair(c)
        yield c


def test_bmod_a_value_and_its_reset_form_together(refusing):
    c = refusing
    for argv in (["-q", "normal", "-qn"], ["-W", "5", "-Wn"], ["-oo", "x", "-on"], ["-r", "-rn"]):
        r = c.run(["bmod", *argv, "2"], user="user1")
        assert (r.out, r.err, r.rc) == ("", "You cannot modify and set default at the same time. Job not modified.\n",
                                        255), argv
    assert events(c) == []


def test_bmod_running_job_rules(lsf_cluster_factory):
    c = lsf_cluster_factory(files=ONE_SLOT)
    c.run("bsub -o o.txt sleep 1000", user="user1")
    c.advance("10s")
    only = ("Only the following parameters can be used to modify a running job: -c, -M, -W, -o, -e, -r. "
            "Job not modified.\n")
    for argv in (["-q", "priority"], ["-J", "x"], ["-n", "2"], ["-Z", "sleep 1"], ["-P", "p"], ["-W", "5", "-J", "x"]):
        r = c.run(["bmod", *argv, "1"], user="user1")
        assert (r.out, r.err, r.rc) == ("", only, 255), argv
    r = c.run("bmod -M 100 1", user="user1")
    assert r.err == ("You must set LSB_JOB_MEMLIMIT in lsf.conf to modify the memory limit of a running job. "
                     "Job not modified.\n")
    r = c.run("bmod -e err.txt 1", user="user1")
    assert r.err == ("No error file specified before job dispatch. Error file does not exist, so error file name "
                     "cannot be changed. Job not modified.\n")
    assert events(c) == []
    # What a running job takes acts: its new run limit ends it.
    assert c.run("bmod -W 1 -oo o2.txt -r 1", user="user1").out == CHANGED.format(1)
    text = long(c, 1)
    assert "Output File (overwrite) <o2.txt>" in text and "1.0 min" in text
    c.advance("2m")
    assert "TERM_RUNLIMIT" in c.run("bjobs -a -l 1").out


def test_bmod_memory_limit_of_a_running_job_with_lsb_job_memlimit(lsf_cluster_factory):
    c = lsf_cluster_factory(files=dict(ONE_SLOT))
    c.write("lsf.conf", c.path_of("lsf.conf").read_text() + "LSB_JOB_MEMLIMIT=Y\n")
    c.run("bsub sleep 1000", user="user1")
    c.advance("10s")
    assert c.run("bmod -M 2048KB 1", user="user1").rc == 0
    assert c.store_rows("SELECT mem_limit_kb FROM jobs WHERE id = 1") == [(2048,)]
    assert "Memory limit changes to : 2048 (KB);" in history(c, 1)


def test_bmod_rerunnable_job_reruns_after_a_host_failure(lsf_cluster_factory):
    c = lsf_cluster_factory(files=ONE_SLOT)
    c.run("bsub sleep 1000", user="user1")
    c.advance("10s")
    assert c.run("bmod -r 1", user="user1").rc == 0
    assert c.run("lsfemu host fail hostA", user="lsfadmin").rc == 0
    assert c.run("bjobs -noheader -o stat 1").out.strip() == "PEND"


def test_bmod_dependency_and_its_reset(one_slot):
    c = one_slot
    _pending_pair(c)
    c.run("bsub sleep 5", user="user1")
    assert c.run(["bmod", "-w", "done(1)", "3"], user="user1").rc == 0
    assert "Dependency Condition <done(1)>" in long(c, 3)
    c.run("bkill 1", user="user1")
    c.advance("2m")  # job 2 runs and ends; job 3 waits on a job that can never be done
    assert c.run("bjobs -noheader -o stat 3").out.strip() == "PEND"
    assert c.run("bmod -wn 3", user="user1").rc == 0
    c.advance("20s")
    assert c.run("bjobs -a -noheader -o stat 3").out.strip() in ("RUN", "DONE")
    assert "No dependances condition" in history(c, 3)


def test_bmod_slots_and_limits_are_checked_as_at_submission(refusing):
    c = refusing
    cases = {
        ("-n", "2"): "Too many processors requested. Job not modified.\n",
        ("-n", "0"): "Bad argument for option -n. Job not modified.\n",
        ("-q", "nosuch"): "nosuch: No such queue. Job not modified.\n",
        ("-W", "90", "-q", "priority"): "RUNLIMIT: Cannot exceed queue's hard limit(s). Job not modified.\n",
        ("-W", "abc"): "abc: Bad RUNLIMIT specification. Job not modified.\n",
        ("-R", "rusage[mem=]"): "rusage[mem=]: Bad resource requirement syntax. Job not modified.\n",
        ("-G", "nogroup"): "nogroup: Bad user group name. Job not modified.\n",
        ("-J", "a[1-2]"): "a[1-2]: Bad job name. Job not modified.\n",
        ("-Z", " "): "No command is specified. Job not modified.\n",
        ("-w", "done(("): "done((: Dependency condition syntax error. Job not modified.\n",
    }
    for argv, err in cases.items():
        r = c.run(["bmod", *argv, "2"], user="user1")
        assert (r.out, r.err, r.rc) == ("", err, 255), argv
    assert events(c) == []


def test_bmod_permissions(one_slot):
    c = one_slot
    c.run("bsub sleep 1000", user="user1")
    c.advance("10s")
    c.run("bsub -q priority sleep 100", user="user1")
    r = c.run("bmod -J mine 2", user="user2")
    assert (r.err, r.rc) == ("User permission denied. Job not modified.\n", 255)
    assert c.run("bmod -J by_queue_admin 2", user="user3").rc == 0  # ADMINISTRATORS of queue priority
    assert c.run("bmod -J by_cluster_admin 2", user="lsfadmin").rc == 0
    assert "Job Name <by_cluster_admin>" in long(c, 2)
    r = c.run("bmod -J x 1", user="user3")  # not an administrator of queue normal
    assert (r.err, r.rc) == ("User permission denied. Job not modified.\n", 255)
    c.run("bkill 1", user="user1")
    c.advance("10s")
    r = c.run("bmod -J x 1", user="user1")
    assert (r.err, r.rc) == ("1: Job has already finished. Job not modified.\n", 255)


def test_bmod_job_arrays(one_slot):
    c = one_slot
    c.run("bsub sleep 1000", user="user1")
    c.run(["bsub", "-J", "arr[1-4]", "sleep 10"], user="user1")
    c.advance("10s")
    r = c.run("bmod -q priority 2", user="user1")
    assert (r.err, r.rc) == ("Options -q and -O cannot be applied on job array. Job not modified.\n", 255)
    r = c.run("bmod -J other 2", user="user1")
    assert (r.err, r.rc) == ("Change job name is not allowed for job array. Job not modified.\n", 255)
    assert c.run(["bmod", "-J", "%1", "-P", "arrp", "2"], user="user1").out == CHANGED.format(2)
    assert c.run("bjobs -noheader -o 'jobid project' 2").out.split() == ["2", "arrp"] * 4
    rows = c.store_rows("SELECT DISTINCT array_limit, array_spec FROM jobs WHERE id = 2")
    assert rows == [(1, "arr[1-4]%1")]
    assert c.run(["bmod", "-P", "one", "2[3]"], user="user1").out == CHANGED.format("2[3]")
    assert c.run("bjobs -noheader -o project '2[3]'").out.strip() == "one"
    assert any('"2[3]"' in line for line in events(c))


def _when(seconds: float) -> str:
    """-b/-t's year:month:day:hour:minute for the virtual clock's start plus *seconds* (TZ=UTC)."""
    t = time.gmtime(FIXED_START + seconds)
    return f"{t.tm_year}:{t.tm_mon}:{t.tm_mday}:{t.tm_hour}:{t.tm_min}"


def test_bmod_begin_and_termination_times(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 1000", user="user1")
    c.run("bsub sleep 1000", user="user1")
    r = c.run(["bmod", "-b", _when(3600), "1"], user="user1")
    assert (r.out, r.err) == (CHANGED.format(1), "Job will be scheduled after Mon Jan  5 10:00:00 2026\n")
    assert c.run(["bmod", "-t", _when(300), "2"], user="user1").err == (
        "Job will be terminated by Mon Jan  5 09:05:00 2026\n")
    r = c.run(["bmod", "-t", _when(60), "1"], user="user1")
    assert r.err == "Start time is later than termination time. Job not modified.\n"
    assert c.run(["bmod", "-t", _when(7200), "1"], user="user1").rc == 0
    assert c.run("bmod -tn 1", user="user1").rc == 0
    assert c.store_rows("SELECT term_time FROM jobs WHERE id = 1") == [(None,)]
    c.advance("10s")
    assert c.run("bjobs -noheader -o 'jobid stat' 1 2").out.split() == ["2", "RUN", "1", "PEND"]
    assert "Specified Start Time <Mon Jan  5 10:00:00>" in long(c, 1)
    assert c.run("bmod -bn 1", user="user1").rc == 0
    c.advance("10s")
    assert c.run("bjobs -noheader -o stat 1").out.strip() == "RUN"
    c.advance("6m")  # job 2's termination time has come
    assert c.run("bjobs -a -noheader -o stat 2").out.strip() == "EXIT"
    h = history(c, 1)
    assert "   Job new begin time is : Mon Jan 05 10:00:00 2026;" in h and "   Job begin time is removed;" in h
    assert "   Job terminate time is removed;" in h
    assert "   Job new end time is : Mon Jan 05 09:05:00 2026;" in history(c, 2)


def test_bmod_description_login_shell_input_and_outdir(one_slot):
    c = one_slot
    _pending_pair(c)
    r = c.run(["bmod", "-Jd", "my description", "-L", "/bin/bash", "-i", "in.txt", "-outdir", "/tmp/od", "2"],
              user="user1")
    assert r.out == CHANGED.format(2), r.err
    text = long(c, 2)
    assert "Job Description <my description>" in text and "Input File <in.txt>" in text
    rows = c.store_rows("SELECT description, login_shell, input_file, outdir FROM jobs WHERE id = 2")
    assert rows == [("my description", "/bin/bash", "in.txt", "/tmp/od")]
    h = history(c, 2)
    for item in ("Input file change to : in.txt", "Log shell changes to : /bin/bash",
                 "Output directory changes to : /tmp/od", "Job Description changes to : my description"):
        assert f"   {item}" in h, item
    assert c.run("bmod -Jdn -Ln -in -outdirn 2", user="user1").rc == 0
    assert c.store_rows("SELECT description, login_shell, input_file, outdir FROM jobs WHERE id = 2") == [
        (None, None, None, None)]
    assert "Job Description <" not in long(c, 2)
    h = history(c, 2)
    for item in ("Input file is disabled", "Log shell changes to default", "Output directory changes to default",
                 "Job Description is removed"):
        assert f"   {item}" in h, item
    r = c.run(["bmod", "-b", "25:00", "2"], user="user1")
    assert (r.err, r.rc) == ("25:00: Bad time specification. Job not modified.\n", 255)


def test_bmod_mail_notification_placement_and_pre_exec(lsf_cluster_factory):
    queues = ("Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEXCLUSIVE = Y\nEnd Queue\n")
    c = lsf_cluster_factory(files=dict(ONE_SLOT, **{"lsb.queues": queues}))
    _pending_pair(c)
    r = c.run(["bmod", "-u", "someone@example.org", "-B", "-N", "-x", "-m", "hostA", "-E", "true", "2"],
              user="user1")
    assert r.out == CHANGED.format(2), r.err
    text = long(c, 2)
    assert "Notify when job begins/ends" in text and "Exclusive Execution" in text
    assert "Specified Hosts <hostA>" in text
    rows = c.store_rows("SELECT mail_user, notify, exclusive, asked_hosts, pre_exec FROM jobs WHERE id = 2")
    assert rows == [("someone@example.org", "B,N", 1, "hostA", "true")]
    h = history(c, 2)
    for item in ("Hosts change to : hostA", "Job changes to exclusive", "Job will send mail to user when job ends",
                 "Job will send mail to user when job begins", "Pre exec command changes to : true",
                 "Mail user changes to : someone@example.org"):
        assert f"   {item}" in h, item
    assert c.run("bmod -un -Bn -Ne -xn -mn -En 2", user="user1").rc == 0
    rows = c.store_rows("SELECT mail_user, notify, exclusive, asked_hosts, pre_exec FROM jobs WHERE id = 2")
    assert rows == [(None, "Ne", 0, None, None)]
    text = long(c, 2)
    assert "Exclusive Execution" not in text and "Specified Hosts" not in text
    h = history(c, 2)
    for item in ("Host changes to default:", "Job changes to nonexclusive", "No mail will be to user when job begins",
                 "Pre exec command is disabled", "Mail user changes to original user"):
        assert f"   {item}" in h, item
    assert c.run("bmod -Nn 2", user="user1").rc == 0
    assert c.store_rows("SELECT notify FROM jobs WHERE id = 2") == [("",)]
    r = c.run(["bmod", "-m", "nosuchhost", "2"], user="user1")
    assert (r.err, r.rc) == ("nosuchhost: Bad host name, host group name or cluster name. Job not modified.\n", 255)


def test_bmod_post_exec_and_runtime_estimate(one_slot):
    c = one_slot
    _pending_pair(c)
    assert c.run(["bmod", "-Ep", "echo post", "-We", "30", "2"], user="user1").out == CHANGED.format(2)
    assert "Post-execute Command <echo post>" in long(c, 2)
    assert c.run("bjobs -noheader -o estimated_run_time 2").out.strip() == "1800"
    assert c.store_rows("SELECT post_exec, est_runtime_min FROM jobs WHERE id = 2") == [("echo post", 30.0)]
    h = history(c, 2)
    assert "   Post exec command changes to : echo post" in h and "   Runtime estimation changes to : 30 (minutes)" in h
    assert c.run("bmod -Epn -Wen 2", user="user1").rc == 0
    assert c.store_rows("SELECT post_exec, est_runtime_min FROM jobs WHERE id = 2") == [(None, None)]
    h = history(c, 2)
    assert "   Post exec command is disabled" in h and "   Runtime estimation is removed" in h
    r = c.run(["bmod", "-We", "abc", "2"], user="user1")
    assert (r.out, r.rc) == ("", 255) and r.err.endswith(". Job not modified.\n")
