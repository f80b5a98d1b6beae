"""Job arrays end to end on the virtual clock: bsub -J "name[...]%N", bjobs
(elements, -A, -l), the control commands on whole arrays, elements and index
lists, bhist, lsb.events.

The fixture's cluster: hosts hostA..hostC with 4 slots each (MXJ), queue
`normal` by default, MBD_SLEEP_TIME 10 s; the clock starts Mon Jan 5 09:00:00 2026 UTC.
"""

import pytest

from lsfemu.events.records import JobNew, JobStart
from lsfemu.events.log import read_events
from lsfemu.testing import temporary_cluster

pytestmark = pytest.mark.slow(49)  # seconds, quiet machine; CPU 33.8 -> 32.3 s with its daemons, A/B at load 9-15

HEADER = "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"


def _ids(c, *args, user="user1"):
    r = c.run("bjobs -a -noheader -o 'jobid jobindex job_name stat' " + " ".join(args), user=user)
    return r.out.splitlines()


def _states(c, jid, user="user1"):
    """The elements' states, by index."""
    rows = [line.split() for line in _ids(c, str(jid), user=user)]
    return [st for _, _, st in sorted((int(i), n, st) for _, i, n, st in rows)]


def test_submit_once_and_show_each_element(lsf_cluster):
    c = lsf_cluster
    r = c.run('bsub -J "arr[1-3]" sleep 60', user="user1")
    assert (r.out, r.err, r.rc) == ("Job <1> is submitted to default queue <normal>.\n", "", 0)
    r = c.run("bjobs", user="user1")
    assert r.out == HEADER + "".join(
        f"1       user1   PEND  normal     hostA                   arr[{i}]     Jan  5 09:00\n" for i in (1, 2, 3))
    c.advance("10s")
    r = c.run("bjobs", user="user1")
    assert r.out == HEADER + (
        "1       user1   RUN   normal     hostA       hostA       arr[1]     Jan  5 09:00\n"
        "1       user1   RUN   normal     hostA       hostA       arr[2]     Jan  5 09:00\n"
        "1       user1   RUN   normal     hostA       hostA       arr[3]     Jan  5 09:00\n")
    # The next job gets the next ID: the array used one.
    assert c.run("bsub sleep 1", user="user1").out == "Job <2> is submitted to default queue <normal>.\n"
    # One element, all elements.
    assert _ids(c, '"1[2]"') == ["1 2 arr[2] RUN"]
    assert _ids(c, "1") == ["1 1 arr[1] RUN", "1 2 arr[2] RUN", "1 3 arr[3] RUN"]
    assert _ids(c, '"1[1,3]"') == ["1 1 arr[1] RUN", "1 3 arr[3] RUN"]
    r = c.run('bjobs "1[7]"', user="user1")
    assert (r.out, r.err, r.rc) == ("", "Job <1[7]> is not found\n", 255)


@pytest.fixture(scope="module")
def still():
    """One cluster whose clock never moves (every job pends), for the tests
    that submit and look, each on the jobs it submitted."""
    with temporary_cluster() as c:
        yield c


def test_index_forms(still):
    c = still
    s = c.run('bsub -J "s[1-10:3]" sleep 1', user="user1").job_id
    l_ = c.run('bsub -J "l[1,3,5-7]" sleep 1', user="user1").job_id
    assert [line.split()[1] for line in _ids(c, s)] == ["1", "4", "7", "10"]
    assert [line.split()[1] for line in _ids(c, l_)] == ["1", "3", "5", "6", "7"]
    assert _ids(c, f'"{l_}[5]"') == [f"{l_} 5 l[5] PEND"]


def test_bjobs_long_of_an_element(still):
    c = still
    a = c.run('bsub -J "arr[1-2]" sleep 60', user="user1").job_id
    r = c.run(f'bjobs -l "{a}[2]"', user="user1")
    assert r.out.startswith(f"\nJob <{a}[2]>, Job Name <arr[2]>, User <user1>, Project <default>, Status <PEND>, \n"
                            "                     Queue <normal>, Job Priority <50>, Command <sleep 60>\n")


def test_running_element_limit(lsf_cluster):
    c = lsf_cluster
    r = c.run('bsub -J "lim[1-5]%2" sleep 60', user="user1")
    assert r.rc == 0
    c.advance("10s")
    assert _states(c, 1) == ["RUN", "RUN", "PEND", "PEND", "PEND"]
    r = c.run('bjobs -p "1[3]"', user="user1")
    assert " The job array has reached its running element limit;\n" in r.out
    # A suspended element still counts; the limit is over started elements.
    c.run('bstop "1[1]"', user="user1")
    c.advance("10s")
    assert _states(c, 1) == ["USUSP", "RUN", "PEND", "PEND", "PEND"]
    c.run('bkill "1[1]"', user="user1")
    c.advance("10s")
    assert _states(c, 1) == ["EXIT", "RUN", "RUN", "PEND", "PEND"]


