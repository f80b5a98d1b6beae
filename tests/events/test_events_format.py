"""lsb.events records: encode/decode round trips, LSF's quoting, real LSF
lines, and the awk field positions the snakemake LSF plugin depends on."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events_helpers import awk_fpat_fields
from lsfemu.events import codec, fastdecode, lsbatch
from lsfemu.events.bmodrecord import job_modify
from lsfemu.events.records import (
    HostCtrl, JobClean, JobExecute, JobForce, JobModify2, JobMove, JobNew, JobRequeue, JobSignal, JobStart, JobStartAccept,
    JobStatus, JobSwitch, MbdDie, MbdStart, QueueCtrl, RECORD_TYPES, Record, iter_types,
    parse_job_id_str,
)

T = 1610297411

#: one representative, non-default record of every type (conditional fields on)
SAMPLES: dict[str, Record] = {
    "MBD_START": MbdStart(event_time=T, master="hostA", cluster="lsfemu", num_hosts=3, num_queues=4),
    "MBD_DIE": MbdDie(event_time=T, master="hostA", num_remove_jobs=7, exit_code=1,
                      ctrl_comments="maintenance"),
    "JOB_NEW": JobNew(
        event_time=T, job_id=101, user_id=506,
        options=lsbatch.SUB_JOB_NAME | lsbatch.SUB_QUEUE | lsbatch.SUB_PROJECT_NAME | lsbatch.SUB_INTERACTIVE,
        num_processors=4, submit_time=T, begin_time=T + 60, term_time=T + 3600, sig_value=-65535,
        user_name="userA", rlimits=(-1, -1, -1, -1, -1, -1, -1, -1, -1, 600, -1),
        host_spec="hostA", host_factor=116.1, umask=18, queue="normal",
        res_req="rusage[mem=100] span[hosts=1]", from_host="hpcm", cwd="/home/userA/my dir",
        out_file="out.%J", err_file="err.%J", sub_home_dir="/home/userA",
        job_file="1495678422.101", asked_hosts=("h1", "h2"), depend_cond='done("a b")',
        job_name="generic_1", command="touch aaa; sleep 30; touch bbb",
        xfiles=(("in.dat", "in.dat", 1),), mail_user="u@x", project_name="proj",
        nios_port=4711, max_num_processors=8, sched_host_type="X86_64", login_shell="/bin/sh",
        user_group="grp", options2=lsbatch.SUB2_BSUB_BLOCK | lsbatch.SUB2_JOB_PRIORITY, idx=3, nios_port2=4712,
        in_file_spool="", command_spool="/spool/c", job_spool_dir="/spool", user_priority=60,
    ),
    "JOB_START": JobStart(event_time=T, job_id=101, status=lsbatch.JOB_STAT_RUN, job_pid=15694,
                          job_pgid=15694, host_factor=116.1, exec_hosts=("hpcm", "hpcm", "h2"),
                          jflags=2, idx=3, effective_res_req="select[type == local] "),
    "JOB_START_ACCEPT": JobStartAccept(event_time=T, job_id=101, job_pid=15694, job_pgid=15694, idx=3),
    "JOB_EXECUTE": JobExecute(event_time=T, job_id=101, exec_uid=506, job_pgid=15694,
                              exec_cwd="/home/userA", exec_home="/home/userA",
                              exec_username="userA", job_pid=15694, idx=3),
    "JOB_STATUS": JobStatus(event_time=T, job_id=101, status=lsbatch.JOB_STAT_EXIT, reason=0,
                            subreasons=0, cpu_time=1.5, end_time=T, ru=1,
                            rusage=tuple(float(i) / 4 for i in range(lsbatch.NUM_RUSAGE)),
                            exit_status=lsbatch.wait_status(127), idx=3, exit_info=14),
    "JOB_SIGNAL": JobSignal(event_time=T, job_id=101, user_id=506, run_count=1,
                            signal_symbol="KILL", idx=3, user_name="userA"),
    "JOB_MODIFY2": JobModify2(
        event_time=T, job_id_str="101[3]",
        options=lsbatch.SUB_JOB_NAME | lsbatch.SUB_QUEUE | lsbatch.SUB_HOST | lsbatch.SUB_RES_REQ | lsbatch.SUB_OUT_FILE
        | lsbatch.SUB_ERR_FILE | lsbatch.SUB_HOST_SPEC | lsbatch.SUB_DEPEND_COND | lsbatch.SUB_IN_FILE
        | lsbatch.SUB_CHKPNT_PERIOD | lsbatch.SUB_CHKPNT_DIR | lsbatch.SUB_OTHER_FILES | lsbatch.SUB_PRE_EXEC
        | lsbatch.SUB_MAIL_USER | lsbatch.SUB_PROJECT_NAME | lsbatch.SUB_LOGIN_SHELL,
        options2=lsbatch.SUB2_MODIFY_CMD | lsbatch.SUB2_IN_FILE_SPOOL | lsbatch.SUB2_JOB_CMD_SPOOL | lsbatch.SUB2_JOB_PRIORITY,
        del_options=0, user_id=506, user_name="userA", submit_time=T, num_processors=2,
        job_name="n", queue="short", asked_hosts=("h1",), res_req="rusage[mem=1]",
        host_spec="h1", depend_cond="done(1)", sub_home_dir="/home/userA", in_file="in",
        out_file="o", err_file="e", command="sleep 1", chkpnt_period=60, chkpnt_dir="/ck",
        xfiles=(("a", "b", 2),), job_file="f", from_host="hpcm", cwd="/tmp",
        pre_exec_cmd="true", mail_user="m", project_name="p2", nios_port=0,
        max_num_processors=2, login_shell="/bin/bash", sched_host_type="X86_64",
        del_options2=0, in_file_spool="/s/in", command_spool="/s/cmd", user_priority=70,
        options3=lsbatch.SUB3_APS, aps_string="system=10",
    ),
    "JOB_MOVE": JobMove(event_time=T, user_id=506, job_id=101, position=2, base=lsbatch.TO_BOTTOM,
                        idx=3, user_name="userA"),
    "JOB_SWITCH": JobSwitch(event_time=T, user_id=506, job_id=101, queue="short", idx=3,
                            user_name="userA"),
    "JOB_REQUEUE": JobRequeue(event_time=T, job_id=101, idx=3),
    "JOB_FORCE": JobForce(event_time=T, job_id=101, user_id=0, idx=3, exec_hosts=("hostA", "hostB"),
                          user_name="lsfadmin"),
    "JOB_CLEAN": JobClean(event_time=T, job_id=101, idx=3),
    "QUEUE_CTRL": QueueCtrl(event_time=T, opcode=lsbatch.QUEUE_CLOSED, queue="normal", user_id=0,
                            user_name="lsfadmin", ctrl_comments="closed for upgrade"),
    "HOST_CTRL": HostCtrl(event_time=T, opcode=lsbatch.HOST_CLOSE, host="hostB", user_id=0,
                          user_name="lsfadmin"),
}

# Real LSF 9.1.3 lines (a site's lsb.events, quoted in a public Java parser's comments).
REAL_JOB_NEW = (
    '"JOB_NEW" "9.13" 1495678422 101 506 33554435 1 1495678422 0 0 -65535 0 0 "userA" -1 -1 -1 -1 -1'
    ' -1 -1 -1 -1 -1 -1 "" 116.10 18 "normal" "" "hpcm" "/Repository/userA/generic_1495678421600zcs1B"'
    ' "" "" "" "" "/home/userA" "1495678422.101" 0 "" "" "generic_1495678421600" "touch aaa; sleep 30;'
    ' touch bbb" 0 "" "default" 1 "X86_64" "" "" "" "" 5136 0 "" "" "" -1 -1 -1 64 "" "" -1 "" 0 -1 ""'
    ' 0 0 0 "" -1 "" -1 "" "/Repository/userA/generic_1495678421600zcs1B" "" "" "" 0 -1 0 "" "" 0 ""'
)
REAL_JOB_EXECUTE = (
    '"JOB_EXECUTE" "9.13" 1495678422 101 506 15694 "/Repository/userA/generic_1495678421600zcs1B"'
    ' "/home/userA" "userA" 15694 0 "" -1 "" 0 2147483647 "" -1 "" -1 "" -1'
)
REAL_JOB_FINISH = (
    '"JOB_FINISH" "9.13" 1495678453 101 506 33554435 1 1495678422 0 0 1495678422 "userA" "normal"'
    ' "" "" "" "hpcm" "/Repository/userA/generic_1495678421600zcs1B" "" "" "" "1495678422.101" 0 1'
    ' "hpcm" 64 116.1 "generic_1495678421600" "touch aaa; sleep 30; touch bbb"'
)


def test_every_record_type_has_a_sample():
    assert set(SAMPLES) == set(RECORD_TYPES)
    assert set(RECORD_TYPES) == {
        "MBD_START", "MBD_DIE", "JOB_NEW", "JOB_START", "JOB_START_ACCEPT", "JOB_EXECUTE",
        "JOB_STATUS", "JOB_SIGNAL", "JOB_MODIFY2", "JOB_MOVE", "JOB_SWITCH", "JOB_REQUEUE",
        "JOB_CLEAN", "QUEUE_CTRL", "HOST_CTRL", "JOB_FORCE",
    }


@pytest.mark.parametrize("etype", sorted(SAMPLES))
def test_round_trip_every_type(etype):
    rec = SAMPLES[etype]
    line = codec.encode(rec)
    assert "\n" not in line and "\r" not in line
    assert line.startswith(f'"{etype}" "10.1" {T} ')
    back = fastdecode.decode(line)
    assert back == rec
    assert type(back) is type(rec)
    assert codec.encode(back) == line
    assert fastdecode.decode(line + "\n") == rec


@pytest.mark.parametrize("cls", list(iter_types()), ids=lambda c: c.TYPE)
def test_round_trip_defaults(cls):
    rec = cls(event_time=1)
    assert fastdecode.decode(codec.encode(rec)) == rec


def test_job_new_awk_positions_snakemake():
    # snakemake-executor-plugin-lsf: "JOB_NEW" $5 == euid and $42 ~ uuid;
    # "JOB_STATUS" $4 = job id, $5 = status code.
    rec = JobNew(event_time=T, job_id=77, user_id=1234, user_name="me", queue="normal",
                 options=lsbatch.SUB_JOB_NAME, cwd="/home/me/with space", res_req="rusage[mem=1] span[hosts=1]",
                 job_name="Snakemake_rule_a:x=1___(0b7c-uuid)", command="python -m snakemake --x")
    line = codec.encode(rec)
    for split in (codec.fields(line), [f.strip('"') for f in awk_fpat_fields(line)]):
        assert split[0] == "JOB_NEW"
        assert split[3] == "77"
        assert split[4] == "1234"
        assert split[13] == "me"
        assert split[28] == "normal"
        assert split[41] == "Snakemake_rule_a:x=1___(0b7c-uuid)"
        assert split[42] == "python -m snakemake --x"
    st = codec.encode(JobStatus(event_time=T, job_id=77, status=lsbatch.JOB_STAT_DONE | lsbatch.JOB_STAT_PDONE))
    for split in (codec.fields(st), [f.strip('"') for f in awk_fpat_fields(st)]):
        assert split[0] == "JOB_STATUS" and split[3] == "77" and split[4] == "192"


def test_real_lsf9_job_new_field_positions():
    assert codec.fields(REAL_JOB_NEW)[4] == "506"
    assert codec.fields(REAL_JOB_NEW)[41] == "generic_1495678421600"
    rec = fastdecode.decode(REAL_JOB_NEW)
    assert isinstance(rec, JobNew)
    assert (rec.version, rec.event_time, rec.job_id, rec.user_id) == ("9.13", 1495678422, 101, 506)
    assert rec.options == lsbatch.SUB_PROJECT_NAME | lsbatch.SUB_QUEUE | lsbatch.SUB_JOB_NAME
    assert rec.user_name == "userA" and rec.rlimits == (-1,) * 11
    assert rec.host_factor == pytest.approx(116.10) and rec.umask == 18
    assert (rec.queue, rec.from_host, rec.sub_home_dir) == ("normal", "hpcm", "/home/userA")
    assert rec.job_name == "generic_1495678421600"
    assert rec.command == "touch aaa; sleep 30; touch bbb"
    assert (rec.project_name, rec.max_num_processors, rec.sched_host_type) == ("default", 1, "X86_64")
    assert (rec.options2, rec.idx, rec.user_priority) == (5136, 0, -1)
    # the LSF 9/10 tail (issue 21): no -g/-sla/-ext/... strings (their options2 bits are clear), the
    # ints and strings in jobNewLog's order, the submission directory in subcwd
    assert (rec.job_group, rec.sla, rec.extsched, rec.warning_action) == ("", "", "", "")
    assert (rec.warning_time_period, rec.sla_run_limit, rec.options3) == (-1, -1, 64)
    assert (rec.app, rec.post_exec_cmd, rec.runtime_estimation, rec.mig_threshold) == ("", "", -1, -1)
    assert (rec.submit_ext, rec.options4, rec.asked_clusters) == ((), 0, ())
    assert (rec.src_job_id, rec.dst_job_id, rec.flow_id) == (-1, -1, "")
    assert rec.subcwd == "/Repository/userA/generic_1495678421600zcs1B" and rec.outdir == ""
    assert rec.extra == ("0", "-1", "0", '""', '""', "0", '""')  # LSF 9's fields after dcVmActions
    # every field, known or not, survives a round trip verbatim
    assert codec.encode(rec) == REAL_JOB_NEW


def test_job_new_tail_round_trip_and_old_layout():
    """JOB_NEW with everything bsub gave (issue 21): written in the LSF 9/10
    tail, read back; a line of lsfemu's previous layout (ending at
    user_priority) still reads, its tail at the defaults."""
    rec = JobNew(event_time=T, job_id=5, user_name="u", queue="normal", cwd="/home/u/sub",
                 options2=lsbatch.SUB2_JOB_GROUP,
                 options3=lsbatch.SUB3_CWD | lsbatch.SUB3_DESCRIPTION | lsbatch.SUB3_OUTDIR | lsbatch.SUB3_APP,
                 job_group="/proj/a", app="fluent", job_description='a "quoted" text', subcwd="/scratch/x",
                 outdir="/out", post_exec_cmd="echo done", runtime_estimation=600)
    line = codec.encode(rec)
    assert fastdecode.decode(line) == rec
    f = codec.fields(line)
    at = f.index("/proj/a")  # job_group: right after user_priority
    assert f[at - 1] == "-1" and f[at + 1] == "-1"  # user_priority, warning_time_period (no -ext)
    assert f[-4:] == ["/scratch/x", "/out", "", ""]  # subcwd, outdir, dcTmpls, dcVmActions
    old = line[: line.index(' "/proj/a"')]
    back = fastdecode.decode(old)
    assert (back.job_group, back.subcwd, back.options3, back.runtime_estimation) == ("", "", 0, -1)
    assert back.cwd == "/home/u/sub" and back.extra == ()


def test_real_lsf9_job_execute():
    rec = fastdecode.decode(REAL_JOB_EXECUTE)
    assert isinstance(rec, JobExecute)
    assert (rec.job_id, rec.exec_uid, rec.job_pgid, rec.job_pid, rec.idx) == (101, 506, 15694, 15694, 0)
    assert (rec.exec_home, rec.exec_username) == ("/home/userA", "userA")
    assert len(rec.extra) == 11


def test_real_job_finish_is_unknown_not_corrupt():
    with pytest.raises(codec.UnknownEventError) as exc:
        fastdecode.decode(REAL_JOB_FINISH)
    assert exc.value.event_type == "JOB_FINISH"
    assert isinstance(exc.value, codec.EventSyntaxError)


def test_openlava_job_status_without_exit_info():
    rec = fastdecode.decode('"JOB_STATUS" "7.06" 100 5 64 0 0 1.2500 100 0 0 0')
    assert isinstance(rec, JobStatus)
    assert (rec.status, rec.cpu_time, rec.exit_info, rec.extra) == (64, 1.25, 0, ())


def test_lsf_quote_doubling():
    assert codec.quote('say "hi"') == '"say ""hi"""'
    assert codec.quote("") == '""'
    rec = fastdecode.decode('"JOB_SIGNAL" "10.1" 5 1 0 0 "K""ILL" 0 """quoted"" user"')
    assert rec.signal_symbol == 'K"ILL' and rec.user_name == '"quoted" user'
    assert fastdecode.decode('"JOB_CLEAN" "10.1"   5\t 1    0  ') == JobClean(event_time=5, job_id=1)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.one_of(st.characters(), st.sampled_from('"\x00\x1f\x7f\u2400\u241f\u2420\u2421\u2426\u2427'))))
