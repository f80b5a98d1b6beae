"""Per-job histories from records: changes and the state-time accounting."""

from __future__ import annotations

import pytest

from lsfemu.events import lsbatch
from lsfemu.events.bmodrecord import job_modify
from lsfemu.events.records import (
    JobClean, JobModify2, JobMove, JobNew, JobRequeue, JobSignal, JobStart, JobStatus, JobSwitch, MbdStart,
)
from lsfemu.events.history import HistoryBuilder, JobHistory, build_histories
from lsfemu.events.modifyitems import modify_items

T0 = 1_700_000_000


def _new(jid=1, t=T0, **kw) -> JobNew:
    base = dict(event_time=t, job_id=jid, user_id=1000, user_name="alice", submit_time=t,
                queue="normal", from_host="h0", cwd="/home/alice/w", sub_home_dir="/home/alice",
                command="sleep 100", job_name="sleep 100")
    base.update(kw)
    return JobNew(**base)


def _st(status: int, t: int, jid=1, **kw) -> JobStatus:
    return JobStatus(event_time=t, job_id=jid, status=status, **kw)


def test_accounting_suspend_resume_done_post():
    recs = [
        _new(),
        JobStart(event_time=T0 + 10, job_id=1, exec_hosts=("h1",)),
        _st(lsbatch.JOB_STAT_USUSP, T0 + 20),
        _st(lsbatch.JOB_STAT_RUN, T0 + 50),
        _st(lsbatch.JOB_STAT_DONE, T0 + 100, end_time=T0 + 100, cpu_time=12.5),
        _st(lsbatch.JOB_STAT_DONE | lsbatch.JOB_STAT_PDONE, T0 + 101),
    ]
    (h,) = build_histories(recs)
    assert [c.kind for c in h.changes] == ["SUBMIT", "DISPATCH", "STATUS", "STATUS", "FINISH", "POST"]
    assert h.finished and h.status == "DONE" and h.finish_time == T0 + 100
    t = h.state_times(now=T0 + 10_000)
    assert (t["PEND"], t["RUN"], t["USUSP"], t["TOTAL"]) == (10, 60, 30, 100)
    assert h.summary_time(T0 + 10_000) == T0 + 101
    assert h.changes[4].data == {"status": "DONE", "exit_code": None, "cpu_time": 12.5, "exit_reason": None}


def test_unfinished_counts_up_to_now():
    h = JobHistory(job_id=5, user="bob", command="x")
    h.add(T0, "SUBMIT")
    h.add(T0 + 5, "DISPATCH", hosts=["h"])
    assert h.state_times(now=T0 + 65)["RUN"] == 60
    assert h.summary_time(T0 + 65) == T0 + 65
    assert not h.finished and h.started


def test_requeue_counts_exit_gap_as_pending():
    recs = [
        _new(),
        JobStart(event_time=T0 + 10, job_id=1, exec_hosts=("h1",)),
        _st(lsbatch.JOB_STAT_EXIT, T0 + 30, exit_status=lsbatch.wait_status(3)),
        JobRequeue(event_time=T0 + 40, job_id=1),
        _st(lsbatch.JOB_STAT_PEND, T0 + 40, reason=lsbatch.PEND_JOB_REQUEUED),  # folded into the REQUEUE
        JobStart(event_time=T0 + 45, job_id=1, exec_hosts=("h2",)),
    ]
    (h,) = build_histories(recs)
    assert [c.kind for c in h.changes] == ["SUBMIT", "DISPATCH", "FINISH", "REQUEUE", "DISPATCH"]
    assert h.status == "RUN" and h.finish_time is None
    t = h.state_times(now=T0 + 100)
    assert (t["PEND"], t["RUN"], t["TOTAL"]) == (10 + 10 + 5, 20 + 55, 100)


def test_hold_then_release_and_pending_suspend():
    recs = [
        _new(options2=lsbatch.SUB2_HOLD),
        _st(lsbatch.JOB_STAT_PEND, T0 + 30, reason=lsbatch.PEND_JOB_NEW),
        _st(lsbatch.JOB_STAT_PSUSP, T0 + 40),
        _st(lsbatch.JOB_STAT_UNKWN, T0 + 45),
    ]
    (h,) = build_histories(recs)
    t = h.state_times(now=T0 + 50)
    assert (t["PSUSP"], t["PEND"], t["UNKWN"], t["TOTAL"]) == (35, 10, 5, 50)
    assert h.changes[1].data == {"status": "PEND", "reason": "New job is waiting for scheduling"}


def test_negative_intervals_count_zero():
    h = JobHistory(job_id=1)
    h.add(T0, "SUBMIT")
    h.add(T0 - 50, "DISPATCH", hosts=["h"])
    h.add(T0 + 10, "FINISH", status="DONE")
    t = h.state_times(now=T0)
    assert t["PEND"] == 0 and t["RUN"] == 60


