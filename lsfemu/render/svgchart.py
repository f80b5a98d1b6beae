"""Charts as inline SVG, written directly (standard library only): a line or
step chart of series over time (:func:`line_chart`) and a histogram of
counts in bins, several series side by side (:func:`histogram`).

Pure: plain numbers in, an ``<svg>`` element's text out, the same text for
the same input (no clock, no randomness), readable without JavaScript or
a stylesheet (colours and fonts are attributes). Every chart has a
``<title>`` (its accessible name), a legend, and a ``<title>`` on each bar
or series giving its values, which browsers show on hover. Used by the
what-if report's page (:mod:`lsfemu.render.whatif_html`); meant for any
other plot lsfemu draws (why not a plotting library: docs/semantics.md,
"The what-if report as a page")."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import Callable, Sequence

#: categorical colours (Tableau 10): distinguishable, also in grey print
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
           "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")
FONT = "font-family=\"sans-serif\" font-size=\"12\""
#: the margins around the plot area: left (y labels), right, top (title), bottom (x labels, legend)
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 16, 28, 56


@dataclass(frozen=True)
class Series:
    """One line of a chart: *points* as (x, y), x ascending."""

    label: str
    points: Sequence[tuple[float, float]]
    dashed: bool = False


def color(i: int) -> str:
    """The *i*-th series' colour (the palette repeats)."""
    return PALETTE[i % len(PALETTE)]


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About *count* round values (1, 2 or 5 times a power of ten apart) covering lo..hi."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(1, count)
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    ticks = []
    v = first
    while v < hi + step * 1e-9:
        ticks.append(round(v, 10))
        v += step
    if ticks[-1] < hi:
        ticks.append(round(v, 10))
    return ticks


#: the steps of time_ticks, seconds
_TIME_STEPS = (60, 300, 900, 1800, 3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400,
               14 * 86400, 30 * 86400)


def time_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """At most about *count* instants in lo..hi at a round step (1 min .. 30 days), multiples of it."""
    span = max(1.0, hi - lo)
    step = next((float(s) for s in _TIME_STEPS if span / s <= count), math.ceil(span / count / 86400) * 86400.0)
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) // step) + 1)]


def _fmt(v: float) -> str:
    """A coordinate: short and exact enough for a pixel."""
    return f"{v:.1f}".rstrip("0").rstrip(".")


class _Frame:
    """The plot area of a *width* x *height* chart, and the scales into it."""

    def __init__(self, width: int, height: int, x0: float, x1: float, y0: float, y1: float):
        self.w, self.h = width, height
        self.left, self.right = _LEFT, width - _RIGHT
        self.top, self.bottom = _TOP, height - _BOTTOM
        self.x0, self.x1 = x0, (x1 if x1 > x0 else x0 + 1.0)
        self.y0, self.y1 = y0, (y1 if y1 > y0 else y0 + 1.0)

    def x(self, v: float) -> float:
        return self.left + (v - self.x0) / (self.x1 - self.x0) * (self.right - self.left)

    def y(self, v: float) -> float:
        return self.bottom - (v - self.y0) / (self.y1 - self.y0) * (self.bottom - self.top)


def _open(width: int, height: int, title: str, kind: str) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {kind}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" {FONT}>',
            f"<title>{escape(title)}</title>",
            f'<text class="chart-title" x="{_LEFT}" y="18" font-weight="bold">{escape(title)}</text>']


def _y_axis(f: _Frame, ticks: list[float], y_format: Callable[[float], str], y_label: str) -> list[str]:
    out = []
    for t in ticks:
        y = _fmt(f.y(t))
        out.append(f'<line x1="{f.left}" x2="{f.right}" y1="{y}" y2="{y}" stroke="#ddd"/>')
        out.append(f'<text x="{f.left - 6}" y="{y}" text-anchor="end" dominant-baseline="middle">'
                   f"{escape(y_format(t))}</text>")
    out.append(f'<line x1="{f.left}" x2="{f.left}" y1="{f.top}" y2="{f.bottom}" stroke="#888"/>')
    out.append(f'<line x1="{f.left}" x2="{f.right}" y1="{f.bottom}" y2="{f.bottom}" stroke="#888"/>')
    if y_label:
        cy = (f.top + f.bottom) / 2
        out.append(f'<text x="14" y="{_fmt(cy)}" text-anchor="middle" transform="rotate(-90 14 {_fmt(cy)})">'
                   f"{escape(y_label)}</text>")
    return out


def _legend(f: _Frame, labels: Sequence[tuple[str, str, bool]]) -> list[str]:
    """(label, colour, dashed) entries in a row under the x labels, wrapped to the width."""
    out = ['<g class="legend">']
    x, y = f.left, f.h - 12
    for label, col, dashed in labels:
        wide = 26 + 7 * len(label)
        if x + wide > f.w and x > f.left:
            break  # no room left: the series' own <title> still names it
        dash = ' stroke-dasharray="5 3"' if dashed else ""
        out.append(f'<line x1="{x}" x2="{x + 18}" y1="{y - 4}" y2="{y - 4}" stroke="{col}" stroke-width="3"{dash}/>')
        out.append(f'<text x="{x + 22}" y="{y}">{escape(label)}</text>')
        x += wide
    out.append("</g>")
    return out


