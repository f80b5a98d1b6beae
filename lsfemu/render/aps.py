"""APS texts: the bqueues -l APS_PRIORITY table, bjobs -aps cells, bhist -l
change items, and ``lsfemu explain aps``.

:func:`aps_table` (reference 5.2, the seed's layout): ``APS_PRIORITY:``, a
header whose words end at columns 33/50/66, then one row per factor - top
factors (FAIRSHARE, RESOURCE, WORK) indented 2, subfactors (PROCESSORS, MEMORY,
SWAP; JOB PRIORITY, QUEUE PRIORITY) indented 4 - weight ending at column 31,
limit at 48, grace period at 63; numbers with 2 decimals, grace periods with
their unit, ``-`` when not set. Which rows appear (no sample shows a partial
configuration; lsfemu's choice): a factor with a weight (configured or the
implied 1.00 of a parent), a limit or a grace period of its own, and every
parent of such a subfactor; always in the fixed order above. The text ends
with a newline and no empty line (bqueues.long's ``extra_sections`` adds the
furniture; an empty line separates it from ``USER_SHARES:``).
"""

from __future__ import annotations

from lsfemu.config.aps import ALL_FACTORS, PARENT, SUBFACTORS, ApsConfig
from lsfemu.sched.aps_rank import ApsResult

LABELS = {
    "FS": "FAIRSHARE", "RSRC": "RESOURCE", "PROC": "PROCESSORS", "MEM": "MEMORY", "SWAP": "SWAP",
    "WORK": "WORK", "JPRIORITY": "JOB PRIORITY", "QPRIORITY": "QUEUE PRIORITY",
}
TABLE_TITLE = "APS_PRIORITY:"
TABLE_HEADER = " " * 19 + "WEIGHT FACTORS    LIMIT FACTORS    GRACE PERIOD"
_WEIGHT_END, _LIMIT_WIDTH, _GRACE_WIDTH = 31, 17, 15


def aps_number(value: float) -> str:
    """``10`` for 10.0, else 2 decimals (bjobs -l, bjobs -aps system values)."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def table_rows(cfg: ApsConfig) -> list[str]:
    """The factors shown by :func:`aps_table`, in order."""
    rows = []
    for f in ALL_FACTORS:
        if f in SUBFACTORS:
            if cfg.shown(f) or any(cfg.shown(s) for s in SUBFACTORS[f]):
                rows.append(f)
        elif cfg.shown(f):
            rows.append(f)
    return rows


def aps_table(cfg: ApsConfig) -> str:
    """``bqueues -l``'s APS_PRIORITY block for one queue (see module doc)."""
    out = [TABLE_TITLE, TABLE_HEADER]
    for f in table_rows(cfg):
        label = ("    " if f in PARENT else "  ") + LABELS[f]
        weight = _num(cfg.weight(f))
        pad = max(_WEIGHT_END - len(label), len(weight) + 1)
        out.append(
            f"{label}{weight:>{pad}}{_num(cfg.limits.get(f)):>{_LIMIT_WIDTH}}"
            f"{cfg.grace_text.get(f, '-'):>{_GRACE_WIDTH}}"
        )
    return "\n".join(out) + "\n"


def aps_cell(result: ApsResult | None) -> str:
    """The APS column of ``bjobs -aps``: ``(60)`` for a system value, ``360.00``
    for a calculated one, ``-`` for a job outside APS queues (*result* None)."""
    if result is None:
        return "-"
    if result.system is not None:
        return f"({aps_number(result.system)})"
    if result.value is None:
        return "-"
    return f"{result.value:.2f}"


# -- bhist -l "Parameters of Job are changed:" items (reference 4.2) ----------

def bhist_aps_item(text: str | None) -> str:
    """bmod -aps "system=10" -> the factor string as typed; bmod -apsn (None) -> deleted."""
    if text is None:
        return "Absolute Priority Scheduling factor string deleted"
    return f"Absolute Priority Scheduling factor string changed to : {text.strip()}"