def test_quote_fast_path_is_the_character_loop(text):
    """quote() writes text with no special character as it is (issue 23): the
    same as the loop over every character, which runs when the check always matches."""
    fast = codec.quote(text)
    special = codec._SPECIAL
    codec._SPECIAL = re.compile("")
    try:
        assert fast == codec.quote(text)
    finally:
        codec._SPECIAL = special


def test_control_characters_never_break_the_line():
    text = "line1\nline2\r\x00\t\x7f end"
    rec = JobSignal(event_time=1, job_id=1, signal_symbol=text, user_name="\u2400\u2426x\u240a")
    line = codec.encode(rec)
    assert all(ord(c) >= 0x20 and c != "\x7f" for c in line)
    assert "\u240a" in line  # the newline as its Control Picture
    assert fastdecode.decode(line) == rec


@pytest.mark.parametrize("line, message", [
    ("", "empty"),
    ("   ", "empty"),
    ("#39", "header"),
    ('"JOB_CLEAN" "10.1" 5 1', "missing field idx"),
    ('"JOB_CLEAN" "10.1" 5 1 "0"', "not an integer"),
    ('"JOB_CLEAN" "10.1" x 1 0', "not an integer"),
    ('"JOB_CLEAN" "10.1" 5 ' + "1" * 5000 + " 0", "not an integer"),
    ('"JOB_CLEAN" "10.1" 5 \u0663 0', "not an integer"),
    ('"JOB_CLEAN" "10.1 5 1 0', "unterminated"),
    ('"JOB_CLEAN" "10.1"5 1 0', "no blank"),
    ('"JOB_CLEAN" "10.1" 5 1 0"', "stray"),
    ('"JOB_CLEAN" "abc" 5 1 0', "bad version"),
    ('"JOB_CLEAN" "0" 5 1 0', "bad version"),
    ('JOB_CLEAN "10.1" 5 1 0', "not a quoted string"),
    ('"JOB_SIGNAL" "10.1" 5 1 0 0 KILL 0 "u"', "not a quoted string"),
    ('"JOB_STATUS" "10.1" 5 1 64 0 0 nan 5 0 0 0', "not a number"),
    ('"JOB_STATUS" "10.1" 5 1 64 0 0 1e999 5 0 0 0', "out of range"),
    ('"JOB_START" "10.1" 5 1 4 0 0 1.0 99 "h" "" "" 0 "" 0', "bad count"),
    ('"JOB_START" "10.1" 5 1 4 0 0 1.0 -1 "" "" 0 "" 0', "bad count"),
    ('"JOB_SIGNAL" "10.1" 5 1 0 0 "K" 0 "u\u2426"', "dangling escape"),
])
def test_syntax_errors(line, message):
    with pytest.raises(codec.EventSyntaxError, match=message):
        fastdecode.decode(line)