def test_exit_details_from_records():
    recs = [
        _new(),
        JobStart(event_time=T0 + 1, job_id=1, exec_hosts=("h",)),
        JobSignal(event_time=T0 + 2, job_id=1, signal_symbol="KILL", user_name="alice"),
        _st(lsbatch.JOB_STAT_EXIT, T0 + 3, exit_status=lsbatch.wait_status(130), exit_info=14, cpu_time=0.25),
        _st(lsbatch.JOB_STAT_EXIT, T0 + 3),  # repeated finish records are ignored
    ]
    (h,) = build_histories(recs)
    fin = h.changes[-1]
    assert fin.kind == "FINISH"
    assert fin.data["exit_code"] == 130 and fin.data["exit_reason"] == "TERM_OWNER: job killed by owner"
    # killed while pending: no exit code
    (p,) = build_histories([_new(), _st(lsbatch.JOB_STAT_EXIT, T0 + 3, exit_status=0)])
    assert p.changes[-1].data["exit_code"] is None and not p.started


def test_switch_move_modify_and_identity():
    recs = [
        MbdStart(event_time=T0 - 1, master="m", cluster="c"),
        _new(options=lsbatch.SUB_JOB_NAME | lsbatch.SUB_PROJECT_NAME, job_name="myjob", project_name="p1"),
        JobSwitch(event_time=T0 + 1, job_id=1, queue="short", user_name="admin"),
        JobMove(event_time=T0 + 2, job_id=1, position=1, base=lsbatch.TO_BOTTOM, user_name="alice"),
        job_modify(1, event_time=T0 + 3, user_name="alice", job_name="renamed", command="sleep 5",
                   project_name="p2", queue="long"),
        JobStatus(event_time=T0 + 4, job_id=99, status=lsbatch.JOB_STAT_RUN),  # unknown job
        JobClean(event_time=T0 + 5, job_id=1),
    ]
    (h,) = build_histories(recs)
    assert (h.name, h.command, h.project, h.queue) == ("renamed", "sleep 5", "p2", "long")
    assert h.changes[0].data["queue"] == "normal"
    assert [c.kind for c in h.changes] == ["SUBMIT", "SWITCH", "MOVE", "MODIFY"]
    assert h.changes[2].data == {"position": 1, "top": False, "user": "alice"}
    assert h.changes[3].data["items"] == [
        "Job name changes to : renamed", "Job queue changes to : long",
        "Project name changes to : p2", "Job command changes to : sleep 5",
    ]
    assert (h.user, h.from_host, h.cwd, h.home) == ("alice", "h0", "/home/alice/w", "/home/alice")


def test_name_is_none_without_minus_j():
    (h,) = build_histories([_new()])
    assert h.name is None and h.display_name == "sleep 100"


def test_array_elements_clone_the_array_record():
    b = HistoryBuilder()
    b.feed(_new(options=lsbatch.SUB_JOB_NAME, job_name="arr"))
    b.feed(JobStart(event_time=T0 + 5, job_id=1, idx=2, exec_hosts=("h",)))
    b.feed(job_modify(1, event_time=T0 + 6, user_name="alice", array_index=3, user_priority=9))
    b.feed(JobModify2(job_id_str="bad"))  # unparsable job ID: ignored
    el = b.histories[(1, 2)]
    assert el.array_index == 2 and el.display_id == "1[2]" and el.display_name == "arr[2]"
    assert el.status == "RUN" and b.histories[(1, 0)].status == "PEND"
    assert b.histories[(1, 3)].changes[-1].data["items"] == ["New job priority is: 9"]


def test_modify_items_limits_priority_aps():
    items = modify_items(job_modify(1, event_time=0, user_name="u", run_limit_s=1800,
                                    res_req="rusage[mem=1]", out_file="o", err_file="e",
                                    user_priority_delete=True, aps_delete=True))
    assert items == [
        "Output file change to : o", "Error file change to : e",
        "Resource requirement changes to: rusage[mem=1]", "run limit changes to : 30 (minutes)",
        "Job priority changes to default", "Absolute Priority Scheduling factor string deleted",
    ]
    assert modify_items(job_modify(1, event_time=0, user_name="u", run_limit_delete=True)) == [
        "bmod -Wn used. Run limit set to queue run limit"]
    rl = list(JobModify2().rlimits)
    rl[lsbatch.RLIMIT_CPU] = 600
    assert modify_items(JobModify2(rlimits=tuple(rl))) == ["CPU limit changes to : 10 (minutes)"]


def test_unknown_state_rejected():
    with pytest.raises(ValueError):
        JobHistory(job_id=1).add(0, "STATUS", status="ZOMBIE")
