"""bsub's plain options (issue 18, part 3), each shown by its effect on a virtual
clock cluster (it starts Mon Jan 5 09:00:00 2026, TZ=UTC): -Jd in bjobs -l, -H
(PSUSP until bresume), -b (pends with LSF's reason until then; bsub's stderr
line), -t (a pending job is aborted, a running one killed: TERM_DEADLINE), -rn
(never rerun, even in a RERUNNABLE queue). Readings: docs/semantics.md, "bsub's
plain options"."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow(31)  # seconds, quiet machine: scheduled early (tests/conftest.py)


def _status(c, jid: int) -> str:
    return c.run(f"bjobs -noheader -o stat {jid}").out.strip()


def _jobnew(c, jid: int) -> list[str]:
    for line in (c.home / "logdir" / "lsb.events").read_text().splitlines():
        fields = line.split(" ")
        if fields[0] == '"JOB_NEW"' and int(fields[3]) == jid:
            return fields
    raise AssertionError(f"no JOB_NEW for job {jid}")


def test_job_description_in_bjobs_l(lsf_cluster):
    c = lsf_cluster
    r = c.run(["bsub", "-Jd", "nightly build of the docs", "sleep", "100"], user="user1")
    assert (r.rc, r.out) == (0, "Job <1> is submitted to default queue <normal>.\n"), r.text
    long = c.run("bjobs -UF 1").out
    assert ", Command <sleep 100>, Job Description <nightly build of the docs>\n" in long
    # Not the job name (typer read -Jd as -J d): the name is the command.
    assert c.run("bjobs -noheader -o job_name 1").out == "sleep 100\n"


def test_hold_pends_psusp_until_bresume(lsf_cluster):
    c = lsf_cluster
    assert c.run("bsub -H sleep 300", user="user1").rc == 0
    c.advance("2m")
    assert _status(c, 1) == "PSUSP"
    assert " PENDING REASONS:\n The job was suspended by the user while pending;\n" in c.run("bjobs -l 1").out
    fields = _jobnew(c, 1)
    options2 = int(fields[_options2_index(fields)])
    assert options2 & 0x01  # SUB2_HOLD
    assert c.run("bresume 1", user="user1").out == "Job <1> is being resumed\n"
    c.advance("1m")
    assert _status(c, 1) == "RUN"
    # bhist counts the held time as PSUSP.
    assert "\n  PEND     PSUSP    RUN      USUSP    SSUSP    UNKWN    TOTAL\n  0        120      " in c.run(
        "bhist -l 1").out


def _options2_index(fields: list[str]) -> int:
    """options2's place in a JOB_NEW line written by lsfemu (non-interactive):
    the field before idx, which is followed by in_file_spool, command_spool,
    job_spool_dir and user_priority."""
    return len(fields) - 6


def test_begin_time_pends_with_reason_then_starts(lsf_cluster):
    c = lsf_cluster
    r = c.run("bsub -b 10:30 sleep 600", user="user1")
    assert r.rc == 0
    assert r.out == "Job <1> is submitted to default queue <normal>.\n"
    assert r.err == "Job will be scheduled after Mon Jan  5 10:30:00 2026\n"
    c.advance("30m")
    assert _status(c, 1) == "PEND"
    long = c.run("bjobs -l 1").out
    assert "Submitted from host <" in long and ">, Specified Start Time <Mon Jan  5 10:30:00>, CWD <" in long.replace(
        "\n                     ", "")
    assert " PENDING REASONS:\n The job has a specified start time;\n" in long
    assert int(_jobnew(c, 1)[8]) == 1767609000  # JOB_NEW beginTime
    c.advance("61m")  # 10:31: the pass after 10:30 started it
    assert _status(c, 1) == "RUN"
    start = c.store_rows("SELECT start_time FROM jobs WHERE id = 1")[0][0]
    assert 1767609000 <= start <= 1767609000 + 60
    # hour:minute already past today is tomorrow; the year form in the past is refused.
    r = c.run("bsub -b 9:00 sleep 1", user="user1")
    assert r.err == "Job will be scheduled after Tue Jan  6 09:00:00 2026\n"


def test_termination_time_kills_running_and_aborts_pending(lsf_cluster):
    c = lsf_cluster
    r = c.run("bsub -t 9:10 sleep 3600", user="user1")
    assert r.err == "Job will be terminated by Mon Jan  5 09:10:00 2026\n"
    assert c.run("bsub -H -t 9:10 sleep 10", user="user1").rc == 0
    c.advance("5m")
    assert _status(c, 1) == "RUN"
    c.advance("6m")
    assert _status(c, 1) == "EXIT"
    assert _status(c, 2) == "EXIT"
    long = c.run("bjobs -l 1").out.replace("\n                     ", "")
    assert "Specified Termination Time <Mon Jan  5 09:10:00>" in long
    assert "Completed <exit>; TERM_DEADLINE: job killed after deadline." in long
    assert c.store_rows("SELECT finish_time FROM jobs WHERE id = 1")[0][0] == 1767604200
    assert int(_jobnew(c, 1)[9]) == 1767604200  # JOB_NEW termTime


def test_begin_after_termination_and_bad_times_are_refused(lsf_cluster):
    c = lsf_cluster
    r = c.run("bsub -b 11:00 -t 10:00 sleep 1", user="user1")
    assert (r.rc, r.out, r.err) == (255, "", "Start time is later than termination time. Job not submitted.\n")
    for bad in ["25:00", "10:60", "10", "a:b", "2020:1:1:10:00", "1:2:3:4:5:6", "13:1:10:00", "0:10:00"]:
        r = c.run(["bsub", "-b", bad, "sleep", "1"], user="user1")
        assert (r.rc, r.out, r.err) == (255, "", f"{bad}: Bad time specification. Job not submitted.\n"), bad
    assert c.store_rows("SELECT count(*) FROM jobs") == [(0,)]


def test_rerun_never_overrides_a_rerunnable_queue(lsf_cluster):
    c = lsf_cluster
    c.write("lsb.queues", c.path_of("lsb.queues").read_text().replace(
        "QUEUE_NAME   = normal", "QUEUE_NAME   = normal\nRERUNNABLE = yes", 1))
    assert c.run("badmin reconfig").rc == 0
    assert c.run("bsub -rn sleep 600", user="user1").rc == 0
    assert c.run("bsub sleep 600", user="user1").rc == 0
    c.advance("1m")
    assert ", Not Re-runnable" in c.run("bjobs -UF 1").out
    assert ", Re-runnable" in c.run("bjobs -UF 2").out
    host = c.run("bjobs -noheader -o exec_host 1").out.strip()
    assert c.run(["lsfemu", "host", "fail", host]).rc == 0
    # The queue's rerunnable job pends again; the -rn job does not rerun.
    assert _status(c, 1) == "UNKWN"
    assert _status(c, 2) in ("PEND", "RUN")
    r = c.run("bsub -r -rn sleep 1", user="user1")
    assert (r.rc, r.err) == (255, "-rn: Bad argument. Job not submitted.\n")


def _exclusive_queue(c) -> None:
    c.write("lsb.queues", c.path_of("lsb.queues").read_text().replace(
        "QUEUE_NAME   = normal", "QUEUE_NAME   = normal\nEXCLUSIVE = Y", 1))
    assert c.run("badmin reconfig").rc == 0


def _host(c, jid: int) -> str:
    return c.run(f"bjobs -noheader -o exec_host {jid}").out.strip()


def test_exclusive_job_gets_an_empty_host_and_keeps_it_alone(lsf_cluster):
    c = lsf_cluster
    r = c.run("bsub -x sleep 600", user="user1")  # the queue must take exclusive jobs
    assert (r.rc, r.err) == (255, "normal: Queue does not accept EXCLUSIVE jobs. Job not submitted.\n")
    _exclusive_queue(c)
    assert c.run("bsub -m hostA sleep 600", user="user1").rc == 0  # job 1 on hostA
    assert c.run("bsub -x sleep 600", user="user2").rc == 0  # job 2: an empty host (not hostA)
    c.advance("1m")
    assert _host(c, 1) == "hostA" and _host(c, 2) == "hostB"
    # No other job goes to hostB while job 2 runs, though it has 3 free slots.
    for _ in range(8):
        assert c.run("bsub -m 'hostB hostC' sleep 600", user="user1").rc == 0  # jobs 3-10
    c.advance("1m")
    hosts = [_host(c, j) for j in range(3, 11)]
    assert hosts.count("hostC") == 4 and hosts.count("hostB") == 0 and hosts.count("-") == 4
    assert "Running an exclusive job: 1 host" in c.run("bjobs -l 10").out
    assert [line.split()[:2] for line in c.run("bhosts -w").out.splitlines()[1:]] == [
        ["hostA", "ok"], ["hostB", "closed_Excl"], ["hostC", "closed_Full"]]
    long = c.run("bjobs -UF 2").out
    assert ", Exclusive Execution" in long
    fields = _jobnew(c, 2)
    assert int(fields[5]) & 0x40  # JOB_NEW options: SUB_EXCLUSIVE
    # An exclusive job waits while every host has a job.
    assert c.run("bsub -x sleep 600", user="user2").rc == 0  # job 11
    c.advance("1m")
    assert _status(c, 11) == "PEND"
    assert "Job's requirement for exclusive execution not satisfied: 2 hosts" in c.run("bjobs -l 11").out


def test_m_limits_the_candidates_and_orders_them_by_preference(lsf_cluster):
    c = lsf_cluster
    assert c.run("bsub -m 'hostA hostC+2' -n 2 sleep 600", user="user1").rc == 0  # job 1: hostC first
    assert c.run("bsub -m hostB -n 6 sleep 600", user="user1").rc == 0  # job 2: hostB has 4 slots
    assert c.run("bsub -m 'hostA others+1' -n 3 sleep 600", user="user1").rc == 0  # job 3
    c.advance("1m")
    assert _host(c, 1) == "hostC:hostC"
    assert _status(c, 2) == "PEND"
    long2 = c.run("bjobs -l 2").out
    assert "Not specified in job submission: 2 hosts" in long2
    assert ", Specified Hosts <hostB>" in c.run("bjobs -UF 2").out
    assert _host(c, 3) == "hostB:hostB:hostB"  # others+1 outranks hostA (no level)
    assert ", Specified Hosts <hostA>, <hostC+2>" in c.run("bjobs -UF 1").out
    fields = _jobnew(c, 1)
    assert int(fields[5]) & 0x04  # SUB_HOST
    assert '2 "hostA" "hostC+2"' in " ".join(fields)  # askedHosts: count, then the words
    assert ", Specified Hosts <hostA>, <hostC+2>" in c.run("bhist -l 1").out.replace("\n                     ", "")
    r = c.run("bsub -m nohost sleep 1", user="user1")
    assert (r.rc, r.err) == (255, "nohost: Bad host name, host group name or cluster name. Job not submitted.\n")


def test_mail_goes_to_the_mailbox_file_of_the_user(lsf_cluster):
    c = lsf_cluster
    assert c.run("bsub -B -N -u boss -o out.txt sleep 60", user="user1").rc == 0  # job 1
    assert c.run("bsub -Ne sleep 60", user="user1").rc == 0  # job 2: done, no mail
    assert c.run("bsub -Ne sleep 60", user="user1", env={"LSFEMU_EXIT_CODE": "3"}).rc == 0  # job 3: exits
    assert c.run("bsub -o out.txt sleep 60", user="user1").rc == 0  # job 4: no mail asked
    c.advance("3m")
    boss = (c.home / "mail" / "boss").read_text()
    messages = boss.split("\nFrom ")
    assert len(messages) == 2 and boss.startswith("From lsfadmin@host")
    started, report = messages
    assert "\nSender: LSF System <lsfadmin@host" in started
    assert "\nSubject: Job 1: <sleep 60> started.\n\nJob <sleep 60> was submitted from host <" in started
    assert "by user <user1>. Started at Mon Jan  5 09:00:" in started
    assert ", while in queue <normal>.\nNotification reported at Mon Jan  5 09:00:" in started
    assert "\nSubject: Job 1: <sleep 60> in cluster <cluster1> Done\n" in report
    assert "\nSuccessfully completed.\n" in report and "Resource usage summary:" in report
    mine = (c.home / "mail" / "user1").read_text()
    assert "Subject: Job 3: <sleep 60> in cluster <cluster1> Exited" in mine
    assert "Job 2:" not in mine and "Job 4:" not in mine
    long = c.run("bjobs -UF 1").out
    assert ", Project <default>, Mail <boss>, Status <DONE>" in long
    assert ", Notify when job begins/ends" in long
    assert ", Notify when job ends" in c.run("bjobs -UF 3").out
    fields = " ".join(_jobnew(c, 1))
    assert int(_jobnew(c, 1)[5]) & 0x100 and int(_jobnew(c, 1)[5]) & 0x80 and ' "boss" ' in fields


def test_runtime_estimate_is_kept_and_does_not_kill(lsf_cluster):
    c = lsf_cluster
    assert c.run("bsub -We 1 sleep 300", user="user1").rc == 0
    assert c.run("bsub -We 1:30/hostA sleep 10", user="user1").rc == 0
    assert c.run("bjobs -noheader -o 'jobid ertime' 1 2").out == "1 60\n2 5400\n"
    c.advance("3m")
    assert _status(c, 1) == "RUN"  # past its estimate: LSF kills only at a run limit
    r = c.run("bsub -We x sleep 1", user="user1")
    assert (r.rc, r.out, r.err) == (255, "", "Bad runtime specification. Job not submitted.\n")


def test_host_file_places_the_tasks_and_is_shown_logged_and_modified(lsf_cluster):
    # bsub / bmod -hostfile, bjobs / bhist -l -hostfile (issue 21; docs/semantics.md "bsub -hostfile").
    c = lsf_cluster
    hf = c.root / "userhome" / "geometry"
    hf.write_text("# a user-specified host file\nhostC 2\nhostA\nhostC   1  # again\n\n")
    assert c.run("bsub -hostfile geometry sleep 600", user="user1").rc == 0  # job 1: 4 tasks
    hf.write_text("hostB 1\n")  # read at submission: a later change changes nothing
    assert c.run("bsub -hostfile geometry -x sleep 600", user="user2").rc != 0  # normal takes no -x jobs
    (c.root / "userhome" / "big").write_text("hostA 5\n")  # hostA has 4 slots
    assert c.run("bsub -hostfile big sleep 600", user="user2").rc == 0  # job 2
    c.advance("1m")
    assert c.run("bjobs -noheader -o 'exec_host nreq_slot host_file ask_hosts' 1").out == (
        f"hostC:hostC:hostA:hostC 4 {hf} -\n")
    assert json.loads(c.run("bjobs -o 'host_file' -json 1").out)["RECORDS"] == [{"HOST_FILE": str(hf)}]
    long2 = c.run("bjobs -l 2").out
    assert " PENDING REASONS:\n" in long2 and "Not specified in job submission: 2 hosts" in long2
    assert "Not enough job slot(s): 1 host" in long2 and "USER-SPECIFIED" not in long2
    shown = c.run("bjobs -UF -hostfile 1").out
    assert f", CWD <$HOME>, Host file <{hf}>, 4 Task(s);\n" in shown
    assert shown.endswith("\nUSER-SPECIFIED HOST FILE:\nHOST            SLOTS\n"
                          "hostC             2\nhostA             1\nhostC             1\n\n")
    line = next(l for l in (c.home / "logdir" / "lsb.events").read_text().splitlines() if l.startswith('"JOB_NEW"'))
    assert f' 4 "@hostfile {hf}" "hostC 2" "hostA 1" "hostC 1" ' in line  # askedHosts: count, the kept lines
    hist = c.run("bhist -l -hostfile 1").out
    assert f"CWD <$HOME>, Host file <{hf}>, 4 Task(s);" in hist.replace("\n                     ", "")
    assert hist.endswith("HOST            SLOTS\nhostC             2\nhostA             1\nhostC             1\n")
    # bmod -hostfile on the pending job 2: it takes the new file's hosts and slots, and runs
    assert c.run("bmod -hostfile geometry 2", user="user2").out == "Parameters of job <2> are being changed\n"
    c.advance("1m")
    assert c.run("bjobs -noheader -o 'stat exec_host nreq_slot' 2").out == "RUN hostB 1\n"
    assert "   User-specified host file changes to : " + str(hf) + "\n" in c.run("bhist -l 2").out
    assert c.run("bhist -l -hostfile 2").out.endswith("HOST            SLOTS\nhostB             1\n")
    # -hostfilen takes it away from a pending job: one task, any host
    assert c.run("bsub -hostfile big sleep 600", user="user2").rc == 0  # job 3 pends
    assert c.run("bmod -hostfilen 3", user="user2").rc == 0
    assert c.run("bjobs -noheader -o 'nreq_slot host_file' 3").out == "1 -\n"
