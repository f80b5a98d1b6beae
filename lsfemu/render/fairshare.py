"""Fairshare texts: bqueues -l USER_SHARES / SHARE_INFO_FOR, the bparams -l
factor paragraphs, and ``lsfemu explain priority``. Data in, text out.

SHARE_INFO_FOR layout (reference 5.2, the seed's LSF 7 sample, measured):
the header starts with one space; rows are left-justified fields of widths
12/9/11/9/10/11 (name, SHARES, PRIORITY with 3 decimals, STARTED, RESERVED,
CPU_TIME in seconds with 1 decimal) then RUN_TIME in whole seconds::

    SHARE_INFO_FOR: normal/
     USER/GROUP   SHARES  PRIORITY  STARTED  RESERVED  CPU_TIME  RUN_TIME   ADJUST
    user1       10       3.333      0        0         0.0        0         0.000

LSF 10's ADJUST column (lsfemu's choice, no sample seen): the header gets
``   ADJUST`` (the word starts at column 73), RUN_TIME is a 10-wide field and
the adjustment (3 decimals) starts at column 73, under its header. A value
wider than its field pushes the rest right but is always followed by at
least one space, so whitespace-splitting clients keep working. Names are
printed as the account is called (users and groups plain, ``others``,
``all``); sub-levels are told apart by the ``SHARE_INFO_FOR: normal/grp/``
path. ``adjust=False`` gives the LSF 7 layout.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from lsfemu.sched.fairshare import MIN_DENOMINATOR, Explanation, ShareRow

SHARE_HEADER = " USER/GROUP   SHARES  PRIORITY  STARTED  RESERVED  CPU_TIME  RUN_TIME"
SHARE_HEADER_ADJUST = SHARE_HEADER + "   ADJUST"
_WIDTHS = (12, 9, 11, 9, 10, 11)  # name, shares, priority, started, reserved, cpu_time
_RUN_TIME_WIDTH = 10  # only when ADJUST follows


def fmt_shares(value: float) -> str:
    """Shares as LSF prints them: integers without decimals."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:g}"


def user_shares_line(entries: Iterable[tuple[str, float]]) -> str:
    """``USER_SHARES:  [user1, 10] [default, 1] `` (two spaces, each pair followed by one space)."""
    return "USER_SHARES:  " + "".join(f"[{name}, {fmt_shares(s)}] " for name, s in entries)


def _field(text: str, width: int) -> str:
    return f"{text:<{width - 1}} "


def share_row(row: ShareRow, adjust: bool = True) -> str:
    cells = (row.name, fmt_shares(row.shares), f"{row.priority:.3f}", str(row.started), str(row.reserved),
             f"{row.cpu_time_s:.1f}")
    line = "".join(_field(c, w) for c, w in zip(cells, _WIDTHS))
    if adjust:
        return line + _field(str(row.run_time_s), _RUN_TIME_WIDTH) + f"{row.adjust:.3f}"
    return line + str(row.run_time_s)


def share_info_block(queue_path: str, rows: Sequence[ShareRow], adjust: bool = True) -> str:
    """One ``SHARE_INFO_FOR:`` block: title, header, rows; ends with a newline.
    *queue_path* is ``normal`` or ``normal/groupA`` (the trailing ``/`` is added)."""
    path = queue_path if queue_path.endswith("/") else queue_path + "/"
    lines = [f"SHARE_INFO_FOR: {path}", SHARE_HEADER_ADJUST if adjust else SHARE_HEADER]
    lines += [share_row(r, adjust) for r in rows]
    return "\n".join(lines) + "\n"


def fairshare_section(entries: Iterable[tuple[str, float]], blocks: Sequence[str]) -> str:
    """The text bqueues -l prints under ``SCHEDULING POLICIES:`` for a
    fairshare queue: the USER_SHARES line, then each block after an empty
    line (hand it to ``render.bqueues.long(extra_sections=...)``)."""
    out = user_shares_line(entries) + "\n"
    for b in blocks:
        out += "\n" + b
    return out


# =============================================================================
# bparams -l
# =============================================================================


def _f(value: float) -> str:
    return f"{float(value):f}"


def _yn(value: bool) -> str:
    return "Y" if value else "N"


def bparams_factor_paragraphs(params: Any) -> str:
    """The fairshare paragraphs of ``bparams -l`` (reference 6.2 shape: a
    description line, ``    NAME = value``, an empty line), for a Params or
    ParamsView (missing attributes take LSF's defaults).

    The first four texts are the ones bparams already prints (volclava's);
    the others are lsfemu's wording in the same style (no LSF sample seen).
    FWD_JOB_FACTOR appears only when defined.
    """
    g = lambda name, default: getattr(params, name, default)  # noqa: E731
    paras = [
        ("Run time weighting factor for fairshare scheduling policy:",
         f"RUN_TIME_FACTOR = {_f(g('run_time_factor', 0.7))}"),
        ("CPU time weighting factor for fairshare scheduling policy:",
         f"CPU_TIME_FACTOR = {_f(g('cpu_time_factor', 0.7))}"),
        ("Job slots weighting factor for fairshare scheduling policy:",
         f"RUN_JOB_FACTOR = {_f(g('run_job_factor', 3.0))}"),
        ("The number of hours of resource consumption history:",
         f"HIST_HOURS = {_f(g('hist_hours', 5.0))}"),
        ("Committed run time weighting factor for fairshare scheduling policy:",
         f"COMMITTED_RUN_TIME_FACTOR = {_f(g('committed_run_time_factor', 0.0))}"),
        ("Historical run time of finished jobs is used in fairshare scheduling policy:",
         f"ENABLE_HIST_RUN_TIME = {_yn(g('enable_hist_run_time', False))}"),
        ("Run time of running jobs is decayed in fairshare scheduling policy:",
         f"RUN_TIME_DECAY = {_yn(g('run_time_decay', False))}"),
        ("Fairshare adjustment plugin weighting factor for fairshare scheduling policy:",
         f"FAIRSHARE_ADJUSTMENT_FACTOR = {_f(g('fairshare_adjustment_factor', 0.0))}"),
        ("GPU run time weighting factor for fairshare scheduling policy:",
         f"GPU_RUN_TIME_FACTOR = {_f(g('gpu_run_time_factor', 0.0))}"),
    ]
    fwd = g("fwd_job_factor", None)
    if fwd is not None:
        paras.append(("Forwarded job slots weighting factor for fairshare scheduling policy:",
                      f"FWD_JOB_FACTOR = {_f(fwd)}"))
    return "".join(f"{desc}\n    {line}\n\n" for desc, line in paras)


