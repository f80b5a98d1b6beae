"""bjobs -l / -UF (reference 3.7, 3.8)."""

from render_helpers import assert_golden, at

from lsfemu.render import bjobs as R
from lsfemu.views import JobView


def toil_job() -> JobView:
    cwd = "/hps/nobackup/production/ensembl/thiagogenez/pairwises/arabidopsis/run"
    log = "/tmp/toil_workflow_10e83102-2e4b-4093-9128-2a52f4bbc65a_job_64_batch_lsf_2924748_std_"
    return JobView(
        2924748, "thiagogenez", "RUN", "research-rh74", "noah-login-01",
        "_toil_worker CactusBarRecursion file:/hps/nobackup/production/ensembl/thiagogenez/pairwises/"
        "arabidopsis/run/jobstore/3 kind-CactusBarRecursion/instance-iu6wo56x --context "
        "gAShortenedh32xqlE51Yi4=",
        at("2021 Mar 18 02:06:32"), name="toil_job_64", cwd=cwd, home="/homes/thiagogenez",
        specified_cwd=cwd + "/.", output_file=log + "output.log", error_file=log + "error.log",
        res_req="select[(mem>4000)] rusage[mem=4000:duration=480, numcpus=1:duration=480]",
        exec_hosts=["hx-noah-31-02"], start_time=at("2021 Mar 18 02:06:33"),
        exec_home="/homes/thiagogenez", exec_cwd=cwd + "/.", priority=50, share_group="/thiagogenez",
        esub="esub", cpu_time=53936.4, mem_kb=344 * 1024, swap_kb=int(1.3 * 1024 * 1024), nthreads=5,
        pgid=433168, pids=[433168, 433177, 433179, 444026], run_limit=10085.0,
        max_mem_kb=int(2.5 * 1024 * 1024), avg_mem_kb=343 * 1024,
        combined_res_req="select[((mem>4000)) && (type == local)] order[r15s:pg] rusage[mem=4000.00:"
        "duration=8h:decay=0,numcpus=1.00:duration=8h:decay=0] span[hosts=1]",
        effective_res_req="select[(((mem>4000))) && (type == local)] order[r15s:pg] rusage[mem=4000.00:"
        "duration=8h:decay=0,numcpus=1.00:duration=8h:decay=0] span[hosts=1] ",
    )


def test_real_toil_run_job():
    """DataBiosphere/toil test_lsf_helper.py (EBI, LSF 10, 2021), with these edits
    to the golden: the start record uses the FP13 wording (the capture has
    "Started on <hx-noah-31-02>, Execution Home ..."), the site's CORELIMIT/
    MEMLIMIT block, non-default loadSched thresholds and "availcpus" table are
    removed. Everything else -- header and submit wrapping, Resource usage
    lines, RUNLIMIT, MEMORY USAGE, the wrapped Combined/Effective lines and the
    final empty line -- is byte-for-byte the real output."""
    out = R.long([toil_job()], now=at("2021 Mar 18 17:07:47"), max_user_priority_set=True)
    assert_golden("bjobs_l_toil", out)


def test_real_lsfmonitor_uf():
    """lsfMonitor's docstring of a real `bjobs -u all -UF` (LSF 10, newer FP,
    LSB_SHORT_HOSTLIST=1 at that site). The capture ends after the Effective
    line; the final empty line is bjobs' usual end of long output."""
    job = JobView(
        101, "liyanqing", "RUN", "normal", "cmp01", "sleep 12345", at("2020 Oct 26 17:43:07"),
        name="Tesf for lsfMonitor", project="lsf_test", cwd="/home/liyanqing", home="/home/liyanqing",
        num_processors=2, res_req="span[hosts=1] rusage[mem=123]", exec_hosts=["cmp01", "cmp01"],
        start_time=at("2020 Oct 26 17:43:07"), exec_home="/home/liyanqing", exec_cwd="/home/liyanqing",
        share_group="/liyanqing", mem_kb=2 * 1024, swap_kb=238 * 1024, nthreads=4, pgid=10643,
        pids=[10643, 10644, 10646], max_mem_kb=2 * 1024, avg_mem_kb=2 * 1024,
        combined_res_req="select[type == local] order[r15s:pg] rusage[mem=123.00] span[hosts=1]",
        effective_res_req="select[type == local] order[r15s:pg] rusage[mem=123.00] span[hosts=1]",
    )
    out = R.long([job], now=at("2020 Oct 26 17:46:17"), max_user_priority_set=False, uf=True,
                 short_hostlist=True)
    assert_golden("bjobs_uf_lsfmonitor", out)


