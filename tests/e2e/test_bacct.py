"""bacct end to end (issue 20): lsb.acct files written record by record with
lsfemu.events.acct.format_record, read through lsfemu.cli.bacct.run as the
daemon runs it (a stand-in cluster, as tests/e2e/test_bhist.py does), through
the real command with no cluster at all (bacct -f), and through a running
daemon that ran the jobs (the records issue 20's part 1 writes). Every
option, the files, damaged lines, nothing matched, bad input."""

from __future__ import annotations

import calendar
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from lsfemu.cli import bacct as B
from lsfemu.cli.base import Ctx
from lsfemu.events.acct import JOB_STAT_DONE, JOB_STAT_EXIT, AcctRecord, Rusage, format_record

pytestmark = pytest.mark.slow(12)

ROOT = Path(__file__).resolve().parents[2]
T0 = calendar.timegm((2024, 3, 5, 9, 0, 0))  # Tue Mar  5 09:00:00 UTC
NOW = T0 + 3600


@pytest.fixture(autouse=True)
def _utc(utc):
    """Times are rendered in UTC (see tests/conftest.py)."""


def job(jid: int, user: str, queue: str, submit: int, start: int, finish: int, *, cpu: float = 0.0,
        done: bool = True, **kw) -> AcctRecord:
    return AcctRecord(job_id=jid, event_time=finish, submit_time=submit, start_time=start,
                      run_time=finish - start if start else 0, user_name=user, queue=queue,
                      j_status=JOB_STAT_DONE if done else JOB_STAT_EXIT, from_host="hostA",
                      exec_hosts=kw.pop("exec_hosts", ("hostA",) if start else ()),
                      lsf_rusage=Rusage(ru_utime=cpu, ru_stime=0.0), command=kw.pop("command", "sleep 60"), **kw)


RECORDS = [
    job(101, "alice", "normal", T0, T0 + 10, T0 + 70, cpu=5.0, ineligible_pend_time=4),
    job(102, "bob", "short", T0 + 100, 0, T0 + 160, done=False, exit_info=14, exit_status=256,
        license_project="lic1"),
    job(103, "alice", "short", T0 + 200, T0 + 200, T0 + 500, cpu=8.0, except_mask=0x02, host_factor=2.0,
        job_name="big", exec_hosts=("hostB",), project_name="proj1", app="fluent"),
    job(104, "alice", "normal", T0 + 600, T0 + 610, T0 + 620, idx=2, exec_hosts=("hostC", "hostC"), sla="gold"),
]
ARCHIVED = [job(50, "alice", "normal", T0 - 86400, T0 - 86400, T0 - 86000)]


def write(path: Path, records: list[AcctRecord], extra: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(format_record(r) + "\n" for r in records) + extra, encoding="utf-8")


class Stand:
    """What bacct needs of a Cluster: logdir, now(), config (groups, CPU factors); commit() counted."""

    def __init__(self, home: Path):
        self.logdir = str(home / "logdir")
        self.commits = 0
        self.config = SimpleNamespace(
            lsf_conf={}, user_groups={"team": SimpleNamespace(members=["alice", "bob"])},
            group_members=lambda g: {"alice", "bob"},
            cluster_hosts=[SimpleNamespace(name="hostA", model="fast")],
            host_groups={"bigs": ["hostB", "hostC"]}, host_names={"hostA", "hostB", "hostC"},
            shared=SimpleNamespace(host_models={"fast": (4.0, ""), "slow": (1.0, "")}))

    def now(self) -> float:
        return NOW

    def commit(self) -> None:
        self.commits += 1


@pytest.fixture
def home(tmp_path: Path) -> Path:
    write(tmp_path / "logdir" / "lsb.acct", RECORDS)
    write(tmp_path / "logdir" / "lsb.acct.1", ARCHIVED)
    return tmp_path


def bacct(home: Path | None, *argv: str, user: str = "alice", env=None, cwd=None):
    c = Ctx(cluster=Stand(home) if home is not None else None, cmd="bacct", argv=list(argv), user=user, uid=0,
            cwd=str(cwd or home or "/"), env=env or {})
    return B.run(c)


def ids(out: str) -> list[str]:
    """The jobs of a -l or -b output, in order."""
    return re.findall(r"^Job <([^>]+)>", out, re.M)


