"""bhist end to end on event logs written the way the daemon writes them
(lsfemu.events.emit + EventWriter, with a log switch), run in-process through
lsfemu.cli.bhist.run: every option, the files it reads, and damaged files."""

from __future__ import annotations

import calendar
from pathlib import Path
from types import SimpleNamespace

import pytest

from lsfemu.cli import bhist as B
from lsfemu.ops import history as H
from lsfemu.cli.base import Ctx
from lsfemu.events import emit
from lsfemu.events.records import JobStart
from lsfemu.events.log import EventWriter
from lsfemu.render.messages import usage
from lsfemu.store.models import Job

T0 = calendar.timegm((2024, 3, 5, 9, 0, 0))  # Tue Mar  5 09:00:00 UTC
NOW = T0 + 200
UIDS = {"alice": 1001, "bob": 1002, "lsfadmin": 500}
HEAD = (
    "Summary of time in seconds spent in various states:\n"
    "JOBID   USER    JOB_NAME  PEND    PSUSP   RUN     USUSP   SSUSP   UNKWN   TOTAL\n"
)


@pytest.fixture(autouse=True)
def _utc(utc):
    """The golden texts are in UTC (see tests/conftest.py)."""


class Stand:
    """What bhist needs of a Cluster: home, logdir, now(), config; commit() is counted."""

    def __init__(self, home: Path, now: float = NOW, lsf_conf: dict | None = None):
        self.home = str(home)
        self.logdir = str(home / "logdir")
        self._now = now
        self.commits = 0
        groups = {"team": SimpleNamespace(members=["alice", "bob"])}
        self.config = SimpleNamespace(lsf_conf=lsf_conf or {}, user_groups=groups,
                                      group_members=lambda g: {"alice", "bob"})

    def now(self) -> float:
        return self._now

    def commit(self) -> None:
        self.commits += 1


class Log:
    """Jobs and their events, written through emit into one writer."""

    def __init__(self, writer: EventWriter):
        self.w = writer
        self.jobs: dict[int, Job] = {}

    def submit(self, jid: int, t: float, user: str = "alice", **kw) -> None:
        base = dict(id=jid, array_index=0, user=user, status="PEND", queue="normal",
                    from_host="login1", command=f"sleep {jid}", name=None, project="default",
                    cwd=f"/home/{user}/w", home=f"/home/{user}", num_processors=1, submit_time=t)
        base.update(kw)
        job = self.jobs[jid] = Job(**base)
        self.ev(jid, "SUBMIT", t, user, queue=job.queue)

    def ev(self, jid: int, kind: str, t: float, actor: str | None, state: str | None = None,
           cpu: float = 0.0, **data) -> None:
        job = self.jobs[jid]
        if state is not None:
            job.status = state
        self.w.write_many(emit.records_for(job, kind, t, actor, data,
                                           uid_of=lambda u: UIDS.get(u, 65534), cpu_time=cpu))


def build(home: Path) -> Path:
    """The cluster's logdir: lsb.events.1 (job 150, and job 203's submission
    before the switch) and lsb.events (203 kept in its head, then the rest)."""
    logdir = home / "logdir"
    w = EventWriter(logdir / "lsb.events")
    log = Log(w)
    w.write(emit.mbd_start(T0 - 86400 * 2, "lsfemu", "login1"))
    log.submit(150, T0 - 86400 * 2, command="old job")
    log.ev(150, "START", T0 - 86400 * 2 + 5, None, state="RUN", hosts=["h1"])
    log.ev(150, "FINISH", T0 - 86400 * 2 + 65, None, state="DONE", cpu=3.0, status="DONE")
    log.submit(203, T0 - 60, queue="short", command="make all")
    w.rotate(keep=lambda r: r.job_key is not None and r.job_key[0] == 203)
    log.submit(201, T0, run_limit_min=10.0, output_file="out.%J", command="./job.sh")
    log.submit(206, T0 + 5, user="bob")
    log.ev(201, "START", T0 + 10, None, state="RUN", hosts=["h1"])
    log.ev(206, "SIGNAL", T0 + 15, "bob", state="PSUSP", signal="STOP")
    log.submit(202, T0 + 20, name="align_sample", command="bwa mem ref.fa r.fq")
    log.ev(202, "START", T0 + 30, None, state="RUN", hosts=["h2", "h2"])
    log.submit(204, T0 + 50, user="bob", queue="short")
    log.ev(204, "START", T0 + 60, None, state="RUN", hosts=["h3"])
    log.ev(204, "SIGNAL", T0 + 70, "bob", state="USUSP", signal="STOP")
    log.submit(205, T0 + 80)
    log.ev(205, "SIGNAL", T0 + 90, "alice", signal="KILL")
    log.ev(205, "FINISH", T0 + 90, None, state="EXIT", status="EXIT", exit_code=130,
           reason="TERM_OWNER: job killed by owner")
    log.ev(201, "FINISH", T0 + 150, None, state="DONE", cpu=12.0, status="DONE")
    w.close()
    return logdir


