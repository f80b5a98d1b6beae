"""bsub's plain options of issue 18 (part 3), checked and turned into the
stored job's fields: -Jd (description), -H (hold), -b and -t (begin and
termination times), -rn (never rerunnable).

`submission_fields(r, now)` reads them from a `SubmitRequest` and returns the
`SubmitSpec` fields they set, or raises NotSubmitted (nothing is stored).
The readings where LSF is silent are in docs/semantics.md ("bsub's plain
options").
"""

from __future__ import annotations

import re
import time

from lsfemu.errors import NotSubmitted
from lsfemu.render import messages as M

#: LSF 10.1's bsub -Jd: "The maximum length is 4094 characters"; mbatchd keeps the
#: first characters of a longer one (OpenLava's mbd.job.c truncates to its buffer)
MAX_DESCRIPTION = 4094

_FIELD = re.compile(r"[0-9]{1,4}")


def parse_time(text: str, now: float) -> float:
    """`-b`/`-t`'s `[[year:][month:]day:]hour:minute` as LSF reads it (OpenLava's
    gettimefor, and LSF 10's year field): the next such instant after *now*, in
    the caller's local time (the daemon runs each command in the caller's TZ).
    hour:minute already past today means tomorrow; day:hour:minute past this
    month means next month; month:... past this year means next year; with
    the year the instant is exact and must not be in the past. Seconds are
    0. A bad value: `value: Bad time specification. Job not submitted.`"""
    parts = text.strip().split(":")
    if not 2 <= len(parts) <= 5 or not all(_FIELD.fullmatch(p) for p in parts):
        raise NotSubmitted(M.BAD_TIME, text)
    nums = [int(p) for p in parts]
    minute, hour = nums[-1], nums[-2]
    day = nums[-3] if len(nums) >= 3 else None
    month = nums[-4] if len(nums) >= 4 else None
    year = nums[-5] if len(nums) == 5 else None
    if not (0 <= minute <= 59 and 0 <= hour <= 23) or (day is not None and not 1 <= day <= 31) \
            or (month is not None and not 1 <= month <= 12) or (year is not None and year <= 1970):
        raise NotSubmitted(M.BAD_TIME, text)
    lt = time.localtime(int(now))
    y, mo, d = lt.tm_year, lt.tm_mon, lt.tm_mday
    if year is not None:
        y, mo, d = year, month, day
    elif month is not None:
        y, mo, d = y + ((month, day, hour, minute) < (lt.tm_mon, lt.tm_mday, lt.tm_hour, lt.tm_min)), month, day
    elif day is not None:
        if (day, hour, minute) < (lt.tm_mday, lt.tm_hour, lt.tm_min):
            y, mo = (y + 1, 1) if mo == 12 else (y, mo + 1)
        d = day
    t = _mktime(y, mo, d, hour, minute, text)
    if year is None and day is None and t <= now:
        t = _mktime(y, mo, d + 1, hour, minute, text)  # mktime normalises the day after
    if t < now and year is not None:
        raise NotSubmitted(M.BAD_TIME, text)  # "If the year field is specified and the time is in the past"
    return t


def _mktime(y: int, mo: int, d: int, hour: int, minute: int, text: str) -> float:
    try:
        return float(time.mktime((y, mo, d, hour, minute, 0, 0, 0, -1)))
    except (OverflowError, ValueError):
        raise NotSubmitted(M.BAD_TIME, text) from None


def submission_fields(r, now: float) -> dict:
    """The SubmitSpec fields of -Jd, -H, -b, -t and -rn (see the module docstring)."""
    out: dict = {}
    if r.description is not None:
        out["description"] = r.description[:MAX_DESCRIPTION]
    out["hold"] = bool(r.hold)
    begin = parse_time(r.begin, now) if r.begin is not None else None
    term = parse_time(r.term, now) if r.term is not None else None
    if begin is not None and term is not None and begin > term:
        raise NotSubmitted(M.START_AFTER_TERM)
    out["begin_time"], out["term_time"] = begin, term
    if r.rerun and r.rerun_never:  # alternatives in LSF's usage ([-r | -rn])
        raise NotSubmitted(M.BAD_ARG, "-rn")
    out["rerun_never"] = bool(r.rerun_never)
    return out
