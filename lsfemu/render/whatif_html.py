"""The what-if report as one self-contained HTML page (``lsfemu replay
--what-if CONFDIR --html FILE``): the wait changes per user and per queue as
tables, the slot shares over time (per user, per queue; the log's and the
what-if run's side by side) and the distribution of the waits as inline SVG
charts (:mod:`lsfemu.render.svgchart`), the jobs that never start and those
that start only now. No network, no script: one file that any browser opens,
mails and archives as it is.

Pure: the report's plain data in (:func:`lsfemu.replay.report.report_dict`,
the same as ``--json`` writes), text out. :func:`chart_data` is the data
behind the charts, kept apart so it can be checked without reading SVG."""

from __future__ import annotations

import time
from html import escape
from typing import Any

from lsfemu.render.svgchart import Series, histogram, line_chart, time_ticks

#: series a share chart draws by name; the others are summed into one "other" series
KEEP = 8
#: the rows a job list shows at most (a month's log can leave thousands; --json lists them all)
JOBS_MAX = 1000

_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1500px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f2f2f2; } td.key { text-align: left; font-weight: bold; }
td.worse { color: #b00020; } td.better { color: #1b7f3a; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
.note { color: #555; }
"""


def when(t: float | None) -> str:
    """An instant as local ``YYYY-MM-DD HH:MM`` (the text report's form)."""
    return "-" if t is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def duration(s: float | None) -> str:
    """Seconds for a reader: ``45 s``, ``12 min``, ``3.5 h``, ``2.1 d``; ``-`` for none."""
    if s is None:
        return "-"
    a = abs(s)
    sign = "-" if s < 0 else ""
    if a < 60:
        return f"{sign}{a:.0f} s"
    if a < 3600:
        return f"{sign}{a / 60:.0f} min"
    if a < 86400:
        return f"{sign}{a / 3600:.1f} h"
    return f"{sign}{a / 86400:.1f} d"


def share_series(rows: list[dict[str, Any]], key: str, bucket: float, keep: int = KEEP) -> dict[str, list[Series]]:
    """The slot-share rows (``start``, *key*, ``share_log``, ``share_whatif``) as
    step series in percent, one per *key* value, for each side ("log",
    "whatif"): every series has a point at every interval's start (0 where
    the value used no slot) and one at the last interval's end; the *keep*
    values with the most share over both sides, in that order, and the rest
    summed as ``other (N)``. Both sides list the same values in the same order
    (so a value has one colour in both charts)."""
    starts = sorted({r["start"] for r in rows})
    total: dict[str, float] = {}
    for r in rows:
        total[r[key]] = total.get(r[key], 0.0) + r["share_log"] + r["share_whatif"]
    ranked = sorted(total, key=lambda k: (-total[k], k))
    kept, rest = ranked[:keep], ranked[keep:]
    if len(rest) == 1:  # one more value is drawn itself rather than as "other (1)"
        kept, rest = ranked, []
    index = {s: i for i, s in enumerate(starts)}
    out: dict[str, list[Series]] = {}
    for side in ("log", "whatif"):
        values = {k: [0.0] * len(starts) for k in kept}
        other = [0.0] * len(starts)
        for r in rows:
            target = values.get(r[key], other)
            target[index[r["start"]]] += 100.0 * r[f"share_{side}"]
        named = [(k, values[k]) for k in kept] + ([(f"other ({len(rest)})", other)] if rest else [])
        out[side] = [Series(k, [(s, round(v[i], 6)) for i, s in enumerate(starts)]
                            + ([(starts[-1] + bucket, round(v[-1], 6))] if starts else []))
                     for k, v in named]
    return out


def chart_data(d: dict[str, Any]) -> dict[str, Any]:
    """What the page's charts draw: the share series per user and per queue
    (:func:`share_series`) and the wait histogram's bins and counts."""
    hist = d.get("wait_hist") or {"edges": [0], "log": [0], "whatif": [0]}
    return {
        "user": share_series(d["shares"], "user", d["bucket"]),
        "queue": share_series(d["queue_shares"], "queue", d["bucket"]),
        "waits": {"edges": hist["edges"], "series": [("log", hist["log"]), ("what-if", hist["whatif"])]},
    }


def _wait_table(rows: list[dict[str, Any]], key: str) -> str:
    head = ("<tr><th>" + escape(key) + "</th><th>jobs</th><th>mean wait, log</th><th>mean wait, what-if</th>"
            "<th>change</th><th>max wait, log</th><th>max wait, what-if</th><th>order shift</th>"
            "<th>never started, log</th><th>never start, what-if</th></tr>")
    body = []
    for r in rows:
        log, wi = r["mean_wait_log"], r["mean_wait_whatif"]
        change = None if log is None or wi is None else wi - log
        cls = "" if not change else (' class="worse"' if change > 0 else ' class="better"')
        shift = "-" if r["order_shift"] is None else f"{r['order_shift']:+.1f}"
        body.append(f'<tr><td class="key">{escape(str(r[key]))}</td><td>{r["jobs"]}</td>'
                    f"<td>{duration(log)}</td><td>{duration(wi)}</td>"
                    f"<td{cls}>{'-' if change is None else ('+' if change > 0 else '') + duration(change)}</td>"
                    f"<td>{duration(r['max_wait_log'])}</td><td>{duration(r['max_wait_whatif'])}</td>"
                    f"<td>{shift}</td><td>{r['never_ran']}</td><td>{r['unstarted']}</td></tr>")
    return f'<table id="per-{key}">\n<thead>{head}</thead>\n<tbody>\n' + "\n".join(body) + "\n</tbody>\n</table>"


def _job_table(jobs: list[dict[str, Any]], ident: str, extra: tuple[str, str]) -> str:
    if not jobs:
        return f'<p class="note" id="{ident}">None.</p>'
    name, field = extra
    rows = []
    for j in jobs[:JOBS_MAX]:
        v = j[field]
        cell = ("yes" if v else "no") if isinstance(v, bool) else duration(v)
        rows.append(f'<tr><td class="key">{escape(j["job"])}</td><td>{escape(j["user"])}</td>'
                    f"<td>{escape(j['queue'])}</td><td>{cell}</td></tr>")
    return (f'<table id="{ident}">\n<thead><tr><th>job</th><th>user</th><th>queue</th><th>{escape(name)}</th>'
            "</tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>"
            + (f'\n<p class="note">... and {len(jobs) - JOBS_MAX} more (--json lists them all).</p>'
               if len(jobs) > JOBS_MAX else ""))


def render_page(d: dict[str, Any]) -> str:
    """The whole page for the report *d* (:func:`lsfemu.replay.report.report_dict`)."""
    data = chart_data(d)
    title = f"What-if replay of {d['jobs']} jobs under {d['confdir']}"
    notes = [f"Jobs submitted {when(d['first_submit'])} .. {when(d['last_submit'])}, scheduled again by "
             f"lsfemu under the configuration in {escape(d['confdir'])}."]
    for q, m in sorted(d["remapped"].items()):
        notes.append(f"Queue &lt;{escape(q)}&gt; is not in the new configuration: its {m['jobs']} jobs went to "
                     f"&lt;{escape(m['to'])}&gt;.")
    notes.append(f"Never started in the log: {d['never_ran']} jobs, of which {len(d['start_now'])} start now. "
                 f"Never start under the new configuration: {d['unstarted']} jobs.")
    if d["order_rho"] is None:
        notes.append("Dispatch order: fewer than 2 jobs started in both histories.")
    else:
        notes.append(f"Dispatch order: Spearman rank correlation {d['order_rho']:.3f} over {d['order_jobs']} jobs "
                     "(1 = the same order); the order shift is the mean change of a job's dispatch position "
                     "(negative: dispatched earlier).")
    if d["warnings"]:
        notes.append("Reading warnings: " + ", ".join(f"{n} {escape(k)}" for k, n in sorted(d["warnings"].items())))
    charts = []
    for key, label in (("user", "user"), ("queue", "queue")):
        pair = []
        for side, name in (("log", "the log"), ("whatif", "what-if")):
            series = data[key][side]
            xs = [x for s in series for x, _ in s.points]
            ticks = time_ticks(min(xs), max(xs)) if xs else []
            pair.append(line_chart(series, title=f"Slot share per {label}, {name} (%)", x_format=_tick_format(ticks),
                                   y_format=lambda v: f"{v:.0f}%", y_max=100.0, x_ticks=ticks, width=700))
        charts.append(f"<h3>Per {label}</h3>\n<div class=\"charts\">\n" + "\n".join(pair) + "\n</div>")
    waits = data["waits"]
    hist = histogram(waits["edges"], waits["series"], title="Jobs by wait (start - submit)",
                     edge_format=_edge, y_label="jobs", width=900)
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f"<title>{escape(title)}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
        f"<h1>{escape(title)}</h1>", "\n".join(f'<p class="note">{n}</p>' for n in notes),
        "<h2>Wait per user</h2>", _wait_table(d["per_user"], "user"),
        "<h2>Wait per queue</h2>", _wait_table(d["per_queue"], "queue"),
        f"<h2>Slot shares over time</h2>\n<p class=\"note\">Each one's share of the slot-seconds used in "
        f"intervals of {duration(d['bucket'])}.</p>", *charts,
        "<h2>Wait distribution</h2>", hist,
        "<h2>Jobs that never start under the new configuration</h2>",
        _job_table(d["never_start"], "never-start", ("started in the log", "started_in_log")),
        "<h2>Jobs that never started in the log and start now</h2>",
        _job_table(d["start_now"], "start-now", ("wait, what-if", "wait_whatif")),
        '<p class="note">Written by lsfemu replay --what-if.</p>', "</body>", "</html>",
    ]
    return "\n".join(parts) + "\n"


def _tick_format(ticks: list[float]):
    """Tick labels: the time of day, with the date where the day changes (and at the first tick)."""
    days = {t: time.strftime("%Y-%m-%d", time.localtime(t)) for t in ticks}
    first = ticks[0] if ticks else None

    def fmt(t: float) -> str:
        if t in days and (t == first or time.strftime("%H:%M", time.localtime(t)) == "00:00"):
            return time.strftime("%m-%d %H:%M", time.localtime(t))
        return time.strftime("%H:%M", time.localtime(t))
    return fmt


def _edge(s: float) -> str:
    """A bin edge: 0, 1m, 5m, 1h, 2d, 1w."""
    if s == 0:
        return "0"
    for unit, n in (("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if s >= n and s % n == 0:
            return f"{s // n:.0f}{unit}"
    return f"{s:.0f}s"
