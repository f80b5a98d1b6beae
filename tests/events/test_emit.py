"""Stored job events -> lsb.events records (lsfemu.events.emit), checked the
way a reader sees them: records_for -> encode -> decode -> HistoryBuilder ->
bhist -l and the summary table (reference section 4 wording), plus the awk
field positions of the snakemake LSF plugin."""

from __future__ import annotations

import pytest

from events_helpers import at, awk_fpat_fields
from lsfemu.events import emit
from lsfemu.events import codec, fastdecode, lsbatch
from lsfemu.events.records import JobStatus, Record
from lsfemu.events.history import HistoryBuilder, JobHistory
from lsfemu.render import bhist
from lsfemu.replay.tracker import JobTracker
from lsfemu.store.models import Job

T0 = at("2024 Mar 05 09:00:00")
UIDS = {"alice": 1001, "bob": 1002, "lsfadmin": 500, "root": 0}
SUMMARY_HEAD = (
    "Summary of time in seconds spent in various states:\n"
    "JOBID   USER    JOB_NAME  PEND    PSUSP   RUN     USUSP   SSUSP   UNKWN   TOTAL\n"
)
#: the JOB_STATUS words the snakemake plugin's table knows (192 it skips)
SNAKEMAKE_STATUSES = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 32768, 65536, 131072}


def uid_of(name: str) -> int:
    return UIDS.get(name, 65534)


class Life:
    """One job's stored events, turned into records as the daemon would."""

    def __init__(self, **kw):
        base = dict(id=101, array_index=0, user="alice", status="PEND", queue="normal",
                    from_host="login1", command="sleep 100", name=None, project="default",
                    cwd="/home/alice/proj", home="/home/alice", num_processors=1,
                    submit_time=T0, default_queue_used=False)
        base.update(kw)
        self.job = Job(**base)
        self.records: list[Record] = []
        self.cpu = 0.0

    def ev(self, kind: str, dt: float, actor: str | None = None, *, state: str | None = None,
           **data) -> list[Record]:
        if state is not None:
            self.job.status = state  # the job as Cluster.log sees it: after the change
        recs = emit.records_for(self.job, kind, T0 + dt, actor, data, uid_of=uid_of, cpu_time=self.cpu)
        self.records.extend(recs)
        return recs

    def lines(self) -> list[str]:
        return [codec.encode(r) for r in self.records]


def histories(*lives: Life) -> list[JobHistory]:
    b = HistoryBuilder()
    lines = sorted((line for life in lives for line in life.lines()),
                   key=lambda ln: int(codec.fields(ln)[2]))  # one log, in time order
    for line in lines:
        b.feed(fastdecode.decode(line))
    return list(b.histories.values())


def one(life: Life) -> JobHistory:
    (h,) = histories(life)
    return h


# ---------------------------------------------------------------------------
# a full lifecycle
# ---------------------------------------------------------------------------


def lifecycle() -> Life:
    life = Life(name="train", command="python run.py --epochs 3", num_processors=2,
                output_file="out.%J", res_req="rusage[mem=100]", run_limit_min=30.0)
    life.ev("SUBMIT", 0, "alice", queue="normal")
    life.ev("MODIFY", 5, "alice", sp=50)
    life.ev("MODIFY", 6, "lsfadmin", aps="system=10")
    life.ev("MOVE", 7, "alice", top=True, position=1)
    life.ev("START", 10, None, state="RUN", hosts=["h1", "h1"])
    life.ev("SIGNAL", 20, "alice", state="USUSP", signal="STOP")
    life.ev("SIGNAL", 50, "alice", state="RUN", signal="CONT")
    life.cpu = 42.5
    life.ev("FINISH", 100, None, status="DONE", exit_code=None, reason=None)
    return life


