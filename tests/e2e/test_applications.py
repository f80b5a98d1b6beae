"""Application profiles (issue 18, part 5): lsb.applications (written by
lsfemu init), bsub -app (the profile's RUNLIMIT and MEMLIMIT are the job's
unless it sets -W/-M; the run limit ends the job), bjobs -app and -l,
bkill/bstop/bresume -app, bapp and bapp -l."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.slow(15)  # seconds, quiet machine: scheduled early (tests/conftest.py)


def jid(r) -> str:
    assert r.rc == 0, r.text
    return re.search(r"<(\d+)>", r.out).group(1)


def test_bsub_app_takes_the_profile_limits(lsf_cluster):
    c = lsf_cluster  # lsfemu init's lsb.applications: fluent (RUNLIMIT 120, MEMLIMIT 4096 MB), short (RUNLIMIT 10)
    fluent = jid(c.run("bsub -app fluent sleep 3600", user="user1"))
    own = jid(c.run("bsub -app fluent -W 30 -M 100 sleep 60", user="user1"))
    short = jid(c.run("bsub -app short sleep 3600", user="user1"))
    long1 = c.run(f"bjobs -l {fluent}").out
    assert long1.startswith(f"\nJob <{fluent}>, User <user1>, Project <default>, Application <fluent>, Status <PEND>")
    assert "\n RUNLIMIT                \n 120.0 min\n\n MEMLIMIT\n      4 G \n" in long1
    assert "\n RUNLIMIT                \n 30.0 min\n\n MEMLIMIT\n    100 M \n" in c.run(f"bjobs -l {own}").out
    assert c.run(f"bjobs -noheader -o 'jobid app' {fluent} {short}").out == f"{fluent} fluent\n{short} short\n"
    # the profile's run limit ends the job, as -W would
    c.advance("12m")
    assert c.run(f"bjobs -noheader -o 'stat exit_reason' {short}").out == (
        "EXIT TERM_RUNLIMIT: job killed after reaching LSF run time limit\n")
    assert c.run(f"bjobs -noheader -o stat {fluent}").out == "RUN\n"
    r = c.run("bsub -app nosuch sleep 1", user="user1")
    assert (r.out, r.err, r.rc) == ("", "nosuch: No such application. Job not submitted.\n", 255)


def test_app_selects_jobs_and_bapp_counts_them(lsf_cluster):
    c = lsf_cluster
    assert c.run("bapp").out == (
        "APPLICATION_NAME      NJOBS   PEND    RUN   SUSP\n"
        "fluent                    0      0      0      0\n"
        "short                     0      0      0      0\n")
    a = jid(c.run("bsub -app fluent -n 2 sleep 600", user="user1"))
    b = jid(c.run("bsub -app fluent sleep 600", user="user1"))
    s = jid(c.run("bsub -app short sleep 300", user="user1"))
    jid(c.run("bsub sleep 600", user="user1"))
    c.advance("30s")
    assert c.run("bjobs -noheader -o jobid -app fluent", user="user1").out.split() == [a, b]
    assert c.run("bjobs -app nosuch", user="user1").err == "nosuch: No such application\n"
    r = c.run("bstop -app fluent 0", user="user1")
    assert r.out == f"Job <{a}> is being stopped\nJob <{b}> is being stopped\n"
    assert c.run("bapp fluent short").out == (
        "APPLICATION_NAME      NJOBS   PEND    RUN   SUSP\n"
        "fluent                    3      0      0      3\n"
        "short                     1      0      1      0\n")
    assert c.run(f"bresume -app fluent {b}", user="user1").out == f"Job <{b}> is being resumed\n"
    assert c.run("bapp -l fluent").out == (
        "\nAPPLICATION NAME: fluent\n"
        " -- Fluent runs: two hours and 4 GB at most\n\n"
        "STATISTICS:\n"
        "   NJOBS     PEND      RUN    SSUSP    USUSP      RSV\n"
        "       3        0        1        0        2        0\n\n"
        "PARAMETERS:\n\n"
        " RUNLIMIT                \n 120.0 min\n\n"
        " MEMLIMIT\n      4 G \n")
    r = c.run("bkill -app short 0", user="user1")
    assert r.out == f"Job <{s}> is being terminated\n"
    assert c.run("bkill -app nosuch 0", user="user1").err == "nosuch: No such application\n"
    assert c.run("bapp nosuch").err == "nosuch: No such application\n"


def test_no_lsb_applications(lsf_cluster):
    c = lsf_cluster
    c.path_of("lsb.applications").unlink()
    c.run("badmin reconfig", user="lsfadmin")
    r = c.run("bapp")
    assert (r.out, r.err, r.rc) == ("", "No application profiles found\n", 255)
    assert c.run("bsub -app fluent sleep 1", user="user1").err == "fluent: No such application. Job not submitted.\n"


def test_bapp_w_shows_long_names_whole(lsf_cluster):
    c = lsf_cluster
    c.write("lsb.applications", "Begin Application\nNAME = a_profile_with_a_long_name\nEnd Application\n")
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    assert c.run("bapp").out.splitlines()[1] == "a_profile_with_a_lo       0      0      0      0"
    assert c.run("bapp -w").out.splitlines()[1] == "a_profile_with_a_long_name      0      0      0      0"
    assert " -- No description provided.\n" in c.run("bapp -l").out


def test_bmod_app_changes_the_profile(lsf_cluster):
    c = lsf_cluster
    j = jid(c.run("bsub -app fluent sleep 600", user="user1"))
    r = c.run(f"bmod -app short {j}", user="user1")
    assert (r.out, r.rc) == (f"Parameters of job <{j}> are being changed\n", 0)
    assert c.run(f"bjobs -noheader -o app {j}").out == "short\n"
    assert c.run("bjobs -noheader -o jobid -app short", user="user1").out == f"{j}\n"
    assert c.run(f"bmod -appn {j}", user="user1").rc == 0
    assert ", Application <" not in c.run(f"bjobs -l {j}").out
    hist = c.run(f"bhist -l {j}").out
    assert "   Application profile changes to : short;\n" in hist
    assert "   Application profile changes to default;\n" in hist
    r = c.run(f"bmod -app nosuch {j}", user="user1")
    assert (r.err, r.rc) == ("nosuch: No such application. Job not modified.\n", 255)
    r = c.run(f"bmod -app short -appn {j}", user="user1")
    assert r.rc == 255 and c.run(f"bjobs -noheader -o app {j}").out == "-\n"