def test_array_summary(lsf_cluster):
    c = lsf_cluster
    c.run('bsub -J "myArray[1-10]" sleep 60', user="user3")
    c.run("bsub -J plain sleep 60", user="user3")
    c.run('bsub -J "b[1-2]" sleep 600', user="user2")
    c.advance("10s")  # 12 slots: 10 elements, the plain job and one element of b
    c.run('bkill "1[10]"', user="user3")
    c.run('bstop "1[9]"', user="user3")
    head = "JOBID    ARRAY_SPEC  OWNER   NJOBS PEND DONE  RUN EXIT SSUSP USUSP PSUSP\n"
    r = c.run("bjobs -A", user="user3")
    assert r.out == head + "1        myArray[    user3      10    0    0    8    1     0     1     0\n"
    r = c.run("bjobs -A -w -u all", user="user3")
    assert r.out == head + ("1        myArray[1-10] user3      10    0    0    8    1     0     1     0\n"
                            "3        b[1-2] user2       2    1    0    1    0     0     0     0\n")
    r = c.run("bjobs -A 2", user="user3")
    assert (r.out, r.err, r.rc) == ("", "Job <2> is not a job array\n", 255)
    c.advance("2m")
    r = c.run("bjobs -A 1", user="user3")
    assert r.out == head + "1        myArray[    user3      10    0    8    0    1     0     1     0\n"


def test_control_whole_array_elements_and_ranges(lsf_cluster):
    c = lsf_cluster
    c.run('bsub -J "k[1-5]" sleep 600', user="user1")
    c.advance("10s")
    r = c.run('bstop "1[2]"', user="user1")
    assert (r.out, r.rc) == ("Job <1[2]> is being stopped\n", 0)
    r = c.run("bresume 1", user="user1")  # one line for the array
    assert (r.out, r.err, r.rc) == ("Job <1> is being resumed\n", "", 0)
    r = c.run("bresume 1", user="user1")  # nothing suspended now: the first element's answer
    assert (r.out, r.err, r.rc) == ("", "Job <1>: Job is not suspended\n", 255)
    r = c.run('bkill "1[1-2]"', user="user1")
    assert r.out == "Job <1[1]> is being terminated\nJob <1[2]> is being terminated\n"
    r = c.run("bkill 1", user="user2")
    assert (r.out, r.err) == ("", "Job <1>: User permission denied\n")
    r = c.run("bkill 1", user="user1")
    assert (r.out, r.rc) == ("Job <1> is being terminated\n", 0)
    assert _states(c, 1) == ["EXIT"] * 5
    r = c.run("bkill 1", user="user1")
    assert (r.out, r.err, r.rc) == ("", "Job <1>: Job has already finished\n", 255)
    r = c.run('bkill "1[9]"', user="user1")
    assert (r.err, r.rc) == ("Job <1[9]>: No matching job found\n", 255)
    # Consecutive elements with one answer are condensed, as LSF 10 prints them.
    r = c.run('bkill "1[1-3,5]"', user="user1")
    assert (r.out, r.err, r.rc) == ("", "Job <1[1-3:1]>: Job has already finished\n"
                                        "Job <1[5]>: Job has already finished\n", 255)


def test_bmod_and_btop_on_an_array(lsf_cluster):
    c = lsf_cluster  # MAX_USER_PRIORITY = 100: job priority 50 by default
    c.run("bsub -n 12 sleep 600", user="user2")  # fills the cluster: everything else pends
    c.run("bsub -J first sleep 1", user="user2")
    c.run('bsub -J "m[1-3]" sleep 1', user="user2")
    c.advance("10s")
    r = c.run("bmod -sp 70 3", user="user2")
    assert (r.out, r.rc) == ("Parameters of job <3> are being changed\n", 0)
    r = c.run("bjobs -noheader -o 'jobindex priority' 3", user="user2")
    assert r.out == "1 70\n2 70\n3 70\n"
    c.run("bmod -sp 50 3", user="user2")
    r = c.run("btop 3", user="user2")
    assert (r.err, r.rc) == ("Job <3> has been moved to position 1 from top.\n", 0)
    r = c.run("bjobs -p -noheader -o 'jobid jobindex'", user="user2")
    assert r.out == "3 1\n3 2\n3 3\n2 0\n"
    r = c.run("bmod -sp 60 3", user="user1")
    assert (r.out, r.err, r.rc) == ("", "User permission denied. Job not modified.\n", 255)