LIFECYCLE_LONG = (
    "\n"
    "Job <101>, Job Name <train>, User <alice>, Project <default>, Command <python r\n"
    "                     un.py --epochs 3>\n"
    "Tue Mar  5 09:00:00: Submitted from host <login1>, to Queue <normal>, CWD <$HOM\n"
    "                     E/proj>, Output File <out.%J>, 2 Task(s), Requested Resour\n"
    "                     ces <rusage[mem=100]>;\n"
    "Tue Mar  5 09:00:05: Parameters of Job are changed:\n"
    "   New job priority is: 50;\n"
    "Tue Mar  5 09:00:06: Parameters of Job are changed:\n"
    "   Absolute Priority Scheduling factor string changed to : system=10;\n"
    "Tue Mar  5 09:00:07: Job moved to position 1 relative to <top> by user or admin\n"
    "                     istrator <alice>;\n"
    "Tue Mar  5 09:00:10: Dispatched 2 Task(s) on Host(s) <h1> <h1>, Allocated 2 Slo\n"
    "                     t(s) on Host(s) <h1> <h1>;\n"
    "Tue Mar  5 09:00:10: Starting (Pid {pid});\n"
    "Tue Mar  5 09:00:10: Running with execution home </home/alice>, Execution CWD <\n"
    "                     /home/alice/proj>, Execution Pid <{pid}>;\n"
    "Tue Mar  5 09:00:20: Signal <STOP> requested by user or administrator <alice>;\n"
    "Tue Mar  5 09:00:20: Suspended by the user or administrator;\n"
    "Tue Mar  5 09:00:50: Signal <CONT> requested by user or administrator <alice>;\n"
    "Tue Mar  5 09:00:50: Running;\n"
    "Tue Mar  5 09:01:40: Done successfully. The CPU time used is 42.5 seconds;\n"
    "Tue Mar  5 09:01:40: Post job process done successfully;\n"
    "\n"
    "Summary of time in seconds spent in various states by  Tue Mar  5 09:01:40\n"
    "  PEND     PSUSP    RUN      USUSP    SSUSP    UNKWN    TOTAL\n"
    "  10       0        60       30       0        0        100         \n"
)


def test_lifecycle_records_in_mbatchd_order():
    life = lifecycle()
    assert [r.TYPE for r in life.records] == [
        "JOB_NEW", "JOB_MODIFY2", "JOB_MODIFY2", "JOB_MOVE",
        "JOB_START", "JOB_START_ACCEPT", "JOB_EXECUTE",
        "JOB_SIGNAL", "JOB_STATUS", "JOB_SIGNAL", "JOB_STATUS",
        "JOB_STATUS", "JOB_STATUS",
    ]
    statuses = [r.status for r in life.records if isinstance(r, JobStatus)]
    assert statuses == [lsbatch.JOB_STAT_USUSP, lsbatch.JOB_STAT_RUN, lsbatch.JOB_STAT_DONE, 192]
    # every line survives the log unchanged
    for line in life.lines():
        assert codec.encode(fastdecode.decode(line)) == line


def test_lifecycle_bhist_long_and_summary():
    h = one(lifecycle())
    pid = emit.synthetic_pid(101)
    assert bhist.long([h], now=T0 + 10_000) == LIFECYCLE_LONG.replace("{pid}", str(pid))
    assert bhist.summary_table([h], now=T0 + 10_000) == SUMMARY_HEAD + (
        "101     alice   train     10      0       60      30      0       0       100       \n"
    )
    t = h.state_times(T0 + 10_000)
    assert (t["PEND"], t["RUN"], t["USUSP"], t["TOTAL"]) == (10, 60, 30, 100)
    assert h.summary_time(T0 + 10_000) == T0 + 100
    assert h.changes[0].data["run_limit_min"] == 30.0  # bsub -W is in JOB_NEW's rlimits


def test_lifecycle_unfinished_counts_to_now():
    life = lifecycle()
    life.records = life.records[:-2]  # not finished yet
    h = one(life)
    assert h.status == "RUN" and not h.finished
    t = h.state_times(T0 + 200)
    assert (t["PEND"], t["RUN"], t["USUSP"], t["TOTAL"]) == (10, 160, 30, 200)


# ---------------------------------------------------------------------------
# killed, requeued, switched, suspended while pending, lost hosts
# ---------------------------------------------------------------------------