def test_real_gabor_done_job():
    """Gabor Samu's `bjobs -l -gpu 54086` (LSF 10.1): golden with the GPU-only
    parts removed (", Requested GPU <...>" from the submit record -- which then
    fits on one line --, the per-GPU lines, "GPU Energy Consumed", EXTERNAL
    MESSAGES, GPU REQUIREMENT DETAILS, GPU_ALLOCATION)."""
    job = JobView(
        54086, "test", "DONE", "normal", "kilenc", "./gpu_burn 120", at("2018 Oct 01 11:14:04"),
        cwd="/home/test/gpu-burn", home="/home/test", exec_hosts=["kilenc"],
        start_time=at("2018 Oct 01 11:14:05"), finish_time=at("2018 Oct 01 11:16:08"),
        exec_home="/home/test", exec_cwd="/home/test/gpu-burn", share_group="/test", cpu_time=153.0,
        max_mem_kb=219 * 1024, avg_mem_kb=208 * 1024,
        combined_res_req="select[(ngpus>0) && (type == local)] order[gpu_maxfactor] "
        "rusage[ngpus_physical=1.00]",
        effective_res_req="select[((ngpus>0)) && (type == local)] order[gpu_maxfactor] "
        "rusage[ngpus_physical=1.00]",
    )
    out = R.long([job], now=at("2018 Oct 01 12:00:00"), max_user_priority_set=False)
    assert_golden("bjobs_l_gabor_gpu", out)


def _head(text: str, n: int) -> str:
    return "".join(text.splitlines(keepends=True)[:n])


def test_real_header_gabor_2613():
    job = JobView(
        2613, "lsfadmin", "RUN", "normal", "h",
        "/mnt/lsf/repository-path/lsfadmin/myOpenFoam_run_1722358195200AuWDY/motorBike/bsub.myOpenFoam_run",
        at("2024 Jul 30 16:49:55"), name="myOpenFoam_run_motorBike", application="openfoam",
        share_group="/lsfadmin", priority=50,
    )
    # no Job Priority: that site has no MAX_USER_PRIORITY
    out = R.long([job], now=at("2024 Jul 30 17:00:00"), max_user_priority_set=False)
    assert_golden("bjobs_l_header_gabor2613", _head(out, 6))


def test_real_header_aiida_with_year():
    job = JobView(9352294, "nsgsx_kl", "PEND", "Gsx_normal", "gsnew2010", "_aiidasubmit.sh",
                  at("2026 May 23 18:18:44"), name="aiida-11312", priority=50)
    out = R.long([job], now=at("2026 May 23 18:20:00"), max_user_priority_set=True, year=True)
    assert_golden("bjobs_l_header_aiida_year", _head(out, 4))
    assert out.splitlines()[4].startswith("Sat May 23 18:18:44 2026: Submitted from host <gsnew2010>")


def mixed_jobs() -> list[JobView]:
    home = "/home/user1"
    return [
        JobView(313, "user1", "PEND", "normal", "hostA", "myjob", at("2026 Jan 05 09:00:00"),
                cwd=home + "/work", home=home, num_processors=4, max_processors=8, priority=60,
                submit_priority=60, aps_system=10.0, run_limit=720.0, res_req="rusage[mem=4000]",
                output_file="out.%J", output_overwrite=True, dependency="done(312)",
                pend_reasons=["New job is waiting for scheduling"]),
        JobView(314, "user1", "EXIT", "normal", "hostA", "sleep 100", at("2026 Jan 05 09:00:05"),
                name="arr", array_index=3, cwd="/tmp", home=home, user_group="groupA",
                exec_hosts=["hostB", "hostB", "hostC"], start_time=at("2026 Jan 05 09:01:00"),
                finish_time=at("2026 Jan 05 09:02:00"), exec_home=home, exec_cwd="/tmp", cpu_time=0.0,
                exit_reason="TERM_OWNER: job killed by owner", priority=50, aps_admin=20.0),
        JobView(315, "user1", "USUSP", "normal", "hostA", "sleep 1000", at("2026 Jan 05 09:00:06"),
                cwd=home, home=home, exec_hosts=["hostB"], start_time=at("2026 Jan 05 09:01:00"),
                exec_home=home, exec_cwd=home, cpu_time=12.7, priority=50,
                susp_reasons=["The job was suspended by user"]),
        JobView(316, "user1", "EXIT", "normal", "hostA", "false", at("2026 Jan 05 09:00:07"),
                cwd=home, home=home, exec_hosts=["hostB"], start_time=at("2026 Jan 05 09:01:00"),
                finish_time=at("2026 Jan 05 09:01:01"), exec_home=home, exec_cwd=home, cpu_time=0.04,
                exit_code=1, priority=50),
    ]


