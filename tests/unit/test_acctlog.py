"""lsfemu.engine.acctlog: lsb.acct cut back to the committed length at start,
records taken back when the commit fails, archives shifted and deleted, and
when lsb.params' archive parameters say the file is due (issue 20)."""

from __future__ import annotations

import calendar

import pytest

from lsfemu.config.model import Params
from lsfemu.engine.acctlog import AcctLog, acct_files, archive_due
from lsfemu.events.acct import AcctRecord, format_record, read_acct

pytestmark = pytest.mark.slow(1)


def _rec(job_id: int, t: int = 1000) -> AcctRecord:
    return AcctRecord(job_id=job_id, event_time=t)


def _ids(path) -> list[int]:
    return [r.job_id for r in read_acct(path, lambda w: pytest.fail(str(w)))]


def test_records_past_the_committed_length_are_cut_at_start(tmp_path):
    log = AcctLog(str(tmp_path))
    assert log.recover(None) == 0
    log.staged = [_rec(1), _rec(2)]
    _, committed = log.write_staged()
    log.staged = [_rec(3)]
    log.write_staged()  # appended, then the daemon died before the commit
    log.close()
    again = AcctLog(str(tmp_path))
    assert again.recover(committed) == committed
    assert _ids(tmp_path / "lsb.acct") == [1, 2]
    assert again.first_time == 1000


def test_a_store_without_the_counter_adopts_the_file(tmp_path):
    (tmp_path / "lsb.acct").write_text(format_record(_rec(7)) + "\n")
    log = AcctLog(str(tmp_path))
    assert log.recover(None) == (tmp_path / "lsb.acct").stat().st_size
    assert _ids(tmp_path / "lsb.acct") == [7]


def test_a_counter_past_the_file_is_stale_after_an_archive(tmp_path):
    # archived after its commit, the daemon died before committing the new length (0)
    (tmp_path / "lsb.acct").write_text(format_record(_rec(8)) + "\n")
    log = AcctLog(str(tmp_path))
    size = (tmp_path / "lsb.acct").stat().st_size
    assert log.recover(10 * size) == size  # the caller commits this length: nothing is cut
    assert _ids(tmp_path / "lsb.acct") == [8]


def test_a_refused_commit_takes_the_records_back(tmp_path):
    log = AcctLog(str(tmp_path))
    log.recover(0)
    log.staged = [_rec(1)]
    before, _ = log.write_staged()
    log.undo(before)
    assert (tmp_path / "lsb.acct").stat().st_size == 0 and log.first_time is None
    log.staged = [_rec(2, 2000)]
    log.write_staged()
    assert _ids(tmp_path / "lsb.acct") == [2] and log.first_time == 2000


def test_archives_shift_up_and_those_beyond_the_limit_are_deleted(tmp_path):
    log = AcctLog(str(tmp_path))
    log.recover(0)
    for n in range(1, 5):
        log.staged = [_rec(n)]
        log.write_staged()
        log.archive(2)
    assert [p.name for p in acct_files(tmp_path)] == ["lsb.acct.2", "lsb.acct.1", "lsb.acct"]
    assert _ids(tmp_path / "lsb.acct.2") == [3] and _ids(tmp_path / "lsb.acct.1") == [4]
    assert (tmp_path / "lsb.acct").stat().st_size == 0
    log.staged = [_rec(5)]
    log.write_staged()  # the writer appends to the new file
    log.archive(None)
    assert [p.name for p in acct_files(tmp_path)] == ["lsb.acct.3", "lsb.acct.2", "lsb.acct.1", "lsb.acct"]
    log.close()


def test_when_the_archive_parameters_say_the_file_is_due(utc):
    t = calendar.timegm((2026, 1, 5, 9, 0, 0))
    assert not archive_due(Params(), t, 10**9, t + 10**7)  # nothing set: never
    assert not archive_due(Params(acct_archive_size=1), None, 5000, t)  # no record: nothing to archive
    assert not archive_due(Params(acct_archive_size=1), t, 1024, t)
    assert archive_due(Params(acct_archive_size=1), t, 1025, t)
    age = Params(acct_archive_age=2)
    assert not archive_due(age, t, 10, t + 2 * 86400 - 1) and archive_due(age, t, 10, t + 2 * 86400)
    daily = Params(acct_archive_time=(2, 30))
    assert not archive_due(daily, t, 10, calendar.timegm((2026, 1, 6, 2, 29, 59)))
    assert archive_due(daily, t, 10, calendar.timegm((2026, 1, 6, 2, 30, 0)))
    assert archive_due(daily, t, 10, calendar.timegm((2026, 1, 9, 1, 0, 0)))  # days later
    # a file begun after today's 02:30 waits for tomorrow's
    assert not archive_due(daily, calendar.timegm((2026, 1, 6, 3, 0, 0)), 10, calendar.timegm((2026, 1, 6, 23, 0, 0)))
