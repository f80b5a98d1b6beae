"""Resource allocation limits (issue 19, part 4): lsb.resources Limit
sections held by the scheduler, with IBM's worked examples (LSF 10.1 "How
resource allocation limits work", "Limit conflicts", lsb.resources(5)), the
pending reasons LSF prints, blimits and blimits -c, and badmin reconfig."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsfemu.config.sample import init_files

pytestmark = pytest.mark.slow(45)  # seconds, quiet machine (nine clusters)

GOLDEN = Path(__file__).parents[1] / "render" / "golden"


def L(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def stats(c, *ids) -> list[str]:
    rows = dict(ln.split() for ln in c.run(["bjobs", "-u", "all", "-a", "-noheader", "-o", "jobid stat",
                                             *map(str, ids)]).out.splitlines())
    return [rows[str(i)] for i in ids]


def reasons(c, job: int) -> list[str]:
    """The pending reasons bjobs -p prints under the job's line."""
    return c.run(f"bjobs -p {job}").out.splitlines()[2:]


def limited(factory, *body: str):
    """A cluster whose lsb.resources holds one horizontal Limit section of *body*."""
    return factory(files={"lsb.resources": L("Begin Limit", *body, "End Limit")})


def four_and_one(c, fifth: str, user: str) -> None:
    """Four `bsub sleep 600` of user1, then *fifth* as *user*, then a pass."""
    for _ in range(4):
        assert c.run("bsub sleep 600", user="user1").rc == 0
    assert c.run(fifth, user=user).rc == 0
    c.advance("30s")


def hosts_of(c, *ids) -> list[str]:
    rows = dict(ln.split(None, 1) for ln in c.run(["bjobs", "-u", "all", "-noheader", "-o", "jobid exec_host",
                                                    *map(str, ids)]).out.splitlines())
    return [rows[str(i)].strip() for i in ids]


def test_mem_limit_holds_only_jobs_that_reserve_mem(lsf_cluster_factory):
    """IBM's example: MEM = 4 cluster-wide; rusage[mem=5] pends with
    `Resource (mem) limit defined cluster-wide has been reached`, rusage[mem=3]
    runs, a job that reserves no memory is not limited. blimits: the golden
    blimits_mem_limit1.txt (the table of lsf-breadth 8.3 with lsfemu's widths)."""
    c = limited(lsf_cluster_factory, "NAME = mem_limit1", "MEM = 4")
    assert c.run("blimits").out == "No resource usage found.\n"
    assert c.run(["bsub", "-R", "rusage[mem=5]", "uname"], user="user1").rc == 0
    assert c.run(["bsub", "-R", "rusage[mem=3]", "sleep", "100"], user="user1").rc == 0
    assert c.run(["bsub", "-R", "rusage[mem=2]", "sleep", "100"], user="user2").rc == 0
    assert c.run(["bsub", "sleep", "100"], user="user2").rc == 0
    c.advance("30s")
    assert stats(c, 1, 2, 3, 4) == ["PEND", "RUN", "PEND", "RUN"]
    assert reasons(c, 1) == [" Resource (mem) limit defined cluster-wide has been reached;"]
    assert reasons(c, 3) == [" Resource (mem) limit defined cluster-wide has been reached;"]
    assert c.run("blimits").out == (GOLDEN / "blimits_mem_limit1.txt").read_text()
    c.advance("2m")  # job 2 ends: 2 MB fit now, 5 never will
    assert stats(c, 1, 3) == ["PEND", "RUN"]


def test_users_all_slots_then_reconfig(lsf_cluster_factory):
    """"Limit conflicts": USERS = all, SLOTS = 3 holds every user together
    (user1's MAX_JOBS of lsb.users is 8: the limit is the stricter); badmin
    reconfig reads lsb.resources again."""
    c = limited(lsf_cluster_factory, "NAME = user_limit1", "USERS = all", "SLOTS = 3")
    for _ in range(3):
        assert c.run("bsub sleep 600", user="user1").rc == 0
    assert c.run("bsub sleep 600", user="user2").rc == 0
    c.advance("30s")
    assert stats(c, 1, 2, 3, 4) == ["RUN", "RUN", "RUN", "PEND"]
    assert reasons(c, 4) == [" Resource (slot) limit defined on user or user group has been reached;"]
    out = c.run("blimits -u user2").out.splitlines()
    assert out[3].split() == ["user_limit1", "all", "-", "-", "-", "3/3", "-", "-", "-", "-"]
    c.write("lsb.resources", L("Begin Limit", "NAME = user_limit1", "USERS = all ~user2", "SLOTS = 3", "End Limit"))
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    c.advance("30s")
    assert stats(c, 4) == ["RUN"]  # user2 excluded now
    assert c.run("blimits -u user2").out == "No resource usage found.\n"
    assert c.run("blimits -c").out == L("Begin Limit", "NAME = user_limit1", "USERS = all ~user2", "SLOTS = 3",
                                        "End Limit")


