"""Issue 22: the tours `lsfemu demo aps|history` against their goldens, and
`lsfemu lesson init` round trip: the written script, run by sh, prints the
tour's transcript, number for number."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lesson_helpers import ROOT, assert_golden, check_tour, env, lesson_dir, normalize

from lsfemu.plot import History

pytestmark = pytest.mark.slow(60)  # seconds, quiet machine: scheduled early (tests/conftest.py)

T_RECONFIG = 1767608410  # Mon Jan  5 10:20:10 2026 UTC: the fairshare lesson reconfigures then


def test_aps_tour_builds_the_seed_listing():
    text = check_tour("aps")
    listing = text.split("$ bjobs -aps -u all\n")[1].split("\n\n")[0].splitlines()[1:]
    # seed 001 at 14:41: 15 priority -, 22 Short (60), 2 Short 360, 12 normal 355, 4 Short 270, 5 Idle -
    assert [(r.split()[0], r.split()[3], r.split()[-1]) for r in listing] == [
        ("5", "priority", "-"), ("6", "Short", "(60)"), ("1", "Short", "360.00"),
        ("4", "normal", "355.00"), ("2", "Short", "270.00"), ("3", "Idle", "-")]
    assert "in grace period (30m00s): not counted yet" in text


def test_history_tour_replays_its_own_log():
    text = check_tour("history")
    assert "Mon Jan  5 09:05:00: Suspended by the user or administrator;" in text
    assert "1       user1   RUN   fair" in text.split("--into replayed")[1]
    assert "Spearman rank correlation 0.800 over 4 jobs" in text


def test_lesson_init_round_trip():
    """The teacher's copy: init, then sh lesson.sh gives the tour's golden transcript."""
    root = lesson_dir()
    try:
        r = subprocess.run([sys.executable, str(ROOT / "bin" / "lsfemu"), "lesson", "init", str(root), "fairshare"],
                           capture_output=True, text=True, timeout=60, env=env(root))
        assert r.returncode == 0, r.stderr
        path = os.pathsep.join([str(ROOT / "bin"), str(Path(sys.executable).parent), "/usr/bin:/bin"])
        r = subprocess.run(["sh", str(root / "lesson.sh")], capture_output=True, text=True, timeout=300,
                           env=env(root, path))
        assert r.returncode == 0, r.stdout + r.stderr
        assert r.stderr == ""
        text = normalize(r.stdout, root)
        assert_golden("fairshare", text)
        # A plot made from the lesson's cluster: at 10:20:10 (after the reconfiguration, whose
        # configuration the plot applies) user1's priority is the one explain gave then.
        said = text.split("$ LSFEMU_USER=lsfadmin badmin reconfig")[1].split("\npriority = 10 / ")[1].split("= ")[1]
        plot = History(str(root / "conf"), str(root / "home")).priority("fair", ["user1", "user2"],
                                                                        T_RECONFIG - 600, T_RECONFIG, 600)
        assert f"{plot.rows[-1][1]['user1']:.3f}" == said.split()[0] == "22.794"
        assert "end 8 (user2)" in [m for _, m in plot.marks]  # the first round's last job, at 10:20:10
    finally:
        subprocess.run(["rm", "-rf", str(root)])
