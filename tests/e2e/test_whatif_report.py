"""`lsfemu replay --what-if`: jobs that never started in the log are replayed
too (and the report names the jobs that never start, and those that start
only now); `--html` writes the report as one self-contained page, loaded here
in a headless browser; lsb.acct gives the same what-if as lsb.events."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lsfemu.render.whatif_html import chart_data
from lsfemu.replay.report import WAIT_EDGES

pytestmark = pytest.mark.slow(45)  # seconds, quiet machine


@pytest.fixture
def unstarted(lsf_cluster, tmp_path):
    """A log (12 slots) where job 3 is killed pending and job 4 is still pending
    at the end; jobs 1 and 2 ran."""
    c = lsf_cluster
    for user, args in (("user1", "-n 2 sleep 7200"), ("user2", "-n 8 sleep 200"), ("user3", "-n 4 sleep 100")):
        r = c.run(f"bsub {args}", user=user)
        assert r.rc == 0, r.text
    c.advance("2m")
    assert c.run("bkill 3", user="user3").rc == 0
    assert c.run("bsub -n 12 -W 5 sleep 999", user="user3").rc == 0
    c.advance("1h")
    out = c.run("bjobs -a -u all").out.splitlines()
    assert [line.split()[2] for line in out[1:] if line[:1].isdigit()] == ["RUN", "PEND", "EXIT", "DONE"], out
    lsb = tmp_path / "lsb.events"
    lsb.write_bytes((c.home / "logdir" / "lsb.events").read_bytes())
    return c, lsb


def _what_if(c, lsb: Path, mxj: int, tmp: Path, *extra: str) -> tuple[dict, str]:
    c.write("lsb.hosts", f"Begin Host\nHOST_NAME MXJ JL/U\nhostA {mxj} ()\nhostB {mxj} ()\nhostC {mxj} ()\nEnd Host\n")
    out = tmp / f"r{mxj}.json"
    r = c.run(["lsfemu", "replay", str(lsb), "--what-if", str(c.envdir), "--json", str(out), *extra])
    assert r.rc == 0 and "Traceback" not in r.text, r.text
    return json.loads(out.read_text()), r.out


def test_what_if_replays_the_jobs_that_never_started(unstarted, tmp_path):
    c, lsb = unstarted
    # 24 slots: job 3 starts before its owner killed it in the log, job 4 before the log ends
    rep, text = _what_if(c, lsb, 8, tmp_path)
    assert rep["jobs"] == 4 and rep["never_ran"] == 2 and rep["unstarted"] == 0
    assert rep["never_start"] == []
    assert [(j["job"], j["user"], j["queue"]) for j in rep["start_now"]] == [("3", "user3", "normal"),
                                                                               ("4", "user3", "normal")]
    assert rep["start_now"][0]["wait_whatif"] < 120  # before the bkill
    by_user = {r["user"]: r for r in rep["per_user"]}
    assert by_user["user3"]["jobs"] == 2 and by_user["user3"]["never_ran"] == 2
    assert by_user["user3"]["start_now"] == 2 and by_user["user1"]["never_ran"] == 0
    assert "Never started in the log: 2 jobs; 2 of them start under the new configuration:" in text
    assert "  user3@normal: 3 4\n" in text
    # 6 slots: the 8-slot job that ran in the log never starts, nor does the 12-slot one that never
    # started; job 3 (4 slots) now starts at once
    rep, text = _what_if(c, lsb, 2, tmp_path)
    assert rep["unstarted"] == 2
    assert [(j["job"], j["started_in_log"]) for j in rep["never_start"]] == [("2", True), ("4", False)]
    assert [j["job"] for j in rep["start_now"]] == ["3"]
    assert "Never start under the new configuration: 2 jobs (1 of them started in the log):" in text
    assert "  user2@normal: 2\n  user3@normal: 4\n" in text
    assert "Never started in the log: 2 jobs; 1 of them start under the new configuration:" in text


def _browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def test_html_report_loads_in_a_headless_browser(unstarted, tmp_path):
    """--html: one page, its tables and SVG charts in the DOM a browser builds
    from it (Debian's chromium, headless, with no network needed)."""
    c, lsb = unstarted
    page = tmp_path / "report.html"
    rep, _text = _what_if(c, lsb, 8, tmp_path, "--html", str(page), "--bucket", "1m")
    html = page.read_text()
    assert "<script" not in html and "https://" not in html
    # the data behind the charts: every interval's shares sum to 100% in both histories
    data = chart_data(rep)
    assert sorted(s.label for s in data["user"]["log"]) == ["user1", "user2", "user3"]
    for key in ("user", "queue"):
        for side in ("log", "whatif"):
            series = data[key][side]
            for i in range(len(series[0].points)):
                assert sum(s.points[i][1] for s in series) in (0, pytest.approx(100.0)), (key, side, i)
    log, wi = ({s.label: s.points for s in data["user"][side]} for side in ("log", "whatif"))
    assert {v for _, v in log["user3"]} == {0}  # user3 never ran in the log
    assert wi["user3"][0][1] > 0  # and now does at once
    assert sum(data["waits"]["series"][1][1]) == 4 and sum(data["waits"]["series"][0][1]) == 2
    browser = _browser()
    if browser is None:
        pytest.skip("no headless browser installed (apt-get install chromium): the page was not loaded")
    r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}",
                        "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    dom = r.stdout
    assert f"<title>What-if replay of 4 jobs under {c.envdir}</title>" in dom or \
        re.search(r"<title>What-if replay of 4 jobs under [^<]+</title>", dom), dom[:500]
    users = re.search(r'<table id="per-user">.*?<tbody>(.*?)</tbody>', dom, re.S).group(1)
    assert re.findall(r'<td class="key">(\w+)</td>', users) == ["user1", "user2", "user3"]
    start_now = re.search(r'<table id="start-now">.*?<tbody>(.*?)</tbody>', dom, re.S).group(1)
    assert re.findall(r'<td class="key">(\w+)</td>', start_now) == ["3", "4"]
    assert len(re.findall(r"<svg[ >]", dom)) == 5
    assert len(re.findall(r'<path class="series"', dom)) == 2 * 3 + 2 * 1  # users and queues, both sides
    assert len(re.findall(r'<rect class="bar"', dom)) == 2 * len(WAIT_EDGES)