def test_killed_running_job_by_owner():
    life = Life(id=102, command="sleep 500")
    life.ev("SUBMIT", 0, "alice", queue="normal")
    life.ev("START", 3, None, state="RUN", hosts=["h2"])
    life.ev("SIGNAL", 60, "alice", signal="KILL")
    life.cpu = 1.25
    life.ev("FINISH", 60, None, status="EXIT", exit_code=130, reason="TERM_OWNER: job killed by owner")
    (st,) = [r for r in life.records if isinstance(r, JobStatus)]
    assert (st.status, st.exit_status, st.exit_info, st.cpu_time) == (32, 130 << 8, 14, 1.25)
    h = one(life)
    pid = emit.synthetic_pid(102)
    assert bhist.long([h], now=T0 + 999) == (
        "\n"
        "Job <102>, User <alice>, Project <default>, Command <sleep 500>\n"
        "Tue Mar  5 09:00:00: Submitted from host <login1>, to Queue <normal>, CWD <$HOM\n"
        "                     E/proj>;\n"
        "Tue Mar  5 09:00:03: Dispatched to <h2>;\n"
        f"Tue Mar  5 09:00:03: Starting (Pid {pid});\n"
        "Tue Mar  5 09:00:03: Running with execution home </home/alice>, Execution CWD <\n"
        f"                     /home/alice/proj>, Execution Pid <{pid}>;\n"
        "Tue Mar  5 09:01:00: Signal <KILL> requested by user or administrator <alice>;\n"
        "Tue Mar  5 09:01:00: Exited with exit code 130. The CPU time used is 1.2 second\n"
        "                     s;\n"
        "Tue Mar  5 09:01:00: Completed <exit>; TERM_OWNER: job killed by owner;\n"
        "\n"
        "Summary of time in seconds spent in various states by  Tue Mar  5 09:01:00\n"
        "  PEND     PSUSP    RUN      USUSP    SSUSP    UNKWN    TOTAL\n"
        "  3        0        57       0        0        0        60          \n"
    )


def test_killed_pending_job_by_admin_and_signal_numbers():
    life = Life(id=103, user="bob", cwd="/tmp", home="/home/bob")
    life.ev("SUBMIT", 0, "bob", queue="normal")
    (sig,) = life.ev("SIGNAL", 5, "lsfadmin", signal=15)  # bkill -s 15
    assert (sig.signal_symbol, sig.user_name, sig.user_id) == ("TERM", "lsfadmin", 500)
    life.ev("FINISH", 5, None, status="EXIT", exit_code=143,
            reason="TERM_ADMIN: job killed by root or LSF administrator")
    h = one(life)
    assert bhist.long([h], now=T0 + 999) == (
        "\n"
        "Job <103>, User <bob>, Project <default>, Command <sleep 100>\n"
        "Tue Mar  5 09:00:00: Submitted from host <login1>, to Queue <normal>, CWD </tmp\n"
        "                     >;\n"
        "Tue Mar  5 09:00:05: Signal <TERM> requested by user or administrator <lsfadmin\n"
        "                     >;\n"
        "Tue Mar  5 09:00:05: Exited;\n"
        "Tue Mar  5 09:00:05: Completed <exit>; TERM_ADMIN: job killed by root or LSF ad\n"
        "                     ministrator;\n"
        "\n"
        "Summary of time in seconds spent in various states by  Tue Mar  5 09:00:05\n"
        "  PEND     PSUSP    RUN      USUSP    SSUSP    UNKWN    TOTAL\n"
        "  5        0        0        0        0        0        5           \n"
    )


