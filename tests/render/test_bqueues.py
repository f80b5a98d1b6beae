"""bqueues default / -w / -l (reference 5.1, 5.2)."""

from render_helpers import assert_golden

from lsfemu.render import bqueues as R
from lsfemu.views import QueueView


def test_real_table():
    # reference 5.1 (seen-verified on 4 LSF 10 captures)
    queues = [
        QueueView("priority", 43),
        QueueView("normal", 30),
        QueueView("night", 1, status="Open:Inact"),
        QueueView("clc", 94, max_slots=256),
    ]
    assert_golden("bqueues_table", R.table(queues))


def test_real_table_washu_truncation():
    # WashU compute1 docs (LSF 10): names cut at 15 without a marker
    queues = [
        QueueView("general", 10, njobs=3984, pend=111, run=3873),
        QueueView("general-interactive", 10, njobs=3, run=3),
        QueueView("irahall-interactive", 10, njobs=16, run=16),
    ]
    assert_golden("bqueues_table_washu", R.table(queues))
    wide = R.table(queues, wide=True).splitlines()
    assert wide[2].startswith("general-interactive  10  Open:Active")


def test_table_counts_and_limits():
    q = QueueView("short", 500, status="Closed:Active", max_slots=10, jl_u=2, jl_p=1, jl_h=3,
                  njobs=12, pend=5, run=4, ssusp=2, ususp=1)
    assert R.table([q]).splitlines()[1] == (
        "short           500  Closed:Active    10    2    1    3    12     5     4     3"
    )
    assert R.table([]) == ""


def test_real_long_normal():
    """The LSF 10 "Checking the cluster" doc sample of `bqueues -l normal`. One
    edit: the two load rows end with two spaces, as in every real bjobs -l
    capture (the doc page, converted to Markdown, lost trailing spaces); the
    reference says the table is the same as bjobs -l's."""
    q = QueueView("normal", 30, nice=20, is_default=True, job_accept_interval_s=0,
                  description="For normal low priority jobs, running only if hosts are lightly loaded.",
                  policies=["FAIRSHARE", "NO_INTERACTIVE"])
    out = R.long([q], extra_sections={"normal": "USER_SHARES:  [default, 1]\n"})
    assert_golden("bqueues_l_normal", out)


def test_seed_parameters_lines():
    # the seed's (Platform LSF 7 page) PARAMETERS/STATISTICS lines for a PRIO 500 queue,
    # and its description line for a queue without DESCRIPTION (trailing spaces of the
    # hand-made seed removed).
    q = QueueView("normal", 500, nice=20, is_default=True, policies=["FAIRSHARE", "APS_PRIORITY"])
    lines = R.long([q]).splitlines()
    assert lines[2] == "  -- No description provided.  This is the default queue."
    assert lines[5:7] == [
        "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV",
        "500   20  Open:Active       -    -    -    -     0     0     0     0     0    0",
    ]
    assert "SCHEDULING POLICIES:  FAIRSHARE  APS_PRIORITY" in lines


def test_long_two_queues_hand_made():
    """Hand-made golden: 79-dash separator, RUNLIMIT block, no policies,
    several default queues, user/host lists and administrators (5.2 rules)."""
    queues = [
        QueueView("short", 40, status="Open:Active", several_defaults=True, description="Short jobs.",
                  run_limit=60.0, users=["user1", "groupA/"], hosts=["hostA", "hostB"],
                  administrators=["admin1"], njobs=3, pend=1, run=2, rsv=1),
        QueueView("night", 1, status="Closed:Inact", several_defaults=True, job_accept_interval_s=10),
    ]
    assert_golden("bqueues_l_two", R.long(queues))
    assert R.long([]) == ""


def test_long_default_and_maximum_run_limit_derived():
    """Derived golden (no real capture): RUNLIMIT = 120 240 as OpenLava's
    prtQueuesLong prints it (lsbatch/cmd/bqueues.c: a `DEFAULT LIMITS:` block,
    then `MAXIMUM LIMITS:`, each with its RUNLIMIT title and value), in the
    layout of bqueues_l_two; edits: none beyond that layout."""
    queues = [QueueView("normal", 30, status="Open:Active", description="Normal jobs.",
                        run_limit=240.0, run_limit_default=120.0)]
    assert_golden("bqueues_l_runlimit_default", R.long(queues))