@pytest.fixture
def home(tmp_path: Path) -> Path:
    build(tmp_path)
    return tmp_path


def bhist(home: Path | None, *argv: str, user: str = "alice", cluster=None, env=None, cwd=None):
    cl = cluster if cluster is not None else (Stand(home) if home is not None else None)
    c = Ctx(cluster=cl, cmd="bhist", argv=list(argv), user=user, uid=UIDS.get(user, 0),
            cwd=str(cwd or home or "/"), env=env or {})
    return B.run(c)


def ids(out: str) -> list[str]:
    """The JOBID column of a summary table."""
    lines = out.splitlines()
    assert lines[:2] == HEAD.splitlines()
    return [line.split()[0] for line in lines[2:]]


# ---------------------------------------------------------------------------
# selection
# ---------------------------------------------------------------------------


def test_default_is_the_callers_unfinished_jobs(home):
    cl = Stand(home)
    r = bhist(home, cluster=cl)
    assert (r.rc, r.err) == (0, "")
    assert r.out == HEAD + (
        "203     alice   make all  260     0       0       0       0       0       260       \n"
        "202     alice   *_sample  10      0       170     0       0       0       180       \n"
    )
    assert cl.commits == 1  # the request's catch-up is logged before reading


@pytest.mark.parametrize("argv, want", [
    (["-a"], ["203", "201", "202", "205"]),
    (["-u", "all"], ["203", "206", "202", "204"]),
    (["-u", "team"], ["203", "206", "202", "204"]),
    (["-u", "bob", "-a"], ["206", "204"]),
    (["-u", "bob", "-s"], ["206", "204"]),
    (["-d"], ["201", "205"]),
    (["-e"], ["205"]),
    (["-p"], ["203"]),
    (["-r"], ["202"]),
    (["-p", "-r"], ["203", "202"]),
    (["-a", "-p"], ["203", "201", "202", "205"]),
    (["-q", "short", "-u", "all"], ["203", "204"]),
    (["-J", "align*"], ["202"]),
    (["-aJ", "sleep 20?"], ["205"]),
    (["-u", "all", "-J", "*"], ["203", "206", "202", "204"]),
])
def test_filters(home, argv, want):
    r = bhist(home, *argv)
    assert (r.rc, r.err) == (0, "")
    assert ids(r.out) == want


@pytest.mark.parametrize("argv, want", [
    (["-C", "/9:02"], ["201"]),  # completed 09:02:00-09:02:59
    (["-C", "3/5/9:01"], ["205"]),
    (["-C", ",."], ["201", "205"]),  # -C implies finished jobs
    (["-C", "5"], ["201", "205"]),  # day 5 of this month
    (["-C", "2024/3/"], ["201", "205"]),
    (["-a", "-S", "/9:00"], ["201", "202"]),  # submitted 09:00:00-09:00:59
    (["-a", "-S", ".-1,"], ["203", "201", "202", "205"]),  # within the last day
    (["-u", "all", "-D", "9:01,"], ["204"]),  # dispatched from 09:01:00 (unfinished only)
    (["-u", "all", "-a", "-D", ",9:00"], ["201", "202"]),
])
def test_time_windows(home, argv, want):
    r = bhist(home, *argv)
    assert (r.rc, r.err) == (0, "")
    assert ids(r.out) == want


