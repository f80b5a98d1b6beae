"""bjobs -o's whole field table (issue 21, part 1; lsf-breadth 5.1): every
field of LSF 10.1 with its recommended width and aliases, `all`, the values
of the fields lsfemu keeps, "-" for those it does not, and -json with LSF's
key spellings for all of them."""

import json

from render_helpers import assert_golden, at

from lsfemu.render import bjobs as R
from lsfemu.render.bjobs import fields
from lsfemu.views import JobView

NOW = at("2021 Jan 10 18:00:00")


def running(**kw) -> JobView:
    base = dict(job_id=7, user="u", status="RUN", queue="normal", from_host="hA", command="sleep 600",
                submit_time=at("2021 Jan 10 17:00:00"), exec_hosts=["hB", "hB"], start_time=at("2021 Jan 10 17:30:00"),
                run_time=1800, cpu_time=900, num_processors=2)
    base.update(kw)
    return JobView(**base)


def test_field_table_is_lsf_10_1s():
    # golden derived from lsf-breadth 5.1 (the LSF 10.1 man page's Table 1): see golden/README.md
    table = "".join(f"{n:<28} {f.width:>3} {','.join(f.aliases)}".rstrip() + "\n" for n, f in R.FIELDS.items())
    assert_golden("bjobs_o_fields", table)


def test_every_field_has_a_value_or_is_listed_as_not_kept():
    shown = fields.Shown(NOW)
    for name in R.FIELDS:
        spec = R.parse_format(name).fields[0]
        v = fields.value(running(), spec, shown)
        if name in fields.NOT_KEPT:
            assert v is None, name
    kept = set(R.FIELDS) - fields.NOT_KEPT
    shown_any = {n for n in kept for j in (running(), running(status="PEND", start_time=None, exec_hosts=[]))
                 if fields.value(j, R.parse_format(n).fields[0], shown) is not None}
    # the kept fields that are empty for a plain job need the options that set them (tests below)
    assert kept - shown_any == {"user_group", "job_description", "application", "job_group", "job_priority",
                                "esub", "kill_reason", "suspend_reason", "resume_reason", "dependency",
                                "pend_reason", "pre_exec_command", "post_exec_command", "pids", "exit_code",
                                "exit_reason", "ask_hosts", "estimated_start_time", "specified_start_time",
                                "specified_terminate_time", "time_left", "finish_time", "estimated_run_time",
                                "%complete", "gpu_num", "nthreads", "mem", "max_mem", "avg_mem", "memlimit",
                                "swap", "effective_resreq", "combined_resreq", "runtimelimit", "input_file",
                                "output_file", "error_file", "output_dir", "exec_home", "exec_cwd",
                                "mem_efficiency", "exception_status", "ependtime", "ipendtime", "host_file",
                                "plimit", "eplimit", "effective_plimit", "effective_eplimit", "plimit_remain",
                                "eplimit_remain"}


def test_pending_time_limit_fields_in_seconds_remain_for_pending_jobs_only():
    names = "plimit eplimit effective_plimit effective_eplimit plimit_remain eplimit_remain"
    specs = R.parse_format(names).fields
    pend = running(status="PEND", start_time=None, exec_hosts=[], pend_time=700.0, ineligible_pend_time=100.0,
                   plimit=600.0, effective_plimit=600.0, effective_eplimit=5400.0)
    assert [fields.value(pend, s, fields.Shown(NOW)) for s in specs] == [
        "600", None, "600", "5400", "-100", "4800"]  # past its limit by 100 s; 600 s eligible so far
    assert [fields.value(pend, s, fields.Shown(NOW, hms=True)) for s in specs][4:] == ["-00:01:40", "01:20:00"]
    ran = running(plimit=600.0, effective_plimit=600.0)
    assert [fields.value(ran, s, fields.Shown(NOW)) for s in specs] == ["600", None, "600", None, None, None]


def test_all_is_every_field_in_lsf_order_and_json_keys_are_lsfs():
    fmt = R.parse_format("all")
    assert [f.name for f in fmt.fields] == list(R.FIELDS) and all(f.width is None for f in fmt.fields)
    assert {f.width for f in R.parse_format("all:").fields} == {d.width for d in R.FIELDS.values()}
    assert {f.width for f in R.parse_format("all:12").fields} == {12}
    doc = json.loads(R.json_out([running()], fmt, now=NOW))
    assert doc["COMMAND"] == "bjobs" and doc["JOBS"] == 1
    record = doc["RECORDS"][0]
    assert list(record) == [n.upper() for n in R.FIELDS]
    assert "%COMPLETE" in record and all(isinstance(v, str) for v in record.values())
    assert all(record[n.upper()] == "" for n in fields.NOT_KEPT)
    text = R.custom([running()], fmt, now=NOW).splitlines()
    assert text[0].split() == [n.upper() for n in R.FIELDS] and len(text[1].split()) >= len(R.FIELDS)


def test_aliases_give_the_canonical_header():
    fmt = R.parse_format("sstart_time sterminate_time warn_act warn_time esstart_time gnum gmode j_excl galloc "
                         "saap resize_cmd except_stat fwd_cluster fwd_time srcluster ertime")
    assert fmt.headers == ["SPECIFIED_START_TIME", "SPECIFIED_TERMINATE_TIME", "WARNING_ACTION",
                           "ACTION_WARNING_TIME", "ESTIMATED_SIM_START_TIME", "GPU_NUM", "GPU_MODE", "J_EXCLUSIVE",
                           "GPU_ALLOC", "CHARGED_SAAP", "RESIZE_NOTIFICATION_COMMAND", "EXCEPTION_STATUS",
                           "FORWARD_CLUSTER", "FORWARD_TIME", "SOURCE_CLUSTER", "ESTIMATED_RUN_TIME"]