def test_encode_rejects_unloggable_values():
    with pytest.raises(ValueError, match="11 values"):
        codec.encode(JobNew(rlimits=(1, 2)))
    with pytest.raises(ValueError, match="option bit"):
        codec.encode(JobModify2(queue="short"))  # SUB_QUEUE not set
    with pytest.raises(ValueError, match="19 values"):
        codec.encode(JobStatus(ru=1))
    with pytest.raises(TypeError):
        codec.encode(JobClean(job_id="1"))
    with pytest.raises(TypeError):
        codec.encode(JobClean(job_id=True))
    with pytest.raises(ValueError):
        codec.encode(JobStatus(cpu_time=float("inf")))
    with pytest.raises(ValueError):
        codec.encode(JobClean(job_id=10**40))


def test_job_modify_builder_sets_bits():
    rec = job_modify(108, event_time=T, user_name="user1", aps_string="system=10")
    assert rec.options3 == lsbatch.SUB3_APS and rec.job_id_str == "108"
    line = codec.encode(rec)
    assert line.endswith(' 1 0 "system=10" "" "" "" "" "" "" 0')
    assert fastdecode.decode(line) == rec
    rec = job_modify(108, event_time=T, user_name="u", array_index=2, queue="short",
                     user_priority=10, run_limit_s=600, aps_delete=True)
    assert rec.options & lsbatch.SUB_QUEUE and rec.options2 & lsbatch.SUB2_JOB_PRIORITY
    assert rec.rlimits[lsbatch.RLIMIT_RUN] == 600 and rec.del_options3 == lsbatch.SUB3_APS
    assert fastdecode.decode(codec.encode(rec)) == rec
    assert parse_job_id_str(rec.job_id_str) == (108, 2)
    with pytest.raises(ValueError):
        parse_job_id_str("abc")


