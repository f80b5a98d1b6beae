"""The benchmark runs (issue 23): ``tests/bench/all.py --quick``, every group at
its small size, as a smoke test. Not figures: it checks that each figure is
produced and labelled, and that the data has the feature at work (the APS
cells are numbers, the clock moved, the listings for all jobs are longer
than one user's, every pass was timed five times, the pass after one
submission had a slot to fill); and that tests/bench/peer.py says why it
skips when the peer is not built.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lsfemu.testing import daemon_template

# seconds, about (quiet): 37 s measured at load 7 on 2 cores, 51 s there before its
# daemons were forked from the suite's template and started without typer (~130
# short processes, 3 daemons)
pytestmark = pytest.mark.slow(20)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    env = dict(os.environ)
    template = daemon_template()
    if template is not None:  # its daemons forked from this test process's template (tests/bench/harness.py)
        env["LSFEMU_FORKSERVER"] = template
    p = subprocess.run([sys.executable, str(ROOT / "tests" / "bench" / "all.py"), "--quick", "--json", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    # 1: a target missed (the quick sizes are not the targets' sizes): still a complete run
    assert p.returncode in (0, 1), p.stderr[-3000:]
    return json.loads(out.read_text()), p.stdout


def test_latency_figures(quick):
    res, table = quick
    r = res["latency"]
    assert r["runs"] >= 5
    assert 0 < r["floor_isolated_s"] and 0 < r["floor_s"]
    names = set(r["commands"])
    for one, every in (("bjobs", "bjobs -u all"), ("bjobs -aps", "bjobs -u all -aps"), ("bhist", "bhist -u all")):
        # each listing as one user (1 in 100) and for all jobs
        assert r["commands"][every]["lines"] > 10 * r["commands"][one]["lines"] > 0
    assert {"bjobs -l ID", "bhist -l ID", "bsub", "bmod -sp ID", "bqueues", "bqueues -u user1"} <= names
    for name, c in r["commands"].items():
        assert c["median_s"] > 0 and c["ratio"] == pytest.approx(c["median_s"] / r["floor_s"])
        assert c["ratio_isolated"] == pytest.approx(c["median_s"] / r["floor_isolated_s"])
        assert f"| {name} (" in table
    assert "floors: python -c pass / python -I -S -c pass" in table


def test_latency_data_has_aps_and_a_moving_clock(quick):
    r = quick[0]["latency"]
    assert r["aps_pending_lines"] > 0 and r["aps_numeric_cells"] == r["aps_pending_lines"]
    assert r["clock_moved_s"] > 0 and r["aps_listing_changed"]


def test_sched_figures(quick):
    res, table = quick
    runs = res["sched"]["runs"]
    assert len(runs) == 2
    for s in runs:
        assert s["repeats"] >= 5
        for key in ("full_pass_samples_s", "warm_pass_samples_s", "floor_samples_s", "pass_after_one_samples_s"):
            assert len(s[key]) == s["repeats"] and all(x > 0 for x in s[key])
        assert s["commit_s"] > 0 and sum(s["pass_after_one_started"]) >= s["repeats"]  # a slot free every time
        assert f"commit of the first pass, {s['pending']}" in table
        assert f"pass after 1 submit, a slot free, {s['pending']}" in table


def test_other_groups(quick):
    res, table = quick
    c = res["clock"]
    # (its budget is a second: on a loaded machine no job may have finished yet, but some run)
    assert c["passes"] > 0 and c["simulated_s"] > 0 and c["finished"] + c["running_at_end"] > 0
    assert all(r["bhist_s"] > 0 and r["replay_s"] > 0 and r["floor_s"] > 0 for r in res["replay"]["runs"])
    # CPU beside wall for the streams (the launcher's wait4): a command's own, above the floor's
    assert all(r["bhist_cpu_s"] > 0 and r["replay_cpu_s"] > 0 and r["floor_cpu_s"] > 0 for r in res["replay"]["runs"])
    assert res["memory"]["rss_mb"] > 0 and res["memory"]["empty_rss_mb"] > 0
    small, large = (r["events"] for r in (res["replay"]["runs"][0], res["replay"]["runs"][-1]))
    assert small < large
    for label in ("| clock ", f"bhist -t -f, {small} events", f"lsfemu replay, {large} events",
                  f"daemon RSS, {res['memory']['jobs']} pending"):
        assert label in table


def test_peer_skipped_with_a_reason_when_not_built(tmp_path):
    p = subprocess.run([sys.executable, str(ROOT / "tests" / "bench" / "peer.py")], capture_output=True, text=True,
                       env={**os.environ, "PEER_DIR": str(tmp_path / "none")}, timeout=120)
    assert p.returncode == 0, p.stderr
    # one line, the reason (where the CI has no ../shared/peer, the scripts are what is missing)
    assert p.stdout.startswith("peer.py: skipped: ") and p.stdout.count("\n") == 1
    assert f"the peer is not built in {tmp_path / 'none'}: run bash" in p.stdout or "no peer scripts in" in p.stdout