def test_array_size_limit_and_bad_specs(lsf_cluster_factory):
    c = lsf_cluster_factory()
    text = c.path_of("lsb.params").read_text().replace("End Parameters", "MAX_JOB_ARRAY_SIZE = 5\nEnd Parameters")
    c.write("lsb.params", text)
    c.run("badmin reconfig", user="lsfadmin")
    bad = {'"a[1-6]"': "Job array index too large", '"a[6]"': "Job array index too large",
           '"a[0-3]"': "Job array index error", '"a[3-1]"': "Job array index error",
           '"a[1-3:0]"': "Job array index error", '"a[1-"': "Bad job name", '"a[x]"': "Bad job name",
           '"a[1-3]%0"': "Bad job name", '"a[1-3]b"': "Bad job name"}
    for spec, msg in bad.items():
        r = c.run(f"bsub -J {spec} sleep 1", user="user1")
        assert (r.out, r.err, r.rc) == ("", f"{msg}. Job not submitted.\n", 255), spec
    assert c.run("bjobs -a -u all").err == "No job found\n"
    r = c.run('bsub -J "a[1-5]" sleep 1', user="user1")
    assert r.out == "Job <1> is submitted to default queue <normal>.\n"


def test_bhist_and_the_event_log(lsf_cluster):
    c = lsf_cluster
    c.run('bsub -J "h[1-3]%2" sleep 30', user="user1")
    c.advance("1m")
    recs = [r for _, r in read_events(c.home / "logdir" / "lsb.events")]
    new = [r for r in recs if isinstance(r, JobNew)]
    assert [(r.job_id, r.idx, r.job_name) for r in new] == [(1, 0, "h[1-3]%2")]  # once for the array
    starts = [(r.job_id, r.idx) for r in recs if isinstance(r, JobStart)]
    assert starts == [(1, 1), (1, 2), (1, 3)]
    r = c.run('bhist -l "1[3]"', user="user1")
    assert r.out.startswith("\nJob <1[3]>, Job Name <h[3]>, User <user1>, Project <default>, Command <sleep 30\n")
    assert "Mon Jan  5 09:00:40: Dispatched to <hostA>, Effective RES_REQ <select[type == local] order[r15s:pg] >;" in r.out.replace("\n                     ", "")
    r = c.run("bhist -a", user="user1")
    rows = [line.split()[:2] for line in r.out.splitlines()[2:]]
    assert rows == [["1[1]", "user1"], ["1[2]", "user1"], ["1[3]", "user1"]]


def test_wall_clock_elements_really_run_with_their_index(lsf_cluster_factory):
    """Wall clock: each element is a process with LSB_JOBINDEX, %I in -o is its index,
    and the %N limit holds while they run."""
    import re
    import time

    params = "Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 1\nEnd Parameters\n"
    c = lsf_cluster_factory(clock="wall", files={"lsb.params": params})
    work = c.root / "work"
    work.mkdir()
    r = c.run(["bsub", "-J", "w[1-3]%1", "-o", "out.%I", "echo index=$LSB_JOBINDEX; sleep 1"],
              user="user1", cwd=str(work))
    jid = re.match(r"Job <(\d+)>", r.out).group(1)
    seen_running = set()
    deadline = time.time() + 30
    while time.time() < deadline:
        states = c.run(f"bjobs -a -noheader -o 'stat' {jid}", user="user1").out.split()
        seen_running.add(states.count("RUN"))
        if states == ["DONE"] * 3:
            break
        time.sleep(0.2)
    assert states == ["DONE"] * 3
    assert max(seen_running) == 1  # %1: one element at a time
    for i in (1, 2, 3):
        assert f"index={i}\n" in (work / f"out.{i}").read_text()


def test_name_filter_with_index_and_event_log_switch(lsf_cluster_factory):
    c = lsf_cluster_factory()
    text = c.path_of("lsb.params").read_text().replace("End Parameters", "MAX_JOB_NUM = 2\nEnd Parameters")
    c.write("lsb.params", text)
    c.run("badmin reconfig", user="lsfadmin")
    c.run('bsub -J "sw[1-4]%1" sleep 30', user="user1")
    assert _ids(c, '-J "sw[2-3]"') == ["1 2 sw[2] PEND", "1 3 sw[3] PEND"]
    r = c.run('bkill -J "sw[4]"', user="user1")
    assert r.out == "Job <1[4]> is being terminated\n"
    c.advance("75s")  # two elements end: lsb.events switches with elements 1[3] still pending
    logdir = c.home / "logdir"
    assert (logdir / "lsb.events.1").exists()
    new = [r for _, r in read_events(logdir / "lsb.events") if isinstance(r, JobNew)]
    assert [(r.job_id, r.job_name) for r in new] == [(1, "sw[1-4]%1")]  # kept for the live elements
    r = c.run('bhist -l "1[3]"', user="user1")
    assert r.out.startswith("\nJob <1[3]>, Job Name <sw[3]>")