def counts(out: str) -> tuple[int, int]:
    m = re.search(r"Total number of done jobs: +(\d+) +Total number of exited jobs: +(\d+)", out)
    assert m, out
    return int(m.group(1)), int(m.group(2))


def test_default_is_the_callers_jobs_in_the_current_file(home):
    r = bacct(home)
    assert (r.err, r.rc) == ("", 0)
    assert r.out.startswith("Accounting information about jobs that are: \n  - submitted by users alice, \n")
    assert counts(r.out) == (3, 0)  # 101, 103, 104[2]; not bob's 102, not the archived 50
    assert "Job <" not in r.out and "\nSUMMARY:      ( time unit: second ) \n" in r.out


@pytest.mark.parametrize("argv,want", [
    (["-u", "all"], ["101", "102", "103", "104[2]"]),
    (["-u", "bob"], ["102"]),
    (["-u", "alice bob"], ["101", "102", "103", "104[2]"]),
    (["-u", "team"], ["101", "102", "103", "104[2]"]),  # a user group by its members
    (["-q", "short"], ["103"]),
    (["-q", "normal short", "-u", "all"], ["101", "102", "103", "104[2]"]),
    (["-x", "-u", "all"], ["103"]),  # exceptMask: overrun
    (["-d", "-u", "all"], ["101", "103", "104[2]"]),
    (["-e", "-u", "all"], ["102"]),
    (["-d", "-e", "-u", "all"], ["101", "102", "103", "104[2]"]),
    (["-P", "proj1"], ["103"]),
    (["-P", "default proj1", "-u", "all"], ["101", "102", "103", "104[2]"]),
    (["-m", "hostB"], ["103"]),
    (["-m", "hostA hostC"], ["101", "104[2]"]),
    (["-m", "bigs"], ["103", "104[2]"]),  # a host group by its members
    (["-m", "gone"], []),  # a host no longer in the cluster: its jobs would still be listed
    (["-M", "hostlist"], ["101", "103"]),
    (["-app", "fluent"], ["103"]),
    (["-sla", "gold"], ["104[2]"]),
    (["-Lp", "lic1 lic2", "-u", "all"], ["102"]),
    (["102"], ["102"]),  # job IDs: whoever submitted them
    (["104"], ["104[2]"]),
    (["104[2]", "101"], ["101", "104[2]"]),
    (["-q", "normal", "103", "101"], ["101"]),  # the other filters still apply
])
def test_filters(home, argv, want):
    (home / "hostlist").write_text("hostA\n  hostB\n")
    r = bacct(home, "-l", *argv)
    assert (r.err, r.rc) == ("", 0) if want else (r.out, r.rc) == ("No matching job found\n", 255), r.err
    assert ids(r.out) == want


def test_header_names_the_selection(home):
    (home / "hostlist").write_text("hostA hostB")
    r = bacct(home, "-u", "alice bob", "-q", "short")
    assert "  - submitted by users alice, bob, \n" in r.out
    assert "  - submitted to queues short, \n" in r.out
    assert "  - submitted by all users.\n" in bacct(home, "101").out  # gc3pie's `bacct 473713`
    r = bacct(home, "-P", "proj1", "-d")
    assert "  - accounted on projects proj1, \n  - completed normally\n" in r.out  # Triton's -P
    assert "  - exited\n" in bacct(home, "-e", "-u", "bob").out
    r = bacct(home, "-m", "hostB bigs", "-sla", "gold")
    assert "  - executed on hosts hostB, bigs, \n" in r.out and "  - accounted on service classes gold, \n" in r.out
    assert "  - executed on hosts hostA, hostB, \n" in bacct(home, "-M", "hostlist").out


@pytest.mark.parametrize("argv,want", [
    (["-C", "2024/3/5/09:00,2024/3/5/09:03"], ["101", "102"]),  # completed by 09:03 (102 at 09:02:40)
    (["-C", "2024/3/5/09:02,"], ["102", "103", "104[2]"]),
    (["-S", "2024/3/5/09:03,2024/3/5/09:09"], ["103"]),  # submitted 09:03:20 (104 at 09:10)
    (["-D", "2024/3/5/09:00,2024/3/5/09:09"], ["101", "103"]),  # 102 never dispatched, 104 at 09:10:10
    (["-D", "2024/3/5/09:00,2024/3/5/09:10"], ["101", "103", "104[2]"]),  # an end is its minute's last second
    (["-D", ".-1,."], ["101", "103", "104[2]"]),
])
def test_time_windows(home, argv, want):
    r = bacct(home, "-l", "-u", "all", *argv)
    assert (r.err, r.rc) == ("", 0), r.err
    assert ids(r.out) == want