def bhist_priority_item(priority: int | None) -> str:
    """bmod -sp N -> ``New job priority is: N``; bmod -spn (None) -> back to default."""
    if priority is None:
        return "Job priority changes to default"
    return f"New job priority is: {priority}"


# -- lsfemu explain aps ---------------------------------------------------------

def _duration(seconds: float) -> str:
    s = max(0, int(seconds))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    if h:
        return f"{h}h{m:02d}m{sec:02d}s"
    if m:
        return f"{m}m{sec:02d}s"
    return f"{sec}s"


_EXPLAIN_HEADER = f"{'FACTOR':<14}{'VALUE':>12}{'WEIGHT':>12}{'WEIGHTED':>14}{'LIMIT':>12}{'COUNTED':>14}  NOTE"


def _explain_head(who: str, queue: str | None, aps_queue: str | None, aps_text: str | None) -> list[str]:
    head = who
    if queue:
        head += f", queue <{queue}>"
    if aps_queue and aps_queue != queue:
        head += f", ordered by the APS queue <{aps_queue}> (QUEUE_GROUP)"
    return [head] + ([f"APS_PRIORITY = {aps_text}"] if aps_text else [])


def explain_aps_not_pending(
    status: str,
    *,
    job_id: str | int | None = None,
    queue: str | None = None,
    aps_queue: str | None = None,
    aps_text: str | None = None,
) -> str:
    """``lsfemu explain aps`` of a job in an APS queue that is not pending:
    its state, and no value. APS orders pending jobs; the value a job had
    when it was dispatched is not kept (bjobs -aps lists pending jobs only),
    and one computed now would mix the job's frozen priority with today's
    other factors."""
    who = f"Job <{job_id}>" if job_id is not None else "Job"
    out = _explain_head(who, queue, aps_queue, aps_text)
    out.append(f"Status <{status}>: not pending. APS orders pending jobs only; the value a job had when it")
    out.append("was dispatched is not kept, so none is shown (bjobs -aps lists pending jobs only).")
    return "\n".join(out) + "\n"


def explain_aps(
    result: ApsResult | None,
    *,
    job_id: str | int | None = None,
    queue: str | None = None,
    aps_queue: str | None = None,
    aps_text: str | None = None,
) -> str:
    """Every factor of a job's APS value: value, weight, weighted, limit,
    what it adds (0 in its grace period), and the total."""
    out: list[str] = []
    who = f"Job <{job_id}>" if job_id is not None else "Job"
    if result is None:
        where = f" in queue <{queue}>" if queue else ""
        out.append(f"{who}{where} is not in an APS queue: it is ordered by job priority, then submission order.")
        return "\n".join(out) + "\n"
    out += _explain_head(who, queue, aps_queue, aps_text)
    out.append(f"Pending for {_duration(result.pend_seconds)}")
    out.append("")
    out.append(_EXPLAIN_HEADER)
    for t in result.terms:
        indent = "  " if t.parent else ""
        notes: list[str] = []
        if t.note:
            notes.append(t.note)
        if t.in_grace and t.grace is not None:
            notes.append(f"in grace period ({_duration(t.grace)}): not counted yet")
        elif t.grace is not None:
            notes.append(f"grace period ({_duration(t.grace)}) over")
        if t.limit is not None and t.limited != t.weighted:
            notes.append(f"limited to {'-' if t.limited < 0 else '+'}{t.limit:.2f}")
        value = _num(t.raw)
        weight = _num(t.weight) if t.factor != "ADMIN" else "-"
        out.append(
            f"{indent + t.factor:<14}{value:>12}{weight:>12}{t.weighted:>14.2f}{_num(t.limit):>12}"
            f"{t.contributes:>14.2f}" + (f"  {'; '.join(notes)}" if notes else "")
        )
    out.append("")
    if result.system is not None:
        out.append(f"APS value: ({aps_number(result.system)}), a system value set by bmod -aps; it ranks above "
                   f"every calculated value (the calculated value {result.calculated:.2f} is not used)")
    else:
        out.append(f"APS value: {result.calculated:.2f}")
    return "\n".join(out) + "\n"