def test_status_and_exit_helpers():
    assert lsbatch.status_name(64) == "DONE" and lsbatch.status_name(192) == "DONE"
    assert lsbatch.status_name(32 | 256) == "EXIT" and lsbatch.status_name(4) == "RUN"
    assert lsbatch.status_name(0) == "NULL" and lsbatch.status_name(0x10000) == "UNKWN"
    assert lsbatch.status_name(0x77) == "UNKWN"
    assert lsbatch.exit_code_of(lsbatch.wait_status(127)) == 127
    assert lsbatch.exit_code_of(lsbatch.wait_status(signal=9)) == 137
    assert lsbatch.term_code("TERM_OWNER: job killed by owner") == 14
    assert lsbatch.term_code("nonsense") == 0 and lsbatch.term_code(None) == 0
    assert lsbatch.TERM_REASONS[16].startswith("TERM_MEMLIMIT: job killed after reaching LSF memory")


def test_job_key():
    assert SAMPLES["JOB_STATUS"].job_key == (101, 3)
    assert SAMPLES["MBD_START"].job_key is None
    assert SAMPLES["JOB_MODIFY2"].job_key == (101, 3)
    assert JobModify2(job_id_str="x").job_key is None


def test_snakemake_awk_program_with_gawk(tmp_path):
    gawk = shutil.which("gawk")
    if gawk is None:
        pytest.skip("gawk (FPAT) not installed; the FPAT split is emulated in the other tests")
    uid = 4321
    recs = [
        JobNew(event_time=T, job_id=5, user_id=uid, options=lsbatch.SUB_JOB_NAME, cwd="/a b",
               res_req="rusage[mem=1] span[hosts=1]", job_name="Snakemake_x___(UUID1)", command="a b"),
        JobStatus(event_time=T, job_id=5, status=lsbatch.JOB_STAT_RUN),
        JobStatus(event_time=T, job_id=5, status=lsbatch.JOB_STAT_DONE),
        JobStatus(event_time=T, job_id=5, status=lsbatch.JOB_STAT_DONE | lsbatch.JOB_STAT_PDONE),
    ]
    path = tmp_path / "lsb.events"
    path.write_text("#39\n" + "".join(codec.encode(r) + "\n" for r in recs))
    prog = (
        'BEGIN { FPAT = "([^ ]+)|(\\"[^\\"]+\\")" }\n'
        f'$1 == "\\"JOB_NEW\\"" && $5 == {uid} && $42 ~ "UUID1" {{ a[$4]; next }}\n'
        '$4 in a && $1 == "\\"JOB_STATUS\\"" && $5 != 192 { print $4, $5 }\n'
    )
    out = subprocess.run([gawk, prog, str(path)], capture_output=True, text=True, check=True).stdout
    assert out == "5 4\n5 64\n"


