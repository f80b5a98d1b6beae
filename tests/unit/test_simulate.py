"""Simulated execution and durations."""

import pytest

from lsfemu.clock import parse_duration, parse_time
from lsfemu.sched import simulate as S


@pytest.mark.parametrize("cmd,secs", [
    ("sleep 600", 600), ("sleep 2m", 120), ("/bin/sleep 5", 5), ("#!/bin/sh\n# x\nsleep 30\n", 30),
    ("echo hi", None), ("sleep abc", None), ("sleep 10; echo", None),
])
def test_runtime_from_command(cmd, secs):
    assert S.runtime_from_command(cmd) == secs


def test_plan_env_overrides_and_cpu_default():
    assert S.plan("sleep 60", {}, 2, parse_duration) == (60, 120, 0)
    assert S.plan("hostname", {"LSFEMU_RUNTIME": "1h", "LSFEMU_CPUTIME": "30m", "LSFEMU_EXIT_CODE": "3"}, 4,
                  parse_duration) == (3600, 1800, 3)
    assert S.plan("hostname", {}, 1, parse_duration) == (0, 0, 0)


def test_end_of_run_and_runlimit():
    assert S.end_of_run(600, None, 0, 100) == (700, False)
    assert S.end_of_run(600, 5, 0, 100) == (400, "RUNLIMIT")  # 5 min limit
    # bsub -c: 60 s of CPU of a job that uses 2 CPUs (1200 s over 600 s) end it 30 s in
    assert S.end_of_run(600, None, 0, 100, cputime=1200, cpu_limit_s=60) == (130, "CPULIMIT")
    assert S.end_of_run(600, 1, 0, 100, cputime=1200, cpu_limit_s=60) == (130, "CPULIMIT")  # before the run limit
    assert S.end_of_run(600, None, 200, 1000) == (1400, False)  # resumed after 200 s of work


def test_work_and_cpu():
    assert S.work_at(10, None, 99) == 10
    assert S.work_at(10, 50, 60) == 20
    assert S.cpu_at(100, 200, 50) == 100
    assert S.cpu_at(0, 5, 0) == 5


@pytest.mark.parametrize("text,secs", [("90", 90), ("15m", 900), ("2h", 7200), ("7d", 604800), ("1h30m", 5400), ("1.5h", 5400)])
def test_parse_duration(text, secs):
    assert parse_duration(text) == secs


@pytest.mark.parametrize("bad", ["", "abc", "5x", "-3", "m"])
def test_parse_duration_rejects(bad):
    with pytest.raises(ValueError):
        parse_duration(bad)


def test_parse_time():
    assert parse_time("+1h", 100) == 3700
    assert parse_time("1767603600", 0) == 1767603600
    with pytest.raises(ValueError):
        parse_time("tomorrow", 0)
