"""bhist -T, -m, -N, -P, -G, -app, -Jd, -Lp and -n min,max (LSF 10.1's bhist; OpenLava's
bhist.c for the messages) on event logs written the way the daemon writes
them, run in-process (the helpers of tests/e2e/test_bhist.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from lsfemu.events import lsbatch
from lsfemu.events.log import EventWriter
from lsfemu.events.records import JobNew
from tests.e2e.test_bhist import NOW, T0, Log, Stand, bhist, build, ids


@pytest.fixture(autouse=True)
def _utc(utc):
    """The texts are in UTC (see tests/conftest.py)."""


class Site(Stand):
    """A Stand whose configuration knows hosts, a host group and host models."""

    def __init__(self, home: Path, now: float = NOW):
        super().__init__(home, now)
        self.config.cluster_hosts = [SimpleNamespace(name=h, model=m)
                                     for h, m in (("h1", "FAST"), ("h2", "SLOW"), ("h3", "SLOW"))]
        self.config.host_groups = {"slowhosts": ["h2", "h3"]}
        self.config.shared = SimpleNamespace(host_models={"FAST": (4.0, "X86_64"), "SLOW": (1.0, "X86_64")})


@pytest.fixture
def home(tmp_path: Path) -> Path:
    build(tmp_path)
    return tmp_path


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    """Jobs of two projects and user groups; 502 ran on a host of CPU factor 2."""
    w = EventWriter(tmp_path / "logdir" / "lsb.events")
    log = Log(w)
    log.submit(501, T0, project="proj_a", user_group="chem")
    log.submit(502, T0 + 1, user="bob", project="proj_b", user_group="chem")
    log.submit(503, T0 + 2, user="bob", project="proj_a")
    log.ev(502, "START", T0 + 10, None, state="RUN", hosts=["h1"], host_factor=2.0)
    log.ev(502, "FINISH", T0 + 70, None, state="DONE", cpu=10.0, status="DONE")
    w.close()
    return tmp_path


def test_hosts(home):
    cl = Site(home)
    r = bhist(home, "-a", "-m", "h1", cluster=cl)
    assert (r.rc, r.err) == (0, "")
    assert ids(r.out) == ["201"]
    r = bhist(home, "-u", "all", "-a", "-m", "slowhosts", cluster=cl)  # a host group: its members
    assert ids(r.out) == ["202", "204"]
    r = bhist(home, "-u", "all", "-a", "-m", "h3 nosuch", cluster=cl)  # OpenLava warns and goes on
    assert (ids(r.out), r.err) == (["204"], "Warning: <nosuch> is not a valid hostname\n")
    r = bhist(home, "-a", "-m", "h9", cluster=cl)
    assert (r.out, r.rc) == ("No matching job found\n", 255)
    # the pending job 203 never ran anywhere; job IDs drop -m
    assert ids(bhist(home, "-m", "h1", "203").out) == ["203"]


def test_projects_and_user_groups(projects):
    r = bhist(projects, "-P", "proj_a", "-u", "all")
    assert (r.rc, r.err) == (0, "")
    assert ids(r.out) == ["501", "503"]
    assert ids(bhist(projects, "-P", "proj_b", "-a", "-u", "all").out) == ["502"]
    # -P stays with job IDs (OpenLava's skip_jobRecord)
    assert bhist(projects, "-P", "proj_b", "501").out == "No matching job found\n"
    # -G: jobs submitted with bsub -G, whoever submitted them
    assert ids(bhist(projects, "-a", "-G", "chem").out) == ["501", "502"]
    assert ids(bhist(projects, "-a", "-G", "chem", "-u", "bob").out) == ["502"]
    assert bhist(projects, "-G", "physics").rc == 255


def test_app_and_description_follow_bmod(tmp_path):
    """-app / -Jd keep the jobs whose profile / description is that one once
    the log's bmod changes (JOB_MODIFY2's -app, -appn, -Jd, -Jdn) are applied."""
    w = EventWriter(tmp_path / "logdir" / "lsb.events")
    log = Log(w)
    log.submit(601, T0, app_profile="fluent", description="mesh run 1")
    log.submit(602, T0 + 1, app_profile="fluent", description="mesh run 2")
    log.submit(603, T0 + 2, description="solve")
    log.ev(602, "MODIFY", T0 + 5, "alice", app="short", description="solve again")
    log.ev(601, "MODIFY", T0 + 6, "alice", description="")  # bmod -Jdn
    log.ev(603, "MODIFY", T0 + 7, "alice", app="fluent")
    w.close()
    r = bhist(tmp_path, "-app", "fluent")
    assert (r.rc, r.err) == (0, "")
    assert ids(r.out) == ["601", "603"]
    assert ids(bhist(tmp_path, "-app", "short").out) == ["602"]
    assert ids(bhist(tmp_path, "-Jd", "solve*").out) == ["602", "603"]
    assert ids(bhist(tmp_path, "-Jd", "solve").out) == ["603"]
    assert ids(bhist(tmp_path, "-Jd", "*", "-app", "fluent").out) == ["603"]  # 601's was removed
    assert {line.split(", ")[0][21:] for line in bhist(tmp_path, "-t", "-app", "short").out.splitlines()} \
        == {"Job <602>"}  # -t: the selection too
    assert bhist(tmp_path, "-Jd", "mesh*").out == "No matching job found\n"
    assert bhist(tmp_path, "-app", "fluent", "602").rc == 0  # job IDs drop the filters


def test_license_project_of_a_real_logs_jobs(tmp_path):
    """-Lp: JOB_NEW's licenseProject (bsub -Lp of a real LSF log; lsfemu's own jobs have none)."""
    w = EventWriter(tmp_path / "logdir" / "lsb.events")
    Log(w).submit(801, T0)
    for jid, project in ((802, "lic_a"), (803, "lic_b")):
        w.write(JobNew(event_time=T0 + 1, job_id=jid, user_id=1001, user_name="alice", submit_time=T0 + 1,
                       queue="normal", from_host="login1", cwd="/home/alice", command="sleep 1",
                       options2=lsbatch.SUB2_LICENSE_PROJECT, license_project=project))
    w.close()
    assert ids(bhist(tmp_path).out) == ["801", "802", "803"]
    r = bhist(tmp_path, "-Lp", "lic_a")
    assert (ids(r.out), r.err) == (["802"], "")
    assert ids(bhist(None, "-Lp", "lic_b", "-f", str(tmp_path / "logdir" / "lsb.events")).out) == ["803"]  # no cluster
    assert bhist(tmp_path, "-Lp", "lic_c").out == "No matching job found\n"


def test_normalized_cpu_time(projects):
    cl = Site(projects)
    done = "Done successfully. The CPU time used is {} seconds;"
    assert done.format("10.0") in bhist(projects, "-l", "502").out
    # 10 s on a host of factor 2, shown for a host of factor 4 (h1's model), for FAST, for 0.5
    assert done.format("5.0") in bhist(projects, "-l", "-N", "h1", "502", cluster=cl).out
    assert done.format("5.0") in bhist(projects, "-l", "-N", "FAST", "502", cluster=cl).out
    assert done.format("40.0") in bhist(projects, "-l", "-N", "0.5", "502").out
    assert "Job <502>, done successfully. The CPU time used is 20.0 seconds;" in \
        bhist(projects, "-t", "-N", "1", "-u", "bob").out  # -t too
    r = bhist(projects, "-N", "bogus", "-a")
    assert (r.out, r.err, r.rc) == ("", "<bogus> neither a host model, nor a host name, nor a CPU factor.\n", 255)
    r = bhist(projects, "-N", "0", "-a")
    assert r.rc == 255 and r.err.startswith("<0> neither")


def test_chronicle_time_window(home):
    r = bhist(home, "-t", "-T", "9:01,9:01", "-u", "bob")
    assert (r.rc, r.err) == (0, "")
    assert [line[:36] for line in r.out.splitlines()] == [
        "Tue Mar  5 09:01:00: Job <204>, disp",
        "Tue Mar  5 09:01:00: Job <204>, star",
        "Tue Mar  5 09:01:00: Job <204>, runn",
        "Tue Mar  5 09:01:10: Job <204>, sign",
        "Tue Mar  5 09:01:10: Job <204>, susp",
    ]
    r = bhist(home, "-t", "-T", "3/4")
    assert (r.out, r.rc) == ("No matching job/event found\n", 255)
    r = bhist(home, "-t", "-T", "x")
    assert (r.out, r.err, r.rc) == ("", "x: Bad time specification\n", 255)


def test_time_window_builds_histories_from_its_records(home):
    # only the records from 09:02 on: 201's finish; the
    # jobs submitted before are unknown to bhist then (OpenLava: records outside
    # the search time are not parsed)
    r = bhist(home, "-a", "-T", "9:02,")
    assert (r.out, r.rc) == ("No matching job found\n", 255)
    r = bhist(home, "-a", "-T", "9:00,")
    assert (r.rc, ids(r.out)) == (0, ["201", "202", "205"])


def test_range_of_files(home):
    assert ids(bhist(home, "-a", "-n", "1,1").out) == ["150", "203"]  # lsb.events.1 only
    assert ids(bhist(home, "-a", "-n", "0,0").out) == ["203", "201", "202", "205"]  # lsb.events alone, its head
    assert ids(bhist(home, "-a", "-n", "0,3").out) == ["150", "203", "201", "202", "205"]
    for arg, msg in (("2,1", "The value of min_logfile should not exceed the value of max_logfile"),
                     ("a,1", "The numbers of both event log files must be positive integers."),
                     ("1,", "The numbers of both event log files must be positive integers."),
                     ("-1", "The number of event log files must be a positive integer.")):
        r = bhist(home, "-n", arg)
        assert (r.out, r.err, r.rc) == ("", f"bhist: {msg}\n", 255), arg
