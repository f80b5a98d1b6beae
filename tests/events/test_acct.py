"""lsb.acct JOB_FINISH records (lsfemu.events.acct): the exact text against a
hand-written golden line, round trips, records of older and newer LSF
versions, and damaged lines (issue 20)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.events.acct import (
    MIN_FIELDS, SCHEMA, AcctRecord, AcctSyntaxError, NotJobFinish, Rusage, format_record, parse_record, read_acct,
)
from tests.events.events_helpers import assert_golden

pytestmark = pytest.mark.slow(2)

CORPUS = Path(__file__).parent.parent / "data" / "lsbacct"


def golden_record() -> AcctRecord:
    """The job of golden/acct_job_finish.README.md."""
    return AcctRecord(
        job_id=412, version="10.108", event_time=1700000065, user_id=1000, options=33554451, num_processors=2,
        submit_time=1700000000, start_time=1700000005, user_name="alice", queue="normal", res_req="span[hosts=1]",
        from_host="hostA", cwd="/home/alice", out_file="out.%J", job_file="1700000000.412",
        exec_hosts=("hostA", "hostA"), j_status=32, host_factor=1.0, job_name='say "hi"', command='echo "hi"; exit 3',
        lsf_rusage=Rusage(1.5, 0.25, 2048, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 5, 1, 0),
        project_name="proj1", exit_status=768, max_num_processors=2, max_r_mem=2048, max_r_swap=4096,
        last_resize_time=1700000005, avg_mem=1024,
        effective_res_req="select[type == local] order[r15s:pg] span[hosts=1] ", run_time=60, subcwd="/home/alice",
        alloc_slots=("hostA", "hostA"), finish_kvp=(("schedulingOverhead", "0.00"),),
    )


def test_golden_job_finish_line():
    rec = golden_record()
    assert_golden("acct_job_finish", format_record(rec) + "\n")
    assert rec.exit_code == 3 and not rec.finished


def test_golden_line_reads_back_to_the_same_record():
    line = (Path(__file__).parent / "golden" / "acct_job_finish.txt").read_text(encoding="utf-8")
    assert parse_record(line) == golden_record()


def _real_lines(name: str) -> list[str]:
    return [ln.rstrip("\n") for ln in (CORPUS / name).read_text(encoding="utf-8").splitlines() if ln.strip()]


def test_real_lsf10_records_read_and_write_back_byte_for_byte():
    warnings = []
    recs = list(read_acct(CORPUS / "lsf10108_hpc_cost_simulator.acct", warnings.append))
    lines = _real_lines("lsf10108_hpc_cost_simulator.acct")
    assert [r.job_id for r in recs] == [386, 388, 384, 385]
    assert [format_record(r) for r in recs] == [lines[0]] + lines[2:]
    first = recs[0]
    assert (first.user_name, first.queue, first.command, first.exec_hosts) == (
        "simuser", "sender", "/bin/sleep 3", ("ip-10-30-66-253.eu-west-1.compute.internal",))
    assert (first.run_limit, first.options3, first.avg_mem, first.run_time) == (-1, 4194304, 1024, 3)
    assert first.lsf_rusage.ru_utime == 0.004997 and first.lsf_rusage.ru_maxrss == 3748
    assert first.finish_kvp == (("schedulingOverhead", "0.00"),)
    assert recs[2].exit_status == 32512 and recs[2].exit_code == 127 and recs[2].dst_cluster == "lsf1"
    # the second record has "02" for "0 2": skipped, reported with file and line
    assert [str(w) for w in warnings] == [
        f"{CORPUS / 'lsf10108_hpc_cost_simulator.acct'}:2: field 27 (exec_hosts) is not a quoted string: '100.0'"]


def test_real_record_of_a_job_killed_while_pending():
    (rec,) = read_acct(CORPUS / "lsf101_killed_pending.acct", lambda w: pytest.fail(str(w)))
    assert rec.version == "10.1" and rec.start_time == 0 and rec.exec_hosts == ()
    assert rec.lsf_rusage == Rusage() and rec.exit_info == 14 and rec.j_status == 32
    assert rec.gpu_rusage == () and rec.storage_info == () and rec.finish_kvp == ()
    assert rec.fields_present == len(SCHEMA) - 2
    assert format_record(rec) == _real_lines("lsf101_killed_pending.acct")[0]


@pytest.mark.parametrize("version, last", [("7.06", "license_project"), ("9.1.3", "subcwd"), ("10.1", "gpu_rusage")])
def test_older_layouts_end_at_a_field_boundary(version, last):
    full = dataclasses.replace(golden_record(), version=version)
    n = [f.name for f in SCHEMA].index(last) + 1
    short = dataclasses.replace(full, fields_present=n)
    line = format_record(short)
    assert len(line) < len(format_record(full))
    back = parse_record(line)
    assert format_record(back) == line and back.version == version and back.fields_present == n
    assert all(getattr(back, f.name) == getattr(full, f.name) for f in SCHEMA[:n])
    # fields after the end take their "unknown" values
    assert back.storage_info == () and back.finish_kvp == ()


def test_newer_trailing_fields_are_kept_verbatim():
    line = format_record(golden_record()) + ' 7 "future" 1.5'
    rec = parse_record(line)
    assert rec.extra == ("7", '"future"', "1.5")
    assert format_record(rec) == line


def test_utf8_text_and_quotes_round_trip(tmp_path):
    rec = dataclasses.replace(golden_record(), job_name='Grüße "ok" 実験', command="a\tb\nc")
    line = format_record(rec)
    assert "\n" not in line and "\t" not in line
    path = tmp_path / "lsb.acct"
    path.write_text(line + "\n", encoding="utf-8")
    assert list(read_acct(path)) == [rec]


DAMAGED = [
    ('"JOB_FINISH" "10.1" 1700000065 412', "missing field user_id (field 5)"),
    ('"JOB_FINISH" "10.1" 1700000065 412 "1000"', "field 5 (user_id) is not an integer: '\"1000\"'"),
    ('"JOB_FINISH" "10.1" 1700000065 412 1000 0 1 0 0 0 0 "alice', "unterminated string starting at column 53"),
    ('"JOB_FINISH" "ten" 1700000065', "bad version 'ten'"),
    ('"JOB_FINISH" "10.1" soon', "field 3 (event time) is not an integer: 'soon'"),
    ("JOB_FINISH 10.1 1", "field 1 (event type) is not a quoted string: 'JOB_FINISH'"),
]


@pytest.mark.parametrize("line, message", DAMAGED)
def test_damaged_lines_raise_a_typed_error(line, message):
    with pytest.raises(AcctSyntaxError) as e:
        parse_record(line)
    assert str(e.value) == message


def test_a_bad_list_count_is_damage():
    line = format_record(golden_record()).replace('"1700000000.412" 0 2 ', '"1700000000.412" 0 900 ')
    with pytest.raises(AcctSyntaxError, match=r"field 24 \(exec_hosts\): bad count 900"):
        parse_record(line)


def test_a_record_cut_before_the_base_fields_is_damage():
    short = format_record(dataclasses.replace(golden_record(), fields_present=MIN_FIELDS))
    parse_record(short)
    cut = short.rsplit(" ", 1)[0]
    with pytest.raises(AcctSyntaxError, match="missing field command_spool"):
        parse_record(cut)


def test_read_acct_skips_damage_and_other_record_types(tmp_path, capsys):
    good = format_record(golden_record())
    path = tmp_path / "lsb.acct"
    path.write_bytes(b"\n".join([
        good.encode(),
        b'"JOB_RESIZE" "10.1" 1700000070 412 0 1700000005 1000 "alice" 1',
        b'"JOB_FINISH" "10.1" 1700000065 412 "x"',
        b'"JOB_FINISH" "10.1" \xff\xfe 1',
        b"",
        good.encode(),
    ]) + b"\n")
    recs = list(read_acct(path))
    assert recs == [golden_record(), golden_record()]
    assert capsys.readouterr().err.splitlines() == [
        f"{path}:3: field 5 (user_id) is not an integer: '\"x\"'",
        f"{path}:4: not UTF-8 text (byte 21)",
    ]
    with pytest.raises(NotJobFinish):
        parse_record('"JOB_RESIZE" "10.1" 1700000070 412')


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_host = st.text("abcxyz-.0123", min_size=1, max_size=8)
_int = st.integers(-(2**31), 2**31 - 1)


@settings(max_examples=150, deadline=None)
@given(job_name=_text, command=_text, hosts=st.lists(_host, max_size=4), exit_status=_int, utime=st.floats(0, 1e6),
       ext=st.lists(st.tuples(_int, st.one_of(_text, _int)), max_size=3), gpu=st.lists(st.tuples(_host, st.lists(st.tuples(_text, _text),
       max_size=2).map(tuple)), max_size=2), present=st.integers(MIN_FIELDS, len(SCHEMA)))
def test_round_trip(job_name, command, hosts, exit_status, utime, ext, gpu, present):
    rec = dataclasses.replace(
        golden_record(), job_name=job_name, command=command, exec_hosts=tuple(hosts), alloc_slots=tuple(hosts),
        exit_status=exit_status, lsf_rusage=Rusage(ru_utime=round(utime, 6)), submit_ext=tuple(ext),
        gpu_rusage=tuple(gpu))
    full = parse_record(format_record(rec))
    assert full == rec
    short = dataclasses.replace(rec, fields_present=present)
    back = parse_record(format_record(short))
    assert format_record(back) == format_record(short)
    assert back.fields_present == present


_word = st.text("abcxyz-.0123", min_size=1, max_size=8)


@settings(max_examples=100, deadline=None)
@given(host_rusage=st.lists(st.tuples(_word, _int, _int, _int, _int, _int), max_size=3),
       network=st.lists(st.tuples(_text, _int), max_size=2), ranges=st.lists(st.tuples(_int, _int, _int), max_size=2),
       storage=st.lists(_text, max_size=2), kvp=st.lists(st.tuples(_text, _text), max_size=2), asked=st.lists(_text,
       max_size=2), floats=st.lists(st.floats(-1e6, 1e6).map(lambda f: round(f, 2)), min_size=5, max_size=5),
       extra=st.lists(st.sampled_from(['7', '"x"', '""', '-1']), max_size=3))
def test_round_trip_of_every_list_field(host_rusage, network, ranges, storage, kvp, asked, floats, extra):
    rec = dataclasses.replace(
        golden_record(), host_rusage=tuple(host_rusage), network_alloc=tuple(network), index_ranges=tuple(ranges),
        storage_info=tuple(storage), finish_kvp=tuple(kvp), asked_hosts=tuple(asked), host_factor=round(floats[0], 1),
        cpi=floats[1], gips=floats[2], gbs=floats[3], gflops=floats[4], extra=tuple(extra))
    line = format_record(rec)
    assert parse_record(line) == rec and format_record(parse_record(line)) == line
