"""bjobs default / -w / -noheader / -aps / -prio tables (reference 3.1, 3.2, 3.9)."""

from render_helpers import assert_golden, at

from lsfemu.render import bjobs as R
from lsfemu.views import JobView


def k8s_jobs() -> list[JobView]:
    """The four jobs of the IBM lsf-kubernetes README (real LSF 10.1 rows)."""
    return [
        JobView(2405, "mclosson", "RUN", "normal", "ns01x03",
                "python /share/examples/distributed-helloworld.py", at("2019 Mar 27 12:33:10"),
                exec_hosts=["ns01x03"] * 3, start_time=at("2019 Mar 27 12:33:40"), num_processors=3),
        JobView(2637, "mclosson", "PEND", "priority", "ns01x03", "sleep 1000000",
                at("2019 Mar 30 11:08:18"), name="default/myjob-k8s-115-gfnxd", num_processors=4),
        JobView(1850, "mclosson", "RUN", "normal", "lsfmaster", "sleep 1000000",
                at("2019 Mar 23 16:57:02"), name="default/nginx-deployment-6db84bb685-7975k",
                exec_hosts=["lsfcompute1"], start_time=at("2019 Mar 23 16:58:00")),
        JobView(205, "mclosson", "DONE", "normal", "ns01x03", "sleep 120", at("2019 Jul 04 13:33:00"),
                exec_hosts=["ns01x01"], start_time=at("2019 Jul 04 13:34:00"),
                finish_time=at("2019 Jul 04 13:36:00")),
    ]


def test_default_table_real_k8s_rows():
    # user cut at 7, N*host compression, job names cut at the left with "*",
    # PEND jobs with an empty EXEC_HOST.
    assert_golden("bjobs_table_k8s", R.table(k8s_jobs()))


def test_wide_table_real_washu_row():
    job = JobView(6978098, "mwyczalk", "RUN", "research-hpc", "blade17-3-8.gsc.wustl.edu",
                  "/bin/bash script", at("2019 Jun 09 03:00:00"),
                  name="cromwell_18482ffc_pindel_germline_caller",
                  exec_hosts=["blade17-4-11.gsc.wustl.edu"], start_time=at("2019 Jun 09 03:01:00"))
    assert_golden("bjobs_wide_washu", R.table([job], wide=True))


def test_noheader_and_empty():
    jobs = k8s_jobs()
    assert R.table(jobs, header=False) == "".join(R.table(jobs).splitlines(keepends=True)[1:])
    assert R.table([]) == ""


def test_multi_host_rows_and_missing_exec_host():
    # Hand-made (reference 3.1 rules + the 45-column continuation seen in a real
    # LSF 10 capture "12*g1_r" / "4*g1", and "   -   " for a finished job that
    # never got a host, also seen there).
    jobs = [
        JobView(22404, "ue", "EXIT", "q_residual", "mn325", "/bin/bash", at("2025 Sep 01 21:40:00"),
                exec_hosts=["g1_r"] * 12 + ["g1"] * 4, start_time=at("2025 Sep 01 21:41:00"),
                finish_time=at("2025 Sep 01 22:00:00"), exit_code=1),
        JobView(17381, "ue", "EXIT", "q_residual", "mn325", "/bin/bash", at("2025 Aug 28 13:36:00"),
                finish_time=at("2025 Aug 28 13:37:00")),
        JobView(123456789, "ue", "RUN", "q_htc", "mn325", "x", at("2025 Aug 02 08:05:00"),
                exec_hosts=["a", "b", "b", "a"], start_time=at("2025 Aug 02 08:06:00")),
    ]
    expected = (
        "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"
        "22404   ue      EXIT  q_residual mn325       12*g1_r     /bin/bash  Sep  1 21:40\n"
        "                                             4*g1\n"
        "17381   ue      EXIT  q_residual mn325          -        /bin/bash  Aug 28 13:36\n"
        "3456789 ue      RUN   q_htc      mn325       a           x          Aug  2 08:05\n"
        "                                             2*b\n"
        "                                             a\n"
    )
    assert R.table(jobs) == expected
    wide = (
        "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"
        "22404   ue      EXIT  q_residual mn325       12*g1_r:4*g1 /bin/bash  Sep  1 21:40\n"
        "17381   ue      EXIT  q_residual mn325       -           /bin/bash  Aug 28 13:36\n"
        "123456789 ue      RUN   q_htc      mn325       a:2*b:a     x          Aug  2 08:05\n"
    )
    assert R.table(jobs, wide=True) == wide


