"""bacct's formats (lsfemu/render/bacct.py) against goldens derived from real
captures (tests/render/golden_bacct/README.md): the SUMMARY statistics and
their layout, -l, -b, -w, and the pure statistics on their own."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from lsfemu.events.acct import JOB_STAT_DONE, JOB_STAT_EXIT, SCHEMA, AcctRecord, Rusage
from lsfemu.render import bacct as R
from render_helpers import at

pytestmark = pytest.mark.slow(1)

GOLDEN = Path(__file__).parent / "golden_bacct"


def check(name: str, text: str) -> None:
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), name, "rendered"))
        raise AssertionError(f"{name} differs:\n{diff}")


def rec(job_id: int, submit: float, start: float, finish: float, *, run: int | None = None, cpu: float = 0.0,
        done: bool = True, **kw) -> AcctRecord:
    return AcctRecord(
        job_id=job_id, event_time=int(finish), submit_time=int(submit), start_time=int(start),
        run_time=int(finish - start) if run is None else run, user_name=kw.pop("user_name", "tom"),
        queue=kw.pop("queue", "normal"), j_status=JOB_STAT_DONE if done else JOB_STAT_EXIT,
        lsf_rusage=Rusage(ru_utime=cpu, ru_stime=0.0), command=kw.pop("command", "sleep 1"), **kw)


def lsf10_sample() -> list[AcctRecord]:
    """Ten jobs whose statistics are those of the reference's LSF 10 SUMMARY
    capture (section 2.3): 8 done, 2 exited, 7.8 s of CPU, 8 s of waiting,
    one job of run time 0, one with an expansion factor of 114 (its finish
    logged 111 s after its 1 s of RUN), Oct 14 12:23:50 to Oct 30 13:08:16."""
    b0 = at("2020 Oct 14 12:23:50")
    end = b0 + 1385066
    return [
        rec(1, b0, b0, b0 + 2513, cpu=1.9),
        rec(2, b0 + 3000, b0 + 3001, b0 + 3114, run=1, cpu=0.0, done=False, exit_info=14),
        rec(3, b0 + 4000, b0 + 4001, b0 + 4007, run=0, cpu=0.63, done=False),
        rec(4, b0 + 5000, b0 + 5002, b0 + 5007, run=3, cpu=0.5),
        rec(5, b0 + 6000, b0 + 6002, b0 + 6007, run=4, cpu=0.5),
        rec(6, b0 + 7000, b0 + 7001, b0 + 7007, run=6, cpu=0.4),
        rec(7, b0 + 8000, b0 + 8000, b0 + 9000, cpu=1.9),
        rec(8, end - 800, end - 800, end, cpu=1.5),
        rec(9, b0 + 10000, b0 + 10000, b0 + 10346, cpu=0.47),
        rec(10, b0 + 11000, b0 + 11001, b0 + 11201, cpu=0.0),
    ]


def gc3pie_job() -> AcctRecord:
    """Job 3329613 of gc3pie's `bacct -l` capture (reference section 2.4)."""
    return rec(3329613, at("2012 Oct 08 17:07:54"), at("2012 Oct 08 17:08:44"), at("2012 Oct 08 17:09:51"),
               cpu=0.08, user_name="rmurri", queue="pub.1h", command="sleep 60",
               charged_saap="/lsf_biol_all/lsf_aeber/rmurri", from_host="brutus4", cwd="", out_file="lsf.o%J",
               exec_hosts=("a3201",), max_r_mem=5 * 1024, max_r_swap=222 * 1024)


def test_summary_matches_the_lsf10_capture():
    check("summary_lsf10.txt", R.render(lsf10_sample(), R.Selection()))


def test_long_matches_gc3pie():
    check("long_gc3pie.txt", R.render([gc3pie_job()], R.Selection(), form="long"))


def test_brief_is_long_without_event_records():
    check("brief_gc3pie.txt", R.render([gc3pie_job()], R.Selection(), form="brief"))


