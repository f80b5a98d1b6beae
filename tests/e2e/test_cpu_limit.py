"""bsub -c and bmod -c / -cn: a job's CPU time limit (issue 18) -- stored, shown in
bjobs -l's CPULIMIT block, logged in JOB_NEW / JOB_MODIFY2 (rlimits[0], seconds),
enforced on the virtual clock through the job's simulated CPU time and, in wall
mode, handed to the job as RLIMIT_CPU; a job that reaches it ends EXIT with
TERM_CPULIMIT and exit code 152 (SIGXCPU).

The fixture's cluster: hostA..hostC with 4 slots each; the clock starts Mon Jan
5 09:00:00 2026 UTC.
"""

from __future__ import annotations

import re
import time

import pytest

from lsfemu.events.log import read_events
from lsfemu.events.lsbatch import DELETE_NUMBER
from lsfemu.events.records import JobModify2, JobNew

pytestmark = pytest.mark.slow(20)

TERM_CPULIMIT = "TERM_CPULIMIT: job killed after reaching LSF CPU usage limit"


def _o(c, jid, fields):
    return c.run(f"bjobs -a -noheader -o '{fields} delimiter=\"|\"' {jid}", user="user1").out.rstrip("\n")


def _records(c, kind):
    return [r for _, r in read_events(c.home / "logdir" / "lsb.events") if isinstance(r, kind)]


def test_a_job_reaching_its_cpu_limit_is_killed_with_TERM_CPULIMIT(lsf_cluster):
    c = lsf_cluster
    assert c.run("bsub -c 5 sleep 600", user="user1").rc == 0  # 1 slot: one CPU second a second
    # LSFEMU_CPUTIME: 120 s of CPU over 600 s of run, so the 1 minute limit is reached at 300 s
    assert c.run("bsub -c 1 sleep 600", user="user1", env={"LSFEMU_CPUTIME": "120"}).rc == 0
    c.run("bsub -c 0:20 sleep 600", user="user1")  # 20 minutes: never reached
    c.advance("10s")
    assert [r.rlimits[0] for r in _records(c, JobNew)] == [300, 60, 1200]
    c.advance("4m")
    assert _o(c, 1, "stat") == "RUN"
    c.advance("1m")
    assert _o(c, 1, "stat exit_code exit_reason cpu_used") == f"EXIT|152|{TERM_CPULIMIT}|300.0 second(s)"
    assert _o(c, 2, "stat") == "EXIT" and _o(c, 2, "cpu_used") == "60.0 second(s)"
    assert _o(c, 3, "stat") == "RUN"
    c.advance("10m")
    assert _o(c, 3, "stat") == "DONE"
    text = c.run("bhist -l -w 1", user="user1").out
    assert "Mon Jan  5 09:05:10: Exited with exit code 152. The CPU time used is 300.0 seconds;\n" in text
    assert f"Mon Jan  5 09:05:10: Completed <exit>; {TERM_CPULIMIT};\n" in text


def test_bjobs_l_and_bhist_l_show_the_cpu_limit_beside_the_run_limit(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -c 90 sleep 60", user="user1")
    c.run("bsub -c 1:30/hostB -W 120 sleep 60", user="user1")
    long1 = c.run("bjobs -l 1", user="user1").out
    assert "\n CPULIMIT                \n 90.0 min\n" in long1
    long2 = c.run("bjobs -l 2", user="user1").out
    assert "\n CPULIMIT                 RUNLIMIT                \n 90.0 min                 120.0 min\n" in long2
    assert "\n CPULIMIT                 RUNLIMIT                \n 90.0 min                 120.0 min\n" in c.run(
        "bhist -l 2", user="user1").out  # bhist reads both from JOB_NEW
    assert "\n CPULIMIT                \n 90.0 min\n" in c.run("bhist -l 1", user="user1").out
    new = {r.job_id: r for r in _records(c, JobNew)}
    assert (new[2].rlimits[0], new[2].host_spec, bool(new[2].options & 0x10000)) == (5400, "hostB", True)


def test_bmod_c_and_cn(lsf_cluster_factory):
    c = lsf_cluster_factory()
    c.run("bsub -H sleep 600", user="user1")  # 1: held, pending
    assert c.run("bmod -c 2 1", user="user1").out == "Parameters of job <1> are being changed\n"
    assert "\n CPULIMIT                \n 2.0 min\n" in c.run("bjobs -l 1", user="user1").out
    c.run("bresume 1", user="user1")
    c.advance("10s")
    c.advance("2m")
    assert _o(c, 1, "stat exit_reason") == f"EXIT|{TERM_CPULIMIT}"
    c.run("bsub -H -c 1 sleep 600", user="user1")  # 2
    assert c.run("bmod -cn 2", user="user1").rc == 0
    c.run("bresume 2", user="user1")
    c.advance("10m")
    assert _o(c, 2, "stat") == "DONE"
    mods = _records(c, JobModify2)
    assert [m.rlimits[0] for m in mods] == [120, DELETE_NUMBER]
    text = c.run("bhist -l 1 2", user="user1").out
    assert "   CPU limit changes to : 2 (minutes);\n" in text
    assert "   bmod -cn used. CPU limit set to queue CPU limit;\n" in text


def test_a_running_jobs_cpu_limit_changes_only_with_LSB_JOB_CPULIMIT(lsf_cluster_factory):
    c = lsf_cluster_factory()
    c.run("bsub sleep 600", user="user1")
    c.advance("10s")
    r = c.run("bmod -c 3 1", user="user1")
    assert (r.err, r.rc) == ("You must set LSB_JOB_CPULIMIT in lsf.conf to modify the CPU limit of a running "
                             "job. Job not modified.\n", 255)
    with open(c.path_of("lsf.conf"), "a") as f:
        f.write("LSB_JOB_CPULIMIT=Y\n")
    c.run("badmin reconfig", user="lsfadmin")
    assert c.run("bmod -c 3 1", user="user1").rc == 0
    c.advance("2m")
    assert _o(c, 1, "stat") == "RUN"
    c.advance("1m")
    assert _o(c, 1, "stat exit_reason") == f"EXIT|{TERM_CPULIMIT}"


def test_wall_mode_hands_the_limit_to_the_job_as_RLIMIT_CPU(lsf_cluster_factory):
    c = lsf_cluster_factory(clock="wall", files={"lsb.params": "Begin Parameters\nDEFAULT_QUEUE = normal\n"
                                                               "MBD_SLEEP_TIME = 1\nEnd Parameters\n"})
    (c.root / "work").mkdir()
    out = c.root / "work" / "limits"
    r = c.run(["bsub", "-c", "2", "-o", str(out), "sh", "-c", "ulimit -S -t; ulimit -H -t; nice"], user="user1",
              cwd=str(c.root / "work"))
    jid = int(re.match(r"Job <(\d+)>", r.out).group(1))
    deadline = time.time() + 20
    while _o(c, jid, "stat") not in ("DONE", "EXIT") and time.time() < deadline:
        time.sleep(0.2)
    assert _o(c, jid, "stat") == "DONE"
    text = out.read_text()
    assert "\n120\n130\n" in text  # soft: the limit, 2 min; hard: 10 s of CPU later (SIGKILL)
    # queue normal's NICE = 20 (lsfemu init's lsb.queues): the job runs at niceness 19, UNIX's lowest
    assert "\n130\n19\n" in text