def test_completion_window_is_the_throughput_period(home):
    r = bacct(home, "-u", "all", "-C", "2024/3/5/09:00,2024/3/5/09:59")
    assert ("  - completed between  Tue Mar  5 09:00:00 2024\n"
            "                  ,and   Tue Mar  5 09:59:59 2024\n") in r.out
    assert " Beginning time:       Mar  5 09:00      Ending time:          Mar  5 09:59\n" in r.out
    assert " Total throughput:             4.00 (jobs/hour)  during    1.00 hours\n" in r.out


def test_long(home):
    r = bacct(home, "-l", "-u", "all")
    blocks = r.out.split("-" * 78 + "\n")
    assert len(blocks) == 6  # header, four jobs, the SUMMARY
    assert blocks[1] == (
        "\n"
        "Job <101>, User <alice>, Project <default>, Status <DONE>, Queue <normal>, Comm\n"
        "                     and <sleep 60>\n"
        "Tue Mar  5 09:00:00: Submitted from host <hostA>, CWD <$HOME>;\n"
        "Tue Mar  5 09:00:10: Dispatched to <hostA>;\n"
        "Tue Mar  5 09:01:10: Completed <done>.\n"
        "\n"
        "Accounting information about this job:\n"
        "     CPU_T     WAIT     TURNAROUND   STATUS     HOG_FACTOR    MEM    SWAP\n"
        "      5.00       10             70     done         0.0714     0M      0M\n"
    )
    assert "Tue Mar  5 09:02:40: Completed <exit>; TERM_OWNER: job killed by owner.\n" in blocks[2]
    assert "Dispatched" not in blocks[2]  # killed while pending
    assert "Job <103>, Job Name <big>, User <alice>" in blocks[3]
    assert blocks[4].startswith("\nJob <104[2]>, User <alice>")
    assert ("Tue Mar  5 09:10:10: [2] dispatched 2 Task(s) on Host(s) <hostC> <hostC>, Allocated 2 Slot(s) on "
            "Host(s) <hostC> <hostC>;\n") in bacct(home, "-l", "-w", "104").out  # an element on two slots
    assert blocks[5].startswith("\nSUMMARY:")
    year = bacct(home, "-l", "101", env={"LSB_DISPLAY_YEAR": "Y"}).out
    assert "Tue Mar  5 09:00:10 2024: Dispatched to <hostA>;\n" in year


def test_eligible_pending_time(home):
    """-E: 101 pended 10 s, 4 of them ineligible (ineligiblePendTime)."""
    assert "      5.00       10             70     done         0.0714" in bacct(home, "-l", "101").out
    r = bacct(home, "-l", "-E", "101")
    assert "      5.00        6             66     done         0.0758" in r.out
    assert " Total wait time in queues:     6.0\n" in r.out


def test_brief(home):
    r = bacct(home, "-b", "-u", "all")
    assert ids(r.out) == ["101", "102", "103", "104[2]"]
    assert "Submitted from" not in r.out and "Completed" not in r.out
    assert r.out.count("Accounting information about this job:\n") == 4
    assert ids(bacct(home, "-b", "-l", "-u", "all").out) == ids(r.out)
    assert "Completed <done>." in bacct(home, "-b", "-l", "101").out  # -l wins


def test_wide(home):
    narrow = bacct(home, "-l", "101").out
    wide = bacct(home, "-l", "-w", "101").out
    assert "Job <101>, User <alice>, Project <default>, Status <DONE>, Queue <normal>, Command <sleep 60>\n" in wide
    assert max(map(len, narrow.splitlines())) == 79 and max(map(len, wide.splitlines())) > 79
    assert "Command <sleep 60>, Share" not in wide and len(bacct(home, "-b", "-w", "101").out.splitlines()[9]) > 79
    assert bacct(home, "-l", "-UF", "101").out == wide  # -UF: LSF's unformatted long records


