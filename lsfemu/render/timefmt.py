"""Time and duration formats of LSF's output (reference section 1.2).

Owns every way a timestamp or a duration is spelled on screen:

* ``table_time``  - bjobs/-o columns: ``Oct 22 13:51`` (day space-padded),
  with ``LSB_DISPLAY_YEAR`` ``May  3 10:21 2016``;
* ``long_prefix`` - bjobs -l / bhist -l record stamps: ``Tue Jul 30 16:49:55``
  (without the ``: `` that follows), with the year ``Sat May 23 18:18:44 2026``;
  ``RecordStamps`` the same with the ``: ``, made once per second of a stream;
* ``ctime``       - the C ``ctime`` form of the job report: ``Sun Jan 24 18:06:13 2021``;
* ``w_time``      - bjobs -W: ``10/19-17:10:27``;
* ``hms``         - ``hh:mm:ss`` durations (``-hms`` / ``LSB_HMS_TIME_FORMAT``).

Times are epoch seconds rendered in local time (``time.localtime``); month and
weekday names are always English (LSF's C locale), never ``strftime``'s locale.
Nothing here reads the clock.
"""

from __future__ import annotations

import math
import time

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")  # tm_wday 0 = Monday

#: length of ``long_prefix(t) + ": "`` -- the continuation indent of long formats
PREFIX_LEN = 21
#: the same with ``LSB_DISPLAY_YEAR=Y``
PREFIX_LEN_YEAR = 26


def _lt(t: float) -> time.struct_time:
    return time.localtime(int(t))


def table_time(t: float, year: bool = False) -> str:
    """``Mon dd HH:MM`` with a space-padded day, plus `` YYYY`` when *year*."""
    tm = _lt(t)
    text = f"{_MONTHS[tm.tm_mon - 1]} {tm.tm_mday:>2} {tm.tm_hour:02d}:{tm.tm_min:02d}"
    return f"{text} {tm.tm_year}" if year else text


def long_prefix(t: float, year: bool = False) -> str:
    """``Www Mon dd HH:MM:SS`` (space-padded day), plus `` YYYY`` when *year*; no colon."""
    tm = _lt(t)
    text = (
        f"{_WEEKDAYS[tm.tm_wday]} {_MONTHS[tm.tm_mon - 1]} {tm.tm_mday:>2} "
        f"{tm.tm_hour:02d}:{tm.tm_min:02d}:{tm.tm_sec:02d}"
    )
    return f"{text} {tm.tm_year}" if year else text


class RecordStamps(dict):
    """``long_prefix(t, year) + ": "`` by event time, each made once: a
    stream of records (bhist -t of a long log) asks for a new second at
    most events. A second is made from its minute's text (two
    ``localtime`` calls per minute instead of one per second) when the
    minute is plain -- its first second is ``:00``, its last ``:59`` of the
    same minute, so no change of offset falls inside it; else as
    long_prefix makes it. ``clear()`` forgets both."""

    def __init__(self, year: bool = False):
        super().__init__()
        self.year = year
        self._minutes: dict[int, tuple[str, str] | None] = {}

    def __missing__(self, t: float) -> str:
        s = int(t)
        m0 = s - s % 60
        parts = self._minutes.get(m0, False)
        if parts is False:
            parts = self._minutes[m0] = self._minute(m0)
        if parts is None:
            text = self[t] = long_prefix(t, self.year) + ": "
        else:
            text = self[t] = f"{parts[0]}{s - m0:02d}{parts[1]}"
        return text

    def _minute(self, m0: int) -> tuple[str, str] | None:
        """(the text before the seconds, after them) of the minute starting at *m0*, None if not plain."""
        a, b = _lt(m0), _lt(m0 + 59)
        if a.tm_sec != 0 or b.tm_sec != 59 or a[:5] != b[:5]:
            return None
        head = f"{_WEEKDAYS[a.tm_wday]} {_MONTHS[a.tm_mon - 1]} {a.tm_mday:>2} {a.tm_hour:02d}:{a.tm_min:02d}:"
        return head, f" {a.tm_year}: " if self.year else ": "

    def clear(self) -> None:
        super().clear()
        self._minutes.clear()


def ctime(t: float) -> str:
    """C ``ctime()`` without the newline: ``Sun Jan 24 18:06:13 2021``."""
    return long_prefix(t, year=True)


def w_time(t: float) -> str:
    """bjobs -W stamp ``MM/DD-HH:MM:SS``."""
    tm = _lt(t)
    return (
        f"{tm.tm_mon:02d}/{tm.tm_mday:02d}-"
        f"{tm.tm_hour:02d}:{tm.tm_min:02d}:{tm.tm_sec:02d}"
    )


def hms(seconds: float, *, ceil: bool = False) -> str:
    """``hh:mm:ss`` (hours at least two digits). Fractions are dropped, or
    rounded up with *ceil* (LSF rounds ``cpu_used`` up)."""
    s = max(0.0, float(seconds))
    whole = math.ceil(s) if ceil else int(s)
    h, rest = divmod(whole, 3600)
    m, sec = divmod(rest, 60)
    return f"{h:02d}:{m:02d}:{sec:02d}"


def cpu_w(seconds: float) -> str:
    """bjobs -W CPU_USED ``HHH:MM:SS.hh``."""
    s = max(0.0, float(seconds))
    hundredths = int(round(s * 100))
    whole, hh = divmod(hundredths, 100)
    h, rest = divmod(whole, 3600)
    m, sec = divmod(rest, 60)
    return f"{h:03d}:{m:02d}:{sec:02d}.{hh:02d}"
