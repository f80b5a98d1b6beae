"""Wall and virtual time, and LSF-style duration strings.

`wall`: the cluster's time is the machine's time. `virtual`: time moves only
when told (`lsfemu clock set|advance`); the instant is kept in the store so it
survives restarts.
"""

from __future__ import annotations

import re
import time

MAX_TIME = 253402300799.0  # 9999-12-31 23:59:59 UTC: the last instant LSF's formats can show
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DUR = re.compile(r"(\d+(?:\.\d+)?)([smhdw]?)")


def parse_duration(text: str) -> float:
    """`90`, `90s`, `15m`, `2h`, `7d`, `1h30m` -> seconds. Raises ValueError."""
    s = text.strip().lower()
    if not s:
        raise ValueError("empty duration")
    pos = 0
    total = 0.0
    while pos < len(s):
        m = _DUR.match(s, pos)
        if not m or m.end() == pos:
            raise ValueError(f"bad duration <{text}>: expected a number with an optional unit s, m, h, d or w")
        total += float(m.group(1)) * _UNITS[m.group(2) or "s"]
        pos = m.end()
    if total > MAX_TIME:
        raise ValueError(f"bad duration <{text}>: longer than the clock can show")
    return total


def parse_time(text: str, now: float) -> float:
    """Absolute time for `lsfemu clock set`: epoch seconds, ISO 8601, or `+DURATION`."""
    s = text.strip()
    if s.startswith("+"):
        return _in_range(now + parse_duration(s[1:]), text)
    try:
        return _in_range(float(s), text)
    except ValueError as e:
        if "bad time" in str(e):
            raise
    from datetime import datetime

    try:
        dt = datetime.fromisoformat(s)
    except ValueError as e:
        raise ValueError(f"bad time <{text}>: expected epoch seconds, an ISO 8601 time (2026-01-31T09:00) or +DURATION") from e
    return _in_range(dt.timestamp(), text)


def parse_start(text: str) -> float:
    """A cluster's first instant (`LSFEMU_CLOCK_START`, `lsfemu init --start`): epoch
    seconds or ISO 8601, read in the local time zone when it names none."""
    if text.strip().startswith("+"):
        raise ValueError(f"bad time <{text}>: expected epoch seconds or an ISO 8601 time (2026-01-05 09:00)")
    return parse_time(text, 0.0)


def _in_range(t: float, text: str) -> float:
    if not (0 <= t <= MAX_TIME):
        raise ValueError(f"bad time <{text}>: outside 1970..9999")
    return t


class Clock:
    """The cluster's notion of now."""

    def __init__(self, mode: str, virtual_now: float):
        if mode not in ("wall", "virtual"):
            raise ValueError(f"LSFEMU_CLOCK must be wall or virtual, not <{mode}>")
        self.mode = mode
        self.virtual_now = virtual_now

    def now(self) -> float:
        return self.virtual_now if self.mode == "virtual" else time.time()
