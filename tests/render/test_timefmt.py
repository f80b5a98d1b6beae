"""Time formats of reference 1.2 (TZ=UTC via conftest)."""

import random
import time

import pytest
from render_helpers import at

from lsfemu.render import timefmt


def test_table_time_pads_the_day_with_a_space():
    assert timefmt.table_time(at("2019 Jun 09 03:00:59")) == "Jun  9 03:00"
    assert timefmt.table_time(at("2019 Oct 22 13:51:00")) == "Oct 22 13:51"


def test_table_time_with_year():
    assert timefmt.table_time(at("2016 May 03 10:21:00"), year=True) == "May  3 10:21 2016"


def test_long_prefix():
    assert timefmt.long_prefix(at("2019 Jul 30 16:49:55")) == "Tue Jul 30 16:49:55"
    assert timefmt.long_prefix(at("2018 Oct 05 17:51:30")) == "Fri Oct  5 17:51:30"
    assert timefmt.long_prefix(at("2026 May 23 18:18:44"), year=True) == "Sat May 23 18:18:44 2026"
    assert len(timefmt.long_prefix(0) + ": ") == timefmt.PREFIX_LEN
    assert len(timefmt.long_prefix(0, year=True) + ": ") == timefmt.PREFIX_LEN_YEAR


def test_ctime_and_w_time():
    assert timefmt.ctime(at("2021 Jan 24 18:06:13")) == "Sun Jan 24 18:06:13 2021"
    assert timefmt.ctime(at("2021 Jan 04 18:06:13")) == "Mon Jan  4 18:06:13 2021"
    assert timefmt.w_time(at("2011 Oct 19 17:10:27")) == "10/19-17:10:27"


def test_hms():
    assert timefmt.hms(0) == "00:00:00"
    assert timefmt.hms(600) == "00:10:00"
    assert timefmt.hms(0.2) == "00:00:00"
    assert timefmt.hms(0.2, ceil=True) == "00:00:01"
    assert timefmt.hms(100 * 3600 + 61) == "100:01:01"
    assert timefmt.cpu_w(0.12) == "000:00:00.12"


def test_local_time_is_used(monkeypatch):
    import time

    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    try:
        assert timefmt.table_time(at("2019 Jul 01 10:00:00")) == "Jul  1 12:00"
    finally:
        monkeypatch.setenv("TZ", "UTC")
        time.tzset()


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia", "Europe/Amsterdam"])
def test_record_stamps_are_long_prefix(monkeypatch, zone):
    """RecordStamps (bhist -t's stamps, made per minute) gives long_prefix's
    text at every second: across offset changes (DST of 1 h and Lord Howe's
    30 min, Samoa's skipped day, Amsterdam's +00:19:32 of the 1930s), and
    in a zone's plain minutes, with and without the year."""
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        rng = random.Random(23)
        times = [rng.randint(-2**31, 2**32) for _ in range(2000)]
        times += range(1774746000 - 3700, 1774746000 + 3700, 7)  # around 2026-03-29 01:00 UTC
        times += range(1775318400 - 3700, 1775318400 + 3700, 7)  # 2026-04-04/05 (Lord Howe's -30 min)
        times += range(1325239200 - 90000, 1325239200 + 90000, 61)  # Samoa's 2011-12-30
        times += range(-1025745000, -1025740000, 13)  # 1937 in Amsterdam
        for year in (False, True):
            stamps = timefmt.RecordStamps(year)
            assert [stamps[float(t)] for t in times] == [timefmt.long_prefix(float(t), year) + ": " for t in times]
            stamps.clear()
            assert not stamps and stamps[0.0] == timefmt.long_prefix(0.0, year) + ": "
    finally:
        monkeypatch.setenv("TZ", "UTC")
        time.tzset()