def test_requeued_job():
    life = Life(id=104, command="./step.sh")
    life.ev("SUBMIT", 0, "alice", queue="normal")
    life.ev("START", 10, None, state="RUN", hosts=["h1"])
    recs = life.ev("REQUEUE", 40, "alice", state="PEND")
    assert [r.TYPE for r in recs] == ["JOB_REQUEUE", "JOB_STATUS"]
    assert (recs[1].status, recs[1].reason) == (lsbatch.JOB_STAT_PEND, emit.PEND_JOB_REQUEUED)
    life.ev("START", 45, None, state="RUN", hosts=["h3"])
    life.cpu = 7.0
    life.ev("FINISH", 100, None, status="EXIT", exit_code=1, reason=None)
    h = one(life)
    text = bhist.long([h], now=T0 + 999, wide=True)
    pid = emit.synthetic_pid(104)
    assert [line[21:] for line in text.splitlines() if line.startswith("Tue")] == [
        "Submitted from host <login1>, to Queue <normal>, CWD <$HOME/proj>;",
        "Dispatched to <h1>;",
        f"Starting (Pid {pid});",
        f"Running with execution home </home/alice>, Execution CWD </home/alice/proj>, Execution Pid <{pid}>;",
        "Pending: Job has been requeued;",
        "Dispatched to <h3>;",
        f"Starting (Pid {pid});",
        f"Running with execution home </home/alice>, Execution CWD </home/alice/proj>, Execution Pid <{pid}>;",
        "Exited with exit code 1. The CPU time used is 7.0 seconds;",
        "Completed <exit>;",
    ]
    t = h.state_times(T0 + 999)
    assert (t["PEND"], t["RUN"], t["TOTAL"]) == (10 + 5, 30 + 55, 100)


def test_switched_job_and_move_to_bottom():
    life = Life(id=105)
    life.ev("SUBMIT", 0, "alice", queue="normal")
    (sw,) = life.ev("SWITCH", 4, "lsfadmin", queue="short", old="normal")
    assert (sw.queue, sw.user_name, sw.user_id) == ("short", "lsfadmin", 500)
    (mv,) = life.ev("MOVE", 6, "alice", top=False, position=2)
    assert (mv.base, mv.position) == (lsbatch.TO_BOTTOM, 2)
    life.ev("START", 8, None, state="RUN", hosts=["h1"])
    life.ev("FINISH", 20, None, status="DONE", exit_code=None, reason=None)
    h = one(life)
    assert h.queue == "short" and h.changes[0].data["queue"] == "normal"
    text = bhist.long([h], now=T0 + 999, wide=True)
    assert "Tue Mar  5 09:00:04: Switched to Queue <short> by user or administrator <lsfadmin>;\n" in text
    assert "Tue Mar  5 09:00:06: Job moved to position 2 relative to <bottom> by user or administrator <alice>;\n" in text
    assert h.state_times(T0 + 999)["PEND"] == 8


def test_stop_and_resume_while_pending():
    life = Life(id=106)
    life.ev("SUBMIT", 0, "alice", queue="normal")
    stop = life.ev("SIGNAL", 10, "alice", state="PSUSP", signal="STOP")
    assert [r.TYPE for r in stop] == ["JOB_SIGNAL", "JOB_STATUS"]
    assert (stop[1].status, stop[1].reason) == (lsbatch.JOB_STAT_PSUSP, emit.PEND_USER_STOP)
    cont = life.ev("SIGNAL", 40, "alice", state="PEND", signal="CONT")
    assert (cont[1].status, cont[1].reason) == (lsbatch.JOB_STAT_PEND, emit.PEND_USER_RESUME)
    # an administrator's bstop is logged with the admin reason
    admin = emit.records_for(life.job, "SIGNAL", T0 + 41, "lsfadmin", {"signal": "STOP"},
                             uid_of=uid_of, cpu_time=0)
    assert admin[1].reason == emit.PEND_ADMIN_STOP
    h = one(life)
    t = h.state_times(T0 + 50)
    assert (t["PEND"], t["PSUSP"], t["TOTAL"]) == (20, 30, 50)
    text = bhist.long([h], now=T0 + 50)
    assert "Tue Mar  5 09:00:10: Suspended by the user or administrator while pending;\n" in text
    assert "Tue Mar  5 09:00:40: Signal <CONT> requested by user or administrator <alice>;\n" in text


def test_a_signal_that_changes_nothing_logs_only_the_request():
    life = Life(id=107, status="RUN")
    (rec,) = life.ev("SIGNAL", 1, "alice", signal="USR1")
    assert rec.signal_symbol == "USR1"
    life.job.status = "DONE"
    assert [r.TYPE for r in life.ev("SIGNAL", 2, "alice", signal="STOP")] == ["JOB_SIGNAL"]


