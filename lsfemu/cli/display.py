"""The display settings a query command reads when it is called (issue 21):
LSB_BJOBS_FORMAT, LSB_HMS_TIME_FORMAT, LSB_DISPLAY_YEAR,
LSB_BJOBS_PENDREASON_LEVEL, LSB_BQUEUES_FORMAT, LSB_BHOSTS_FORMAT, ...

LSF's precedence: the command's option, then the caller's environment, then
lsf.conf (`Ctx.setting` in lsfemu.cli.base, which reads lsf.conf here). LSF's
commands read lsf.conf each time they run, so an edit acts on the next
command without `badmin reconfig`. lsfemu's commands run in the daemon,
which keeps the lsf.conf it read at its last reconfig: `lsf_conf_now` reads
the file again when it changed since (one stat per command: its
modification time, size and inode). That is cheaper than having the thin
client read lsf.conf and send it with every request, and it serves the
in-process commands too. An unreadable file leaves the reconfig's values.
"""

from __future__ import annotations

import os
import threading

from lsfemu.config.lexer import Reporter
from lsfemu.config.lsf_conf import parse_lsf_conf

#: path -> ((mtime_ns, size, inode), values) of the lsf.conf last read here
_read: dict[str, tuple[tuple[int, int, int], dict[str, str]]] = {}
_lock = threading.Lock()


def lsf_conf_now(cfg) -> dict[str, str]:
    """lsf.conf's values as the file is now (upper-case keys), or the
    reconfig's (`cfg.lsf_conf`) when the file cannot be read."""
    path = (getattr(cfg, "files", None) or {}).get("lsf.conf")
    if not path:
        return cfg.lsf_conf
    try:
        st = os.stat(path)
    except OSError:
        return cfg.lsf_conf
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    kept = _read.get(path)
    if kept is not None and kept[0] == stamp:
        return kept[1]
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return cfg.lsf_conf
    # Values are checked where they are used (a bad one acts as unset there);
    # the file's issues are badmin reconfig's to report.
    values, _lines = parse_lsf_conf(text, Reporter(path))
    with _lock:
        _read[path] = (stamp, values)
    return values