def test_jobid_width_and_year():
    job = JobView(1234567890, "u1", "PEND", "normal", "hostA", "myjob", at("2016 May 03 10:21:00"))
    assert R.table([job], jobid_width=10, year=True) == (
        "JOBID      USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"
        "1234567890 u1      PEND  normal     hostA                   myjob      May  3 10:21 2016\n"
    )
    assert R.table([job]).splitlines()[1].startswith("4567890 u1 ")
    assert R.table([job], wide=True).splitlines()[1] == (
        "1234567890 u1      PEND  normal     hostA       -           myjob      May  3 10:21"
    )


def test_array_element_name():
    job = JobView(408347, "u1", "PEND", "normal", "hostA", "run.sh", at("2025 Jan 07 09:59:00"),
                  name="arr", array_index=2)
    assert R.table([job]).splitlines()[1] == (
        "408347  u1      PEND  normal     hostA                   arr[2]     Jan  7 09:59"
    )
    job.name = "averylongarrayname"
    assert R.table([job]).splitlines()[1].split()[5] == "*ayname[2]"


def test_aps_table():
    # Golden = the reference's recommended rendering of the seed sample (3.9).
    jobs = [
        JobView(313, "user1", "PEND", "owners", "hostA", "myjob", at("2008 Feb 12 01:09:00"), aps_system=10.0),
        JobView(314, "user1", "PEND", "normal", "hostA", "myjob", at("2008 Feb 12 01:08:00"), aps_value=109.0),
        JobView(321, "user1", "PEND", "owners", "hostA", "myjob", at("2008 Feb 12 01:09:00")),
    ]
    assert_golden("bjobs_aps", R.aps_table(jobs))
    assert R.aps_table([]) == ""
    assert R.aps_table(jobs[:1], year=True).splitlines()[0].endswith("SUBMIT_TIME          APS")
    assert R.aps_value_text(JobView(1, "u", "PEND", "q", "h", "c", 0, aps_system=2.5)) == "(2.50)"


def test_prio_table_shows_each_factors_share():
    # [inferred] layout (docs/semantics.md): the -aps row, then FS ... QPRIORITY, ADMIN, each at least 9 wide;
    # a share of 0.00 (a factor in its grace period), `-` a factor not weighted, every `-` outside APS queues
    jobs = [JobView(314, "user1", "PEND", "normal", "hostA", "myjob", at("2008 Feb 12 01:08:00"), aps_value=119.0),
            JobView(321, "user1", "PEND", "owners", "hostA", "myjob", at("2008 Feb 12 01:09:00"))]
    shares = {"FS": 0.0, "WORK": 109.0, "JPRIORITY": 9.0, "QPRIORITY": 100.0, "ADMIN": 10.0}
    assert R.prio_table(zip(jobs, [shares, None])).splitlines() == [
        "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME     APS        FS      RSRC"
        "      PROC       MEM      SWAP      WORK JPRIORITY QPRIORITY     ADMIN",
        "314     user1   PEND  normal     hostA                   myjob      Feb 12 01:08 119.00      0.00         -"
        "         -         -         -    109.00      9.00    100.00     10.00",
        "321     user1   PEND  owners     hostA                   myjob      Feb 12 01:09      -" + "         -" * 9,
    ]
    assert R.prio_table([]) == "" and R.prio_table(zip(jobs, [shares, None]), header=False).startswith("314 ")


def test_pend_table_hand_made():
    # Hand-made from reference 3.6 (OpenLava widths 7/7/5/11/14/18, reason lines
    # " text;" as seen in real -p output).
    jobs = [
        JobView(3, "user2", "PEND", "normal", "hostA", "sleep 100", at("2026 Jan 05 09:00:00"), num_processors=4,
                pend_reasons=["Not enough job slot(s): 1 host", "New job is waiting for scheduling"]),
        JobView(9, "user1", "PSUSP", "priority_long", "login-node-01.example", "x",
                at("2026 Jan 05 09:01:00"), name="a_rather_long_job_name",
                pend_reasons=["The job was suspended by the user while pending"]),
    ]
    assert R.pend_table(jobs) == (
        "JOBID   USER    STAT  QUEUE       FROM_HOST      JOB_NAME           SUBMIT_TIME\n"
        "3       user2   PEND  normal      hostA          sleep 100          Jan  5 09:00\n"
        " Not enough job slot(s): 1 host;\n"
        " New job is waiting for scheduling;\n"
        "9       user1   PSUSP priority_lo login-node-01. *her_long_job_name Jan  5 09:01\n"
        " The job was suspended by the user while pending;\n"
    )
    assert R.pend_table([]) == ""


def test_table_with_suspending_reasons():
    job = JobView(5, "u1", "USUSP", "normal", "hostA", "x", at("2026 Jan 05 09:00:00"), exec_hosts=["hostB"],
                  start_time=at("2026 Jan 05 09:00:10"), susp_reasons=["The job was suspended by user"])
    assert R.table([job], reasons=True).splitlines()[2:] == [" The job was suspended by user;"]
    assert len(R.table([job]).splitlines()) == 2