def test_mixed_jobs_hand_made_golden():
    """Hand-made golden (no real sample combines these): PEND with -sp, -n 4,8,
    APS system value, -oo, dependency and RUNLIMIT; an EXIT array element killed
    by its owner on two hosts; a USUSP job; an EXIT job with an exit code. Rules:
    3.7 block structure, 1.4 wrapping, FP13 wording (module docstring)."""
    out = R.long(mixed_jobs(), now=at("2026 Jan 05 09:05:00"), max_user_priority_set=True)
    assert_golden("bjobs_l_mixed", out)


def test_mixed_jobs_uf_hand_made_golden():
    out = R.long(mixed_jobs(), now=at("2026 Jan 05 09:05:00"), max_user_priority_set=True, uf=True)
    assert_golden("bjobs_uf_mixed", out)


def test_long_structure_rules():
    out = R.long(mixed_jobs(), now=at("2026 Jan 05 09:05:00"), max_user_priority_set=False)
    lines = out.split("\n")
    assert lines[0] == ""  # each job starts with an empty line
    assert out.endswith("\n\n")  # and the output with one
    assert out.count("\n" + "-" * 78 + "\n") == 3
    assert all(len(line) <= 79 for line in lines)
    assert "Job Priority" not in out  # MAX_USER_PRIORITY not configured
    assert " PENDING REASONS:\n New job is waiting for scheduling;\n\n\n SCHEDULING" not in out
    i = lines.index(" PENDING REASONS:")
    assert lines[i - 1].endswith(";") and lines[i + 1] == " New job is waiting for scheduling;"
    assert R.long([], now=0, max_user_priority_set=True) == ""


def test_pend_block_without_limit_has_two_empty_lines():
    # as the IBM k8s README's PEND job: reasons, then two empty lines before the next block
    job = JobView(2637, "mclosson", "PEND", "priority", "ns01x03", "sleep 1000000",
                  at("2019 Mar 30 11:08:18"), pend_reasons=["New job is waiting for scheduling"])
    out = R.long([job], now=at("2019 Mar 30 11:09:00"), max_user_priority_set=False)
    assert " PENDING REASONS:\n New job is waiting for scheduling;\n\n\n SCHEDULING PARAMETERS:\n" in out
    assert out.endswith(" RESOURCE REQUIREMENT DETAILS:\n Combined: -\n Effective: -\n\n")


def test_cwd_forms():
    assert R.home_relative("/home/u", "/home/u") == "$HOME"
    assert R.home_relative("/home/u/x/y", "/home/u/") == "$HOME/x/y"
    assert R.home_relative("/home/ux", "/home/u") == "/home/ux"
    assert R.home_relative("/scratch", "") == "/scratch"
    assert R.home_relative("", "/home/u") == "$HOME"


def test_memory_text():
    assert R.mem_text(0) == "0 Mbytes"
    assert R.mem_text(344 * 1024) == "344 Mbytes"
    assert R.mem_text(int(5.2 * 1024 * 1024)) == "5.2 Gbytes"


def test_reserved_slots_and_predicted_start_of_a_pending_job():
    """SLOT_RESERVE (issue 19, part 4): the Reserved line after the submission
    line, one host per slot or counted with LSB_SHORT_HOSTLIST=1, then the
    predicted start (OpenLava's prtJobReserv and predictedStartTime lines)."""
    job = JobView(11, "user3", "PEND", "normal", "hostA", "sleep 10000", at("2026 Jan 5 09:00:15"),
                  num_processors=4, pend_reasons=["Job slot limit reached: 2 hosts"],
                  reserved_hosts=["hostC", "hostC"], reserve_time=at("2026 Jan 5 09:00:20"),
                  predicted_start=at("2026 Jan 5 09:30:10"))
    lines = R.long([job], now=at("2026 Jan 5 09:01:00"), max_user_priority_set=False).splitlines()
    at_submit = next(i for i, line in enumerate(lines) if "Submitted from host" in line)
    assert lines[at_submit + 1:at_submit + 4] == [
        "Mon Jan  5 09:00:20: Reserved <2> job slot(s) on host(s) <hostC> <hostC>;",
        "Mon Jan  5 09:30:10: Will be started;",
        " PENDING REASONS:"]
    short = R.long([job], now=at("2026 Jan 5 09:01:00"), max_user_priority_set=False, short_hostlist=True)
    assert "Mon Jan  5 09:00:20: Reserved <2> job slot(s) on host(s) <2*hostC>;\n" in short
