"""bjobs -o / -noheader / delimiter / -hms / -json (reference 3.10)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from render_helpers import assert_golden, at

from lsfemu.render import bjobs as R
from lsfemu.views import JobView

NOW = at("2021 Jan 10 18:00:00")


def pipelite_job(jid: int, stat: str, host: str, code: int | None) -> JobView:
    return JobView(jid, "rasko", stat, "research-rh74", "noah-login-01", "fdfs", at("2021 Jan 10 17:50:11"),
                   exec_hosts=[host], start_time=at("2021 Jan 10 17:50:12"),
                   finish_time=at("2021 Jan 10 17:50:12"), exit_code=code, cpu_time=0.0)


def test_real_pipelite_delimited_rows():
    # EBI pipelite runs: bjobs -o "jobid stat exit_code cpu_used max_mem avg_mem exec_host
    # delimiter='|'" -noheader  (rows copied from its fixtures; "-" for DONE's exit code)
    fmt = R.parse_format("jobid stat exit_code cpu_used max_mem avg_mem exec_host delimiter='|'")
    jobs = [
        pipelite_job(873206, "EXIT", "hx-noah-43-02", 127),
        pipelite_job(873207, "EXIT", "hx-noah-43-02", 127),
        pipelite_job(873209, "EXIT", "hx-noah-10-04", 127),
        pipelite_job(872793, "DONE", "hx-noah-05-14", None),
    ]
    assert_golden("bjobs_o_pipelite", R.custom(jobs, fmt, now=NOW, header=False))
    fmt = R.parse_format("jobid stat exit_code cpu_used max_mem avg_mem exec_host exit_reason delimiter='|'")
    assert_golden("bjobs_o_pipelite_reason", R.custom(jobs[:1], fmt, now=NOW, header=False))


def test_header_uses_canonical_names():
    fmt = R.parse_format("id USER Stat name proj cmd ugroup priority eresreq cresreq")
    assert fmt.headers == ["JOBID", "USER", "STAT", "JOB_NAME", "PROJ_NAME", "COMMAND", "USER_GROUP",
                           "JOB_PRIORITY", "EFFECTIVE_RESREQ", "COMBINED_RESREQ"]
    job = pipelite_job(1, "DONE", "h", None)
    assert R.custom([job], fmt, now=NOW).splitlines()[0] == " ".join(fmt.headers)
    assert R.custom([], fmt, now=NOW) == ""


def test_widths_hand_made():
    # Hand-made: "field:" = recommended width, ":N" cut at the end (job_name at
    # the front with "*", every other field -- jobid too -- at the end, as the IBM
    # -o doc says), ":-N" right-justified, header cut/padded the same way.
    fmt = R.parse_format("jobid: user:-10 job_name:6 stat:3 queue")
    jobs = [
        JobView(12, "user1", "RUN", "normal", "h", "sleep 100", 0.0, name="averylongname",
                exec_hosts=["h"], start_time=1.0),
        JobView(12345678, "u2", "PEND", "short", "h", "x", 0.0),
    ]
    assert R.custom(jobs, fmt, now=NOW) == (
        "JOBID         USER JOB_NA STA QUEUE\n"
        "12           user1 *gname RUN normal\n"
        "1234567         u2 x      PEN short\n"
    )


def test_values_and_hms():
    job = JobView(7, "u", "RUN", "normal", "hA", "sleep 600", at("2021 Jan 10 17:00:00"),
                  cwd="/home/u/w", home="/home/u", exec_hosts=["hB", "hB", "hC"],
                  start_time=at("2021 Jan 10 17:30:00"), run_limit=60.0, cpu_time=12.2, run_time=1800,
                  pend_time=1800, mem_kb=352256, pids=[1, 2], num_processors=3, max_processors=4)
    fmt = R.parse_format("exec_host nexec_host alloc_slot slots min_req_proc max_req_proc sub_cwd "
                         "cpu_used run_time pend_time runtimelimit time_left finish_time mem mem::G "
                         "pids exit_code pend_reason delimiter='|'")
    row = R.custom([job], fmt, now=NOW, header=False).rstrip("\n").split("|")
    assert row == ["hB:hB:hC", "2", "2*hB:hC", "3", "3", "4", "$HOME/w", "12.2 second(s)",
                   "1800 second(s)", "1800", "60.0", "0:30 L", "Jan 10 18:30 L", "344 Mbytes",
                   "0.3 G     ", "1,2", "-", "-"]
    fmt = R.parse_format("cpu_used run_time pend_time runtimelimit")
    assert R.custom([job], fmt, now=NOW, header=False, hms=True) == "00:00:13 00:30:00 00:30:00 01:00:00\n"


def test_pids_are_comma_joined():
    job = JobView(7, "u", "RUN", "q", "h", "c", 0, exec_hosts=["h"], start_time=1, pids=[46782, 46796])
    assert R.custom([job], R.parse_format("pids"), now=NOW, header=False) == "46782,46796\n"


def test_parse_errors():
    for bad in ["", "   ", "foo", "jobid:x", "jobid:0", "jobid:1:2:3", "mem::Q", "jobid delimiter='ab'",
                "jobid delimiter=", "jobid delimiter='|' delimiter=','"]:
        with pytest.raises(R.FormatError):
            R.parse_format(bad)
    with pytest.raises(R.FormatError) as e:
        R.parse_format("jobid bogus_field")
    assert str(e.value) == "<bogus_field> in the format string is not a valid field name."
    assert R.parse_format('stat delimiter="$"').delimiter == "$"
    assert R.parse_format("JOBID:-").fields[0] == R.FieldSpec("jobid", 7, True, None)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80))
def test_parse_format_only_returns_or_raises_format_error(spec):
    try:
        fmt = R.parse_format(spec)
    except R.FormatError as e:
        assert str(e)
    else:
        assert isinstance(fmt, R.Format) and fmt.fields and len(fmt.delimiter) == 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(sorted(R.FIELDS) + ["id", "name", "cmd", "proj", "ugroup"]), min_size=1,
                max_size=8),
       st.lists(st.sampled_from(["", ":", ":5", ":-9", "::G"]), min_size=8, max_size=8))
def test_any_valid_field_list_renders(names, suffixes):
    spec = " ".join(n + s for n, s in zip(names, suffixes))
    fmt = R.parse_format(spec)
    job = JobView(1, "u", "EXIT", "q", "h", "c /x", 0.0, exec_hosts=["h"], start_time=1.0, finish_time=2.0,
                  exit_code=3, mem_kb=1, max_mem_kb=2, avg_mem_kb=3, swap_kb=4, run_limit=5.0)
    text = R.custom([job], fmt, now=NOW)
    assert text.count("\n") == 2
    data = json.loads(R.json_out([job], fmt, now=NOW))
    assert list(data["RECORDS"][0]) == list(dict.fromkeys(fmt.headers))


def test_real_ridgeback_json_layout():
    # MSKCC ridgeback LSF client test: raw LSF 10 JSON (2-space indent, no space after ':').
    fmt = R.parse_format("user exit_code stat exit_reason pend_reason")
    killed = JobView(9, "nikhil", "EXIT", "normal", "h", "c", 0.0, exec_hosts=["h"], start_time=1.0,
                     finish_time=2.0, exit_reason="TERM_OWNER: job killed by owner")
    assert_golden("bjobs_json_ridgeback", R.json_out([killed], fmt, now=NOW))
    pend = JobView(9, "nikhil", "PEND", "normal", "h", "c", 0.0, pend_reasons=["New job is waiting for scheduling"])
    assert_golden("bjobs_json_ridgeback_pend", R.json_out([pend], fmt, now=NOW))


def test_real_batcheuphoria_json_record():
    """BatchEuphoria's queryExtendedJobStateByIdTest.json (real LSF 10 bjobs -json
    -hms record), in the raw layout (that file was re-indented with ": "), with
    the SLOTS field left out: the capture says SLOTS 1 next to a two-entry
    EXEC_HOST, which the emulator never produces."""
    fields = ("jobid job_name stat user queue job_description proj_name job_group job_priority pids "
              "exit_code from_host exec_host submit_time start_time finish_time cpu_used run_time "
              "user_group swap max_mem runtimelimit sub_cwd pend_reason exec_cwd output_file input_file "
              "effective_resreq exec_home error_file command dependency")
    job = JobView(22005, "otptest", "DONE", "short-dmg", "tbi-cn013", "ls -l", at("2017 Dec 28 19:56:01"),
                  cwd="/home/otptest", home="/home/otptest", pids=[46782, 46796, 46798, 46915, 47458, 47643],
                  exec_hosts=["tbi-cn019", "tbi-cn019"], start_time=at("2017 Dec 28 19:56:02"),
                  finish_time=at("2017 Dec 28 19:56:03"), cpu_time=0.3, run_time=1.0, run_limit=10.0,
                  max_mem_kb=int(5.2 * 1024 * 1024), exec_cwd="/home/otptest", exec_home="/home/otptest",
                  res_req="select[type == local] order[r15s:pg] ", dependency="done(22004)")
    out = R.json_out([job], R.parse_format(fields), now=NOW, hms=True)
    assert_golden("bjobs_json_batcheuphoria", out)
    assert json.loads(out)["RECORDS"][0]["EXEC_CWD"] == "/home/otptest"


def test_json_not_found_and_empty():
    fmt = R.parse_format("id stat")
    out = R.json_out([], fmt, now=NOW, not_found=["123", "7[2]"])
    assert out == (
        "{\n"
        '  "COMMAND":"bjobs",\n'
        '  "JOBS":2,\n'
        '  "RECORDS":[\n'
        "    {\n"
        '      "JOBID":"123",\n'
        '      "ERROR":"Job <123> is not found"\n'
        "    },\n"
        "    {\n"
        '      "JOBID":"7[2]",\n'
        '      "ERROR":"Job <7[2]> is not found"\n'
        "    }\n"
        "  ]\n"
        "}\n"
    )
    assert json.loads(R.json_out([], fmt, now=NOW)) == {"COMMAND": "bjobs", "JOBS": 0, "RECORDS": []}
    assert R.json_string('a/"b"\\\n\x01é') == '"a\\/\\"b\\"\\\\\\n\\u0001é"'
