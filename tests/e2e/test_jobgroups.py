"""Job groups (issue 18, part 5): bgadd, bgmod, bgdel, bjgroup, bsub -g (the
group and its parents made on the fly), bjobs -g, bkill/bstop/bresume -g, and
the group's job limit held by the scheduler with LSF's pending reason."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow(25)  # seconds, quiet machine: scheduled early (tests/conftest.py)

GOLDEN = Path(__file__).parents[1] / "render" / "golden"


def stats(c, *ids) -> list[str]:
    """The jobs' states, in the order of `ids` (bjobs lists started jobs first)."""
    rows = dict(ln.split() for ln in c.run(["bjobs", "-a", "-noheader", "-o", "jobid stat", *map(str, ids)]).out.splitlines())
    return [rows[str(i)] for i in ids]


def test_bjgroup_is_lsf_sample(lsf_cluster):
    """The bjgroup(1) sample of LSF 10.1 (golden bjgroup_doc.txt: the English
    page's first table, verbatim), made with the groups it shows."""
    c = lsf_cluster
    r = c.run("bgadd -L 10 /A", user="user1")
    assert (r.out, r.err, r.rc) == ("Job group </A> was added.\n", "", 0)
    assert c.run("bgadd /X", user="user2").rc == 0
    assert c.run("bgadd -L 5 /A/B", user="user1").rc == 0
    assert c.run("bgadd -L5 /X/Y", user="user2").rc == 0
    assert c.run("bjgroup").out == (GOLDEN / "bjgroup_doc.txt").read_text()
    # -s: the hierarchy; a group and its subgroups; a trailing / for the group alone
    names = [ln.split()[0] for ln in c.run("bjgroup -s").out.splitlines()[1:]]
    assert names == ["/A", "/A/B", "/X", "/X/Y"]
    assert [ln.split()[0] for ln in c.run("bjgroup -s /X").out.splitlines()[1:]] == ["/X", "/X/Y"]
    assert [ln.split()[0] for ln in c.run("bjgroup -s /X/").out.splitlines()[1:]] == ["/X"]
    # the groups outlive the daemon (the store's job_groups table)
    c.run("lsfemu daemon stop")
    assert c.run("bjgroup").out == (GOLDEN / "bjgroup_doc.txt").read_text()


def test_bsub_g_makes_groups_and_the_limit_holds(lsf_cluster):
    c = lsf_cluster
    assert c.run("bgadd -L 2 /lim", user="user1").rc == 0
    for _ in range(4):
        assert c.run("bsub -g /lim/sub sleep 600", user="user1").rc == 0
    assert c.run("bsub -g /free sleep 600", user="user1").rc == 0
    c.advance("30s")
    # the limit of /lim counts its subgroup's started jobs, one per job
    assert stats(c, 1, 2, 3, 4, 5) == ["RUN", "RUN", "PEND", "PEND", "RUN"]
    assert "The specified job group has reached its job limit" in c.run("bjobs -p 3").out
    assert ", Job Group </lim/sub>, " in c.run("bjobs -l 1").out.replace("\n                     ", "")
    assert c.run("bjobs -noheader -o 'jobid job_group' 1 5").out == "1 /lim/sub\n5 /free\n"
    table = c.run("bjgroup").out.splitlines()
    assert table[1:] == [
        "/lim               4       2       2      0      0      0       ()       2/2  user1",
        "/lim/sub           4       2       2      0      0      0       ()       2/-  user1",
        "/free              1       0       1      0      0      0       ()       1/-  user1",
    ]
    # bgmod raises the limit: one more starts; -Ln removes it: all start
    r = c.run("bgmod -L 3 /lim", user="user1")
    assert (r.out, r.rc) == ("Job group /lim is modified.\n", 0)
    c.advance("30s")
    assert stats(c, 1, 2, 3, 4) == ["RUN", "RUN", "RUN", "PEND"]
    assert c.run("bgmod -Ln /lim", user="user1").rc == 0
    c.advance("30s")
    assert stats(c, 1, 2, 3, 4) == ["RUN"] * 4
    # a limit of 0: nothing more starts
    assert c.run("bgadd -L 0 /zero", user="user1").rc == 0
    assert c.run("bsub -g /zero sleep 1", user="user1").rc == 0
    c.advance("30s")
    assert stats(c, 6) == ["PEND"]


def test_g_selects_jobs_in_bjobs_bkill_bstop_bresume(lsf_cluster):
    c = lsf_cluster
    for g in ("/a", "/a", "/a/b", "/c"):
        assert c.run(["bsub", "-g", g, "sleep", "600"], user="user1").rc == 0
    c.advance("30s")
    # bjobs -g: the group's jobs and its subgroups'
    assert c.run("bjobs -noheader -o jobid -g /a", user="user1").out.split() == ["1", "2", "3"]
    assert c.run("bjobs -noheader -o jobid -g /a/b", user="user1").out.split() == ["3"]
    assert c.run("bjobs -g /nosuch").err == "/nosuch: Job group does not exist\n"
    # bstop/bresume/bkill -g: the group's own jobs only (bkill(1): not lower-level groups)
    r = c.run("bstop -g /a 0", user="user1")
    assert r.out == "Job <1> is being stopped\nJob <2> is being stopped\n"
    assert stats(c, 1, 2, 3, 4) == ["USUSP", "USUSP", "RUN", "RUN"]
    r = c.run("bresume -g /a 2", user="user1")
    assert r.out == "Job <2> is being resumed\n"
    r = c.run("bkill -g /a 3", user="user1")  # job 3 is in /a/b
    assert (r.err, r.rc) == ("Job <3>: No matching job found\n", 255)
    r = c.run("bkill -g /a 0", user="user1")
    assert r.out == "Job <1> is being terminated\nJob <2> is being terminated\n"
    assert stats(c, 1, 2, 3, 4) == ["EXIT", "EXIT", "RUN", "RUN"]
    r = c.run("bkill -g /nosuch 0", user="user1")
    assert (r.err, r.rc) == ("/nosuch: Job group does not exist\n", 255)


