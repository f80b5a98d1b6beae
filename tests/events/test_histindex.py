"""bhist's index of the event files (lsfemu.ops.histindex, issue 23): the
histories built from the indexed records of one user's (or some job IDs')
jobs are those a whole read builds for them -- after appends, after a log
switch (lsb.events.1), after a truncation and in a fresh process (a restarted
daemon) -- and a file bhist's reader would warn about is not served."""

from __future__ import annotations

import pytest

from lsfemu.events import lsbatch
from lsfemu.events.history import BUILDER_FIELDS, BUILDER_UNUSED, HistoryBuilder
from lsfemu.events.log import EventWriter, event_files, read_events, rotate
from lsfemu.events.records import JobModify2, JobNew, JobStatus, JobSwitch
from lsfemu.events.synth import write_events
from lsfemu.ops import histindex

pytestmark = pytest.mark.slow(2)


@pytest.fixture(autouse=True)
def _fresh_process():
    histindex._INDEXES.clear()
    yield
    histindex._INDEXES.clear()


def _whole(paths, pick):
    b = HistoryBuilder()
    for _, rec in read_events(paths, unused=BUILDER_UNUSED, fields=BUILDER_FIELDS):
        b.feed(rec)
    return [h for h in b.histories.values() if pick(h)]


def _indexed(paths, pick, jobs=None, users=None):
    records = histindex.indexed_records(paths, jobs, users)
    assert records is not None
    b = HistoryBuilder()
    for rec in records:
        b.feed(rec)
    return [h for h in b.histories.values() if pick(h)]


def _same(paths, users=None, jobs=None):
    if users is not None:
        pick = lambda h: h.user in users  # noqa: E731
    else:
        pick = lambda h: h.job_id in jobs  # noqa: E731
    got = _indexed(paths, pick, jobs=jobs, users=users)
    assert got == _whole(paths, pick)
    return got


def _more(path, t=1767800000):
    """Records appended by a running daemon: a new job of user007, changes of old jobs."""
    with EventWriter(path) as w:
        w.write_many([
            JobNew(event_time=t, job_id=90001, user_id=1000, user_name="user007", queue="normal",
                   from_host="host000", cwd="/tmp", sub_home_dir="/tmp", command="sleep 1", submit_time=t,
                   num_processors=1, max_num_processors=1),
            JobSwitch(event_time=t + 1, user_id=0, job_id=90001, queue="short", user_name="user007"),
            JobModify2(event_time=t + 2, job_id_str="90001", user_name="user007"),
            JobStatus(event_time=t + 3, job_id=90001, status=lsbatch.JOB_STAT_EXIT, end_time=t + 3),
        ])


def test_one_user_and_job_ids_as_a_whole_read(tmp_path):
    path = tmp_path / "lsb.events"
    write_events(path, 1200, users=20)
    got = _same([path], users={"user003"})
    assert got and len(got) < 50
    _same([path], users={"user001", "user002", "nobody"})
    got = _same([path], jobs={5, 17, 99999})
    assert sorted(h.job_id for h in got) == [5, 17]


def test_appends_are_indexed_from_the_tail(tmp_path):
    path = tmp_path / "lsb.events"
    write_events(path, 1200, users=20)
    _same([path], users={"user007"})
    idx = histindex.file_index(path)
    end = idx.end
    _more(path)
    assert histindex.file_index(path) is idx  # the same index, caught up
    assert idx.end == path.stat().st_size > end
    got = _same([path], users={"user007"})
    assert got[-1].job_id == 90001 and got[-1].queue == "short" and got[-1].status == "EXIT"
    _same([path], jobs={90001, 3})


def test_a_log_switch_and_a_fresh_process(tmp_path):
    path = tmp_path / "lsb.events"
    write_events(path, 1200, users=20)
    _more(path, t=1767600000)
    _same([path], users={"user007"})
    old = histindex.file_index(path)
    rotate(tmp_path, keep=lambda r: r.job_key is not None and r.job_key[0] in (1, 2, 90001))
    cur = [path]
    both = event_files(tmp_path)
    assert [p.name for p in both] == ["lsb.events.1", "lsb.events"]
    assert histindex.file_index(path) is not old  # a new file: indexed anew
    for paths in (cur, both):  # the current file with its preserved head; both without it
        _same(paths, users={"user007"})
        _same(paths, jobs={1, 2, 90001})
    _more(path, t=1767900000)  # 90001 again (an ID LSF would not reuse; the index keeps every record)
    _same(both, users={"user007"})
    histindex._INDEXES.clear()  # a restarted daemon: built again from the files
    _same(both, users={"user007"})
    _same(cur, jobs={1, 90001})


def test_a_file_truncated_and_written_again_is_indexed_anew(tmp_path):
    path = tmp_path / "lsb.events"
    write_events(path, 600, users=5)
    size = path.stat().st_size
    _more(path)
    _same([path], users={"user007"})
    with open(path, "r+b") as fh:  # a commit taken back, then other records of the same length
        fh.truncate(size)
    _more(path, t=1767800100)
    got = _same([path], users={"user007"})
    assert got[-1].submit_time == 1767800100


def test_files_the_reader_warns_about_are_not_served(tmp_path):
    path = tmp_path / "lsb.events"
    write_events(path, 600, users=5)
    with open(path, "a") as fh:
        fh.write('"JOB_START" "10.1" 1709629205 401 4 0 0 1.0 2 "h1\n')  # corrupt
    assert histindex.indexed_records([path], users={"user001"}) is None
    path.write_bytes(b"")
    write_events(path, 600, users=5)
    with open(path, "ab") as fh:
        fh.write(b'"JOB_STATUS" "10.1" 17676')  # a record being written
    assert histindex.indexed_records([path], users={"user001"}) is None