def test_host_failure_unknown_rerun_and_migration():
    life = Life(id=108, rerunnable=True)
    life.ev("SUBMIT", 0, "alice", queue="normal")
    assert life.records[0].options & lsbatch.SUB_RERUNNABLE
    life.ev("START", 10, None, state="RUN", hosts=["h1"])
    (unk,) = life.ev("STATUS", 20, None, status="UNKWN", host="h1")
    assert unk.status == lsbatch.JOB_STAT_UNKWN
    assert life.ev("MIGRATE", 30, "alice") == []
    (rerun,) = life.ev("RERUN", 30, None, state="PEND", reason="MIGRATE")
    assert (rerun.status, rerun.reason) == (lsbatch.JOB_STAT_PEND, emit.PEND_JOB_MIG)
    (again,) = emit.records_for(life.job, "RERUN", T0 + 31, None, {"reason": "HOST_FAILURE"},
                                uid_of=uid_of, cpu_time=0)
    assert again.reason == emit.PEND_JOB_REQUEUED
    h = one(life)
    t = h.state_times(T0 + 40)
    assert (t["PEND"], t["RUN"], t["UNKWN"], t["TOTAL"]) == (20, 10, 10, 40)
    assert "Tue Mar  5 09:00:20: Unknown; unable to reach the execution host;\n" in bhist.long([h], now=T0 + 40)
    # a host that comes back: the lost job ends EXIT without an exit code
    (fin,) = life.ev("FINISH", 50, None, status="EXIT", exit_code=None, reason=None)
    assert (fin.exit_status, fin.exit_info) == (0, 0)


# ---------------------------------------------------------------------------
# bmod
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("data, item", [
    ({"sp": 70}, "New job priority is: 70"),
    ({"spn": True}, "Job priority changes to default"),
    ({"aps": "admin=20"}, "Absolute Priority Scheduling factor string changed to : admin=20"),
    ({"aps": None}, "Absolute Priority Scheduling factor string deleted"),
])
def test_modify_items(data, item):
    life = Life(id=109)
    life.ev("SUBMIT", 0, "alice", queue="normal")
    (rec,) = life.ev("MODIFY", 3, "lsfadmin", **data)
    assert (rec.TYPE, rec.job_id_str, rec.user_name, rec.user_id, rec.submit_time) == (
        "JOB_MODIFY2", "109", "lsfadmin", 500, T0)
    h = one(life)
    assert h.changes[-1].data == {"items": [item], "user": "lsfadmin"}


def test_modify_with_nothing_to_log_and_unknown_kinds():
    life = Life(id=110)
    assert emit.records_for(life.job, "MODIFY", T0, "alice", {}, uid_of=uid_of, cpu_time=0) == []
    assert emit.records_for(life.job, "BRAND_NEW", T0, "alice", {}, uid_of=uid_of, cpu_time=0) == []
    assert emit.records_for(life.job, "STATUS", T0, None, {"status": "??"}, uid_of=uid_of, cpu_time=0) == []


# ---------------------------------------------------------------------------
# JOB_NEW contents and the snakemake plugin's awk
# ---------------------------------------------------------------------------


