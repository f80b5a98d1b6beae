"""Wall and virtual time, and LSF-style duration strings.

`wall`: the cluster's time is the machine's time. `virtual`: time moves only
when told (`lsfemu clock set|advance`). In both modes the latest instant the
cluster has reached is kept in the store, so that it survives restarts and a
change of mode, and the cluster's time never runs backwards: a wall clock
behind it waits on it (briefly: `MAX_WALL_WAIT`) or is refused (`wall_refusal`).
"""

from __future__ import annotations

import re
import time
from datetime import datetime

from lsfemu.errors import WallClockAhead

MAX_TIME = 253402300799.0  # 9999-12-31 23:59:59 UTC: the last instant LSF's formats can show
# How far the machine's clock may be behind the cluster's time for a wall clock to take
# over and wait until real time catches up: a restart within the same second, a step of
# the machine's clock, or a master candidate whose clock is off (the hosts of a shared
# cluster agree within daemon.tcp.MAX_SKEW, 300 s, or their signed requests fail).
# Further behind, the wall clock is refused: waiting would stop scheduling that long.
MAX_WALL_WAIT = 300.0
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


def wall_refusal(cluster_time: float, wall_time: float) -> WallClockAhead | None:
    """Why a wall clock reading `wall_time` cannot take over a cluster whose time is
    `cluster_time` (None: it can); its text is render.messages.error_text's."""
    if cluster_time - wall_time <= MAX_WALL_WAIT:
        return None
    return WallClockAhead(cluster_time, wall_time)


class Clock:
    """The cluster's notion of now, which never runs backwards. `virtual_now` is
    the virtual time, and in wall mode the latest instant handed out: a machine
    clock stepping back leaves the cluster's time there until it catches up."""

    def __init__(self, mode: str, virtual_now: float):
        if mode not in ("wall", "virtual"):
            raise ValueError(f"LSFEMU_CLOCK must be wall or virtual, not <{mode}>")
        self.mode = mode
        self.virtual_now = virtual_now

    def now(self) -> float:
        if self.mode == "wall":
            t = time.time()
            if t > self.virtual_now:
                self.virtual_now = t
        return self.virtual_now
