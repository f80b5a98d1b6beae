"""Issue 22, part 3: `lsfemu plot priority|slots` from a cluster's lsb.events.
The series are checked, not pixels: each user's priority at an instant is what
`lsfemu explain priority` said at that instant; the slots are the jobs' slots;
one test renders the SVG (valid XML, its series and marks)."""

from __future__ import annotations

import shutil
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lsfemu.command import app
from lsfemu.lessons import fairshare as lesson
from lsfemu.plot import History
from lsfemu.render import plot as render
from lsfemu.testing import LsfCluster

pytestmark = pytest.mark.slow(20)  # seconds, quiet machine: scheduled early (tests/conftest.py)

T0 = 1767603600  # Mon Jan  5 09:00:00 2026 UTC, the fixture's first instant
FILES = {"lsb.params": lesson.PARAMS.format(extra="ENABLE_HIST_RUN_TIME = Y\n"), "lsb.queues": lesson.QUEUES,
         "lsb.users": lesson.USERS, "lsb.hosts": lesson.HOSTS}


def _explained(c, user) -> str:
    line = [l for l in c.run(f"lsfemu explain priority {user} -q fair").out.splitlines() if l.startswith("priority = ")][-1]
    return line.rsplit("= ", 1)[1]  # "priority = 10 / 0.083 = 120.000"


@pytest.fixture(scope="module")
def story():
    """Two users, two 10-minute jobs each, one slot; explain's numbers every 5 minutes
    (one cluster for the module: the tests only read its history)."""
    root = Path(tempfile.mkdtemp(prefix="lsfemu-"))
    c = LsfCluster(root, files=FILES)
    try:
        yield _play(c)
    finally:
        c.stop()
        shutil.rmtree(root, ignore_errors=True)


def _play(c):
    for u in ("user1", "user1", "user2", "user2"):
        assert c.run("bsub sleep 600", user=u).rc == 0
    said = {}
    for k in range(1, 11):
        c.advance("5m")
        said[T0 + 300 * k] = {u: _explained(c, u) for u in ("user1", "user2")}
    return c, said


def test_priority_series_is_what_explain_said(story):
    c, said = story
    p = History(str(c.envdir), str(c.home)).priority("fair", None, T0, T0 + 3000, 300)
    assert p.columns == ["user1", "user2"]
    got = {t: {u: f"{v:.3f}" for u, v in values.items()} for t, values in p.rows if t in said}
    assert got == said
    assert said[T0 + 300]["user1"] != said[T0 + 300]["user2"]  # the series do move
    # the job starts and ends, in order: 1 and 3 alternate with 2 and 4 (historical run time)
    assert [m for _, m in p.marks][:4] == ["start 1 (user1)", "end 1 (user1)", "start 3 (user2)", "end 3 (user2)"]


def test_slots_series_per_user_and_queue(story):
    c, _ = story
    h = History(str(c.envdir), str(c.home))
    p = h.slots("user", T0, T0 + 3000)
    assert [(t - T0, v["user1"], v["user2"]) for t, v in p.rows] == [
        (0, 0, 0), (10, 1, 0), (610, 0, 1), (1210, 1, 0), (1810, 0, 1), (2410, 0, 0)]
    q = h.slots("queue", T0, T0 + 3000)
    assert q.columns == ["fair"] and [v["fair"] for _, v in q.rows] == [0, 1, 1, 1, 1, 0]


def test_svg_has_the_series_and_the_marks(story):
    c, _ = story
    p = History(str(c.envdir), str(c.home)).priority("fair", ["user1"], T0, T0 + 3000, 300)
    root = ET.fromstring(render.svg(p).split("\n", 1)[1])  # after the XML declaration
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    series = [e for e in root.iter(f"{ns}path") if e.get("class") == "series"]
    assert [e.get("data-label") for e in series] == ["user1"]
    assert series[0].find(f"{ns}title").text.startswith("user1: 09:00: 1000, 09:05: ")
    marks = [e.find(f"{ns}title").text for e in root.iter(f"{ns}line") if e.get("class") == "mark"]
    assert marks == ["2026-01-05 09:00:10 start 1 (user1)", "2026-01-05 09:10:10 end 1 (user1)",
                     "2026-01-05 09:20:10 start 2 (user1)", "2026-01-05 09:30:10 end 2 (user1)"]


def test_the_command(story, tmp_path):
    c, said = story
    env = {"LSF_ENVDIR": str(c.envdir), "LSFEMU_HOME": str(c.home), "TZ": "UTC"}
    run = CliRunner().invoke
    r = run(app, ["plot", "priority", "-q", "fair", "--from", "2026-01-05T09:00", "--to", "2026-01-05T09:50", "--step", "5m",
                  "--svg", str(tmp_path / "p.svg")], env=env)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[:2] == ["# dynamic user priority in queue fair", "TIME                 user1     user2     EVENTS"]
    assert lines[3].split()[2:4] == [said[T0 + 300]["user1"], said[T0 + 300]["user2"]]
    assert (tmp_path / "p.svg").read_text().startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')
    r = run(app, ["plot", "slots", "--by", "queue"], env=env)
    assert r.exit_code == 0 and r.output.splitlines()[1].split() == ["TIME", "fair", "EVENTS"], r.output
    r = run(app, ["plot", "priority", "--png", str(tmp_path / "p.png")], env=env)
    assert r.exit_code == 2 and "--png is not supported" in r.output and not (tmp_path / "p.png").exists()
    r = run(app, ["plot", "priority"], env=env)
    assert r.exit_code == 1 and "several fairshare queues (fair, tree): name one with -q QUEUE" in r.output
    r = run(app, ["plot", "priority", "-q", "nosuch"], env=env)
    assert r.exit_code == 1 and "nosuch: No such queue" in r.output
    r = run(app, ["plot", "slots", "--from", "2026-01-05T10:00", "--to", "2026-01-05T09:00"], env=env)
    assert r.exit_code == 1 and "--to must be after --from" in r.output
