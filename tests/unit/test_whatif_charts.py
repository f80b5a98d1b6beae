"""The what-if page's charts: the series behind them (render.whatif_html.
share_series, chart_data) and the SVG the chart helpers write
(render.svgchart: line_chart, histogram, the tick choices)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from lsfemu.render import svgchart, whatif_html
from lsfemu.render.svgchart import Series

SVG = "{http://www.w3.org/2000/svg}"


def _rows(key: str, table: dict[float, dict[str, tuple[float, float]]]) -> list[dict]:
    return [{"start": t, key: k, "share_log": a, "share_whatif": b}
            for t, shares in sorted(table.items()) for k, (a, b) in sorted(shares.items())]


def test_share_series_fill_gaps_close_the_last_interval_and_keep_one_order():
    rows = _rows("user", {0.0: {"a": (1.0, 0.25), "b": (0.0, 0.75)},
                          60.0: {"a": (0.5, 0.5), "c": (0.5, 0.5)},
                          120.0: {"b": (1.0, 1.0)}})
    got = whatif_html.share_series(rows, "user", 60.0)
    # ranked by share over both sides: b 2.75, a 2.25, c 1.0
    assert [s.label for s in got["log"]] == [s.label for s in got["whatif"]] == ["b", "a", "c"]
    log = {s.label: s.points for s in got["log"]}
    assert log["a"] == [(0.0, 100.0), (60.0, 50.0), (120.0, 0.0), (180.0, 0.0)]
    assert log["b"] == [(0.0, 0.0), (60.0, 0.0), (120.0, 100.0), (180.0, 100.0)]
    wi = {s.label: s.points for s in got["whatif"]}
    assert wi["a"] == [(0.0, 25.0), (60.0, 50.0), (120.0, 0.0), (180.0, 0.0)]
    assert wi["b"][0] == (0.0, 75.0)
    for side in got.values():  # every interval's shares sum to 100% (or 0 where no slot was used)
        for i in range(4):
            assert sum(s.points[i][1] for s in side) == pytest.approx(100.0)


def test_share_series_sum_the_smallest_into_other():
    shares = {f"u{i:02d}": (i / 66.0, i / 66.0) for i in range(1, 12)}  # 11 users, u11 the largest
    got = whatif_html.share_series(_rows("queue", {0.0: shares}), "queue", 10.0, keep=3)
    assert [s.label for s in got["log"]] == ["u11", "u10", "u09", "other (8)"]
    other = got["log"][-1].points
    assert other[0][1] == pytest.approx(100.0 * sum(range(1, 9)) / 66.0)
    # one value beyond *keep* is drawn under its own name
    got = whatif_html.share_series(_rows("queue", {0.0: {"x": (0.5, 0.5), "y": (0.3, 0.3), "z": (0.2, 0.2)}}),
                                   "queue", 10.0, keep=2)
    assert [s.label for s in got["whatif"]] == ["x", "y", "z"]


def test_chart_data_takes_the_reports_histogram():
    d = {"shares": [], "queue_shares": [], "bucket": 60.0,
         "wait_hist": {"edges": [0, 60, 300], "log": [3, 1, 0], "whatif": [1, 2, 1]}}
    data = whatif_html.chart_data(d)
    assert data["waits"] == {"edges": [0, 60, 300], "series": [("log", [3, 1, 0]), ("what-if", [1, 2, 1])]}
    assert data["user"] == {"log": [], "whatif": []}


def test_line_chart_draws_each_series_as_steps_with_its_values():
    svg = svgchart.line_chart([Series("a", [(0, 0), (10, 50), (20, 50)]), Series("b <x>", [(0, 100), (20, 0)],
                                                                                  dashed=True)],
                              title="Share & more", x_format=lambda x: f"t{x:g}", y_max=100.0,
                              x_ticks=[0, 10, 20], width=400, height=200)
    root = ET.fromstring(svg)  # well-formed XML: the labels are escaped
    assert root.find(f"{SVG}title").text == "Share & more"
    paths = root.findall(f"{SVG}path")
    assert [p.get("data-label") for p in paths] == ["a", "b <x>"]
    # steps: a horizontal move to the next x, then vertical to its y; the plot spans 64..384 x 28..144
    assert paths[0].get("d") == "M64 144 H224 V86 H384 V86"
    assert paths[1].get("stroke-dasharray") == "5 3"
    assert paths[0].find(f"{SVG}title").text == "a: t0: 0, t10: 50, t20: 50"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert {"t0", "t10", "t20", "0", "100", "a", "b <x>"} <= set(texts)


def test_histogram_draws_a_bar_per_bin_and_series():
    svg = svgchart.histogram([0, 60, 3600], [("log", [4, 0, 1]), ("what-if", [2, 2, 1])], title="Waits",
                             edge_format=lambda e: f"{e:g}s", width=400, height=200)
    root = ET.fromstring(svg)
    bars = root.findall(f"{SVG}rect")
    assert len(bars) == 6
    assert [b.find(f"{SVG}title").text for b in bars[:2]] == ["log, 0s .. 60s: 4", "what-if, 0s .. 60s: 2"]
    assert bars[-1].find(f"{SVG}title").text == "what-if, 3600s or more: 1"
    heights = [float(b.get("height")) for b in bars]
    assert heights[0] == pytest.approx(2 * heights[1]) and heights[2] == 0
    assert "≥ 3600s" in [t.text for t in root.iter(f"{SVG}text")]


def test_ticks():
    assert svgchart.nice_ticks(0, 100) == [0, 20, 40, 60, 80, 100]
    assert svgchart.nice_ticks(0, 7) == [0, 2, 4, 6, 8]
    assert svgchart.time_ticks(1000, 1000 + 3 * 3600) == [1800.0 + k * 1800 for k in range(6)]
    day = svgchart.time_ticks(0, 20 * 86400)
    assert day[0] == 0 and all(b - a == 7 * 86400 for a, b in zip(day, day[1:]))


def test_the_page_has_no_script_and_no_address_outside_it():
    d = {"jobs": 2, "confdir": "/c<onf>", "first_submit": 0.0, "last_submit": 60.0, "remapped": {"q": {"to": "n", "jobs": 1}},
         "never_ran": 1, "start_now": [{"job": "2", "user": "u", "queue": "n", "wait_whatif": 90.0}],
         "unstarted": 0, "never_start": [], "order_rho": None, "order_jobs": 1, "warnings": {},
         "bucket": 60.0, "shares": _rows("user", {0.0: {"u": (1.0, 1.0)}}),
         "queue_shares": _rows("queue", {0.0: {"n": (1.0, 1.0)}}),
         "wait_hist": {"edges": [0, 60], "log": [1, 0], "whatif": [1, 1]},
         "per_user": [{"user": "u", "jobs": 2, "mean_wait_log": 10.0, "mean_wait_whatif": 50.0, "max_wait_log": 10.0,
                       "max_wait_whatif": 90.0, "order_shift": 0.0, "unstarted": 0, "never_ran": 1, "start_now": 1}],
         "per_queue": []}
    page = whatif_html.render_page(d)
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    assert "<title>What-if replay of 2 jobs under /c&lt;onf&gt;</title>" in page
    assert '<td class="worse">+40 s</td>' in page
    assert page.count("<svg ") == 5 and "Queue &lt;q&gt; is not in the new configuration" in page


def test_a_long_job_list_is_cut_with_a_note(monkeypatch):
    monkeypatch.setattr(whatif_html, "JOBS_MAX", 2)
    jobs = [{"job": str(i), "user": "u", "queue": "q", "started_in_log": True} for i in range(5)]
    text = whatif_html._job_table(jobs, "never-start", ("started in the log", "started_in_log"))
    assert text.count("<tr>") == 3 and "... and 3 more (--json lists them all)." in text