def test_empty_window_and_bad_windows(home):
    r = bhist(home, "-C", "3/4")
    assert (r.out, r.err, r.rc) == ("No matching job found\n", "", 255)
    for spec in ("x", "13/1", "2/30", "9:61", "1,2,3", ",", "3/5/9:01/7"):
        r = bhist(home, "-S", spec)
        assert (r.out, r.err, r.rc) == ("", f"{spec}: Bad time specification\n", 255), spec


def test_parse_window_forms():
    now = T0 + 200  # Tue Mar  5 09:03:20 2024
    day = calendar.timegm((2024, 3, 5, 0, 0, 0))
    assert H.parse_window("5", now) == (day, day + 86399)
    assert H.parse_window("3/", now) == (calendar.timegm((2024, 3, 1, 0, 0, 0)),
                                         calendar.timegm((2024, 4, 1, 0, 0, 0)) - 1)
    assert H.parse_window("2023/12/", now)[1] == calendar.timegm((2024, 1, 1, 0, 0, 0)) - 1
    assert H.parse_window("2/1/10:", now) == (calendar.timegm((2024, 2, 1, 10, 0, 0)),
                                              calendar.timegm((2024, 2, 1, 10, 59, 59)))
    assert H.parse_window("9:03", now) == (T0 + 180, T0 + 239)
    assert H.parse_window(".-2,.", now) == (now - 2 * 86400, now)
    assert H.parse_window(",3/4", now) == (float("-inf"), day - 1)
    assert H.parse_window("3/4,", now) == (day - 86400, now)


def test_job_ids_select_whatever_user_state_and_file(home):
    # 150 lives only in lsb.events.1: with IDs every file is read
    r = bhist(home, "150", "204", "-q", "nosuch")
    assert (r.rc, r.err) == (0, "")
    assert ids(r.out) == ["150", "204"]
    r = bhist(home, "999")
    assert (r.out, r.err, r.rc) == ("No matching job found\n", "", 255)
    r = bhist(home, "12x")
    assert (r.out, r.err, r.rc) == ("", "12x: Illegal job ID.\n", 255)


def test_number_of_files(home):
    assert ids(bhist(home, "-a", "-n", "1").out) == ["203", "201", "202", "205"]
    for n in ("2", "0", "7"):
        r = bhist(home, "-a", "-n", n)
        assert ids(r.out) == ["150", "203", "201", "202", "205"], n  # 203 once: the head is skipped
    r = bhist(home, "-n", "x")
    assert (r.err, r.rc) == ("bhist: The number of event log files must be a positive integer.\n", 255)


def test_no_event_file_yet(tmp_path):
    r = bhist(tmp_path, "-a")
    assert (r.out, r.err, r.rc) == ("No matching job found\n", "", 255)


# ---------------------------------------------------------------------------
# formats
# ---------------------------------------------------------------------------

LONG_201 = (
    "\n"
    "Job <201>, User <alice>, Project <default>, Command <./job.sh>\n"
    "Tue Mar  5 09:00:00: Submitted from host <login1>, to Queue <normal>, CWD <$HOM\n"
    "                     E/w>, Output File <out.%J>;\n"
    "Tue Mar  5 09:00:10: Dispatched to <h1>;\n"
    "Tue Mar  5 09:00:10: Starting (Pid {pid});\n"
    "Tue Mar  5 09:00:10: Running with execution home </home/alice>, Execution CWD <\n"
    "                     /home/alice/w>, Execution Pid <{pid}>;\n"
    "Tue Mar  5 09:02:30: Done successfully. The CPU time used is 12.0 seconds;\n"
    "Tue Mar  5 09:02:30: Post job process done successfully;\n"
    "\n"
    "\n"
    " RUNLIMIT                \n"
    " 10.0 min\n"
    "\n"
    "Summary of time in seconds spent in various states by  Tue Mar  5 09:02:30\n"
    "  PEND     PSUSP    RUN      USUSP    SSUSP    UNKWN    TOTAL\n"
    "  10       0        140      0        0        0        150         \n"
)


