"""APS texts: bqueues -l table (golden from the seed), bjobs -aps cells, bhist items, explain."""

from __future__ import annotations

from lsfemu.config import aps as C
from lsfemu.render import aps as R
from lsfemu.sched import aps_rank as AR

# seed 001, "bqueues -l normal", the APS_PRIORITY block (the seed's trailing spaces removed)
SEED_TABLE = """\
APS_PRIORITY:
                   WEIGHT FACTORS    LIMIT FACTORS    GRACE PERIOD
  FAIRSHARE            10000.00                -              -
  RESOURCE            101010.00                -          1010h
    PROCESSORS           -10.01                -              -
    MEMORY              1000.00         20010.00             3h
    SWAP               10111.00                -              -
  WORK                     1.00                -              -
    JOB PRIORITY     -999999.00         10000.00          4131s
    QUEUE PRIORITY     10000.00            10.00              -
"""
SEED_CONFIG = (
    "WEIGHT[[FS, 10000] [RSRC, 101010] [PROC, -10.01] [MEM, 1000] [SWAP, 10111] [WORK, 1] "
    "[JPRIORITY, -999999] [QPRIORITY, 10000]] LIMIT[[MEM, 20010] [JPRIORITY, 10000] [QPRIORITY, 10]] "
    "GRACE_PERIOD[[MEM, 3h] [JPRIORITY, 4131s] [RSRC, 1010]]"
)


def test_seed_bqueues_table_golden():
    assert R.aps_table(C.parse_aps_priority(SEED_CONFIG)) == SEED_TABLE


def test_table_columns():
    for line in SEED_TABLE.splitlines()[2:]:
        assert len(line.rstrip()) == 63
        assert line[30] != " " and line[31] == " "  # weight ends at column 31
        assert line[47] != " "  # limit ends at column 48
    header = SEED_TABLE.splitlines()[1]
    assert header.index("WEIGHT FACTORS") + 14 == 33 and header.index("LIMIT FACTORS") + 13 == 50
    assert len(header) == 66


def test_partial_configuration_rows():
    cfg = C.parse_aps_priority("WEIGHT[[JPRIORITY, 1] [QPRIORITY, 10]]")
    assert R.aps_table(cfg) == (
        "APS_PRIORITY:\n" + R.TABLE_HEADER + "\n"
        "  WORK                     1.00                -              -\n"
        "    JOB PRIORITY           1.00                -              -\n"
        "    QUEUE PRIORITY        10.00                -              -\n")
    cfg = C.parse_aps_priority("WEIGHT[[SWAP, -10] [FS, 100]] LIMIT[[MEM, 50]] GRACE_PERIOD[[WORK, 30m]]")
    assert R.table_rows(cfg) == ["FS", "RSRC", "MEM", "SWAP", "WORK"]
    lines = R.aps_table(cfg).splitlines()
    assert lines[4] == "    MEMORY                    -            50.00              -"
    assert lines[6] == "  WORK                        -                -            30m"


def test_huge_weight_keeps_a_separating_space():
    cfg = C.parse_aps_priority("WEIGHT[[QPRIORITY, 1e30]]")
    row = R.aps_table(cfg).splitlines()[-1]
    assert row.startswith("    QUEUE PRIORITY 1000000000000000019884624838656.00")


def test_aps_cells():
    assert R.aps_cell(None) == "-"
    assert R.aps_cell(AR.ApsResult(None, 60.0, 0.0)) == "(60)"
    assert R.aps_cell(AR.ApsResult(None, 2.5, 0.0)) == "(2.50)"
    assert R.aps_cell(AR.ApsResult(109.0, None, 109.0)) == "109.00"
    assert R.aps_cell(AR.ApsResult(-0.125, None, -0.125)) == "-0.12"


def test_bhist_items():
    assert R.bhist_aps_item("system=10") == "Absolute Priority Scheduling factor string changed to : system=10"
    assert R.bhist_aps_item(" admin=20 ") == "Absolute Priority Scheduling factor string changed to : admin=20"
    assert R.bhist_aps_item(None) == "Absolute Priority Scheduling factor string deleted"
    assert R.bhist_priority_item(75) == "New job priority is: 75"
    assert R.bhist_priority_item(None) == "Job priority changes to default"


def test_explain():
    cfg = C.parse_aps_priority("WEIGHT[[QPRIORITY, 10] [JPRIORITY, 1] [MEM, 2]] LIMIT[[MEM, 100]] GRACE_PERIOD[[JPRIORITY, 1h]]")
    r = AR.aps_value(cfg, AR.ApsJobInput(pend_seconds=600, mem_mb=500, job_priority=55, queue_priority=20, admin_value=3))
    text = R.explain_aps(r, job_id=7, queue="short", aps_queue="normal", aps_text=cfg.text)
    lines = text.splitlines()
    assert lines[0] == "Job <7>, queue <short>, ordered by the APS queue <normal> (QUEUE_GROUP)"
    assert lines[1] == "APS_PRIORITY = " + cfg.text
    assert lines[2] == "Pending for 10m00s"
    assert lines[4].split() == ["FACTOR", "VALUE", "WEIGHT", "WEIGHTED", "LIMIT", "COUNTED", "NOTE"]
    mem = next(l for l in lines if l.startswith("  MEM"))
    assert mem.split()[:6] == ["MEM", "500.00", "2.00", "1000.00", "100.00", "100.00"] and "limited to +100.00" in mem
    jp = next(l for l in lines if l.startswith("  JPRIORITY"))
    assert jp.split()[5] == "0.00" and "in grace period (1h00m00s)" in jp
    assert "ADMIN" in text and lines[-1] == "APS value: 303.00"
    sys_r = AR.aps_value(cfg, AR.ApsJobInput(pend_seconds=0, queue_priority=20, system_value=60))
    assert R.explain_aps(sys_r).splitlines()[-1].startswith("APS value: (60), a system value")
    assert "is not in an APS queue" in R.explain_aps(None, job_id=5, queue="Idle")
