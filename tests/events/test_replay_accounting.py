"""The what-if replay's rows from lsb.acct (lsfemu.replay.accounting), on real
LSF 10 records of the corpus tests/data/lsbacct (see its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsfemu.events import acct
from lsfemu.replay.accounting import acct_row, acct_rows
from lsfemu.replay.common import Warnings

DATA = Path(__file__).resolve().parent.parent / "data" / "lsbacct"


def test_a_finished_job_gives_its_submission_dispatch_and_run():
    rows = list(acct_rows([DATA / "lsf10108_hpc_cost_simulator.acct"], warns := Warnings(), None))
    assert warns.counts == {"corrupt": 1} and ":2: " in warns.first[0] and warns.first[0].endswith("record skipped")
    r = rows[0]
    assert (r["id"], r["array_index"], r["user"], r["queue"], r["num_processors"]) == (386, 0, "simuser", "sender", 1)
    assert (r["submit_time"], r["start_time"], r["finish_time"]) == (1644826545.0, 1644826546.0, 1644826549.0)
    assert r["sim_runtime"] == 3.0 and r["sim_cputime"] == pytest.approx(0.004997 + 0.006155)
    assert r["command"] == "/bin/sleep 3" and r["sim_exit_code"] == 0 and r["project"] == "default"
    assert r["res_req"] is None and r["run_limit_min"] is None and r["priority"] is None
    assert len(rows) == 4
    # --until: the jobs submitted by then
    until = rows[1]["submit_time"]
    assert [x["id"] for x in acct_rows([DATA / "lsf10108_hpc_cost_simulator.acct"], Warnings(), until)] == \
        [x["id"] for x in rows if x["submit_time"] <= until]


def test_a_job_killed_pending_never_started():
    (r,) = acct_rows([DATA / "lsf101_killed_pending.acct"], Warnings(), None)
    assert r["start_time"] is None and r["sim_runtime"] == 0.0
    assert (r["submit_time"], r["finish_time"]) == (1656326059.0, 1656326065.0)
    assert r["res_req"] == "rusage[Virtuoso_Multi_mode_Simulation=2:duration=1m] span[hosts=1]"


def test_slots_run_limit_name_memory_and_exit_code():
    rec = acct.AcctRecord(job_id=7, idx=3, event_time=5000, submit_time=1000, start_time=1500, user_name="u",
                          queue="q", num_processors=4, res_req="rusage[mem=2048]", run_limit=3600,
                          options=0x01, job_name="a[3]", j_status=acct.JOB_STAT_EXIT, exit_status=3 << 8)
    r = acct_row(rec)
    assert (r["num_processors"], r["run_limit_min"], r["name"], r["mem_req_mb"]) == (4, 60.0, "a[3]", 2048.0)
    assert r["sim_exit_code"] == 3 and r["sim_runtime"] == 3500.0
    assert r["sim_cputime"] == 3500.0 * 4  # no rusage recorded (-1): run time x slots
