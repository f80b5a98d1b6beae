"""badmin's views rendered from the sources' values match the derived goldens
(tests/unit/golden_admin/README.md) byte for byte: showstatus (lsf-breadth.md
4.5), hist's lines and OpenLava's prtLine wrapping (cmd.hist.c, cmd.misc.c),
showconf's `NAME = value` lines (issue 21, part 4)."""

from __future__ import annotations

import calendar
import json
import os
import time
from pathlib import Path

import pytest

from lsfemu.engine import perfmon
from lsfemu.events import emit
from lsfemu.render import admin
from lsfemu.views import MbdStatusView, PerfmonView

pytestmark = pytest.mark.slow(1)

GOLDEN = Path(__file__).parent / "golden_admin"


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _t(text: str) -> float:
    return float(calendar.timegm(time.strptime(text, "%a %b %d %H:%M:%S %Y")))


def test_showstatus_is_the_reference_block():
    v = MbdStatusView(clients=(0, 0), servers=(8, 8), cpus=(14, 14), cores=(50, 50), slots=(50, 50),
                      num_servers=8, ok=8, closed=0, unreachable=0, unavailable=0, num_jobs=7, running=0,
                      suspended=0, pending=0, finished=7, num_users=3, num_user_groups=1, active_users=0,
                      latest_job_id=10, started=_t("Thu Nov 22 21:17:01 2012"),
                      reconfigured=_t("Thu Nov 22 21:18:06 2012"), pid=26283)
    text = admin.showstatus(v)
    assert text == (GOLDEN / "showstatus.txt").read_text()
    # tools read the tokens by position: the value is the last word of its line
    assert [ln.split()[-1] for ln in text.splitlines() if ln.strip().startswith(("Servers:", "Slots:", "Pending:"))] \
        == ["8/8", "50/50", "0"]


def test_hist_lines_and_prtline_wrapping():
    t = _t("Mon Jan 05 09:00:00 2026")
    records = [emit.mbd_start(t, "cluster1", "hostA", num_hosts=3, num_queues=2),
               emit.queue_ctrl(t + 60, "normal", "qclose", "lsfadmin", comment="disk full"),
               emit.host_ctrl(t + 120, "hostB", "hclose", "lsfadmin"),
               emit.mbd_die(t + 180, "hostA", exit_code=202),
               emit.mbd_die(t + 240, "hostA", exit_code=15)]
    assert admin.hist(records) == (GOLDEN / "hist.txt").read_text()


def test_prtline_counts_80_then_79_and_58_per_continuation():
    first = "a" * 100 + "\n"
    second = "b" * 140 + "\n"
    lines = admin.prt_line(first + second).splitlines()
    assert [len(ln) for ln in lines] == [80, 41, 79, 79, 24]
    assert lines[1] == " " * 21 + "a" * 20 and lines[3] == " " * 21 + "b" * 58
    # a blank at the break is dropped
    assert admin.prt_line("x" * 80 + " y\n") == "x" * 80 + "\n" + " " * 21 + "y\n"


def test_showconf_lines_are_sorted_name_equals_value():
    text = admin.showconf("MBD configuration at Mon Jan  5 09:00:00 2026",
                          {"LSF_UNIT_FOR_LIMITS": "MB", "LSB_SHAREDIR": os.sep + "work"})
    assert text == ("MBD configuration at Mon Jan  5 09:00:00 2026\n"
                    "    LSB_SHAREDIR = /work\n"
                    "    LSF_UNIT_FOR_LIMITS = MB\n")
    assert dict(ln.strip().split(" = ") for ln in text.splitlines()[1:]) == {
        "LSB_SHAREDIR": "/work", "LSF_UNIT_FOR_LIMITS": "MB"}


def _perfmon_view(rows):
    return PerfmonView(start=1763137581, end=1763137701, period=60, rows=rows, slot_utilization="100.00%",
                       memory_utilization="12.00%", fd=(65513, 22, 65535))


def test_perfmon_json_is_the_seen_layout():
    text = admin.perfmon_json(_perfmon_view([("Processed requests: mbatchd", 32, 39, 32, 35, 71)]))
    memory = '}, {\n\t\t\t"name":\t"Memory utilization",\n\t\t\t"current":\t"-",\n\t\t\t"total":\t"12.00%"\n\t\t}]'
    assert memory in text and '"num":\t3,' in text
    edited = text.replace(memory, "}]").replace('"num":\t3,', '"num":\t16,')
    assert edited == (GOLDEN / "perfmon_view.json").read_text()
    data = json.loads(text)
    assert [r["name"] for r in data["record"]] == ["Processed requests: mbatchd", "Slot utilization",
                                                    "Memory utilization"]
    assert data["fd"] == {"name": "mbatchd file descriptor usage", "free": 65513, "used": 22, "total": 65535}


def test_perfmon_text_table():
    rows = [(m, 0, 0, 0, 0, 0) for m in perfmon.METRICS]
    rows[0] = ("Processed requests: mbatchd", 32, 39, 32, 35, 71)
    lines = admin.perfmon(_perfmon_view(rows)).splitlines()
    assert lines[:6] == [
        "Performance monitor start time:  Fri Nov 14 16:26:21",
        "End time of last sample period:  Fri Nov 14 16:28:21",
        "Sample period :                  60 Seconds",
        "-" * 66,
        "Metrics                                Last   Max   Min   Avg   Total",
        "-" * 66]
    assert lines[6] == "Processed requests: mbatchd              32    39    32    35      71"
    assert [ln[:37].rstrip() for ln in lines[6:22]] == list(perfmon.METRICS) + ["Slot utilization", "Memory utilization"]
    assert lines[20:] == [
        "Slot utilization                          -     -     -     - 100.00%",
        "Memory utilization                        -     -     -     -  12.00%",
        "-" * 66,
        "File Descriptor Metrics                Free  Used Total",
        "-" * 66,
        "MBD file descriptor usage             65513    22 65535"]
