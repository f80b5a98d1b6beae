"""`lsfemu replay`: a real cluster's lsb.events, loaded into a fresh lsfemu
cluster (``--into DIR``) or re-scheduled by our scheduler under another
configuration (``--what-if CONFDIR``; from lsb.events, lsb.acct or both).

Both modes read the files once, in one stream (:func:`lsfemu.events.log.
read_event_lines`), and hold in memory only the jobs that are unfinished at
the point of the stream: a finished job is written out (to the store, or to
the what-if table) and forgotten. Memory therefore follows the number of
jobs alive at one instant, not the file's length. The fields each mode
needs are listed in docs/semantics.md ("Replay").

The modules, in the order they import each other:

- :mod:`.common`: what both modes share -- ReplayError, split_logs (the
  lsb.events and lsb.acct files, oldest first), the progress bar, the reading warnings, the
  collector's pause, the check of a configuration given on the command line.
- :mod:`.tracker`: JobTracker, the records turned into per-job rows of the
  ``jobs`` table, and the reading plan (the types and fields it reads).
- :mod:`.into`: ``--into``: replay_into, the configuration written from the
  log or copied (config_files, copy_config), into_message; the rows go to
  the store through its bulk insert (lsfemu.store.bulk).
- :mod:`.report`: WhatIfReport and its renderings (render_report, report_json).
- :mod:`.accounting`: lsb.acct's JOB_FINISH records as the tracker's rows (--what-if).
- :mod:`.compare`: the two histories compared into a WhatIfReport.
- :mod:`.whatif`: ``--what-if``: what_if -- the log's jobs collected into a
  temporary table, scheduled again on a virtual-clock Cluster through its
  public event loop, the two histories compared into a WhatIfReport.

This package's names below are what the ``lsfemu replay`` command uses.
"""

from __future__ import annotations

from lsfemu.replay.common import ReplayError, split_logs
from lsfemu.replay.into import into_message, replay_into
from lsfemu.replay.report import render_report, report_dict, report_json
from lsfemu.replay.whatif import what_if

__all__ = ["ReplayError", "into_message", "render_report", "replay_into", "report_dict", "report_json", "split_logs",
           "what_if"]