def test_queue_per_host_slots_and_the_host_count(lsf_cluster_factory):
    """QUEUES = normal, PER_HOST = all, SLOTS = 1 (HJOB_LIMIT's equivalent in
    lsb.resources): one normal job a host; the fourth pends with the host
    text and its host count; the other queue is not limited."""
    c = limited(lsf_cluster_factory, "NAME = qhost", "QUEUES = normal", "PER_HOST = all", "SLOTS = 1")
    four_and_one(c, "bsub -q priority -n 2 sleep 600", "user1")
    assert stats(c, 1, 2, 3, 4, 5) == ["RUN", "RUN", "RUN", "PEND", "RUN"]
    assert hosts_of(c, 1, 2, 3, 5) == ["hostA", "hostB", "hostC", "hostA:hostA"]
    assert reasons(c, 4) == [" Resource (slot) limit defined on host and/or host group has been reached: 3 hosts;"]
    rows = [ln.split() for ln in c.run("blimits -m hostB").out.splitlines()[3:]]
    assert rows == [["qhost", "-", "normal", "hostB", "-", "1/1", "-", "-", "-", "-"]]


def test_per_user_host_limit_holds_one_user_only(lsf_cluster_factory):
    """A host limit of one user does not keep another user's job of the same
    queue and size off the hosts (the pass's per-(queue, slots) memory of the
    hosts' answer is not used for such jobs)."""
    c = limited(lsf_cluster_factory, "NAME = u1", "USERS = user1", "PER_HOST = all", "SLOTS = 1")
    four_and_one(c, "bsub sleep 600", "user2")
    assert stats(c, 1, 2, 3, 4, 5) == ["RUN", "RUN", "RUN", "PEND", "RUN"]


def test_project_jobs_limit(lsf_cluster_factory):
    """PROJECTS = proj1, JOBS = 1: a second proj1 job pends with LSF's JOBS
    text, the same user's proj2 job of the same queue and size runs (the
    pass does not carry a refusal from one project to the other)."""
    c = limited(lsf_cluster_factory, "NAME = p1", "PROJECTS = proj1", "JOBS = 1")
    for proj in ("proj1", "proj1", "proj2"):
        assert c.run(f"bsub -P {proj} sleep 600", user="user1").rc == 0
    c.advance("30s")
    assert stats(c, 1, 2, 3) == ["RUN", "PEND", "RUN"]
    assert reasons(c, 2) == [" JOBS limit defined for the project has been reached;"]
    rows = [ln.split() for ln in c.run("blimits -P proj1").out.splitlines()[3:]]
    assert rows == [["p1", "-", "-", "-", "proj1", "-", "-", "-", "-", "1/1"]]
    assert c.run("blimits -P proj2").out == "No resource usage found.\n"
    c.run("bkill 1", user="user1")
    c.advance("30s")
    assert stats(c, 2) == ["RUN"]