def test_daemon_restart_keeps_arrays_and_limits(lsf_cluster):
    c = lsf_cluster
    c.run('bsub -J "r[1-3]%1" sleep 30', user="user1")
    c.advance("10s")
    assert c.run("lsfemu daemon restart").rc == 0
    assert _states(c, 1) == ["RUN", "PEND", "PEND"]
    c.advance("30s")
    assert _states(c, 1) == ["DONE", "RUN", "PEND"]
    assert c.run("bsub sleep 1", user="user1").out == "Job <2> is submitted to default queue <normal>.\n"


def test_replay_into_expands_the_array(lsf_cluster, tmp_path):
    c = lsf_cluster
    c.run('bsub -J "rp[1-3]%2" sleep 30', user="user1")
    c.advance("50s")  # 1[1], 1[2] done at 09:00:40; 1[3] runs from the pass at 09:00:40
    before = c.run("bjobs -a -noheader -o 'jobid jobindex job_name stat'", user="user1").out
    into = tmp_path / "rp"
    r = c.run(["lsfemu", "replay", str(c.home / "logdir" / "lsb.events"), "--into", str(into)])
    assert r.rc == 0, r.text
    env = {"LSF_ENVDIR": str(into), "LSFEMU_HOME": str(into / "state")}
    try:
        after = c.run("bjobs -a -noheader -o 'jobid jobindex job_name stat'", user="user1", env=env).out
        assert after == before
        assert sorted(after.splitlines()) == ["1 1 rp[1] DONE", "1 2 rp[2] DONE", "1 3 rp[3] RUN"]
        assert c.run("bjobs -A -noheader", user="user1", env=env).out.split() == \
            ["1", "rp[1-3]%", "user1", "3", "0", "2", "1", "0", "0", "0", "0"]
    finally:
        c.run("lsfemu daemon stop", env=env)


def test_bmod_and_btop_with_index_lists(still):
    c = still
    c.run("bsub -n 12 sleep 600", user="user2")  # fills the cluster (were the clock to move)
    x = c.run('bsub -J "ix[1-4]" sleep 1', user="user2").job_id
    r = c.run(f'bmod -sp 80 "{x}[2-3]"', user="user2")
    assert (r.out, r.rc) == (f"Parameters of job <{x}[2-3]> are being changed\n", 0)
    r = c.run(f"bjobs -noheader -o 'jobindex priority' {x}", user="user2")
    assert r.out.splitlines() == ["2 80", "3 80", "1 50", "4 50"]  # pending order: priority first
    r = c.run(f'bmod -sp 90 "{x}[4]"', user="user2")
    assert r.out == f"Parameters of job <{x}[4]> are being changed\n"
    r = c.run(f'bmod -sp 90 "{x}[7-9]"', user="user2")
    assert (r.out, r.err, r.rc) == ("", f"{x}[7-9]: No matching job found. Job not modified.\n", 255)
    c.run(f'bmod -sp 50 "{x}[1-4]"', user="user2")
    r = c.run(f'bbot "{x}[1-2]"', user="user2")
    assert (r.err, r.rc) == (f"Job <{x}[1-2]> has been moved to position 1 from bottom.\n", 0)
    r = c.run(f"bjobs -noheader -o 'jobindex' {x}", user="user2")
    assert r.out.split() == ["3", "4", "1", "2"]


def test_display_enh_shows_the_index_in_jobid(lsf_cluster):
    c = lsf_cluster
    c.run('bsub -J "en[1-2]" sleep 60', user="user1")
    c.run("bsub -J plain sleep 60", user="user1")
    r = c.run("bjobs", user="user1", env={"LSB_BJOBS_DISPLAY_ENH": "Y"})
    assert [line.split()[0] for line in r.out.splitlines()[1:]] == ["1[1]", "1[2]", "2"]
    assert [line.split()[0] for line in c.run("bjobs", user="user1").out.splitlines()[1:]] == ["1", "1", "2"]
    with open(c.path_of("lsf.conf"), "a") as f:
        f.write("LSB_BJOBS_DISPLAY_ENH=Y\n")
    c.run("badmin reconfig", user="lsfadmin")
    r = c.run("bjobs -p -w", user="user1")
    assert [line.split()[0] for line in r.out.splitlines() if line[:1].isdigit()] == ["1[1]", "1[2]", "2"]
