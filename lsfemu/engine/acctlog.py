"""The daemon's lsb.acct: one JOB_FINISH record per finished job in
`<logdir>/lsb.acct` (the logdir of lsb.events: LSB_SHAREDIR/<cluster>/logdir
in a shared cluster, LSFEMU_HOME/logdir otherwise), in step with the store,
and LSF's archiving of the file.

Agreement with the store: the same discipline as lsb.events
(lsfemu.engine.eventlog). A request's records are staged as its jobs end,
appended before the store commits, and the file's length after them is
committed in the same transaction (counter `acct_offset`). A crash between
the append and the commit leaves records the store never acknowledged at
the end of the file; the next start cuts the file back to the committed
length, and the job, unfinished in the store, writes its record when it
ends again. So no record is lost and none is written twice.

Archiving (lsb.params): ACCT_ARCHIVE_SIZE=kilobytes (the file is larger),
ACCT_ARCHIVE_AGE=days (its first record is older than that), and
ACCT_ARCHIVE_TIME=hh:mm (that time of day has come since its first record,
in the daemon's local time) each make the current file lsb.acct.1 after a
commit -- the older archives shift up (lsb.acct.1 -> lsb.acct.2 ...), and
with MAX_ACCT_ARCHIVE_FILE=N those numbered above N are deleted. The archive
happens after the commit and is committed at once (offset 0), so a crash in
between leaves no lsb.acct (or an empty one) and nothing uncommitted: times
are the cluster's clock (virtual or wall).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from lsfemu.engine import eligibility
from lsfemu.engine.cpulimit import cpu_factor
from lsfemu.engine.eventlog import StagedLog, uid_of
from lsfemu.events.acct import AcctRecord
from lsfemu.events.acctemit import job_finish
from lsfemu.events.fastencode import encode_acct
from lsfemu.sched import simulate
from lsfemu.sched.fairshare.tree import build_tree

CURRENT = "lsb.acct"
_ARCHIVE_RE = re.compile(r"lsb\.acct\.(\d+)\Z")
_TIME_RE = re.compile(br'\s*"[^"]*"\s+"[^"]*"\s+(-?[0-9]+)')


def acct_files(logdir: str | os.PathLike[str]) -> list[Path]:
    """lsb.acct.N ... lsb.acct.1, lsb.acct that exist in *logdir*, oldest first."""
    d = Path(logdir)
    archives = sorted((int(m.group(1)), p) for p in d.glob("lsb.acct.*") if (m := _ARCHIVE_RE.match(p.name)))
    files = [p for _, p in reversed(archives)]
    return files + [d / CURRENT] if (d / CURRENT).exists() else files


def archive_due(params, first_time: float | None, size: int, now: float) -> bool:
    """Whether lsb.params' archive parameters say the current file is to be
    archived now (*first_time*: its first record's time; None: no record)."""
    if first_time is None:
        return False
    if params.acct_archive_size is not None and size > params.acct_archive_size * 1024:
        return True
    if params.acct_archive_age is not None and now - first_time >= params.acct_archive_age * 86400:
        return True
    if params.acct_archive_time is not None:
        hh, mm = params.acct_archive_time
        lt = time.localtime(now)
        today = time.mktime((lt.tm_year, lt.tm_mon, lt.tm_mday, hh, mm, 0, 0, 0, -1))
        last = today if today <= now else time.mktime((lt.tm_year, lt.tm_mon, lt.tm_mday - 1, hh, mm, 0, 0, 0, -1))
        return first_time < last <= now
    return False


def charged_saap(cl, job) -> str:
    """chargedSAAP: the share account a job of a fairshare queue (or host
    partition) was charged to, as its path from the top of the share tree (``/user1``,
    ``/groupA/user1``); "" outside fairshare. The tree the passes keep is
    asked (the user has an account there: the job ran); without one, a
    tree built for this user alone."""
    scope = cl.accounts.by_queue.get(job.queue)
    if scope is None:  # neither the queue's FAIRSHARE nor a host partition's
        return ""
    kept = cl.accounts.trees.get(scope.key)
    tree = kept[1] if kept else build_tree(scope.shares_text, cl.config.user_groups, {job.user})
    path = tree.account_path(job.user)
    return "/" + "/".join(n.name for n in path) if path else ""


class AcctLog(StagedLog):
    def __init__(self, logdir: str):
        super().__init__(Path(logdir) / CURRENT)
        self._fh = None
        self.first_time: float | None = None  # the current file's first record's event time

    # -- start ---------------------------------------------------------------
    def recover(self, committed_offset: int | None) -> int:
        """Cut records past the committed length (written, never acknowledged)
        and return the length to commit. A file shorter than the counter was
        archived after its commit: kept. No counter (a store made before
        lsb.acct was written): the file as it is counts as committed."""
        if committed_offset is not None and self.size() > committed_offset:
            os.truncate(self.path, committed_offset)
        self._reopen()
        self.first_time = self._read_first_time()
        return self.size()

    def _reopen(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "ab")

    def _read_first_time(self) -> float | None:
        try:
            with open(self.path, "rb") as fh:
                m = _TIME_RE.match(fh.readline())
        except OSError:
            return None
        return float(m.group(1)) if m else None

    # -- a request -------------------------------------------------------------
    def stage_finish(self, cl, job, t: float, data: dict) -> None:
        """The JOB_FINISH record of *job*, which ends at *t* (the FINISH event's *data*)."""
        started = job.start_time is not None
        run = simulate.work_at(job.work_done, job.segment_start, t) if started else 0.0
        hosts = job.exec_hosts.split()
        try:  # (a simulated job has none: no parse)
            usage = json.loads(job.usage_json) if job.usage_json else {}
        except ValueError:
            usage = {}
        self.staged.append(job_finish(
            job, t, data, uid_of=uid_of, cpu_time=simulate.cpu_at(job.sim_runtime, job.sim_cputime, run),
            run_time=run, host_factor=(cpu_factor(cl.config, hosts[0]) or 1.0) if started and hosts else 1.0,
            effective_res_req=cl.effective_res_req(job) if started else "", usage=usage,
            charged_saap=charged_saap(cl, job) if started else "",
            ineligible_pend_time=(int(round(eligibility.ineligible_seconds(job.ipend_time, job.ipend_since, t)))
                                  if cl.config.params.track_eligible_pendinfo else -1)))

    def _append(self, records: list[AcctRecord]) -> None:
        # (the generated encoder: lsfemu.events.acct.format_record's line, issue 23 part 4)
        self._fh.write("".join([encode_acct(r) + "\n" for r in records]).encode("utf-8", "surrogateescape"))
        self._fh.flush()
        if self.first_time is None:
            self.first_time = float(records[0].event_time)

    def _close(self) -> None:
        self._fh.close()

    def undo(self, offset: int) -> None:
        super().undo(offset)
        if offset == 0:
            self.first_time = None

    # -- archiving -------------------------------------------------------------
    def archive_if_due(self, params, now: float) -> bool:
        """Archive the current file when lsb.params says so (see archive_due);
        the caller commits the new length, 0."""
        # (the file's size read only where a size limit is set: a commit's stat saved)
        size = self.size() if params.acct_archive_size is not None and self.first_time is not None else 0
        if not archive_due(params, self.first_time, size, now):
            return False
        self.archive(params.max_acct_archive_file)
        return True

    def archive(self, max_files: int | None) -> Path:
        """lsb.acct -> lsb.acct.1 (older archives shift up; those above
        *max_files* are deleted); a new empty lsb.acct."""
        self._fh.close()
        d = self.path.parent
        for n, p in sorted(((int(m.group(1)), p) for p in d.glob("lsb.acct.*")
                            if (m := _ARCHIVE_RE.match(p.name))), reverse=True):
            if max_files is not None and n + 1 > max_files:
                p.unlink()
            else:
                os.replace(p, d / f"{CURRENT}.{n + 1}")
        target = d / f"{CURRENT}.1"
        if max_files is not None and max_files < 1:
            self.path.unlink()
        else:
            os.replace(self.path, target)
        self._reopen()
        self.first_time = None
        return target

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
