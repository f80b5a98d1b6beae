"""The what-if comparison: the two histories in the ``subs`` table (the log's
and the what-if run's start and end of every job) turned into the numbers
of a :class:`~lsfemu.replay.report.WhatIfReport` -- waits per user and per
queue, the dispatch order's rank correlation, the jobs that never start
(and those that start only now), the share of the slots over time per user
and per queue, and the distribution of the waits."""

from __future__ import annotations

import math
import sqlite3
from typing import Any

from lsfemu.replay.report import WAIT_EDGES, WhatIfReport


def _nice_bucket(span: float) -> float:
    """An interval width that cuts *span* into at most about a dozen pieces."""
    for w in (60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 7 * 86400, 30 * 86400):
        if span / w <= 12:
            return float(w)
    return float(math.ceil(span / 12 / 86400) * 86400)


def job_name(job_id: int, idx: int) -> str:
    """LSF's way of naming a job or an array element: ``123``, ``123[4]``."""
    return f"{job_id}[{idx}]" if idx else str(job_id)


def compare(db: sqlite3.Connection, rep: WhatIfReport, bucket: float | None) -> None:
    """Fill *rep* from the ``subs`` table of both histories."""
    _order(db, rep)
    for col, target in (("user", rep.per_user), ("queue", rep.per_queue)):
        for row in db.execute(
                f"SELECT {col}, COUNT(*), AVG(orig_start - submit), AVG(wi_start - submit), "
                f"MAX(orig_start - submit), MAX(wi_start - submit), AVG(wi_rank - orig_rank), "
                f"SUM(wi_start IS NULL), SUM(orig_start IS NULL), "
                f"SUM(orig_start IS NULL AND wi_start IS NOT NULL) FROM subs GROUP BY {col} ORDER BY {col}"):
            target.append(dict(zip((col, "jobs", "mean_wait_log", "mean_wait_whatif", "max_wait_log",
                                    "max_wait_whatif", "order_shift", "unstarted", "never_ran",
                                    "start_now"), row)))
    for jid, idx, user, queue, started in db.execute(
            "SELECT job_id, idx, user, queue, orig_start IS NOT NULL FROM subs WHERE wi_start IS NULL "
            "ORDER BY job_id, idx"):
        rep.never_start.append(dict(job=job_name(jid, idx), user=user, queue=queue, started_in_log=bool(started)))
    for jid, idx, user, queue, wait in db.execute(
            "SELECT job_id, idx, user, queue, wi_start - submit FROM subs "
            "WHERE orig_start IS NULL AND wi_start IS NOT NULL ORDER BY job_id, idx"):
        rep.start_now.append(dict(job=job_name(jid, idx), user=user, queue=queue, wait_whatif=wait))
    lo = rep.first_submit
    hi = db.execute("SELECT MAX(MAX(COALESCE(orig_end, orig_start, 0), COALESCE(wi_end, wi_start, 0))) "
                    "FROM subs").fetchone()[0] or lo
    hi = max(hi, lo)
    rep.bucket = bucket or _nice_bucket(max(1.0, hi - lo))
    rep.shares = _shares(db, "user", lo, hi, rep.bucket)
    rep.queue_shares = _shares(db, "queue", lo, hi, rep.bucket)
    rep.wait_hist = _wait_hist(db)


def _order(db: sqlite3.Connection, rep: WhatIfReport) -> None:
    """The dispatch positions of the jobs started in both histories, and Spearman's rho of the two orders."""
    both = "orig_start IS NOT NULL AND wi_start IS NOT NULL"
    db.execute(f"CREATE TEMP TABLE r1 AS SELECT job_id, idx, ROW_NUMBER() OVER (ORDER BY orig_start, submit, job_id, idx) AS rk FROM subs WHERE {both}")
    db.execute(f"CREATE TEMP TABLE r2 AS SELECT job_id, idx, ROW_NUMBER() OVER (ORDER BY wi_start, submit, job_id, idx) AS rk FROM subs WHERE {both}")
    db.execute("UPDATE subs SET orig_rank = (SELECT rk FROM r1 WHERE r1.job_id = subs.job_id AND r1.idx = subs.idx), "
               "wi_rank = (SELECT rk FROM r2 WHERE r2.job_id = subs.job_id AND r2.idx = subs.idx)")
    n, d2 = db.execute("SELECT COUNT(*), SUM((orig_rank - wi_rank) * (orig_rank - wi_rank)) FROM subs "
                       "WHERE orig_rank IS NOT NULL").fetchone()
    rep.order_jobs = n or 0
    if n and n > 1:
        rep.order_rho = 1.0 - 6.0 * float(d2) / (n * (n * n - 1.0))


def _shares(db: sqlite3.Connection, col: str, lo: float, hi: float, width: float) -> list[dict[str, Any]]:
    """Each *col* value's share of the slot-seconds used in each interval of
    *width* from *lo*, in the log and in the what-if run (a job still running
    at the end counts up to *hi*); rows only where the value used slots."""
    acc: dict[tuple[int, str], list[float]] = {}
    for key, slots, os_, oe, ws, we in db.execute(
            f"SELECT {col}, slots, orig_start, orig_end, wi_start, wi_end FROM subs"):
        for side, start, end in ((0, os_, oe if oe is not None else hi), (1, ws, we if we is not None else hi)):
            if start is None:
                continue
            b = int((start - lo) // width)
            while True:
                b0 = lo + b * width
                b1 = b0 + width
                part = min(end, b1) - max(start, b0)
                if part > 0:
                    acc.setdefault((b, key), [0.0, 0.0])[side] += part * slots
                if end <= b1:
                    break
                b += 1
    totals: dict[int, list[float]] = {}
    for (b, _k), v in acc.items():
        t = totals.setdefault(b, [0.0, 0.0])
        t[0] += v[0]
        t[1] += v[1]
    out = []
    for (b, key), v in sorted(acc.items()):
        t = totals[b]
        out.append({"start": lo + b * width, col: key,
                    "share_log": v[0] / t[0] if t[0] else 0.0,
                    "share_whatif": v[1] / t[1] if t[1] else 0.0})
    return out


def _wait_hist(db: sqlite3.Connection) -> dict[str, list]:
    """How many jobs waited how long (start - submit), in the bins of WAIT_EDGES (the last one open)."""
    counts = {"log": [0] * len(WAIT_EDGES), "whatif": [0] * len(WAIT_EDGES)}
    for side, col in (("log", "orig_start"), ("whatif", "wi_start")):
        for (wait,) in db.execute(f"SELECT {col} - submit FROM subs WHERE {col} IS NOT NULL"):
            i = len(WAIT_EDGES) - 1
            while i > 0 and wait < WAIT_EDGES[i]:
                i -= 1
            counts[side][i] += 1
    return {"edges": list(WAIT_EDGES), **counts}
