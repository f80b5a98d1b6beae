"""Exact texts: USER_SHARES line, SHARE_INFO_FOR blocks, bparams -l paragraphs, explain priority."""

from __future__ import annotations

from lsfemu.config.model import Params
from lsfemu.render.bqueues import long as bqueues_long
from lsfemu.render.fairshare import (
    SHARE_HEADER, SHARE_HEADER_ADJUST, bparams_factor_paragraphs, explain_priority, fairshare_section,
    share_info_block, share_row, user_shares_line,
)
from lsfemu.sched.fairshare import Factors, FairshareState, ShareRow, Usage, build_tree, effective_factors
from lsfemu.views import QueueView


def test_user_shares_line():
    assert user_shares_line([("user1", 10), ("default", 1)]) == "USER_SHARES:  [user1, 10] [default, 1] "
    assert user_shares_line([("grp@", 2.5)]) == "USER_SHARES:  [grp@, 2.5] "


def test_seed_row_and_header_columns():
    row = ShareRow("user1", 10, 10 / 3, 0, 0, 0.0, 0, 0.0)
    assert share_row(row, adjust=False) == "user1       10       3.333      0        0         0.0        0"
    assert SHARE_HEADER == " USER/GROUP   SHARES  PRIORITY  STARTED  RESERVED  CPU_TIME  RUN_TIME"
    # header words start at columns 2/15/23/33/42/52/62, ADJUST at 73 (1-based)
    assert [SHARE_HEADER_ADJUST.index(w) + 1 for w in
            ("USER/GROUP", "SHARES", "PRIORITY", "STARTED", "RESERVED", "CPU_TIME", "RUN_TIME", "ADJUST")] \
        == [2, 15, 23, 33, 42, 52, 62, 73]
    line = share_row(row)
    assert line == "user1       10       3.333      0        0         0.0        0         0.000"
    assert line.index("0.000") + 1 == 73


def test_share_info_block_exact():
    tree = build_tree("USER_SHARES[[user1, 10] [default, 1]]", {}, {"user1", "bob"})
    st = FairshareState(tree, Factors(), {"bob": Usage(cpu_time=0.5, run_time=2, job_slots=2, reserved_slots=1)})
    text = share_info_block("normal", st.share_info())
    assert text == (
        "SHARE_INFO_FOR: normal/\n"
        " USER/GROUP   SHARES  PRIORITY  STARTED  RESERVED  CPU_TIME  RUN_TIME   ADJUST\n"
        "user1       10       3.333      0        0         0.0        0         0.000\n"
        "bob         1        0.073      2        1         1800.0     7200      0.000\n"
    )


def test_long_names_and_values_keep_a_separator():
    row = ShareRow("a_very_long_user_name", 123456789, 123456789.0, 1234567890, 0, 12345678.9, 123456789012, 1.5)
    assert len(share_row(row).split()) == 8
    assert share_row(row).startswith("a_very_long_user_name 123456789")


def test_sub_level_block_and_section_in_bqueues_long(lsb_users):
    groups = lsb_users("Begin UserGroup\nGROUP_NAME GROUP_MEMBER USER_SHARES\n"
                       "grp (a b) ([a, 2] [b, 1])\nEnd UserGroup\n")
    tree = build_tree("USER_SHARES[[grp, 10] [c, 5]]", groups)
    st = FairshareState(tree, Factors(), {"a": Usage(job_slots=1)})
    blocks = [share_info_block("/".join(("normal",) + lv), st.share_info(lv)) for lv in tree.levels()]
    section = fairshare_section([("grp", 10), ("c", 5)], blocks)
    assert section == (
        "USER_SHARES:  [grp, 10] [c, 5] \n"
        "\n"
        "SHARE_INFO_FOR: normal/\n"
        " USER/GROUP   SHARES  PRIORITY  STARTED  RESERVED  CPU_TIME  RUN_TIME   ADJUST\n"
        "grp         10       1.667      1        0         0.0        0         0.000\n"
        "c           5        1.667      0        0         0.0        0         0.000\n"
        "\n"
        "SHARE_INFO_FOR: normal/grp/\n"
        " USER/GROUP   SHARES  PRIORITY  STARTED  RESERVED  CPU_TIME  RUN_TIME   ADJUST\n"
        "a           2        0.333      1        0         0.0        0         0.000\n"
        "b           1        0.333      0        0         0.0        0         0.000\n"
    )
    q = QueueView(name="normal", priority=30, nice=20, status="Open:Active", policies=["FAIRSHARE"],
                  users=["all"], hosts=["all"])
    text = bqueues_long([q], extra_sections={"normal": section})
    tail = text[text.index("SCHEDULING POLICIES:"):]
    assert tail.startswith("SCHEDULING POLICIES:  FAIRSHARE\nUSER_SHARES:  [grp, 10] [c, 5] \n\nSHARE_INFO_FOR: normal/\n")
    assert tail.endswith("b           1        0.333      0        0         0.0        0         0.000\n\n"
                         "USERS: all\nHOSTS:  all\n")


def test_run_time_column_includes_history_only_when_enabled():
    u = {"a": Usage(run_time=1, hist_run_time=0.5, job_slots=1)}
    off = FairshareState(build_tree("USER_SHARES[[a, 1]]"), Factors(), u).share_info()[0]
    on = FairshareState(build_tree("USER_SHARES[[a, 1]]"), Factors(enable_hist_run_time=True), u).share_info()[0]
    assert (off.run_time_s, on.run_time_s) == (3600, 5400)


