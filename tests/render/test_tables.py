"""busers, bhosts, lsid, bparams (reference 6, 7)."""

from render_helpers import assert_golden

from lsfemu.render import bhosts, bparams, busers, lsid
from lsfemu.views import HostView, ParamsView, UserView


def test_real_busers():
    users = [UserView("liewa", max_jobs=48), UserView("myuser", njobs=42, pend=12, run=28, ssusp=2)]
    assert_golden("busers", busers.table(users))


def test_real_busers_wide():
    # ETH Euler busers -w row; header trailing space as in the non-wide capture (see report)
    users = [UserView("liayu", max_jobs=2400, mpjobs=25000)]
    assert_golden("busers_wide", busers.table(users, wide=True))


def test_busers_jl_p_and_groups():
    row = busers.table([UserView("groupA/", jl_p=0.5, max_jobs=10, njobs=3, pend=1, run=2)]).splitlines()[1]
    assert row == "groupA/              0.5     10      3      1      2      0      0      0"
    assert busers.table([]) == ""


def test_real_bhosts():
    hosts = [
        HostView("lsfmaster", status="closed_Adm", max_slots=0),
        HostView("worker-10-10-10-10"),
        HostView("compute1-exec-10.ris.wustl.edu", max_slots=36),
    ]
    assert_golden("bhosts", bhosts.table(hosts))


def test_real_bhosts_wide():
    # IBM Cloud `bhosts -aw` rows and an LSF Suite `bhosts -w` row: STATUS 14 wide in
    # the header, 11 in the rows, long names not cut.
    hosts = [
        HostView("icgen2host-10-248-0-37", status="closed_Full", max_slots=0),
        HostView("icgen2host-10-248-0-38", status="closed_RC", max_slots=1),
        HostView("abc-re1-comp-1-9e6e-001.hpc.local", max_slots=8),
    ]
    assert_golden("bhosts_wide", bhosts.table(hosts, wide=True))


def test_bhosts_counts():
    h = HostView("hostA", jl_u=2, max_slots=8, njobs=5, run=3, ssusp=1, ususp=1, rsv=2)
    assert bhosts.table([h]).splitlines()[1] == (
        "hostA              ok              2      8      5      3      1      1      2"
    )


def test_real_lsid():
    assert_golden("lsid", lsid.banner("HPCCluster", "icgen2host-10-240-0-35"))
    assert lsid.banner("c", "m", version="10.1.0.0", build_date="Apr 04 2016").startswith(
        "IBM Spectrum LSF Standard 10.1.0.0, Apr 04 2016\n"
    )


def test_real_bparams_short():
    p = ParamsView(default_queues=["normal"], mbd_sleep_time=10, sbd_sleep_time=7, job_accept_interval=1)
    assert_golden("bparams_short", bparams.short(p))
    p2 = ParamsView(default_queues=["normal", "short"], default_host_spec="hostA", job_accept_interval=0)
    assert bparams.short(p2) == (
        "Default Queues:  normal short\n"
        "Default Host Specification:  hostA\n"
        "Job Dispatch Interval:  10 seconds\n"
        "Job Checking Interval:  30 seconds\n"
        "Job Accepting Interval:  0 seconds\n"
    )


def test_bparams_long_hand_made():
    """Hand-made goldens following 6.2 (two of its lines are seen verbatim on LSF 10)."""
    p = ParamsView(default_queues=["normal"], mbd_sleep_time=10, sbd_sleep_time=7, job_accept_interval=1,
                   max_user_priority=100, job_priority_over_time="1/10")
    assert_golden("bparams_long", bparams.long(p))
    plain = bparams.long(ParamsView(default_queues=["normal"]))
    assert "MAX_USER_PRIORITY" not in plain and "JOB_PRIORITY_OVER_TIME" not in plain
    assert "    MBD_SLEEP_TIME = 10 (seconds)\n" in plain
    assert "    JOB_ACCEPT_INTERVAL = 0 (* MBD_SLEEP_TIME)\n" in plain