def test_normalised_cpu_time(home):
    # job 103: 8 s of CPU on a host of CPU factor 2.0
    assert "      8.00      " in bacct(home, "-l", "103").out
    assert "      4.00      " in bacct(home, "-l", "-N", "4", "103").out
    assert "      4.00      " in bacct(home, "-l", "-N", "hostA", "103").out  # hostA's model: 4.0
    assert "     16.00      " in bacct(home, "-l", "-N", "slow", "103").out  # a host model: 1.0
    assert " Total CPU time consumed:       4.0" in bacct(home, "-N", "4", "103").out


def test_archives_and_files(home):
    assert ids(bacct(home, "-l", "-f", "-").out) == ["50", "101", "103", "104[2]"]  # oldest file first
    r = bacct(home, "-l", "-f", "logdir/lsb.acct.1")
    assert ids(r.out) == ["50"]
    empty = bacct(home.parent / "nowhere")  # a cluster whose daemon never wrote lsb.acct
    assert (empty.out, empty.err, empty.rc) == ("No matching job found\n", "", 255)


def test_file_without_a_cluster(home):
    r = bacct(None, "-f", "logdir/lsb.acct", "-u", "all", "-l", cwd=home)
    assert (r.err, r.rc) == ("", 0) and ids(r.out) == ["101", "102", "103", "104[2]"]
    r = bacct(None, "-f", "logdir/lsb.acct", "-N", "hostA", cwd=home)  # no configuration: a factor only
    assert (r.out, r.rc) == ("", 255)
    assert r.err == "hostA: Not a CPU factor; with -f and no cluster, -N needs a CPU factor\n"
    assert "4.00" in bacct(None, "-f", "logdir/lsb.acct", "-N", "4", "-l", "103", cwd=home).out
    r = bacct(None, "-u", "all")
    assert (r.out, r.rc) == ("", 255) and "use -f" in r.err
    r = bacct(None, "-f", "-")
    assert (r.out, r.rc) == ("", 255) and "use -f" in r.err
    r = bacct(None, "-f", "nosuch", cwd=home)
    assert (r.out, r.err, r.rc) == ("", "nosuch: No such file or directory\n", 255)
    r = bacct(None, "-f", "logdir", cwd=home)
    assert (r.out, r.err, r.rc) == ("", "logdir: Not a regular file\n", 255)