def test_long(home):
    r = bhist(home, "-l", "201")
    assert (r.rc, r.err) == (0, "")
    assert r.out == LONG_201.replace("{pid}", str(emit.synthetic_pid(201)))


def test_long_several_jobs_wide_and_year(home):
    r = bhist(home, "-l", "-w", "-u", "bob")
    blocks = r.out.split("-" * 78 + "\n")
    assert len(blocks) == 2 and r.rc == 0
    assert "Tue Mar  5 09:00:15: Signal <STOP> requested by user or administrator <bob>;\n" in blocks[0]
    assert "Tue Mar  5 09:00:15: Suspended by the user or administrator while pending;\n" in blocks[0]
    assert "Tue Mar  5 09:01:10: Suspended by the user or administrator;\n" in blocks[1]
    r = bhist(home, "-l", "205", env={"LSB_DISPLAY_YEAR": "Y"})
    assert "Tue Mar  5 09:01:30 2024: Completed <exit>; TERM_OWNER: job killed by owner;\n" in r.out
    r = bhist(home, "-l", "205", cluster=Stand(home, lsf_conf={"LSB_DISPLAY_YEAR": "y"}))
    assert "Tue Mar  5 09:01:20 2024: Submitted from host <login1>" in r.out


def test_wide_summary(home):
    r = bhist(home, "-w", "202")
    assert r.out == HEAD + (
        "202     alice   align_sample 10      0       170     0       0       0       180       \n"
    )


def test_brief(home):
    r = bhist(home, "-b", "201")
    pid = emit.synthetic_pid(201)
    assert r.out == (
        "\n"
        "Job <201>, User <alice>, Project <default>, Command <./job.sh>\n"
        "Tue Mar  5 09:00:00: Submitted from host <login1>, to Queue <normal>, CWD <$HOM\n"
        "                     E/w>;\n"
        "Tue Mar  5 09:00:10: Dispatched to <h1>;\n"
        f"Tue Mar  5 09:00:10: Starting (Pid {pid});\n"
        "Tue Mar  5 09:00:10: Running with execution home </home/alice>, Execution CWD <\n"
        f"                     /home/alice/w>, Execution Pid <{pid}>;\n"
        "Tue Mar  5 09:02:30: Done successfully. The CPU time used is 12.0 seconds;\n"
        "Tue Mar  5 09:02:30: Post job process done successfully;\n"
        "\n"
        "Summary of time in seconds spent in various states by  Tue Mar  5 09:02:30\n"
        "  PEND     PSUSP    RUN      USUSP    SSUSP    UNKWN    TOTAL\n"
        "  10       0        140      0        0        0        150         \n"
    )
    assert bhist(home, "-b", "-l", "201").out == LONG_201.replace("{pid}", str(pid))  # -l wins


def test_chronicle(home):
    r = bhist(home, "-t", "-u", "bob")
    pid = emit.synthetic_pid(204)
    assert (r.rc, r.err) == (0, "")
    assert r.out == (
        "Tue Mar  5 09:00:05: Job <206>, submitted from host <login1>, to Queue <normal>, CWD <$HOME/w>;\n"
        "Tue Mar  5 09:00:15: Job <206>, signal <STOP> requested by user or administrator <bob>;\n"
        "Tue Mar  5 09:00:15: Job <206>, suspended by the user or administrator while pending;\n"
        "Tue Mar  5 09:00:50: Job <204>, submitted from host <login1>, to Queue <short>, CWD <$HOME/w>;\n"
        "Tue Mar  5 09:01:00: Job <204>, dispatched to <h3>;\n"
        f"Tue Mar  5 09:01:00: Job <204>, starting (Pid {pid});\n"
        "Tue Mar  5 09:01:00: Job <204>, running with execution home </home/bob>, Execution CWD "
        f"</home/bob/w>, Execution Pid <{pid}>;\n"
        "Tue Mar  5 09:01:10: Job <204>, signal <STOP> requested by user or administrator <bob>;\n"
        "Tue Mar  5 09:01:10: Job <204>, suspended by the user or administrator;\n"
    )
    # finished jobs too (default: every state), job IDs allowed, nothing found
    assert "Job <205>, completed <exit>; TERM_OWNER: job killed by owner;" in bhist(home, "-t").out
    r = bhist(home, "-t", "999")
    assert (r.out, r.rc) == ("No matching job/event found\n", 255)