def line_chart(series: Sequence[Series], *, title: str, x_format: Callable[[float], str],
               y_format: Callable[[float], str] = lambda v: f"{v:g}", y_label: str = "", x_label: str = "",
               y_max: float | None = None, step: bool = True, x_ticks: Sequence[float] | None = None,
               marks: Sequence[tuple[float, str, str]] = (), width: int = 720, height: int = 300) -> str:
    """*series* over a shared x axis (e.g. epoch seconds, labelled by *x_format*),
    y from 0 (to *y_max*, else the largest value). ``step``: each value holds
    until the next point (a quantity over intervals), else points are joined
    by straight lines. *x_ticks*: where the x axis is labelled (default: round
    numbers; :func:`time_ticks` for instants). *marks*: (x, text, colour) events
    drawn as short ticks down from the top of the plot area, the text on hover."""
    xs = [x for s in series for x, _ in s.points]
    ys = [y for s in series for _, y in s.points]
    x0, x1 = (min(xs), max(xs)) if xs else (0.0, 1.0)
    top = y_max if y_max is not None else (max(ys) if ys else 1.0)
    yt = nice_ticks(0.0, top if top > 0 else 1.0)
    f = _Frame(width, height, x0, x1, 0.0, yt[-1] if y_max is None else y_max)
    out = _open(width, height, title, "line-chart")
    out += _y_axis(f, [t for t in yt if t <= f.y1 + 1e-9], y_format, y_label)
    for t in (x_ticks if x_ticks is not None else nice_ticks(x0, x1, 6)) if xs else []:
        if x0 - 1e-9 <= t <= x1 + 1e-9:
            x = _fmt(f.x(t))
            out.append(f'<line x1="{x}" x2="{x}" y1="{f.bottom}" y2="{f.bottom + 4}" stroke="#888"/>')
            out.append(f'<text x="{x}" y="{f.bottom + 16}" text-anchor="middle">{escape(x_format(t))}</text>')
    if x_label:
        out.append(f'<text x="{_fmt((f.left + f.right) / 2)}" y="{f.bottom + 32}" text-anchor="middle">'
                   f"{escape(x_label)}</text>")
    for i, s in enumerate(series):
        if not s.points:
            continue
        d = []
        for k, (x, y) in enumerate(s.points):
            px, py = _fmt(f.x(x)), _fmt(f.y(y))
            if k == 0:
                d.append(f"M{px} {py}")
            elif step:
                d.append(f"H{px} V{py}")
            else:
                d.append(f"L{px} {py}")
        dash = ' stroke-dasharray="5 3"' if s.dashed else ""
        values = ", ".join(f"{x_format(x)}: {y_format(y)}" for x, y in s.points[:40])
        out.append(f'<path class="series" data-label="{escape(s.label)}" d="{" ".join(d)}" fill="none" '
                   f'stroke="{color(i)}" stroke-width="2"{dash}><title>{escape(s.label)}: {escape(values)}</title></path>')
    for x, text, colour in marks if xs else ():
        px = _fmt(f.x(x))
        out.append(f'<line class="mark" x1="{px}" x2="{px}" y1="{f.top}" y2="{f.top + 8}" stroke="{colour}" '
                   f'stroke-width="2"><title>{escape(text)}</title></line>')
    out += _legend(f, [(s.label, color(i), s.dashed) for i, s in enumerate(series)])
    out.append("</svg>")
    return "\n".join(out)


def histogram(edges: Sequence[float], series: Sequence[tuple[str, Sequence[int]]], *, title: str,
              edge_format: Callable[[float], str] = lambda v: f"{v:g}", y_label: str = "count",
              x_label: str = "", width: int = 720, height: int = 300) -> str:
    """Counts in the bins that start at *edges* (the last bin open), one bar per
    series in each bin, side by side; bins drawn equally wide (labelled by
    their lower edge), so uneven edges (1 min, 5 min, 1 h ...) read well."""
    nbins = len(edges)
    top = max((c for _, counts in series for c in counts), default=0)
    yt = [t for t in nice_ticks(0.0, max(1.0, top)) if t == int(t)]
    f = _Frame(width, height, 0.0, float(nbins), 0.0, yt[-1])
    out = _open(width, height, title, "histogram")
    out += _y_axis(f, yt, lambda v: f"{v:.0f}", y_label)
    slot = (f.right - f.left) / max(1, nbins)
    bar = slot * 0.8 / max(1, len(series))
    for b, e in enumerate(edges):
        label = edge_format(e) if b < nbins - 1 else "≥ " + edge_format(e)
        x = f.left + b * slot
        out.append(f'<text x="{_fmt(x + slot / 2)}" y="{f.bottom + 16}" text-anchor="middle">{escape(label)}</text>')
        for i, (name, counts) in enumerate(series):
            n = counts[b] if b < len(counts) else 0
            y = f.y(n)
            span = edge_format(e) + (f" .. {edge_format(edges[b + 1])}" if b + 1 < nbins else " or more")
            out.append(f'<rect class="bar" data-series="{escape(name)}" x="{_fmt(x + slot * 0.1 + i * bar)}" '
                       f'y="{_fmt(y)}" width="{_fmt(bar)}" height="{_fmt(f.bottom - y)}" fill="{color(i)}">'
                       f"<title>{escape(name)}, {escape(span)}: {n}</title></rect>")
    if x_label:
        out.append(f'<text x="{_fmt((f.left + f.right) / 2)}" y="{f.bottom + 32}" text-anchor="middle">'
                   f"{escape(x_label)}</text>")
    out += _legend(f, [(name, color(i), False) for i, (name, _) in enumerate(series)])
    out.append("</svg>")
    return "\n".join(out)