def test_bparams_factor_paragraphs_defaults():
    assert bparams_factor_paragraphs(Params()) == (
        "Run time weighting factor for fairshare scheduling policy:\n"
        "    RUN_TIME_FACTOR = 0.700000\n"
        "\n"
        "CPU time weighting factor for fairshare scheduling policy:\n"
        "    CPU_TIME_FACTOR = 0.700000\n"
        "\n"
        "Job slots weighting factor for fairshare scheduling policy:\n"
        "    RUN_JOB_FACTOR = 3.000000\n"
        "\n"
        "The number of hours of resource consumption history:\n"
        "    HIST_HOURS = 5.000000\n"
        "\n"
        "Committed run time weighting factor for fairshare scheduling policy:\n"
        "    COMMITTED_RUN_TIME_FACTOR = 0.000000\n"
        "\n"
        "Historical run time of finished jobs is used in fairshare scheduling policy:\n"
        "    ENABLE_HIST_RUN_TIME = N\n"
        "\n"
        "Run time of running jobs is decayed in fairshare scheduling policy:\n"
        "    RUN_TIME_DECAY = N\n"
        "\n"
        "Fairshare adjustment plugin weighting factor for fairshare scheduling policy:\n"
        "    FAIRSHARE_ADJUSTMENT_FACTOR = 0.000000\n"
        "\n"
        "GPU run time weighting factor for fairshare scheduling policy:\n"
        "    GPU_RUN_TIME_FACTOR = 0.000000\n"
        "\n"
    )


def test_bparams_factor_paragraphs_configured(lsb_params):
    text = bparams_factor_paragraphs(lsb_params("ENABLE_HIST_RUN_TIME = Y\nRUN_TIME_DECAY = y\n"
                                                "FWD_JOB_FACTOR = 2\nGPU_RUN_TIME_FACTOR = 0.25"))
    assert "    ENABLE_HIST_RUN_TIME = Y\n" in text and "    RUN_TIME_DECAY = Y\n" in text
    assert text.endswith("Forwarded job slots weighting factor for fairshare scheduling policy:\n"
                         "    FWD_JOB_FACTOR = 2.000000\n\n")
    assert "    GPU_RUN_TIME_FACTOR = 0.250000\n" in text


def test_explain_priority_exact(lsb_params, lsb_queues):
    params = lsb_params("CPU_TIME_FACTOR = 0.5")
    q = lsb_queues("Begin Queue\nQUEUE_NAME = normal\nFAIRSHARE = USER_SHARES[[user1, 10] [default, 1]]\n"
                   "RUN_JOB_FACTOR = 2\nEnd Queue\n")["normal"]
    factors, sources = effective_factors(params, q)
    st = FairshareState(build_tree(q.fairshare, {}, {"user1"}), factors,
                        {"user1": Usage(cpu_time=2, run_time=1, job_slots=3)})
    assert explain_priority(st.explain("user1"), sources, "normal") == """\
Dynamic user priority of user1 in queue normal

Share account: user1 (the user's own account)
Path through the share tree (at each level the sibling with the highest priority wins):
  ACCOUNT           SHARES      OF  FRACTION    PRIORITY
  user1                 10      10     1.000       1.031
Entitlement (product of the fractions): 1.000

HIST_HOURS = 5 (LSF default): 1 hour of CPU time counts 0.1 hour after 5 hours
ENABLE_HIST_RUN_TIME = N (LSF default), RUN_TIME_DECAY = N (LSF default)

priority = shares / (sum of the terms below); usage in hours and slots
  TERM                                  USAGE   FACTOR                            WEIGHTED  FACTOR FROM
  cpu_time                              2.000 x CPU_TIME_FACTOR 0.5           =      1.000  set in lsb.params
  run_time                              1.000 x RUN_TIME_FACTOR 0.7           =      0.700  LSF default
  (committed_run_time - run_time)           -   COMMITTED_RUN_TIME_FACTOR 0              -  LSF default; not counted: COMMITTED_RUN_TIME_FACTOR is 0
  (1 + job_slots)                       4.000 x RUN_JOB_FACTOR 2              =      8.000  set in lsb.queues for this queue
  (1 + fwd_job_slots)                       -   FWD_JOB_FACTOR not defined               -  LSF default; not counted: FWD_JOB_FACTOR is not defined
  fairshare_adjustment                  0.000 x FAIRSHARE_ADJUSTMENT_FACTOR 0 =      0.000  LSF default
  gpu_run_time * ngpus_physical         0.000 x GPU_RUN_TIME_FACTOR 0         =      0.000  LSF default
  denominator                                                                 =      9.700

priority = 10 / 9.700 = 1.031
"""


def test_explain_priority_floor_and_uncovered():
    f = Factors(cpu_time_factor=0, run_job_factor=0, run_time_factor=1)
    st = FairshareState(build_tree("USER_SHARES[[u1, 3]]"), f, {})
    text = explain_priority(st.explain("u1"), {}, "q")
    assert "  The denominator is below 0.01: LSF uses 0.01, so the priority is capped at 100 x shares.\n" in text
    assert text.endswith("priority = 3 / 0.010 = 300.000\n")
    text = explain_priority(st.explain("u2"), {}, "q")
    assert text.startswith("Dynamic user priority of u2 in queue q\n\nu2 has no share account in queue q:")
