"""bjobs' display settings read when bjobs is called (issue 21, part 1):
LSB_BJOBS_FORMAT, LSB_HMS_TIME_FORMAT, LSB_DISPLAY_YEAR,
LSB_BJOBS_PENDREASON_LEVEL with LSF's precedence -- the option, then the
caller's environment (sent with the request), then lsf.conf as the file is
when the command runs (no badmin reconfig) -- shown on one cluster in
virtual time.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from lsfemu.testing import LsfCluster

pytestmark = pytest.mark.slow(6)  # seconds, quiet machine: scheduled early (tests/conftest.py)


@pytest.fixture(scope="module")
def c():
    root = Path(tempfile.mkdtemp(prefix="lsfdisp-"))
    cl = LsfCluster(root)
    yield cl
    cl.stop()
    shutil.rmtree(root, ignore_errors=True)


def ok(c, cmd, user="user1", env=None):
    r = c.run(cmd, user=user, env=env)
    assert r.rc == 0, f"{cmd}\n{r.text}"
    return r.out


@pytest.fixture(scope="module")
def job(c):
    out = ok(c, "bsub -J disp -W 30 sleep 1000")
    jid = re.search(r"Job <(\d+)>", out).group(1)
    c.advance("90s")
    return jid


def _conf(c, **keys):
    """lsf.conf with these keys set (and the others dropped) -- no reconfig."""
    path = c.path_of("lsf.conf")
    lines = [ln for ln in path.read_text().splitlines()
             if ln.split("=", 1)[0].strip() not in keys]
    path.write_text("\n".join(lines + [f"{k}={v}" for k, v in keys.items()]) + "\n")


def test_format_precedence_option_env_lsf_conf(c, job):
    _conf(c, LSB_BJOBS_FORMAT='"jobid queue"')
    assert ok(c, f"bjobs {job}") == f"JOBID QUEUE\n{job} normal\n"  # lsf.conf, read without a reconfig
    env = {"LSB_BJOBS_FORMAT": "jobid stat"}
    assert ok(c, f"bjobs {job}", env=env) == f"JOBID STAT\n{job} RUN\n"  # the caller's environment over lsf.conf
    assert ok(c, f"bjobs -o 'jobid job_name' {job}", env=env) == f"JOBID JOB_NAME\n{job} disp\n"  # -o over both
    # LSB_JOBID_DISP_LENGTH: the recommended width of jobid (7 unset), as the tables' JOBID column
    assert ok(c, f"bjobs -o 'jobid: stat' {job}") == f"{'JOBID':<7} STAT\n{job:<7} RUN\n"
    wide = {"LSB_JOBID_DISP_LENGTH": "10"}
    assert ok(c, f"bjobs -o 'jobid: stat' {job}", env=wide) == f"{'JOBID':<10} STAT\n{job:<10} RUN\n"
    assert ok(c, f"bjobs -o 'id:8 stat' {job}", env=wide) == f"{'JOBID':<8} STAT\n{job:<8} RUN\n"  # its own width wins
    assert ok(c, f"bjobs -w {job}", env=wide).startswith(f"{'JOBID':<10} USER")
    # -json with a format from the environment; the forms -o does not apply to are not changed
    assert json.loads(ok(c, f"bjobs -json {job}", env=env))["RECORDS"] == [{"JOBID": job, "STAT": "RUN"}]
    assert ok(c, f"bjobs -l {job}", env=env).startswith(f"\nJob <{job}>, Job Name <disp>")
    assert ok(c, f"bjobs -w {job}", env=env).startswith("JOBID   USER    STAT  QUEUE")
    _conf(c, LSB_BJOBS_FORMAT="")
    assert ok(c, f"bjobs {job}").startswith("JOBID   USER    STAT  QUEUE")  # back to the table, still no reconfig
    # -json alone has no effect (LSF's doc): the plain table
    assert ok(c, f"bjobs -json {job}").startswith("JOBID   USER    STAT  QUEUE")


def test_hms_and_year_precedence(c, job):
    fmt = f"bjobs -noheader -o 'run_time submit_time' {job}"
    plain = ok(c, fmt)
    assert re.fullmatch(r"\d+ second\(s\) \w{3} [ \d]\d \d\d:\d\d\n", plain)
    _conf(c, LSB_HMS_TIME_FORMAT="Y", LSB_DISPLAY_YEAR="Y")
    assert re.fullmatch(r"00:01:\d\d \w{3} [ \d]\d \d\d:\d\d \d{4}\n", ok(c, fmt))  # lsf.conf, no reconfig
    assert ok(c, fmt, env={"LSB_HMS_TIME_FORMAT": "N", "LSB_DISPLAY_YEAR": "n"}) == plain  # environment wins
    _conf(c, LSB_HMS_TIME_FORMAT="N", LSB_DISPLAY_YEAR="N")
    assert ok(c, fmt) == plain
    assert re.fullmatch(r"00:01:\d\d .*\n", ok(c, fmt, env={"LSB_HMS_TIME_FORMAT": "y"}))
    assert re.fullmatch(r"00:01:\d\d .*\n", ok(c, fmt.replace("-noheader", "-noheader -hms")))  # the option
    assert re.search(r" \d{4}\n$", ok(c, f"bjobs {job}", env={"LSB_DISPLAY_YEAR": "Y"}))  # the table too


def test_o_fields_show_what_bsub_asked(c):
    out = ok(c, "bsub -Jd nightly -m hostB -outdir /tmp/o -We 10 -gpu num=2 -R 'rusage[mem=100]' sleep 1000")
    jid = re.search(r"Job <(\d+)>", out).group(1)
    held = re.search(r"Job <(\d+)>", ok(c, f'bsub -w "done({jid})" sleep 1')).group(1)
    c.advance("5m")
    spec = ("job_description interactive ask_hosts output_dir gpu_num time_left %complete pendstate "
            "estimated_run_time delimiter='|'")
    row = ok(c, f"bjobs -noheader -o \"{spec}\" {jid}").rstrip("\n").split("|")
    assert row[:5] == ["nightly", "N", "hostB", "/tmp/o", "2"]
    assert re.fullmatch(r"0:[45] E", row[5]) and re.fullmatch(r"[45]\d\.\d\d% E", row[6])
    assert row[7:] == ["NOTPEND", "600"]
    # -WL -WF -WP (in any order): the table with TIME_LEFT, FINISH_TIME, %COMPLETE, the -o fields' values
    wl = ok(c, f"bjobs -WP -WL -WF {jid} {held}").splitlines()
    assert wl[0].endswith("SUBMIT_TIME  TIME_LEFT   FINISH_TIME      %COMPLETE  ")
    assert re.fullmatch(rf"{jid} +user1 +RUN .* 0:[45] E +\w{{3}} [ \d]\d \d\d:\d\d E +[45]\d\.\d\d% E +", wl[1])
    assert wl[2].startswith(f"{held} ") and wl[2].split()[-3:] == ["-", "-", "-"]
    assert ok(c, f"bjobs -noheader -WL -w {jid}").rstrip().endswith(row[5])
    assert ok(c, f"bjobs -noheader -o 'pendstate pend_reason' {held}") == \
        "IPEND Job dependency condition not satisfied;\n"
    c.advance("10m")  # past the estimate: X, and no run limit to count against
    assert ok(c, f"bjobs -noheader -o 'time_left %complete' {jid}").startswith("0:0 X ")
    doc = json.loads(ok(c, f"bjobs -json -o all {jid} {held}"))
    assert doc["JOBS"] == 2 and [r["JOBID"] for r in doc["RECORDS"]] == [jid, held]
    assert list(doc["RECORDS"][0])[:3] == ["JOBID", "JOBINDEX", "STAT"] and doc["RECORDS"][0]["RSVID"] == ""
    ok(c, f"bkill {jid} {held}")


def test_filters_p_g_m_jd_and_x(c):
    def sub(cmd, user="user1"):
        return re.search(r"Job <(\d+)>", ok(c, cmd, user)).group(1)
    a = sub("bsub -P alpha -Jd 'nightly build' -m hostA sleep 1000")
    b = sub("bsub -P beta -G research -m hostB sleep 1000", "user2")
    pend = sub("bsub -P alpha -m hostC -n 6 sleep 1000")  # hostC has 4 slots: pending (user1's MAX_JOBS 8 not hit)
    c.advance("30s")
    listed = lambda cmd, user="user1": [w.split()[0] for w in ok(c, cmd, user).splitlines()[1:]]  # noqa: E731
    assert listed("bjobs -P alpha") == [a, pend]
    assert listed("bjobs -u all -P beta") == [b]
    assert listed("bjobs -G research") == [b]  # the group's jobs, whoever submitted them
    assert listed("bjobs -u all -m hostA") == [a] and listed("bjobs -u all -m hostB") == [b]
    assert set(listed("bjobs -u all -m cluster1")) >= {a, b} and pend not in listed("bjobs -u all -m cluster1")
    assert listed("bjobs -Jd 'nightly*'") == [a] and listed("bjobs -Jd '*build'") == [a]
    assert ok(c, f"bjobs -X {a}") == ok(c, f"bjobs {a}")  # no host group is ever condensed
    assert c.run("bjobs -Jd nomatch", user="user1").err == "No unfinished job found\n"
    # -sum: slots per state of the caller's unfinished jobs, the filters applied
    summary = ok(c, "bjobs -sum -P alpha").splitlines()
    assert summary[0].split() == ["RUN", "SSUSP", "USUSP", "UNKNOWN", "PEND", "FWD_PEND", "PSUSP"]
    assert summary[1].split() == ["1", "0", "0", "0", "6", "0", "0"]
    # -psum, -p0, -p1 and LSB_BJOBS_PENDREASON_LEVEL
    psum = ok(c, "bjobs -psum -P alpha").splitlines()
    assert psum[0].startswith("Pending reason summary: published ") and \
        psum[1] == "Summarizing 1 pending jobs in cluster (cluster1):"
    long_p = ok(c, f"bjobs -p0 {pend}").splitlines()
    key = ok(c, f"bjobs -p1 {pend}").splitlines()
    assert long_p[:2] == key[:2] and len(key) == 3 and key[2].endswith(";") and key[2] in long_p[2:] + [key[2]]
    assert ok(c, f"bjobs -p {pend}", env={"LSB_BJOBS_PENDREASON_LEVEL": "1"}) == "\n".join(key) + "\n"
    assert ok(c, f"bjobs -p0 {pend}", env={"LSB_BJOBS_PENDREASON_LEVEL": "1"}) == "\n".join(long_p) + "\n"
    # -p2 / -p3: the host reasons by candidate host (hostC: too few slots) and non-candidate host
    # (hostA, hostB: not named by -m); LSB_BJOBS_PENDREASON_LEVEL the same
    cand = [" Candidate host pending reasons (1 of 3 hosts):", "   Not enough job slot(s): 1 host;"]
    non = ["", " Non-candidate host pending reasons (2 of 3 hosts):", "   Not specified in job submission: 2 hosts;"]
    assert ok(c, f"bjobs -p2 {pend}").splitlines() == long_p[:2] + cand
    assert ok(c, f"bjobs -p3 {pend}").splitlines() == long_p[:2] + cand + non
    assert ok(c, f"bjobs -p {pend}", env={"LSB_BJOBS_PENDREASON_LEVEL": "3"}) == ok(c, f"bjobs -p3 {pend}")
    assert ok(c, f"bjobs -p2 {pend}", env={"LSB_BJOBS_PENDREASON_LEVEL": "3"}) == ok(c, f"bjobs -p2 {pend}")
    # -p2 -psum: only the candidate hosts' reasons are summed
    assert ok(c, "bjobs -p2 -psum -P alpha").splitlines()[1:] == [
        "Summarizing 1 pending jobs in cluster (cluster1):", "    Individual host based reasons:  1 jobs", "",
        "Individual host based reasons", "    Not enough job slot(s):         1 occurrences"]
    # -W: the wide row with the old stamps, project, CPU time, memory, PIDs, start and finish
    w = ok(c, f"bjobs -W {a}").splitlines()
    assert w[0].endswith("SUBMIT_TIME  PROJ_NAME CPU_USED MEM SWAP PIDS START_TIME FINISH_TIME")
    stamp = r"\d\d/\d\d-\d\d:\d\d:\d\d"
    assert re.fullmatch(rf"{a:<7} user1   RUN   normal     \S+ +hostA       sleep 1000 {stamp} alpha      "
                        rf"000:00:30\.00 0      0       -  {stamp} - ", w[1])
    ok(c, f"bkill {a} {pend}")
    ok(c, f"bkill {b}", "user2")


def test_env_and_script_show_the_submission(c):
    out = ok(c, "bsub sleep 1000", env={"H5_MARK": "a b=c"})
    jid = re.search(r"Job <(\d+)>", out).group(1)
    env = ok(c, f"bjobs -env {jid}").splitlines()
    assert "H5_MARK=a b=c" in env and env == sorted(env, key=lambda ln: ln.split("=", 1)[0])
    assert ok(c, f"bjobs -script {jid}") == "sleep 1000\n"
    script = "#!/bin/sh\n#BSUB -J scripted\nsleep 1000\n"
    r = c.run("bsub", user="user1", stdin=script)
    sid = re.search(r"Job <(\d+)>", r.out).group(1)
    assert ok(c, f"bjobs -script {sid}") == script
    denied = c.run(f"bjobs -env {jid}", user="user2")
    assert (denied.out, denied.err, denied.rc) == ("", f"Job <{jid}>: User permission denied\n", 255)
    ok(c, f"bkill {jid} {sid}")


def test_unit_for_jobs_display_precedence(c):
    jid = re.search(r"Job <(\d+)>", ok(c, "bsub -M 2048 sleep 1000")).group(1)  # 2 GB (LSF_UNIT_FOR_LIMITS=MB)
    fmt = f"bjobs -noheader -o 'memlimit memlimit::M' {jid}"
    assert ok(c, fmt) == "2 G 2048.0 M  \n"  # no unit set: the limit's own display
    _conf(c, LSB_UNIT_FOR_JOBS_DISPLAY="K")
    assert ok(c, fmt) == "2097152 K 2048.0 M  \n"  # lsf.conf, read without a reconfig; the field's unit wins
    assert ok(c, fmt, env={"LSB_UNIT_FOR_JOBS_DISPLAY": "G"}) == "2.0 G 2048.0 M  \n"  # environment over lsf.conf
    assert ok(c, fmt, env={"LSB_UNIT_FOR_JOBS_DISPLAY": "S"}) == "2.0 G 2048.0 M  \n"  # S: auto, no "bytes"
    _conf(c, LSB_UNIT_FOR_JOBS_DISPLAY="")
    ok(c, f"bkill {jid}")


def test_rusage_selects_the_jobs_that_reserve_every_named_resource(c):
    def sub(cmd):
        return re.search(r"Job <(\d+)>", ok(c, cmd)).group(1)
    both = sub("bsub -R 'rusage[mem=100,swp=50]' sleep 1000")
    mem = sub("bsub -R 'rusage[mem=100]' sleep 1000")
    plain = sub("bsub sleep 1000")
    ids = lambda cmd: [ln.split()[0] for ln in ok(c, cmd).splitlines()[1:]]  # noqa: E731
    assert ids("bjobs -rusage mem") == [both, mem]
    assert ids("bjobs -rusage 'mem,swp'") == [both]
    assert plain in ids("bjobs") and c.run("bjobs -rusage tmp", user="user1").err == "No unfinished job found\n"
    ok(c, f"bkill {both} {mem} {plain}")


def test_n_normalizes_cpu_time_and_adds_finished_jobs(c):
    """bjobs -N (OpenLava's bjobs.c): the long form, CPU time scaled by the execution host's
    CPU factor (hostA: Intel_EM64T, 60) over the one named; done and exited jobs added."""
    jid = re.search(r"Job <(\d+)>", ok(c, "bsub -J norm -m hostA sleep 1000")).group(1)
    c.advance("40s")
    cpu = lambda text: re.search(r"The CPU time used is (\d+) seconds\.", text).group(1)  # noqa: E731
    used = int(cpu(ok(c, f"bjobs -l {jid}")))
    assert used == 30  # dispatched at the first pass (10 s)
    assert ok(c, f"bjobs -N hostA {jid}").startswith(f"\nJob <{jid}>, Job Name <norm>")  # the long form
    assert cpu(ok(c, f"bjobs -N hostA {jid}")) == "30"
    assert cpu(ok(c, f"bjobs -N Intel_EM64T {jid}")) == "30"
    assert cpu(ok(c, f"bjobs -N POWER9 {jid}")) == "72"  # 30 * 60 / 25
    assert cpu(ok(c, f"bjobs -N 120 {jid}")) == "15"
    assert cpu(ok(c, f"bjobs -UF -N 120 {jid}")) == "15"
    ok(c, f"bkill {jid}")
    c.advance("5s")
    assert c.run("bjobs -J norm", user="user1").err == "Job <norm> is not found\n"  # finished: not listed
    ended = lambda text: int(re.search(r"HOST: hostA; CPU_TIME: (\d+) seconds", text).group(1))  # noqa: E731
    used = ended(ok(c, f"bjobs -l {jid}"))
    listed = ok(c, "bjobs -N 30 -J norm")  # the finished job too, its CPU time doubled
    assert f"Job <{jid}>, Job Name <norm>" in listed and ended(listed) == 2 * used > 0
    assert f"Job <{jid}>, Job Name <norm>" in ok(c, "bjobs -N 30 -r -J norm")  # -r: running jobs and finished ones
    for bad in ("nosuch", "0", "-2"):
        r = c.run(f"bjobs -N {bad}", user="user1")
        assert (r.out, r.err, r.rc) == ("", f"<{bad}> is neither a host model, nor a host name, nor a CPU factor\n", 255)


def test_pe_pi_pei_split_the_pending_jobs_by_eligibility(c):
    def sub(cmd):
        return re.search(r"Job <(\d+)>", ok(c, cmd)).group(1)
    e = sub("bsub -J elig_e -m hostC -n 6 sleep 1000")  # hostC has 4 slots: eligible, never started
    h = sub("bsub -J elig_h -H sleep 1000")  # held (PSUSP): ineligible
    d = sub(f"bsub -J elig_d -w 'done({e})' sleep 1")  # its dependency unsatisfied: ineligible
    c.advance("30s")
    rows = lambda text: [w.split()[0] for w in text.splitlines() if w[:1].isdigit()]  # noqa: E731
    pe = ok(c, "bjobs -pe -J 'elig_*'")
    assert pe.startswith("JOBID   USER    STAT  QUEUE       FROM_HOST") and rows(pe) == [e]  # the -p table
    assert " Not specified in job submission: 2 hosts;\n" in pe  # with the pending reasons
    assert sorted(rows(ok(c, "bjobs -pi -J 'elig_*'"))) == sorted([h, d])
    # -pei (= -pe -pi): the eligible jobs' table, a blank line, the ineligible jobs' table
    pei = ok(c, "bjobs -pei -J 'elig_*'")
    assert [sorted(rows(t)) for t in pei.split("\n\n")] == [[e], sorted([h, d])]
    assert ok(c, "bjobs -pe -pi -J 'elig_*'") == pei
    assert ok(c, "bjobs -noheader -pi -o 'jobid pendstate' -J elig_h") == f"{h} IPEND\n"  # -o's pendstate agrees
    assert ok(c, "bjobs -psum -pi -J 'elig_*'").splitlines()[1] == "Summarizing 2 pending jobs in cluster (cluster1):"
    r = c.run("bjobs -pe -J elig_h", user="user1")
    assert (r.out, r.err, r.rc) == ("", "Job <elig_h> is not found\n", 255)
    r = c.run(f"bjobs -pe {e} {h}", user="user1")  # an ID -pe drops: not found, as with -r
    assert rows(r.out) == [e] and r.err == f"Job <{h}> is not found\n"
    ok(c, f"bkill {e} {h} {d}")


def test_eligible_and_ineligible_pending_time_with_track_eligible_pendinfo(c):
    def sub(cmd):
        return re.search(r"Job <(\d+)>", ok(c, cmd)).group(1)
    params = c.path_of("lsb.params")
    before = params.read_text()
    fields = "-noheader -o 'ependtime ipendtime pendstate'"
    e = sub("bsub -J track_e -m hostC -n 6 sleep 1000")  # eligible, never fits hostC
    assert ok(c, f"bjobs {fields} {e}") == "- - EPEND\n"  # not tracked: LSF's empty value
    params.write_text(before.replace("Begin Parameters", "Begin Parameters\nTRACK_ELIGIBLE_PENDINFO = Y", 1))
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    try:
        h = sub("bsub -J track_h -H sleep 1000")  # held: ineligible from its submission
        d = sub(f"bsub -J track_d -w 'done({e})' sleep 1")  # its dependency unsatisfied: ineligible throughout
        c.advance("30s")
        ok(c, f"bresume {h}")  # eligible from now: the next pass starts it
        c.advance("30s")
        h_row = ok(c, f"bjobs -noheader -o 'stat pend_time ependtime ipendtime' {h}").split()
        assert h_row[0] == "RUN" and h_row[3] == "30" and int(h_row[2]) == int(h_row[1]) - 30  # ran after its hold
        assert ok(c, f"bjobs {fields} {d}") == "0 60 IPEND\n"
        row = ok(c, f"bjobs -noheader -o 'pend_time ependtime ipendtime' {e}").split()
        assert row[2] == "0" and row[0] == row[1]  # eligible all along
        assert ok(c, f"bjobs -noheader -hms -o ipendtime {d}") == "00:01:00\n"
        assert "TRACK_ELIGIBLE_PENDINFO = Y" in ok(c, "bparams -a", user="lsfadmin")
        ok(c, f"bkill {d}")  # its JOB_FINISH carries the 60 s it pended ineligible: bacct -E leaves them out
        assert "\n      0.00       60             60     exit " in ok(c, f"bacct -l {d}")
        assert "\n      0.00        0              0     exit " in ok(c, f"bacct -E -l {d}")
    finally:
        params.write_text(before)
        c.run("badmin reconfig", user="lsfadmin")
        c.run(f"bkill {e} {h} {d}", user="user1")


def test_pending_time_limits_job_over_lsb_params(c):
    """bsub/bmod -ptl and -eptl over lsb.params' PEND_TIME_LIMIT / ELIGIBLE_PEND_TIME_LIMIT: -o's six
    fields in seconds (remain: less the (eligible) pending time so far, negative once exceeded), bjobs -l's
    group, -json; a limit reached changes nothing (LSF leaves the action to RTM)."""
    def sub(cmd):
        return re.search(r"Job <(\d+)>", ok(c, cmd)).group(1)
    params = c.path_of("lsb.params")
    before = params.read_text()
    fields = "-noheader -o 'plimit eplimit effective_plimit effective_eplimit plimit_remain eplimit_remain'"
    params.write_text(before.replace("Begin Parameters", "Begin Parameters\nTRACK_ELIGIBLE_PENDINFO = Y\n"
                                     "PEND_TIME_LIMIT = 2:00\nELIGIBLE_PEND_TIME_LIMIT = 90", 1))
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    try:
        a = sub("bsub -J ptl_a -m hostC -n 6 -ptl 10 -eptl 1:00 sleep 1000")  # eligible, never fits hostC
        h = sub("bsub -J ptl_h -H sleep 1000")  # held: ineligible, the cluster's limits
        c.advance("30s")
        assert ok(c, f"bjobs {fields} {a}") == "600 3600 600 3600 570 3570\n"
        assert ok(c, f"bjobs {fields} {h}") == "- - 7200 5400 7170 5400\n"
        long_a = ok(c, f"bjobs -l {a}")
        assert "\n PENDING TIME LIMIT       ELIGIBLE PENDING TIME LIMIT\n 10.0 min                 60.0 min\n" in long_a
        c.advance("11m")  # past -ptl: still pending, a negative remainder
        assert ok(c, f"bjobs -noheader -o 'stat plimit_remain' {a}") == "PEND -90\n"
        assert ok(c, f"bjobs -noheader -hms -o plimit_remain {a}") == "-00:01:30\n"
        doc = json.loads(ok(c, f"bjobs -o 'effective_plimit plimit_remain eplimit' -json {a}"))
        assert doc["RECORDS"][0] == {"EFFECTIVE_PLIMIT": "600", "PLIMIT_REMAIN": "-90", "EPLIMIT": "3600"}
        ok(c, f"bmod -ptln -eptl 2:00 {a}")  # back to lsb.params' pending time limit; a new eligible one
        assert ok(c, f"bjobs {fields} {a}") == "- 7200 7200 7200 6510 6510\n"
        assert "PEND_TIME_LIMIT = 120" in ok(c, "bparams -a", user="lsfadmin")
    finally:
        params.write_text(before)
        c.run("badmin reconfig", user="lsfadmin")
        c.run(f"bkill {a} {h}", user="user1")
    assert ok(c, f"bjobs -noheader -o 'effective_plimit effective_eplimit eplimit' {a}") == "- - 7200\n"
