"""JobFilter (bhist with job IDs): skimming other jobs' records must keep
exactly the records a full decode would keep for the wanted jobs, and the
latest event time of the file."""

from __future__ import annotations

from lsfemu.events import lsbatch
from lsfemu.events.records import JobModify2, JobMove, JobStatus, JobSwitch, QueueCtrl
from lsfemu.events.log import EventWriter, JobFilter, read_events
from lsfemu.events.synth import write_events


def _extra_records(path) -> None:
    with EventWriter(path) as w:
        w.write_many([
            JobMove(event_time=1767700000, user_id=7, job_id=3, position=1, user_name="user001"),
            JobSwitch(event_time=1767700001, user_id=3, job_id=5, queue="short", user_name="user001"),
            JobModify2(event_time=1767700002, job_id_str="5[2]", user_name="user001"),
            JobModify2(event_time=1767700003, job_id_str="3", user_name="user001"),
            QueueCtrl(event_time=1767700004, opcode=1, queue="normal", user_id=0, user_name="root"),
            JobStatus(event_time=1767700009, job_id=77, status=lsbatch.JOB_STAT_DONE),
        ])


def test_filter_keeps_exactly_the_wanted_jobs_records(tmp_path):
    path = tmp_path / "lsb.events"
    write_events(path, 3000)
    _extra_records(path)
    everything = [rec for _, rec in read_events(path)]
    for want in ({3}, {5}, {3, 5, 400}, {99999}):
        jobs = JobFilter(want)
        got = [rec for _, rec in read_events(path, jobs=jobs)]
        expected = [r for r in everything if r.job_key is None or r.job_key[0] in want]
        assert got == expected
        assert any(r.job_key for r in got) == (want != {99999})
        skipped_times = [r.event_time for r in everything if r.job_key is not None and r.job_key[0] not in want]
        assert jobs.last_time == max(skipped_times)


def test_unusual_lines_are_decoded_not_skimmed(tmp_path):
    path = tmp_path / "lsb.events"
    with EventWriter(path) as w:
        w.write(JobStatus(event_time=1709629206, job_id=12, status=lsbatch.JOB_STAT_DONE))
    line = path.read_text().splitlines()[1]
    with open(path, "a") as fh:
        fh.write('"JOB_START" "10.1" 1709629205 401 4 0 0 1.0 2 "h1\n')  # another job's: skimmed, unreported
        fh.write('"JOB_START" "10.1" 1709629205 12 4 0 0 1.0 2 "h1\n')  # the wanted job's: reported
        fh.write(line.replace(" 12 ", " +12 ", 1) + "\n")  # an ID token too odd to skim: decoded
    warnings = []
    got = [rec for _, rec in read_events(path, warnings.append, jobs=JobFilter({12}))]
    assert [w.lineno for w in warnings if w.kind == "corrupt"] == [4]
    assert [r.job_id for r in got] == [12, 12]