def row(job, spec, **kw):
    return R.custom([job], R.parse_format(spec + " delimiter='|'"), now=NOW, header=False, **kw).rstrip("\n").split("|")


def test_estimate_fields_e_l_x():
    # -W 60 only: L; -We 60 not exceeded (30 min run): E; -We 20 exceeded, -W 60: X against the limit
    spec = "time_left finish_time %complete estimated_run_time"
    assert row(running(run_limit=60.0), spec) == ["0:30 L", "Jan 10 18:30 L", "50.00% L", "-"]
    assert row(running(est_runtime_min=60.0), spec) == ["0:30 E", "Jan 10 18:30 E", "50.00% E", "3600"]
    assert row(running(est_runtime_min=20.0, run_limit=60.0), spec) == ["0:30 X", "Jan 10 18:30 X", "50.00% X",
                                                                         "1200"]
    assert row(running(est_runtime_min=29.5), spec) == ["0:0 X", "Jan 10 18:00 X", "101.69% X", "1770"]
    assert row(running(run_limit=60.0, run_time=1740), "time_left") == ["0:31 L"]
    assert row(running(est_runtime_min=60.0), spec, hms=True) == ["00:30:00 E", "Jan 10 18:30 E", "50.00% E",
                                                                  "01:00:00"]
    assert row(running(), spec) == ["-", "-", "-", "-"]


def test_wl_wf_wp_add_the_estimate_columns_to_the_table():
    # [inferred] layout (docs/semantics.md): the default row, then each field's -o header and width
    jobs = [running(est_runtime_min=60.0), running(job_id=8, status="PEND", start_time=None, exec_hosts=[])]
    text = R.table(jobs, estimates=["time_left", "finish_time", "%complete"], now=NOW)
    assert text.splitlines() == [
        "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME  TIME_LEFT   FINISH_TIME"
        "      %COMPLETE  ",
        "7       u       RUN   normal     hA          2*hB        sleep 600  Jan 10 17:00 0:30 E      Jan 10 18:30 E"
        "   50.00% E   ",
        "8       u       PEND  normal     hA                      sleep 600  Jan 10 17:00 -           -               "
        " -          ",
    ]
    wide = R.table(jobs[:1], estimates=["%complete"], now=NOW, wide=True, header=False, hms=True)
    assert wide == "7       u       RUN   normal     hA          2*hB        sleep 600  Jan 10 17:00 50.00% E   \n"


def test_kept_fields_show_what_the_job_asked():
    job = running(description="nightly run", begin_time=at("2021 Jan 11 06:00:00"),
                  term_time=at("2021 Jan 12 06:00:00"), exclusive=True, interactive="I", asked_hosts="hB hC+2",
                  ngpus=2, output_dir="/out/%J", input_file="in.txt", max_mem_kb=51200, mem_req_mb=100.0)
    spec = ("job_description specified_start_time specified_terminate_time exclusive interactive ask_hosts "
            "gpu_num output_dir input_file mem_efficiency average_cpu_efficiency idle_factor pendstate")
    assert row(job, spec) == ["nightly run", "Jan 11 06:00", "Jan 12 06:00", "Y", "Y", "hB hC+2", "2", "/out/%J",
                              "in.txt", "50.00%", "25.00%", "0.50", "NOTPEND"]
    assert row(running(), "exclusive interactive") == ["N", "N"]
    # bsub -hostfile (issue 21): host_file is its path; ask_hosts stays -m's
    listed = running(asked_hosts="@hostfile /home/u/hf\nhB 2\nhC 1")
    assert row(listed, "host_file ask_hosts") == ["/home/u/hf", "-"]


def test_eligible_and_ineligible_pending_time():
    # TRACK_ELIGIBLE_PENDINFO: the pending time split; not tracked (None): LSF's empty value
    job = running(pend_time=1800, ineligible_pend_time=600.0)
    assert row(job, "pend_time ependtime ipendtime") == ["1800", "1200", "600"]
    assert row(job, "ependtime ipendtime", hms=True) == ["00:20:00", "00:10:00"]
    assert row(running(pend_time=1800), "ependtime ipendtime") == ["-", "-"]


def test_pendstate_and_the_single_key_reason():
    def pend(*reasons, status="PEND"):
        return running(status=status, start_time=None, exec_hosts=[], pend_reasons=list(reasons))
    spec = "pendstate pend_reason"
    assert row(pend("New job is waiting for scheduling"), spec) == ["EPEND", "New job is waiting for scheduling;"]
    assert row(pend("Job dependency condition not satisfied"), spec) == ["IPEND",
                                                                         "Job dependency condition not satisfied;"]
    assert row(pend("Closed by LSF administrator: 1 host", "Job slot limit reached: 2 hosts"), spec) == \
        ["EPEND", "Job slot limit reached: 2 hosts;"]
    assert row(pend("The user has reached his/her job slot limit", "Closed by LSF administrator: 3 hosts"),
               spec) == ["EPEND", "The user has reached his/her job slot limit;"]
    assert row(pend("Job was suspended by the user while pending", status="PSUSP"), spec)[0] == "IPEND"