#: what both histories give: the report's numbers, lists and chart data
_SAME = ("jobs", "never_ran", "unstarted", "first_submit", "last_submit", "remapped", "per_user", "per_queue",
         "order_rho", "order_jobs", "bucket", "shares", "queue_shares", "never_start", "start_now", "wait_hist")


def test_what_if_from_lsb_acct_equals_what_if_from_lsb_events(lsf_cluster, tmp_path):
    c = lsf_cluster
    rows = [("user1", "-n 2 sleep 600"), ("user2", "-q priority sleep 300"), ("user3", "-n 4 sleep 900"),
            ("user1", '-n 4 -R "rusage[mem=100]" sleep 120'), ("user2", "-n 6 -W 3 sleep 900"),
            ("user3", '-J "arr[1-3]" sleep 60'), ("user1", "-J named sleep 400")]
    for user, args in rows:
        assert c.run(f"bsub {args}", user=user).rc == 0
    c.advance("1m")
    assert c.run("bsub -n 8 sleep 50", user="user3").rc == 0  # job 8: pending, then killed
    c.advance("1m")
    assert c.run("bkill 8", user="user3").rc == 0
    c.advance("3h")
    # the daemon's two files of the same history
    lsb = tmp_path / "lsb.events"
    lsb.write_bytes((c.home / "logdir" / "lsb.events").read_bytes())
    (tmp_path / "lsb.acct").write_bytes((c.home / "logdir" / "lsb.acct").read_bytes())
    assert len((tmp_path / "lsb.acct").read_text().splitlines()) == 10  # every job finished, array elements apart
    # another configuration: 6 slots, one queue
    c.write("lsb.hosts", "Begin Host\nHOST_NAME MXJ JL/U\nhostA 2 ()\nhostB 2 ()\nhostC 2 ()\nEnd Host\n")
    c.write("lsb.queues", "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n")

    def what_if(*files: Path) -> tuple[dict, str]:
        out = tmp_path / "r.json"
        r = c.run(["lsfemu", "replay", *map(str, files), "--what-if", str(c.envdir), "--json", str(out)])
        assert r.rc == 0 and "Traceback" not in r.text, r.text
        return json.loads(out.read_text()), r.err

    from_events, _ = what_if(lsb)
    assert from_events["jobs"] == 10 and from_events["never_ran"] == 1 and from_events["order_rho"] < 1
    assert [(j["job"], j["started_in_log"]) for j in from_events["never_start"]] == [("8", False)]  # 8 slots of 6
    assert from_events["remapped"] == {"priority": {"to": "normal", "jobs": 1}}
    from_acct, _ = what_if(tmp_path / "lsb.acct")
    for key in _SAME:
        assert from_acct[key] == from_events[key], key
    # a folder with both files: a job both show is taken once (from lsb.events); a damaged accounting
    # line is skipped with its file and line
    acct_text = (tmp_path / "lsb.acct").read_text().splitlines(keepends=True)
    logdir = tmp_path / "logdir"
    logdir.mkdir()
    (logdir / "lsb.events").write_bytes(lsb.read_bytes())
    (logdir / "lsb.acct").write_text("".join(acct_text[:3]) + '"JOB_FINISH" "10.1" nonsense\n' + "".join(acct_text[3:]))
    both, err = what_if(logdir)
    for key in _SAME:
        assert both[key] == from_events[key], key
    assert f"{logdir / 'lsb.acct'}:4: " in err and "record skipped" in err
    # --into reads lsb.events only
    r = c.run(["lsfemu", "replay", str(tmp_path / "lsb.acct"), "--into", str(tmp_path / "into")])
    assert r.rc == 1 and "an accounting file (lsb.acct) holds finished jobs only" in r.err
    assert not (tmp_path / "into").exists()
