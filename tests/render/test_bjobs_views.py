"""bjobs -sum, -psum, -W and -p1 (issue 21, part 1): goldens derived from
the reference's samples (tests/render/golden/README.md)."""

from render_helpers import assert_golden, at

from lsfemu.render import bjobs as R
from lsfemu.views import JobView


def job(status, n=1, hosts=(), reasons=(), **kw) -> JobView:
    base = dict(job_id=1, user="user1", status=status, queue="normal", from_host="hA", command="sleep 1",
                submit_time=at("2016 Mar 24 15:00:00"), num_processors=n, exec_hosts=list(hosts),
                pend_reasons=list(reasons), start_time=None if status in ("PEND", "PSUSP") else at("2016 Mar 24 15:01:00"))
    base.update(kw)
    return JobView(**base)


def test_sum_is_the_man_pages_layout():
    # the man page's first example: RUN 123, SSUSP 456, USUSP 789, UNKNOWN 5, PEND 5, PSUSP 3
    # (FWD_PEND 0: lsfemu forwards no job); a pending job counts the slots it asks for,
    # a started one those it holds; finished jobs are not counted
    jobs = [job("RUN", hosts=["h"] * 100), job("RUN", hosts=["h"] * 23), job("SSUSP", hosts=["h"] * 456),
            job("USUSP", hosts=["h"] * 789), job("UNKWN", hosts=["h"] * 5), job("PEND", 5), job("PSUSP", 3)]
    assert_golden("bjobs_sum_doc", R.sum_table(jobs))
    assert R.sum_table([]).splitlines()[1].split() == ["0"] * 7


def test_psum_is_the_man_pages_sample():
    host_jobs = [job("PEND", reasons=["Load information unavailable: 2 hosts", "Closed by LSF administrator: 2 hosts"])
                 for _ in range(40)]
    host_jobs += [job("PEND", reasons=["Load information unavailable: 2 hosts"]) for _ in range(20)]
    host_jobs += [job("PEND", reasons=["Load information unavailable: 4 hosts"]) for _ in range(10)]
    lic = [job("PEND", reasons=["Job's requirements for reserving resource (lic1) not satisfied"]) for _ in range(20)]
    new = [job("PEND", reasons=["New job is waiting for scheduling"]) for _ in range(10)]
    text = R.psum_text(new + host_jobs + lic + [job("RUN", hosts=["h"])], cluster="cluster1",
                       now=at("2021 Mar 24 15:11:50"))
    assert_golden("bjobs_psum_doc", text)
    assert R.psum_text([], cluster="c1", now=at("2021 Mar 24 15:11:50")) == \
        "Pending reason summary: published Wed Mar 24 15:11:50 2021\nSummarizing 0 pending jobs in cluster (c1).\n"


def test_w_is_the_reference_row():
    j = job("EXIT", job_id=473713, user="gloessa", queue="pub.1h", from_host="brutus2", hosts=["a6128"], name="TM-T",
            submit_time=at("2012 Oct 19 17:10:27"), start_time=at("2012 Oct 19 17:11:02"),
            finish_time=at("2012 Oct 19 17:14:49"), cpu_time=0.12, mem_kb=5208, swap_kb=206312,
            pids=[23177, 23178, 23182, 23259])
    assert_golden("bjobs_W_formats", R.w_table([j]))
    pending = R.w_table([job("PEND", job_id=5, submit_time=at("2012 Oct 19 17:10:27"))], header=False)
    assert pending == ("5       user1   PEND  normal     hA             -        sleep 1    10/19-17:10:27 default    "
                       "000:00:00.00 0      0       -  -  - \n")


def test_p1_is_the_single_key_reason():
    jobs = [job("PEND", reasons=["Closed by LSF administrator: 1 host", "Job slot limit reached: 2 hosts"])]
    assert R.pend_table(jobs, header=False).splitlines()[1:] == [" Closed by LSF administrator: 1 host;",
                                                                 " Job slot limit reached: 2 hosts;"]
    assert R.pend_table(jobs, header=False, level=1).splitlines()[1:] == [" Job slot limit reached: 2 hosts;"]


def test_p3_is_the_python_api_sample():
    # IBM lsf-python-api PR 60: a PSUSP job held by a reason of its own (the key reason alone) and a
    # PEND job whose four hosts all refuse it statically (no candidate host)
    susp = job("PSUSP", job_id=3864, user="root", reasons=["Job was suspended by LSF admin or root while pending"],
               submit_time=at("2023 Aug 11 07:20:00"))
    pend = job("PEND", job_id=3866, user="root", submit_time=at("2023 Aug 11 07:21:00"),
               reasons=["Not the same type as the submission host: 1 host", "Load information unavailable: 1 host",
                        "Job's resource requirements not satisfied: 1 host", "Closed by LSF administrator: 1 host"])
    assert_golden("bjobs_p3_python_api", R.pend_table([susp, pend], level=3))
    # level 2: the candidate hosts' section only
    assert R.pend_table([pend], level=2, header=False).splitlines()[1:] == [
        " Candidate host pending reasons (0 of 4 hosts)."]


def test_p2_p3_split_candidate_hosts_most_common_first():
    j = job("PEND", reasons=["Closed by LSF administrator: 1 host", "Not enough job slot(s): 1 host",
                             "Job slot limit reached: 2 hosts", "Not specified in job submission: 3 hosts"])
    assert R.pend_table([j], level=3, header=False).splitlines()[1:] == [
        " Candidate host pending reasons (3 of 7 hosts):",
        "   Job slot limit reached: 2 hosts;",
        "   Not enough job slot(s): 1 host;",
        "",
        " Non-candidate host pending reasons (4 of 7 hosts):",
        "   Not specified in job submission: 3 hosts;",
        "   Closed by LSF administrator: 1 host;"]
    assert R.pend_table([j], level=2, header=False).splitlines()[1:] == [
        " Candidate host pending reasons (3 of 7 hosts):",
        "   Job slot limit reached: 2 hosts;",
        "   Not enough job slot(s): 1 host;"]
    # a reason of the job, its queue or user holds it: that key reason alone, as -p1
    held = job("PEND", reasons=["Job slot limit reached: 2 hosts", "Job dependency condition not satisfied"])
    assert R.pend_table([held], level=3, header=False).splitlines()[1:] == [" Job dependency condition not satisfied;"]