def test_wide_leaves_records_unwrapped():
    check("long_wide_gc3pie.txt", R.render([gc3pie_job()], R.Selection(), form="long", wide=True))


def test_nothing_selected():
    check("nothing.txt", R.render([], R.Selection()))


def test_statistics_definitions():
    s = R.statistics(lsf10_sample())
    assert (s.done, s.exited) == (8, 2)
    assert s.wait_total == 8 and s.turn_total == 5002 and s.run_total == 4873
    assert s.exp_max == 114 and s.exp_min == 1  # the job of run time 0 takes no part
    assert s.hog_max == pytest.approx(0.09)
    assert s.end - s.begin == 1385066


def test_never_started_job_waited_until_it_ended():
    r = rec(5, 1000, 0, 1060, run=0, done=False, exit_info=14)
    assert (R.wait_time(r), R.turnaround(r), R.run_time(r), R.expansion(r)) == (60, 60, 0, 0)
    s = R.statistics([r])
    assert s.exp_avg == 0 and s.begin == 1000 and s.end == 1060  # no start: the period begins at submission
    assert R.event_lines(r)[-1][1] == "Completed <exit>; TERM_OWNER: job killed by owner."
    assert [t for t, _ in R.event_lines(r)] == [1000, 1060]  # no dispatch record


def test_old_records_take_run_time_from_start_and_finish():
    full = rec(1, 0, 100, 400, run=50)
    assert R.run_time(full) == 50
    old = AcctRecord(**{**full.__dict__, "fields_present": [f.name for f in SCHEMA].index("run_time")})
    assert R.run_time(old) == 300


def test_normalised_cpu_time():
    r = rec(1, 0, 0, 100, cpu=10.0, host_factor=2.0)
    assert R.cpu_time(r) == 10.0 and R.cpu_time(r, R.Calc(factor=4.0)) == 5.0
    assert R.statistics([r], calc=R.Calc(factor=4.0)).cpu_total == 5.0


def test_eligible_pending_time():
    r = rec(1, 0, 100, 400, run=300, cpu=30.0, ineligible_pend_time=60)
    e = R.Calc(eligible=True)
    assert (R.wait_time(r), R.turnaround(r)) == (100, 400)
    assert (R.wait_time(r, e), R.turnaround(r, e), R.hog_factor(r, e)) == (40, 340, 30 / 340)
    untracked = rec(2, 0, 100, 400, ineligible_pend_time=-1)
    assert R.wait_time(untracked, e) == 100
    assert R.statistics([r], calc=e).wait_total == 40


def test_header_names_the_selection(utc):
    sel = R.Selection(users=("tom",), queues=("normal", "short"),
                      dispatched=(at("2020 Oct 01 00:00:00"), at("2020 Nov 01 00:00:00")))
    text = R.header(sel)
    assert "  - submitted by users tom, \n" in text
    assert "  - submitted to queues normal, short, \n" in text
    assert ("  - dispatched between  Thu Oct  1 00:00:00 2020\n"
            "                  ,and   Sun Nov  1 00:00:00 2020\n") in text


def test_array_element_and_multi_slot_dispatch():
    r = rec(7, 0, 10, 20, idx=3, exec_hosts=("h1", "h1"), effective_res_req="select[type == local] order[r15s:pg] ")
    assert R.display_id(r) == "7[3]"
    text = dict((t, x) for t, x in R.event_lines(r))[10]
    assert text.startswith("[3] dispatched 2 Task(s) on Host(s)")
    assert text.endswith("Effective RES_REQ <select[type == local] order[r15s:pg]>;")


@pytest.mark.parametrize("kb,text", [(0, "0M"), (-1, "0M"), (5208, "5M"), (227328, "222M"), (3355443, "3.2G")])
def test_memory_units(kb, text):
    assert R.mem_text(kb) == text