def test_job_new_fields():
    life = Life(id=111, name="Snakemake_rule___(0b7c-uuid)", command="python -m snakemake --x",
                num_processors=2, max_processors=4, output_file="o.%J", error_file="e.%J",
                error_overwrite=True, res_req="span[hosts=1]", submit_priority=60,
                run_limit_min=1.5, project="proj", user_group="grp", cwd="/w d")
    (new,) = life.ev("SUBMIT", 0, "alice", queue="normal")
    want = (lsbatch.SUB_QUEUE | lsbatch.SUB_JOB_NAME | lsbatch.SUB_PROJECT_NAME | lsbatch.SUB_OUT_FILE | lsbatch.SUB_ERR_FILE
            | lsbatch.SUB_RES_REQ | lsbatch.SUB_USER_GROUP)
    assert new.options == want
    assert new.options2 == lsbatch.SUB2_OVERWRITE_ERR_FILE | lsbatch.SUB2_JOB_PRIORITY
    assert new.rlimits[lsbatch.RLIMIT_RUN] == 90 and new.rlimits.count(-1) == lsbatch.NUM_RLIMITS - 1
    assert (new.num_processors, new.max_num_processors, new.user_priority) == (2, 4, 60)
    assert (new.job_file, new.sig_value, new.sub_home_dir) == (f"{T0}.111", -65535, "/home/alice")
    h = one(life)
    d = h.changes[0].data
    assert (d["error_overwrite"], d["output_overwrite"], d["user_priority"]) == (True, False, 60)
    assert bhist.header_record(h) == (
        "Job <111>, Job Name <Snakemake_rule___(0b7c-uuid)>, User <alice>, Project <proj>, "
        "User Group <grp>, Command <python -m snakemake --x>")
    assert bhist.submit_text(h, d) == (
        "Submitted from host <login1>, to Queue <normal>, CWD </w d>, Output File <o.%J>, "
        "Error File (overwrite) <e.%J>, 2-4 Task(s), Requested Resources <span[hosts=1]>, "
        "User Priority <60>;")


def test_job_new_without_name_logs_the_command():
    life = Life(id=112, command="sleep 100", default_queue_used=True)
    (new,) = life.ev("SUBMIT", 0, "alice", queue="normal")
    assert new.job_name == "sleep 100" and not new.options & lsbatch.SUB_JOB_NAME
    assert not new.options & lsbatch.SUB_QUEUE  # the default queue was used
    h = one(life)
    assert h.name is None and h.display_name == "sleep 100"


def test_awk_positions_and_status_words():
    lives = [lifecycle()]
    killed = Life(id=120, name="Snakemake_x___(UUID1)", command="a b", cwd="/a b")
    killed.ev("SUBMIT", 0, "alice", queue="normal")
    killed.ev("START", 1, None, state="RUN", hosts=["h"])
    killed.ev("SIGNAL", 2, "alice", signal="KILL")
    killed.ev("FINISH", 2, None, status="EXIT", exit_code=130, reason="TERM_OWNER: job killed by owner")
    requeued = Life(id=121)
    requeued.ev("SUBMIT", 0, "alice", queue="normal")
    requeued.ev("SIGNAL", 1, "alice", state="PSUSP", signal="STOP")
    requeued.ev("REQUEUE", 2, "alice", state="PEND")
    requeued.ev("START", 3, None, state="RUN", hosts=["h"])
    requeued.ev("STATUS", 4, None, status="UNKWN", host="h")
    lives += [killed, requeued]
    post = []
    for life in lives:
        for line in life.lines():
            for split in (codec.fields(line), [f.strip('"') for f in awk_fpat_fields(line)]):
                if split[0] == "JOB_NEW":
                    assert split[3] == str(life.job.id)
                    assert split[4] == str(uid_of(life.job.user))
                    assert split[41] == (life.job.name or life.job.command)
                elif split[0] == "JOB_STATUS":
                    assert split[3] == str(life.job.id)
                    code = int(split[4])
                    assert code in SNAKEMAKE_STATUSES or code == 192
                    if code & (lsbatch.JOB_STAT_PDONE | lsbatch.JOB_STAT_PERR):
                        post.append(code)
    assert post == [192, 192]  # fields() and the FPAT split of the one DONE job


def test_start_records():
    life = Life(id=130, specified_cwd="/scratch/run", user_group="grp")
    recs = emit.records_for(life.job, "START", T0 + 0.9, None, {"hosts": ["a", "b"]},
                            uid_of=uid_of, cpu_time=0, pid=4242)
    start, accept, execute = recs
    assert (start.event_time, start.exec_hosts, start.status, start.user_group) == (T0, ("a", "b"), 4, "grp")
    assert (accept.job_pid, accept.job_pgid) == (4242, 4242)
    assert (execute.exec_cwd, execute.exec_home, execute.exec_username, execute.exec_uid, execute.job_pid) == (
        "/scratch/run", "/home/alice", "alice", 1001, 4242)


