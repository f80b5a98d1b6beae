"""The what-if report: :class:`WhatIfReport`, what :func:`lsfemu.replay.whatif.what_if`
found, and its two renderings -- text tables for the terminal
(:func:`render_report`) and JSON (:func:`report_json`)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from lsfemu.replay.common import Warnings

#: the lower edges of the wait-time bins (seconds; the last bin is open): 0, 1 min, 5 min, ... 1 week
WAIT_EDGES = (0, 60, 300, 900, 1800, 3600, 2 * 3600, 4 * 3600, 8 * 3600, 86400, 2 * 86400, 7 * 86400)
#: the jobs a list in the text report names at most (--json lists them all)
LIST_MAX = 50


@dataclass
class WhatIfReport:
    """The comparison of the log's history with ours (see :func:`render_report`)."""

    confdir: str
    jobs: int = 0  # replayed: every job submitted in the log
    never_ran: int = 0  # of which never started in the log (ended or still pending without running)
    unstarted: int = 0  # replayed, but never started under the new configuration
    first_submit: float = 0.0
    last_submit: float = 0.0
    remapped: dict[str, tuple[str, int]] = field(default_factory=dict)
    per_user: list[dict[str, Any]] = field(default_factory=list)
    per_queue: list[dict[str, Any]] = field(default_factory=list)
    order_rho: float | None = None
    order_jobs: int = 0
    bucket: float = 3600.0
    shares: list[dict[str, Any]] = field(default_factory=list)  # per user
    queue_shares: list[dict[str, Any]] = field(default_factory=list)
    # the jobs that never start under the new configuration, and those that never started in the log but do now
    never_start: list[dict[str, Any]] = field(default_factory=list)
    start_now: list[dict[str, Any]] = field(default_factory=list)
    wait_hist: dict[str, list] = field(default_factory=dict)  # edges (WAIT_EDGES), log, whatif: job counts
    warnings: Warnings = field(default_factory=Warnings)


def _when(t: float | None) -> str:
    return "-" if t is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _secs(v: float | None) -> str:
    return "-" if v is None else f"{v:.0f}"


def _jobs(jobs: list[dict[str, Any]]) -> str:
    """A list of jobs as ``  <user>@<queue>: 12 13 14[2]``, by user and queue, at most LIST_MAX named."""
    groups: dict[tuple[str, str], list[str]] = {}
    for j in jobs[:LIST_MAX]:
        groups.setdefault((j["user"], j["queue"]), []).append(j["job"])
    lines = [f"  {u}@{q}: {' '.join(names)}" for (u, q), names in sorted(groups.items())]
    if len(jobs) > LIST_MAX:
        lines.append(f"  ... and {len(jobs) - LIST_MAX} more (--json lists them all)")
    return "\n".join(lines)


def render_report(rep: WhatIfReport) -> str:
    """The report as text tables (not an LSF format: tabulate's plain layout)."""
    from tabulate import tabulate  # here: `replay --into` imports this package and never renders

    out = [f"What-if replay of {rep.jobs} jobs submitted {_when(rep.first_submit)} .. {_when(rep.last_submit)} "
           f"under {rep.confdir}"]
    for q, (to, k) in sorted(rep.remapped.items()):
        out.append(f"Queue <{q}> is not in the new configuration: its {k} jobs went to <{to}>.")
    if rep.never_ran:
        now = len(rep.start_now)
        out.append(f"Never started in the log: {rep.never_ran} jobs; {now} of them start under the new "
                   f"configuration{':' if now else '.'}")
        if now:
            out.append(_jobs(rep.start_now))
    if rep.unstarted:
        out.append(f"Never start under the new configuration: {rep.unstarted} jobs "
                   f"({sum(j['started_in_log'] for j in rep.never_start)} of them started in the log):")
        out.append(_jobs(rep.never_start))
    heads = ["JOBS", "MEAN_WAIT_LOG", "MEAN_WAIT_WHATIF", "CHANGE", "MAX_WAIT_LOG", "MAX_WAIT_WHATIF", "ORDER_SHIFT",
             "UNSTARTED_LOG", "UNSTARTED_WHATIF"]
    for title, key, rows in (("per user", "user", rep.per_user), ("per queue", "queue", rep.per_queue)):
        table = []
        for r in rows:
            change = (None if r["mean_wait_whatif"] is None or r["mean_wait_log"] is None
                      else r["mean_wait_whatif"] - r["mean_wait_log"])
            table.append([r[key], r["jobs"], _secs(r["mean_wait_log"]), _secs(r["mean_wait_whatif"]),
                          "-" if change is None else f"{change:+.0f}", _secs(r["max_wait_log"]),
                          _secs(r["max_wait_whatif"]),
                          "-" if r["order_shift"] is None else f"{r['order_shift']:+.1f}",
                          r["never_ran"], r["unstarted"]])
        out.append("")
        out.append(f"Wait time in seconds, {title} (queue and user as in the log):")
        out.append(tabulate(table, headers=[key.upper()] + heads, tablefmt="plain", disable_numparse=True))
    out.append("")
    if rep.order_rho is None:
        out.append("Dispatch order: fewer than 2 jobs started in both histories.")
    else:
        out.append(f"Dispatch order: Spearman rank correlation {rep.order_rho:.3f} over {rep.order_jobs} jobs "
                   "(1 = the same order); ORDER_SHIFT is the mean change of a job's dispatch position "
                   "(negative: dispatched earlier).")
    out.append("")
    out.append(f"Slot share per user over time (intervals of {_secs(rep.bucket)} s; users under 1% in both omitted):")
    table = [[_when(s["start"]), s["user"], f"{100 * s['share_log']:.1f}%", f"{100 * s['share_whatif']:.1f}%"]
             for s in rep.shares if max(s["share_log"], s["share_whatif"]) >= 0.01]
    out.append(tabulate(table, headers=["INTERVAL_START", "USER", "SHARE_LOG", "SHARE_WHATIF"],
                        tablefmt="plain", disable_numparse=True))
    return "\n".join(out) + "\n"


def report_dict(rep: WhatIfReport) -> dict[str, Any]:
    """The report as plain data: its fields, the warnings counted by kind (what --json writes and
    the HTML page (lsfemu.render.whatif_html) is made from)."""
    d = {k: v for k, v in rep.__dict__.items() if k != "warnings"}
    d["remapped"] = {q: {"to": to, "jobs": k} for q, (to, k) in rep.remapped.items()}
    d["warnings"] = rep.warnings.counts
    return d


def report_json(rep: WhatIfReport) -> str:
    """The report as JSON (``--json``)."""
    return json.dumps(report_dict(rep), indent=1) + "\n"
