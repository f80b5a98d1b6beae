"""Time formats of reference 1.2 (TZ=UTC via conftest)."""

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