def test_vertical_tabular_form_with_a_host_and_a_queue(lsf_cluster_factory):
    """lsb.resources(5)'s vertical tabular example: limit1 holds user1 and
    user3 together to 2 slots on hostA (bsub -m hostA: the third waits on it);
    the unnamed rows are NONAME000, NONAME001; blimits -a shows every limit,
    -n selects by name, -w shows names whole; -c prints each row as a
    horizontal section."""
    c = lsf_cluster_factory(files={"lsb.resources": L(
        "Begin Limit",
        "NAME USERS QUEUES HOSTS SLOTS MEM SWP TMP JOBS",
        "limit1 (user1 user3) - hostA 2 - - - -",
        "- user2 normal - - 20 - - -",
        "- - priority - - - - - 200",
        "End Limit")})
    for user in ("user1", "user3", "user1"):
        assert c.run(["bsub", "-m", "hostA", "sleep", "600"], user=user).rc == 0
    c.advance("30s")
    assert stats(c, 1, 2, 3) == ["RUN", "RUN", "PEND"]
    assert reasons(c, 3) == [" Not specified in job submission: 2 hosts;",
                             " Resource (slot) limit defined on host and/or host group has been reached: 1 host;"]
    rows = [ln.split() for ln in c.run("blimits -a").out.splitlines()[3:]]
    assert rows == [["limit1", "(user1", "user3)", "-", "hostA", "-", "2/2", "-", "-", "-", "-"],
                    ["NONAME000", "user2", "normal", "-", "-", "-", "-", "-", "-", "-"],
                    ["NONAME001", "-", "priority", "-", "-", "-", "-", "-", "-", "-"]]
    assert [ln.split()[0] for ln in c.run("blimits -a -n NONAME001").out.splitlines()[3:]] == ["NONAME001"]
    assert c.run("blimits -c -n NONAME000").out == L(
        "Begin Limit", "NAME = NONAME000", "USERS = user2", "QUEUES = normal", "MEM = 20", "End Limit")
    assert c.run("blimits -q priority").out == "No resource usage found.\n"


def test_mem_percentage_of_each_host(lsf_cluster_factory):
    """IBM's "View information about resource allocation limits": maxmem 249
    MB, MEM limited to 10% of it on the host, 10 MB used: blimits shows 10/25
    (both in MB). A job that would pass the 10% waits on that host."""
    cluster = init_files()["lsf.cluster.cluster1"].replace("hostA     !        !        1       4      16G",
                                                           "hostA     !        !        1       4      249")
    c = lsf_cluster_factory(files={"lsf.cluster.cluster1": cluster, "lsb.resources": L(
        "Begin Limit", "NAME = mem10", "PER_HOST = hostA", "MEM = 10%", "End Limit")})
    assert c.run(["bsub", "-m", "hostA", "-R", "rusage[mem=10]", "sleep", "600"], user="user1").rc == 0
    assert c.run(["bsub", "-m", "hostA", "-R", "rusage[mem=20]", "sleep", "600"], user="user1").rc == 0
    assert c.run(["bsub", "-R", "rusage[mem=20]", "sleep", "600"], user="user1").rc == 0
    c.advance("30s")
    assert stats(c, 1, 2, 3) == ["RUN", "PEND", "RUN"]
    assert hosts_of(c, 1, 3) == ["hostA", "hostB"]
    assert reasons(c, 2) == [" Not specified in job submission: 2 hosts;",
                             " Resource (mem) limit defined on host and/or host group has been reached: 1 host;"]
    rows = [ln.split() for ln in c.run("blimits").out.splitlines()[3:]]
    assert rows == [["mem10", "-", "-", "hostA", "-", "-", "10/25", "-", "-", "-"]]


def test_slots_per_processor_of_a_user_group_but_one(lsf_cluster_factory):
    """lsb.resources(5)'s example, on one host: a group except one user gets 2
    slots per processor on each host (hostA: 4 CPUs, MXJ 10 here: 8 slots);
    the excluded user is not held."""
    c = lsf_cluster_factory(files={
        "lsb.hosts": L("Begin Host", "HOST_NAME MXJ JL/U", "hostA 10 ()", "hostB 4 ()", "hostC 4 ()", "End Host"),
        "lsb.resources": L("Begin Limit", "NAME = limit1", "SLOTS_PER_PROCESSOR = 2", "QUEUES = normal priority",
                           "USERS = research ~user1", "PER_HOST = hostA", "End Limit")})
    for _ in range(9):
        assert c.run("bsub -m hostA sleep 600", user="user2").rc == 0
    assert c.run("bsub -m hostA sleep 600", user="user1").rc == 0
    c.advance("30s")
    assert stats(c, *range(1, 11)) == ["RUN"] * 8 + ["PEND", "RUN"]
    assert reasons(c, 9)[-1] == " Resource (slot) limit defined on host and/or host group has been reached: 1 host;"
    rows = [ln.split() for ln in c.run("blimits -w -m hostA").out.splitlines()[3:]]
    assert rows == [["limit1", "(research", "~user1)", "(normal", "priority)", "hostA", "-", "8/8", "-", "-", "-",
                     "-"]]


