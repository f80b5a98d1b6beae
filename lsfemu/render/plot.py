"""`lsfemu plot`'s outputs: the series as a text table (the default) and as an
SVG chart (--svg; lsfemu.render.svgchart's line chart, the job starts and
ends as marks). Pure: a Plot's plain data in (lsfemu.plot), text out."""

from __future__ import annotations

import time
from lsfemu.render import svgchart


def stamp(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))


def _value(v, unit: str) -> str:
    if v is None:
        return "-"
    return f"{v:.3f}" if unit == "priority" else f"{v:g}"


def table(plot) -> str:
    """One row per instant: the time, a column per user (or queue), then the job
    starts and ends since the row before (up to and including this row's instant)."""
    width = max([10, *(len(c) + 2 for c in plot.columns)])
    head = f"{'TIME':<21}" + "".join(f"{c:<{width}}" for c in plot.columns) + "EVENTS"
    out = [f"# {plot.title}", head]
    marks = list(plot.marks)
    k = 0
    for i, (t, values) in enumerate(plot.rows):
        since = []
        while k < len(marks) and (marks[k][0] <= t or i == len(plot.rows) - 1):
            since.append(marks[k][1])
            k += 1
        cells = "".join(f"{_value(values.get(c), plot.unit):<{width}}" for c in plot.columns)
        out.append((f"{stamp(t):<21}" + cells + ", ".join(since)).rstrip())
    return "\n".join(out) + "\n"


def svg(plot) -> str:
    """The series as a standalone SVG document: one line per column (a step line
    for slots, straight segments between the priority samples), the job starts
    and ends as ticks along the top (green: a start, red: an end), each with its text on hover."""
    series = [svgchart.Series(c, [(t, v.get(c) or 0.0) for t, v in plot.rows]) for c in plot.columns]
    xs = [t for t, _ in plot.rows]
    marks = [(t, f"{stamp(t)} {text}", "#59a14f" if text.startswith("start") else "#e15759") for t, text in plot.marks]
    chart = svgchart.line_chart(
        series, title=plot.title, x_format=lambda t: time.strftime("%H:%M", time.localtime(t)),
        y_format=(lambda v: f"{v:g}"), y_label=plot.unit, step=plot.unit == "slots",
        x_ticks=svgchart.time_ticks(min(xs), max(xs)) if xs else None, marks=marks)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + chart + "\n"
