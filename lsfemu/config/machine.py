"""The local machine's hardware as LSF's LIM would detect it: CPUs, memory
and swap (/proc/meminfo), /tmp space. lsfemu uses these for a host whose
lsf.cluster row gives no ncpus / maxmem / maxswp / maxtmp, and for the real
load of the local host in wall mode. Read once per process (cached); every
value is in MB, 0 when the machine does not say.
"""

from __future__ import annotations

import functools
import os
import shutil
import socket


def meminfo() -> dict[str, float]:
    """/proc/meminfo's fields in MB ({} when there is none)."""
    out: dict[str, float] = {}
    try:
        with open("/proc/meminfo", encoding="ascii", errors="replace") as fh:
            for line in fh:
                key, _, rest = line.partition(":")
                words = rest.split()
                if words and words[0].isdigit():
                    out[key.strip()] = int(words[0]) / 1024  # kB
    except OSError:
        pass
    return out


def tmp_mb() -> tuple[float, float]:
    """(total, free) MB of /tmp."""
    try:
        du = shutil.disk_usage("/tmp")
    except OSError:
        return 0.0, 0.0
    return du.total / 1024**2, du.free / 1024**2


@functools.lru_cache(maxsize=1)
def hardware() -> dict[str, float]:
    """ncpus, maxmem, maxswp, maxtmp of this machine."""
    mi = meminfo()
    return {"ncpus": float(os.cpu_count() or 1), "maxmem": mi.get("MemTotal", 0.0),
            "maxswp": mi.get("SwapTotal", 0.0), "maxtmp": tmp_mb()[0]}


def local_names() -> frozenset[str]:
    """The names this machine answers to: its host name and that name's first label."""
    name = socket.gethostname()
    return frozenset({name, name.split(".")[0]})


def current_load() -> dict[str, float]:
    """This machine's load now: the run queue averages (os.getloadavg: 1, 5 and
    15 minutes), available memory and free swap (/proc/meminfo), free /tmp, in MB."""
    try:
        one, _five, fifteen = os.getloadavg()
    except OSError:
        one = fifteen = 0.0
    mi = meminfo()
    return {"r1m": one, "r15m": fifteen, "mem": mi.get("MemAvailable", mi.get("MemFree", 0.0)),
            "swp": mi.get("SwapFree", 0.0), "tmp": tmp_mb()[1]}