def test_the_command_reads_a_file_with_no_cluster_and_no_store(home):
    """bin/bacct -f FILE with no LSF_ENVDIR, no daemon: read in the caller's
    process, SQLAlchemy never imported (the light client path)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
    env.update(TZ="UTC", LSFEMU_USER="alice", LSFEMU_HOME=str(home / "nohome"), PYTHONPATH=str(ROOT))
    code = ("import sys; from lsfemu import client; rc = client.run('bacct', sys.argv[1:]); "
            "sys.stderr.write('sqlalchemy loaded\\n' if 'sqlalchemy' in sys.modules else ''); sys.exit(rc)")
    p = subprocess.run([sys.executable, "-c", code, "-f", "logdir/lsb.acct", "-l"], capture_output=True, text=True,
                       env=env, cwd=home, timeout=60)
    assert (p.stderr, p.returncode) == ("", 0)
    assert ids(p.stdout) == ["101", "103", "104[2]"] and not (home / "nohome").exists()
    acct = str(home / "logdir" / "lsb.acct")
    p = subprocess.run([sys.executable, str(ROOT / "bin" / "bacct"), "-f", acct, "-u", "bob"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert (p.stderr, p.returncode) == ("", 0) and counts(p.stdout) == (0, 1)


def test_damaged_lines_are_skipped_with_a_warning(tmp_path):
    lines = [format_record(r) for r in RECORDS[:2]]
    (tmp_path / "acct").write_text(
        lines[0] + "\n" + lines[1][:40] + "\n" + '"JOB_RESIZE" "10.1" 1709629205 7 0\n' + "\xff\n" + lines[1] + "\n",
        encoding="utf-8", errors="surrogateescape")
    r = bacct(None, "-f", "acct", "-u", "all", "-l", cwd=tmp_path)
    assert ids(r.out) == ["101", "102"] and r.rc == 0
    warned = r.err.splitlines()
    assert [w.split(":")[:2] for w in warned] == [["acct", "2"], ["acct", "4"]]  # as typed; JOB_RESIZE skipped silently


def test_nothing_matched(home):
    for argv in (["-u", "nobody"], ["999"], ["-q", "nosuch"], ["-x", "-u", "bob"], ["-S", "2023/1/1,2023/1/2"]):
        r = bacct(home, *argv)
        assert (r.out, r.err, r.rc) == ("No matching job found\n", "", 255), argv


@pytest.mark.parametrize("argv,err", [
    (["-C", "yesterday"], "yesterday: Bad time specification\n"),
    (["-D", "2024/13/1,"], "2024/13/1,: Bad time specification\n"),
    (["-N", "0"], "0: Bad CPU factor\n"),
    (["-N", "nosuchhost"], "nosuchhost: Host name not recognizable by LIM\n"),
    (["abc"], "abc: Illegal job ID.\n"),
    (["-M", "nosuch"], "nosuch: No such file or directory\n"),
])
def test_bad_input(home, argv, err):
    stand = Stand(home)
    r = B.run(Ctx(cluster=stand, cmd="bacct", argv=argv, user="alice", uid=0, cwd=str(home), env={}))
    assert (r.out, r.err, r.rc) == ("", err, 255)
    assert stand.commits == 0  # refused before anything was read


def test_jobs_the_daemon_ran(lsf_cluster):
    """What the daemon writes to lsb.acct (issue 20, part 1), bacct reads: a job
    run on the virtual clock, one its run limit ended, one killed while pending."""
    assert lsf_cluster.run("bsub -J one sleep 30", user="alice").rc == 0
    assert lsf_cluster.run("bsub -W 1 sleep 600", user="alice").rc == 0
    assert lsf_cluster.run("bsub -b 23:00 sleep 5", user="alice").rc == 0
    lsf_cluster.advance("2m")
    assert lsf_cluster.run("bkill 3", user="alice").rc == 0
    r = lsf_cluster.run("bacct -l -w", user="alice")
    assert (r.err, r.rc) == ("", 0)
    assert ids(r.out) == ["1", "2", "3"]  # in the order they finished (the file's)
    assert "Job <1>, Job Name <one>, User <alice>, Project <default>, Status <DONE>" in r.out
    assert ("Mon Jan  5 09:01:10: Completed <exit>; TERM_RUNLIMIT: job killed after reaching LSF run time "
            "limit.\n") in r.out
    assert re.search(r"Mon Jan  5 09:0\d:\d\d: Completed <exit>; TERM_OWNER: job killed by owner\.\n", r.out)
    assert counts(r.out) == (1, 2)
    assert re.search(r" Maximum Run time of a job: +60 +Minimum Run time of a job: +0\n", r.out)
    assert lsf_cluster.run("bacct -u bob").out == "No matching job found\n"
    r = lsf_cluster.run("bacct -l -N hostA 2", user="carol")  # job IDs: whoever submitted them
    assert r.rc == 0 and "     60.00       10             70     exit" in r.out  # hostA's CPU factor is the record's
    r = lsf_cluster.run(["bacct", "-f", str(lsf_cluster.home / "logdir" / "lsb.acct"), "-u", "all", "-d"])
    assert (r.err, r.rc) == ("", 0) and counts(r.out) == (1, 0)  # the same file read by the client alone


def test_short_host_lists_of_a_real_lsf9_record_count_per_slot():
    """LSF 9.11 wrote ``16*host1201-ib`` entries (SHORT_EVENTFILE): -m matches the
    host inside one, and -l's dispatch line lists its slots, not its entries."""
    real = Path(__file__).resolve().parents[1] / "data" / "lsbacct" / "lsf911_xdmod_utf8.acct"
    r = bacct(None, "-f", str(real), "-u", "all", "-m", "host1234-ib", "-l")
    assert (r.err, r.rc) == ("", 0) and ids(r.out) == ["404717"]
    flat = " ".join(r.out.split())
    assert "Dispatched 128 Task(s) on Host(s) <host1201-ib>" in flat and "Allocated 128 Slot(s)" in flat
    assert "16*" not in r.out  # one <host> per slot, as bhist -l prints lsfemu's own jobs
    r = bacct(None, "-f", str(real), "-u", "all", "-m", "16*host1234-ib")
    assert (r.out, r.rc) == ("No matching job found\n", 255)