# =============================================================================
# lsfemu explain priority
# =============================================================================

_SOURCE_TEXT = {"queue": "set in lsb.queues for this queue", "lsb.params": "set in lsb.params",
                "default": "LSF default"}


def _num(v: float) -> str:
    return f"{v:.3f}"


def _factor(v: float | None) -> str:
    return "not defined" if v is None else f"{v:g}"


def explain_priority(expl: Explanation, sources: Mapping[str, str], queue: str | None = None) -> str:
    """Text of ``lsfemu explain priority USER [-q QUEUE]`` for learners: the
    share path and entitlement, each term of the denominator with its value,
    its factor and where the factor came from, the denominator (and the 0.01
    floor when it applies), and the result."""
    where = f"queue {queue}" if queue else "this share tree"
    src = lambda key: _SOURCE_TEXT.get(sources.get(key, "default"), sources.get(key, "default"))  # noqa: E731
    out: list[str] = [f"Dynamic user priority of {expl.user} in {where}", ""]
    if not expl.covered:
        out += [
            f"{expl.user} has no share account in {where}: no USER_SHARES entry covers this user",
            "(no [user, N], no group containing the user, no default, others or all),",
            "so LSF does not dispatch this user's jobs here.",
        ]
        return "\n".join(out) + "\n"
    kind = {"user": "the user's own account", "group": "a group account shared first come, first served",
            "others": "the shared 'others' account", "all": "the shared 'all' account"}.get(expl.account_kind or "", "")
    out.append(f"Share account: {expl.account} ({kind})")
    out.append("Path through the share tree (at each level the sibling with the highest priority wins):")
    out.append(f"  {'ACCOUNT':<16}{'SHARES':>8}{'OF':>8}{'FRACTION':>10}{'PRIORITY':>12}")
    for lv in expl.levels:
        out.append(f"  {lv.name:<16}{fmt_shares(lv.shares):>8}{fmt_shares(lv.level_shares):>8}"
                   f"{lv.fraction:>10.3f}{lv.priority:>12.3f}")
    out.append(f"Entitlement (product of the fractions): {expl.entitlement:.3f}")
    out.append("")
    f = expl.factors
    out.append(f"HIST_HOURS = {f.hist_hours:g} ({src('HIST_HOURS')}): 1 hour of CPU time"
               f"{' and historical run time' if f.enable_hist_run_time else ''} counts 0.1 hour after "
               f"{f.hist_hours:g} hours" if f.hist_hours > 0 else
               f"HIST_HOURS = 0 ({src('HIST_HOURS')}): usage does not decay")
    out.append(f"ENABLE_HIST_RUN_TIME = {_yn(f.enable_hist_run_time)} ({src('ENABLE_HIST_RUN_TIME')}), "
               f"RUN_TIME_DECAY = {_yn(f.run_time_decay)} ({src('RUN_TIME_DECAY')})")
    out.append("")
    out.append("priority = shares / (sum of the terms below); usage in hours and slots")
    width = max(len(t.name) for t in expl.terms) + 2
    fwidth = max(len(f"{t.factor_name} {_factor(t.factor)}") for t in expl.terms)
    out.append(f"  {'TERM':<{width}}{'USAGE':>10}   {'FACTOR':<{fwidth}}   {'WEIGHTED':>10}  FACTOR FROM")
    for t in expl.terms:
        fac = f"{t.factor_name} {_factor(t.factor)}"
        if t.present:
            out.append(f"  {t.name:<{width}}{_num(t.value):>10} x {fac:<{fwidth}} = {_num(t.weighted):>10}"
                       f"  {src(t.factor_name)}")
        else:
            out.append(f"  {t.name:<{width}}{'-':>10}   {fac:<{fwidth}}   {'-':>10}"
                       f"  {src(t.factor_name)}; not counted: {t.why_absent}")
    out.append(f"  {'denominator':<{width}}{'':>10}   {'':<{fwidth}} = {_num(expl.raw_denominator):>10}")
    if expl.floored:
        out.append(f"  The denominator is below {MIN_DENOMINATOR}: LSF uses {MIN_DENOMINATOR}, "
                   f"so the priority is capped at 100 x shares.")
    out.append("")
    out.append(f"priority = {fmt_shares(expl.shares)} / {expl.denominator:.3f} = {expl.priority:.3f}")
    return "\n".join(out) + "\n"