def test_skim_reads_the_event_time_of_unused_types_and_accepts_what_decode_accepts():
    """skim: a canonical line of an unused type whose conversion checks nothing
    but the version comes as a Skimmed record with decode's event time and
    version; any other line (a used type, another shape, a corrupt line)
    decodes, or fails, exactly as decode does."""
    assert {"JOB_EXECUTE", "JOB_START_ACCEPT", "JOB_CLEAN"} <= set(fastdecode._SKIM)
    assert "JOB_NEW" not in fastdecode._SKIM and "JOB_START" not in fastdecode._SKIM  # lists and gated fields: only decode can tell
    for etype, rec in SAMPLES.items():
        line = codec.encode(rec)
        full = fastdecode.decode(line)
        got = fastdecode.skim(line, {etype})
        if etype in fastdecode._SKIM:
            assert type(got) is fastdecode.Skimmed and got.kind is type(full), etype
            assert (got.event_time, got.version, got.extra) == (full.event_time, full.version, ()), etype
        else:
            assert got == full, etype
        assert fastdecode.skim(line, set(SAMPLES) - {etype}) == full  # a used type: decoded
    line = codec.encode(SAMPLES["JOB_EXECUTE"])
    spaced = line.replace(" ", "  ", 3)  # not the canonical shape: decoded
    assert fastdecode.skim(spaced, {"JOB_EXECUTE"}) == fastdecode.decode(spaced)
    newer = line.replace('"JOB_EXECUTE" "10.1"', '"JOB_EXECUTE" "10.108"')  # another version: still skimmed
    assert fastdecode.skim(newer, {"JOB_EXECUTE"}).version == "10.108"
    corrupt = line.rsplit(" ", 1)[0] + " x"  # a letter where an integer belongs
    with pytest.raises(codec.EventSyntaxError) as want:
        fastdecode.decode(corrupt)
    with pytest.raises(codec.EventSyntaxError) as got:
        fastdecode.skim(corrupt, {"JOB_EXECUTE"})
    assert str(got.value) == str(want.value)