def test_chronicle_lists_bmod_items_on_one_line(tmp_path):
    w = EventWriter(tmp_path / "logdir" / "lsb.events")
    log = Log(w)
    log.submit(301, T0)
    log.ev(301, "MODIFY", T0 + 1, "lsfadmin", sp=40)
    log.ev(301, "MODIFY", T0 + 2, "lsfadmin", aps=None)
    w.close()
    r = bhist(tmp_path, "-t")
    assert r.out.splitlines()[1:] == [
        "Tue Mar  5 09:00:01: Job <301>, parameters of Job are changed: New job priority is: 40;",
        "Tue Mar  5 09:00:02: Job <301>, parameters of Job are changed: "
        "Absolute Priority Scheduling factor string deleted;",
    ]


# ---------------------------------------------------------------------------
# -f, damaged files, argument errors
# ---------------------------------------------------------------------------


def test_file_without_a_cluster(home):
    # no cluster: "now" is the file's last event (201's finish at 09:02:30)
    r = bhist(None, "-f", "logdir/lsb.events", cwd=home)
    assert (r.rc, r.err) == (0, "")
    assert r.out == HEAD + (
        "203     alice   make all  210     0       0       0       0       0       210       \n"
        "202     alice   *_sample  10      0       120     0       0       0       130       \n"
    )
    r = bhist(None, "-f", str(home / "logdir" / "lsb.events.1"), "-a")
    assert ids(r.out) == ["150", "203"]
    r = bhist(None, "-f", "nosuch", cwd=home)
    assert (r.out, r.err, r.rc) == ("", "nosuch: No such file or directory\n", 255)
    r = bhist(None, "-f", "logdir", cwd=home)
    assert (r.err, r.rc) == ("logdir: Not a regular file\n", 255)
    r = bhist(None, "-a")
    assert r.rc == 255 and "use -f" in r.err
    r = bhist(home, "-f", "x", "-n", "2")
    assert (r.out, r.err, r.rc) == ("", "Cannot use option '-f' together with '-n'.\n", 255)


def test_corrupt_line_and_unknown_event_types(tmp_path):
    path = tmp_path / "events"
    w = EventWriter(path)
    log = Log(w)
    log.submit(401, T0)
    w.close()
    with open(path, "a") as fh:
        fh.write('"JOB_START" "10.1" 1709629205 401 4 0 0 1.0 2 "h1\n')  # line 3: cut short
        fh.write('"JOB_NOVELTY" "10.1" 1709629206 0\n')  # line 4: a type lsfemu does not know
        fh.write('"JOB_NOVELTY" "10.1" 1709629207 0\n')  # line 5: reported once per type
        fh.write('"JOB_SWITCH" "10.1" 1709629208 1001 401 "short" 0 "alice" "x" 7\n')  # newer LSF: extra fields
        fh.write("\n")
    with EventWriter(path) as w2:
        w2.write(JobStart(event_time=T0 + 10, job_id=401, exec_hosts=("h9",)))
    r = bhist(None, "-l", "-w", "-f", str(path))
    assert r.rc == 0
    assert r.err == (
        f"File {path} at line 3: corrupt record skipped: unterminated string starting at column 47\n"
        f"File {path} at line 4: unknown event type JOB_NOVELTY; record skipped\n"
    )
    assert "Tue Mar  5 09:00:08: Switched to Queue <short> by user or administrator <alice>;\n" in r.out
    assert "Tue Mar  5 09:00:10: Dispatched to <h9>;\n" in r.out


def test_usage_errors(home):
    r = bhist(home, "-x")
    assert (r.out, r.err, r.rc) == ("", "bhist: illegal option -- x\n" + usage("bhist"), 255)
    r = bhist(home, "-C")
    assert r.rc == 255 and r.err.startswith("bhist: option requires an argument -- C\n")
    r = bhist(home, "-h")
    assert (r.out, r.err, r.rc) == ("", usage("bhist"), 0)