def test_signal_symbols_and_synthetic_pid():
    assert emit.signal_symbol("KILL") == "KILL"
    assert emit.signal_symbol(9) == "KILL" and emit.signal_symbol(2) == "INT"
    assert emit.signal_symbol(200) == "200"
    assert emit.signal_symbol("SIGHUP") == "HUP"
    p = emit.synthetic_pid(7, 3)
    assert p == emit.synthetic_pid(7, 3) and 1024 <= p < 4194304


# ---------------------------------------------------------------------------
# records of no job
# ---------------------------------------------------------------------------


def test_daemon_and_admin_records():
    recs = [
        emit.mbd_start(T0 + 0.5, "lsfemu", "master1", num_hosts=3, num_queues=2),
        emit.queue_ctrl(T0 + 1, "normal", "qclose", "lsfadmin", user_id=500),
        emit.queue_ctrl(T0 + 2, "normal", "qinact", "lsfadmin"),
        emit.host_ctrl(T0 + 3, "h1", "hclose", "lsfadmin", comment="disk"),
        emit.host_ctrl(T0 + 4, "h1", lsbatch.HOST_OPEN, "lsfadmin"),
        emit.mbd_die(T0 + 5, "master1", exit_code=0),
    ]
    back = [fastdecode.decode(codec.encode(r)) for r in recs]
    assert back == recs
    assert [r.TYPE for r in back] == ["MBD_START", "QUEUE_CTRL", "QUEUE_CTRL", "HOST_CTRL", "HOST_CTRL", "MBD_DIE"]
    assert back[0].event_time == T0 and (back[0].cluster, back[0].master) == ("lsfemu", "master1")
    assert (back[1].opcode, back[2].opcode) == (lsbatch.QUEUE_CLOSED, lsbatch.QUEUE_INACTIVATE)
    assert (back[3].opcode, back[3].ctrl_comments, back[4].opcode) == (lsbatch.HOST_CLOSE, "disk", lsbatch.HOST_OPEN)
    assert all(r.job_key is None for r in back)
    with pytest.raises(ValueError):
        emit.queue_ctrl(T0, "normal", "qexplode", "lsfadmin")
    # no job history comes out of them
    b = HistoryBuilder()
    for r in back:
        b.feed(r)
    assert b.histories == {}


# ---------------------------------------------------------------------------
# JOB_NEW's LSF 9/10 tail (issue 21)
# ---------------------------------------------------------------------------


def test_job_new_tail_carries_what_bsub_was_given_to_bhist_and_replay():
    life = Life(specified_cwd="/scratch/%J", description="a run", job_group="/proj/a", app_profile="fluent",
                post_exec="echo bye", outdir="/out", est_runtime_min=10.0, name="j")
    (new,) = life.ev("SUBMIT", 0)
    line = codec.encode(new)
    assert '"/proj/a"' in line and '"fluent"' in line and '"a run"' in line
    assert codec.fields(line)[-4:] == ["/scratch/%J", "/out", "", ""]  # subcwd, outdir, dcTmpls, dcVmActions
    h = one(life)
    d = h.changes[0].data
    assert (d["specified_cwd"], d["description"], d["job_group"], d["app_profile"]) == \
        ("/scratch/%J", "a run", "/proj/a", "fluent")
    assert (d["post_exec"], d["outdir"], d["est_runtime_min"]) == ("echo bye", "/out", 10.0)
    assert h.application == "fluent"
    assert ", Specified CWD </scratch/%J>" in bhist.submit_text(h, d)
    tr = JobTracker()
    tr.feed(fastdecode.decode(line))
    row = tr.rows[(101, 0)]
    assert (row["specified_cwd"], row["description"], row["job_group"], row["app_profile"]) == \
        ("/scratch/%J", "a run", "/proj/a", "fluent")
    assert set(tr.job_groups) == {"/proj", "/proj/a"}  # the parents too, as bsub -g makes them


def test_job_new_tail_absent_without_the_options():
    life = Life()
    (new,) = life.ev("SUBMIT", 0)
    assert (new.options3, new.job_group, new.subcwd, new.runtime_estimation) == (0, "", "", -1)
    d = one(life).changes[0].data
    assert d["specified_cwd"] is None and d["job_group"] is None and d["est_runtime_min"] is None
