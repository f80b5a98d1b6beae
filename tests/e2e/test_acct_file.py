"""lsb.acct written by the daemon (issue 20, part 1): one JOB_FINISH record per
job that ends DONE or EXIT (also one killed while pending), next to
lsb.events, with the fields the store knows; and LSF's archiving of the file
(lsb.params ACCT_ARCHIVE_SIZE / _AGE / _TIME, MAX_ACCT_ARCHIVE_FILE) on the
virtual clock; a really run job's measured CPU time and memory (wall clock).
`badmin showconf mbd`'s LSB_SHAREDIR leads to the file.

The fixture's cluster: hostA..hostC with 4 slots each (CPU factor 60); the
clock starts Mon Jan 5 09:00:00 2026 UTC (1767603600).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lsfemu.events.acct import JOB_STAT_DONE, JOB_STAT_EXIT, Rusage, format_record, read_acct

pytestmark = pytest.mark.slow(35)

T0 = 1767603600


def _acct(c, name="lsb.acct"):
    return list(read_acct(c.home / "logdir" / name, lambda w: pytest.fail(str(w))))


def _with_params(c, *lines):
    text = c.path_of("lsb.params").read_text().replace("End Parameters", "\n".join(lines) + "\nEnd Parameters")
    c.write("lsb.params", text)
    r = c.run("badmin reconfig")
    assert r.rc == 0, r.text


def test_finished_jobs_each_write_one_job_finish_record(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -J j1 -P p1 -n 2 -R span[hosts=1] -Jd 'a test' -W 5 sleep 60", user="user1")
    c.run("bsub -b 23:00 sleep 60", user="user1")  # pending until 23:00: killed first
    c.run("bsub -o out.%J -g /g1 exit 3", user="user2", env={"LSFEMU_RUNTIME": "20", "LSFEMU_EXIT_CODE": "3"})
    c.advance("10s")
    assert c.run("bkill 2", user="user1").rc == 0
    assert _acct(c) and {r.job_id for r in _acct(c)} == {2}  # only what has ended
    c.advance("2m")
    recs = _acct(c)
    assert [r.job_id for r in recs] == [2, 3, 1]  # in the order they ended
    killed, failed, done = recs
    # a job killed while pending: start time 0, no hosts, rusage unknown, exitInfo TERM_OWNER
    assert (killed.event_time, killed.start_time, killed.begin_time) == (T0 + 10, 0, T0 + 14 * 3600)
    assert (killed.j_status, killed.exit_status, killed.exit_info) == (JOB_STAT_EXIT, 0, 14)
    assert killed.exec_hosts == () and killed.alloc_slots == () and killed.lsf_rusage == Rusage()
    assert (killed.run_time, killed.effective_res_req, killed.job_name, killed.command) == (0, "", "", "sleep 60")
    # a job that exited with code 3 after 20 s
    assert (failed.user_name, failed.j_status, failed.exit_status, failed.exit_code) == ("user2", JOB_STAT_EXIT, 768, 3)
    assert (failed.start_time, failed.event_time, failed.run_time) == (T0 + 10, T0 + 30, 20)
    assert (failed.out_file, failed.job_group_name, failed.exec_hosts) == ("out.%J", "/g1", ("hostA",))
    # DONE, 2 slots, -J -P -Jd -W -R
    assert (done.j_status, done.exit_status, done.exit_info, done.exit_code) == (JOB_STAT_DONE, 0, 0, 0)
    assert (done.job_name, done.project_name, done.job_description, done.run_limit) == ("j1", "p1", "a test", 300)
    assert done.exec_hosts == ("hostA", "hostA") and done.alloc_slots == ("hostA", "hostA")
    assert (done.num_processors, done.host_factor, done.run_time, done.lsf_rusage.ru_utime) == (2, 60.0, 60, 120.0)
    assert (done.submit_time, done.start_time, done.event_time) == (T0, T0 + 10, T0 + 70)
    assert done.res_req == "span[hosts=1]"
    assert done.effective_res_req == "select[type == local] order[r15s:pg] span[hosts=1] "
    assert done.job_file == f"{T0}.1" and done.subcwd == done.cwd == str(c.root / "userhome")
    # the bits of JOB_NEW: queue (default queue: none), job name, project, resreq
    assert done.options == 0x1 | 0x40000 | 0x2000000
    # every line is exactly the text LSF's layout gives the record
    lines = (c.home / "logdir" / "lsb.acct").read_text().splitlines()
    assert lines == [format_record(r) for r in recs]
    # bacct reads the daemon's file by default
    r = c.run("bacct -l 1 3", user="user1")
    assert r.rc == 0 and "Job <1>, Job Name <j1>, User <user1>, Project <p1>, Status <DONE>" in r.out
    assert "Job <3>, User <user2>" in r.out and "Completed <exit>" in r.out
    # bkill of a finished job writes nothing more
    c.run("bkill 1", user="user1")
    c.advance("1m")
    assert len(_acct(c)) == 3


def test_array_elements_each_write_their_record(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -J 'arr[1-3]' sleep 30", user="user1")
    c.advance("1m")
    recs = _acct(c)
    assert [(r.job_id, r.idx, r.job_name) for r in recs] == [(1, 1, "arr[1-3]"), (1, 2, "arr[1-3]"),
                                                             (1, 3, "arr[1-3]")]


def test_archive_by_size_keeps_max_acct_archive_file(lsf_cluster):
    c = lsf_cluster
    _with_params(c, "ACCT_ARCHIVE_SIZE = 1", "MAX_ACCT_ARCHIVE_FILE = 2")
    shown = c.run("bparams -a").out
    assert "    ACCT_ARCHIVE_SIZE = 1\n" in shown and "    MAX_ACCT_ARCHIVE_FILE = 2\n" in shown
    # each record is about 600 bytes: a file passes 1 KB with its second record
    for i in range(7):
        c.run(f"bsub -J n{i} sleep 10", user="user1")
        c.advance("20s")
    logdir = c.home / "logdir"
    names = sorted(p.name for p in logdir.glob("lsb.acct*"))
    assert names == ["lsb.acct", "lsb.acct.1", "lsb.acct.2"]
    assert [r.job_name for r in _acct(c, "lsb.acct.2")] == ["n2", "n3"]
    assert [r.job_name for r in _acct(c, "lsb.acct.1")] == ["n4", "n5"]
    assert [r.job_name for r in _acct(c)] == ["n6"]


def test_archive_by_age_and_by_time_of_day(lsf_cluster):
    c = lsf_cluster
    _with_params(c, "ACCT_ARCHIVE_AGE = 2")
    c.run("bsub -J a sleep 10", user="user1")
    c.advance("1m")
    c.advance("1d")
    c.run("bsub -J b sleep 10", user="user1")
    c.advance("1m")
    assert not (c.home / "logdir" / "lsb.acct.1").exists()  # the first record is a day old
    c.advance("1d")  # two days since a's record (09:00:10) at this advance's last commit: archived
    assert [r.job_name for r in _acct(c, "lsb.acct.1")] == ["a", "b"] and not _acct(c)
    c.run("bsub -J c sleep 10", user="user1")
    c.advance("1m")
    assert [r.job_name for r in _acct(c)] == ["c"]
    _with_params(c, "ACCT_ARCHIVE_TIME = 02:00")
    assert "    ACCT_ARCHIVE_TIME = 02:00\n" in c.run("bparams -a").out
    c.run("bsub -J d sleep 10", user="user1")  # Wed 09:03: before the next 02:00
    c.advance("1m")
    before = sorted(p.name for p in (c.home / "logdir").glob("lsb.acct.*"))
    c.advance("17h")  # past Thu 02:00
    c.run("bsub -J e sleep 10", user="user1")
    c.advance("1m")
    after = sorted(p.name for p in (c.home / "logdir").glob("lsb.acct.*"))
    assert len(after) == len(before) + 1
    assert "d" in [r.job_name for r in _acct(c, "lsb.acct.1")]
    assert "d" not in [r.job_name for r in _acct(c)]


def test_badmin_showconf_mbd_names_the_folder_lsb_acct_is_in(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 10", user="user1")
    c.advance("1m")
    lines = c.run("badmin showconf mbd").out.splitlines()[1:]
    conf = dict(ln.strip().split(" = ", 1) for ln in lines)
    cluster = c.run("lsid").out.split("My cluster name is ")[1].split()[0]
    printed = Path(conf["LSB_SHAREDIR"]) / cluster / "logdir" / "lsb.acct"  # where tools look (lsb.acct page)
    assert printed.exists() and printed.samefile(c.home / "logdir" / "lsb.acct")
    assert [r.job_id for r in read_acct(printed)] == [1]


def test_a_really_run_job_records_what_the_runner_measured(lsf_cluster_factory):
    c = lsf_cluster_factory(clock="wall", files={
        "lsb.params": "Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 1\nEnd Parameters\n"})
    (c.root / "work").mkdir()
    # about 2 s of CPU holding 60 MB: the runner samples its process group every second
    script = "import time; b = bytearray(60 << 20); t = time.time()\nwhile time.time() - t < 2.2: pass\n"
    r = c.run(["bsub", "-o", "/dev/null", "python3", "-c", script], user="user1", cwd=str(c.root / "work"))
    assert r.rc == 0, r.text
    path = c.home / "logdir" / "lsb.acct"
    deadline = time.time() + 60
    while not (path.exists() and path.stat().st_size) and time.time() < deadline:
        time.sleep(0.2)
    (rec,) = _acct(c)
    assert rec.j_status == JOB_STAT_DONE and rec.exec_hosts and rec.start_time > 0
    cpu = c.run("bjobs -a -noheader -o cpu_used 1", user="user1").out.split()[0]  # "0.7 second(s)"
    assert rec.lsf_rusage.ru_utime > 0.1 and abs(rec.lsf_rusage.ru_utime - float(cpu)) < 0.051
    assert rec.run_time >= 2 and rec.event_time - rec.start_time >= 2
    assert rec.max_r_mem > 50 * 1024 and rec.lsf_rusage.ru_maxrss == rec.max_r_mem and rec.avg_mem > 0


def test_a_fairshare_queue_charges_the_share_account_path(lsf_cluster):
    c = lsf_cluster
    text = c.path_of("lsb.queues").read_text() + (
        "\nBegin Queue\nQUEUE_NAME = fair\nPRIORITY = 20\n"
        "FAIRSHARE = USER_SHARES[[research, 10] [default, 1]]\nEnd Queue\n")
    c.write("lsb.queues", text)
    assert c.run("badmin reconfig").rc == 0
    c.run("bsub -q fair sleep 10", user="user1")  # research's subtree: (user1 user2)
    c.run("bsub -q fair sleep 10", user="user3")  # a default account
    c.run("bsub -q normal sleep 10", user="user1")  # no fairshare
    c.run("bsub -q fair -b 23:00 sleep 10", user="user1")
    c.advance("1m")
    c.run("bkill 4", user="user1")  # never ran: charged nothing
    c.advance("10s")
    assert {r.job_id: r.charged_saap for r in _acct(c)} == {1: "/research/user1", 2: "/user3", 3: "", 4: ""}
    r = c.run("bacct -l 1", user="user1")
    assert "Share group charged </research/user1>" in r.out.replace("\n                     ", "")


def test_a_finished_job_sent_back_by_brequeue_writes_a_record_at_each_end(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 60", user="user1")
    c.run("bsub sleep 600", user="user1")
    c.advance("2m")
    assert c.run("brequeue -d 1", user="user1").rc == 0
    assert c.run("brequeue 2", user="user1").rc == 0  # running: requeued, not ended
    c.advance("2m")
    assert [(r.job_id, r.start_time - T0, r.event_time - T0) for r in _acct(c)] == [(1, 10, 70), (1, 120, 180)]