@settings(max_examples=200, deadline=None)
@given(user=st.text(max_size=20), name=st.text(max_size=20), n=st.integers(-(2**40), 2**40),
       big=st.sampled_from([0, 10**29, -(10**29)]), hosts=st.lists(st.text(max_size=5), max_size=3))
def test_encode_plan_is_the_field_by_field_encoding(user, name, n, big, hosts):
    """encode writes what _encode_field writes for each field of the schema
    (the fast path for lsb.events is lsfemu.events.fastencode, held to encode
    by tests/events/test_fastencode.py); a value of the wrong type fails."""
    rec = JobNew(event_time=1, job_id=max(n, 1), user_name=user, job_name=name, user_id=big,
                 asked_hosts=tuple(hosts), num_processors=2)
    values = rec.__dict__
    parts = [codec.quote(rec.TYPE), codec.quote(rec.version), "1"]
    for spec in type(rec)._SCHEMA:
        if spec.when is None or spec.when(values):
            parts += codec._encode_field(spec, values[spec.name], rec.TYPE)
    assert codec.encode(rec) == " ".join(parts + list(rec.extra))
    with pytest.raises(TypeError):
        codec.encode(dataclasses.replace(rec, user_id=True))
    with pytest.raises(ValueError):
        codec.encode(dataclasses.replace(rec, user_id=10**30))