def test_bgdel_and_who_may_change_a_group(lsf_cluster):
    c = lsf_cluster
    assert c.run("bsub -g /p/q sleep 100", user="user1").rc == 0
    r = c.run("bgdel /p", user="user2")
    assert (r.err, r.rc) == ("User permission denied\n", 255)
    r = c.run("bgmod -L 4 /p/q", user="user2")
    assert (r.err, r.rc) == ("User permission denied\n", 255)
    r = c.run("bgdel /p", user="user1")  # job 1 is unfinished in /p/q
    assert (r.err, r.rc) == ("/p: Job group contains unfinished jobs\n", 255)
    c.advance("5m")  # job 1 ends
    r = c.run("bgdel /p", user="user1")
    assert (r.out, r.rc) == ("Job group </p> was deleted.\n", 0)
    assert c.run("bjgroup").err == "No job group found\n"
    # bgdel 0: the caller's empty groups
    for g in ("/m/n", "/o"):
        assert c.run(["bgadd", g], user="user1").rc == 0
    assert c.run("bgadd /u2", user="user2").rc == 0
    r = c.run("bgdel 0", user="user1")
    assert r.out == "Job group </m> was deleted.\nJob group </o> was deleted.\nJob group </m/n> was deleted.\n"
    assert [ln.split()[0] for ln in c.run("bjgroup").out.splitlines()[1:]] == ["/u2"]
    # an administrator may delete anyone's group
    assert c.run("bgdel /u2", user="lsfadmin").rc == 0


def test_bgdel_c_and_u_and_bgmod_u(lsf_cluster):
    c = lsf_cluster
    for g in ("/t/a/x", "/t/b"):
        assert c.run(["bgadd", g], user="user1").rc == 0
    assert c.run("bsub -g /t/b sleep 600", user="user1").rc == 0
    # -c: the empty groups of the tree, the group itself when it is empty too (/t holds /t/b's job)
    r = c.run("bgdel -c /t", user="user1")
    assert r.out == "Job group </t/a> was deleted.\nJob group </t/a/x> was deleted.\n"
    assert [ln.split()[0] for ln in c.run("bjgroup").out.splitlines()[1:]] == ["/t", "/t/b"]
    # bgmod -u: the owner changes (the new owner may then change the group)
    r = c.run("bgmod -u user2 /t/b", user="user1")
    assert (r.out, r.rc) == ("Job group /t/b is modified.\n", 0)
    assert c.run("bjgroup -s /t/b/").out.splitlines()[1].endswith("  user2")
    assert c.run("bgmod -L 3 /t/b", user="user2").rc == 0
    # -u user 0 / -u all 0: administrators only
    assert c.run("bgadd /u2a", user="user2").rc == 0
    r = c.run("bgdel -u user2 0", user="user1")
    assert (r.err, r.rc) == ("User permission denied\n", 255)
    r = c.run("bgdel -u user2 0", user="lsfadmin")
    assert r.out == "Job group </u2a> was deleted.\n"  # /t/b holds a job; /t is user1's
    c.run("bkill 0", user="user1")
    r = c.run("bgdel -u all 0", user="lsfadmin")
    assert r.out == "Job group </t> was deleted.\nJob group </t/b> was deleted.\n"


def test_bmod_g_moves_a_job_between_groups(lsf_cluster):
    c = lsf_cluster
    assert c.run("bgadd -L 0 /held", user="user1").rc == 0
    assert c.run("bsub -g /held sleep 600", user="user1").rc == 0
    c.advance("30s")
    assert "The specified job group has reached its job limit" in c.run("bjobs -p 1").out
    # bmod -g: the job leaves the full group (the new one is made on the fly) and starts
    r = c.run("bmod -g /free/now 1", user="user1")
    assert (r.out, r.rc) == ("Parameters of job <1> are being changed\n", 0)
    c.advance("30s")
    assert c.run("bjobs -noheader -o 'stat job_group' 1").out == "RUN /free/now\n"
    assert c.run("bsub -g /held sleep 600", user="user1").rc == 0
    assert c.run("bmod -gn 2", user="user1").rc == 0
    assert c.run("bjobs -noheader -o job_group 2").out == "-\n"
    hist = c.run("bhist -l 1 2").out
    assert "Parameters of Job are changed:\n   Job group changes to : /free/now;\n" in hist
    assert "Parameters of Job are changed:\n   Job group changes to default;\n" in hist
    # LSF's own form: -g alone; never on one element of an array; the running job takes no -g
    r = c.run("bmod -g /x -J y 2", user="user1")
    assert (r.err, r.rc) == ("Cannot combine modify job group or service class option with others. "
                             "Job not modified.\n", 255)
    assert c.run('bsub -J "arr[1-2]" sleep 600', user="user1").rc == 0
    r = c.run('bmod -g /x "3[1]"', user="user1")
    assert r.err == "Cannot modify job group on element of job array. Job not modified.\n"
    r = c.run("bmod -g bad 2", user="user1")
    assert r.err == "bad: Bad/empty job group name. Job not modified.\n"