def test_blimits_w_shows_long_names_whole(lsf_cluster_factory):
    c = limited(lsf_cluster_factory, "NAME = a_rather_long_limit_name", "PER_APP = all", "SLOTS = 5")
    assert c.run("bsub -app fluent sleep 600", user="user1").rc == 0
    c.advance("30s")
    short = c.run("blimits").out.splitlines()
    assert short[2].split() == ["NAME", "USERS", "QUEUES", "HOSTS", "PROJECTS", "APPS", "SLOTS", "MEM", "TMP",
                                "SWP", "JOBS"]
    assert short[3].split()[0] == "a_rather_long_*"
    wide = c.run("blimits -w -A fluent").out.splitlines()
    assert wide[3].split() == ["a_rather_long_limit_name", "-", "-", "-", "-", "fluent", "1/5", "-", "-", "-", "-"]
    assert c.run("blimits -A short").out == "No resource usage found.\n"



def test_mem_limit_counts_the_queues_res_req(lsf_cluster_factory):
    """A queue's RES_REQ rusage is part of its jobs' requirement (merged with
    -R, as placement reads it): it counts against a MEM limit like -R's."""
    queues = ("Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n\n"
              "Begin Queue\nQUEUE_NAME = memq\nPRIORITY = 30\nRES_REQ = rusage[mem=3]\nEnd Queue\n")
    c = lsf_cluster_factory(files={"lsb.queues": queues,
                                   "lsb.resources": L("Begin Limit", "NAME = m4", "MEM = 4", "End Limit")})
    assert c.run("bsub -q memq sleep 600", user="user1").rc == 0
    assert c.run("bsub -q memq sleep 600", user="user1").rc == 0
    c.advance("30s")
    assert stats(c, 1, 2) == ["RUN", "PEND"]
    assert reasons(c, 2) == [" Resource (mem) limit defined cluster-wide has been reached;"]


def test_jl_u_and_max_pend_jobs_through_the_commands(lsf_cluster_factory):
    """lsb.hosts JL/U and lsb.users MAX_PEND_JOBS (docs/semantics.md "lsb.users
    JL/P and MAX_PEND_JOBS, lsb.hosts JL/U act"): bjobs -p's host-based reason;
    bsub's refusal (OpenLava cmd.sub.c: `User <name>: Pending job threshold
    reached. Job not submitted.`, exit 255), a job array counting its
    elements, each line of a -pack; busers -w's PJOBS and MPJOBS."""
    c = lsf_cluster_factory(files={
        "lsb.hosts": L("Begin Host", "HOST_NAME MXJ JL/U", "hostA 4 1", "default 4 1", "End Host"),
        "lsb.users": L("Begin UserGroup", "GROUP_NAME GROUP_MEMBER", "research (user1 user2)", "End UserGroup",
                       "Begin User", "USER_NAME MAX_JOBS JL/P MAX_PEND_JOBS", "user1 8 - 4", "default 12 - -",
                       "End User")})
    with open(c.path_of("lsf.conf"), "a") as f:
        f.write("LSB_MAX_PACK_JOBS=10\n")
    for _ in range(4):  # (no pass between them: 4 pending, the limit)
        assert c.run("bsub sleep 600", user="user1").rc == 0
    assert c.run("bsub sleep 600", user="user2").rc == 0
    c.advance("30s")
    assert stats(c, 1, 2, 3, 4, 5) == ["RUN", "RUN", "RUN", "PEND", "RUN"]  # user2: its own slot on hostA
    assert reasons(c, 4) == [" Host's per-user job slot limit reached: 3 hosts;"]
    refused = "User <user1>: Pending job threshold reached. Job not submitted.\n"
    r = c.run(["bsub", "-J", "a[1-4]", "sleep", "1"], user="user1")  # 1 pending + 4 elements > 4
    assert (r.rc, r.out, r.err) == (255, "", refused)
    (c.root / "userhome" / "pack.txt").write_text("sleep 1\nsleep 2\nsleep 3\nsleep 4\n")
    r = c.run(["bsub", "-pack", "pack.txt"], user="user1")  # three lines make 4 pending: the fourth is refused
    assert r.rc == 255 and len(r.out.splitlines()) == 3 and r.err == refused, r.text
    assert stats(c, 6, 7, 8) == ["PEND"] * 3
    assert c.run("bsub sleep 1", user="user2").rc == 0  # another user, no limit
    assert c.run("busers -w user1").out.splitlines()[1].split()[9:12] == ["-", "4", "4"]
    assert c.run("bkill 6", user="user1").rc == 0
    assert c.run("bsub sleep 1", user="user1").rc == 0  # 3 pending again: room for one
