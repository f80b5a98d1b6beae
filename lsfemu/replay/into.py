"""``lsfemu replay --into DIR``: the log loaded into a fresh lsfemu cluster.

:class:`~lsfemu.replay.tracker.JobTracker` turns the records into rows of
the ``jobs`` table as mbatchd would hold them at ``--until`` (default: the
last event); the records up to that instant are copied byte for byte into
the new cluster's ``logdir/lsb.events`` (so ``bhist`` reads them), and a
configuration is written from what the file shows (:func:`config_files`:
queues, hosts with the slots they were seen to use, the cluster's name) or
copied from the real cluster's (``--conf``, :func:`copy_config`). Past
``--until`` the stream is still read, for one thing only: how long the jobs
alive at that instant really ran (:func:`_future`), so that advancing the
clock afterwards continues the real history where it is known. The rows go
to the store through :class:`lsfemu.store.bulk.BulkRows`, the store's bulk
insert."""

from __future__ import annotations

import itertools
import math
import os
import pwd
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsfemu.client import _connect
from lsfemu.clock import parse_duration
from lsfemu.events.records import JobModify2, Record
from lsfemu.events.log import header_line, HEADER_WIDTH
from lsfemu.render.timefmt import ctime
from lsfemu.replay.common import BATCH, Progress, ReplayError, Warnings, checked_config, collector_paused
from lsfemu.replay.tracker import JobTracker, records
from lsfemu.sched import simulate

# The store (and SQLAlchemy with it), the daemon and the configuration parser are imported
# inside the functions that use them: every `lsfemu replay` imports this module with its package
# (--what-if, and arguments refused before any work), and they cost 0.1 s (the parser)
# to most of a second (SQLAlchemy and the store's models).

#: how long an unknown run is: a job alive at the end of the file whose end
#: the file does not show runs until a run limit or bkill ends it
UNKNOWN_RUNTIME = 10 * 365 * 86400.0


def _future(row: dict[str, Any], live: dict[str, Any] | None, end_of_file: float) -> None:
    """How a job alive at ``--until`` goes on when the clock advances: as the
    log shows (its whole run time, CPU time and exit code; a run limit that
    ended it ends it again), else as long as its command says (``sleep N``,
    as lsfemu simulates any job), else until a run limit or bkill ends it."""
    known = row.pop("_known", False)
    by_limit = row.pop("_by_limit", False)
    if known:
        if by_limit and row["run_limit_min"] is not None:
            # it must run past its limit, so that the limit ends it (TERM_RUNLIMIT) at the logged instant
            limit = row["run_limit_min"] * 60.0
            runtime, cputime, _code = simulate.plan(row["command"], {}, row["num_processors"], parse_duration)
            if runtime <= limit:
                runtime = limit + 1.0
                cputime = row["sim_cputime"] * runtime / max(1.0, row["sim_runtime"])
            row.update(sim_runtime=runtime, sim_cputime=cputime)
        return
    so_far = row["work_done"]
    if live is not None:
        so_far = live["work_done"] + (max(0.0, end_of_file - live["segment_start"])
                                      if live["segment_start"] is not None else 0.0)
    runtime, cputime, code = simulate.plan(row["command"], {}, row["num_processors"], parse_duration)
    if runtime <= so_far and (so_far > 0 or row["start_time"] is not None):
        runtime, cputime, code = UNKNOWN_RUNTIME, UNKNOWN_RUNTIME * row["num_processors"], 0
    row.update(sim_runtime=runtime, sim_cputime=cputime, sim_exit_code=code)


@dataclass
class IntoSummary:
    """What ``replay --into`` did, for its closing message."""

    into: Path
    home: Path
    cluster: str
    until: float
    events: int
    jobs: int
    stored: int
    alive: int
    warnings: Warnings


def _admin_name() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return "lsfadmin"


def config_files(tr: JobTracker, cluster: str, into: Path) -> dict[str, str]:
    """lsf.conf and lsb.* for the replayed cluster, from what the log shows:
    its queues (PRIORITY 30 each, in order of first use: the log does not
    record queue priorities), its hosts with MXJ = the most slots seen in
    use at once, and MAX_USER_PRIORITY when jobs carried user priorities."""
    lsb = f"lsbatch/{cluster}/configdir"
    queues = list(tr.queues) or ["normal"]
    # a host named host@cluster ran a forwarded job in another cluster (MultiCluster): not one of ours
    hosts = sorted(h for h in tr.host_peak if "@" not in h) or [tr.master or "hostA"]
    master = tr.master if tr.master in hosts else hosts[0]
    params = [
        "Begin Parameters",
        f"DEFAULT_QUEUE  = {queues[0]}",
        "MBD_SLEEP_TIME = 10",
        "CLEAN_PERIOD   = 3600",
    ]
    if tr.priorities_seen:
        params.append(f"MAX_USER_PRIORITY = {max(100, tr.max_priority_seen)}")
    params.append("End Parameters")
    queue_text = "".join(
        f"Begin Queue\nQUEUE_NAME   = {q}\nPRIORITY     = 30\n"
        f"DESCRIPTION  = Replayed from lsb.events (the log does not record queue settings).\nEnd Queue\n\n"
        for q in queues)
    host_rows = "".join(f"{h:<20} !        !        1       -    -    -    ()\n" for h in hosts)
    mxj_rows = "".join(f"{h:<20} {max(1, tr.host_peak.get(h, 0)):<5} ()\n" for h in hosts)
    return {
        "lsf.conf": (f"# lsf.conf written by 'lsfemu replay'\nLSF_CONFDIR={into}\nLSB_CONFDIR={into}/lsbatch\n"
                     f"LSF_CLUSTER_NAME={cluster}\nLSF_UNIT_FOR_LIMITS=MB\nLSF_MASTER_LIST=\"{master}\"\n"
                     "LSF_ROOT_USER=Y\nLSFEMU_CLOCK=virtual\n"),
        f"lsf.cluster.{cluster}": (f"Begin ClusterAdmins\nAdministrators = {_admin_name()}\nEnd ClusterAdmins\n\n"
                                   "Begin Host\nHOSTNAME             model    type     server  r1m  mem  swp  RESOURCES\n"
                                   f"{host_rows}End Host\n"),
        f"{lsb}/lsb.params": "\n".join(params) + "\n",
        f"{lsb}/lsb.queues": queue_text,
        f"{lsb}/lsb.users": "Begin User\nUSER_NAME    MAX_JOBS\ndefault      -\nEnd User\n",
        f"{lsb}/lsb.hosts": f"Begin Host\nHOST_NAME            MXJ   JL/U\n{mxj_rows}End Host\n",
    }


def _rusage_units(confdir: Path) -> dict[str, str] | None:
    """The unit of bare rusage amounts in a checked configuration (its lsf.conf)."""
    from lsfemu.config.semantic import check_all  # --conf only (see the imports at the top)
    from lsfemu.sched import resreq

    cfg, _ = check_all(str(confdir))
    return resreq.units_from_conf(cfg.lsf_conf) if cfg is not None else None


def copy_config(confdir: Path, into: Path) -> str:
    """Copy the configuration in *confdir* (checked by :func:`checked_config`)
    into *into* in lsfemu's layout, on the virtual clock; returns the cluster's name."""
    from lsfemu.config.parser import find_files  # --conf only (see the imports at the top)

    files = find_files(str(confdir))
    name = files["cluster_name"] or "replay"
    drop = re.compile(r"\s*(LSF_CONFDIR|LSB_CONFDIR|LSFEMU_CLOCK)\s*=")
    conf = [line for line in (confdir / "lsf.conf").read_text().splitlines() if not drop.match(line)]
    conf += [f"LSF_CONFDIR={into}", f"LSB_CONFDIR={into}/lsbatch", "LSFEMU_CLOCK=virtual"]
    into.mkdir(parents=True, exist_ok=True)
    (into / "lsf.conf").write_text("\n".join(conf) + "\n")
    shutil.copyfile(files["lsf.cluster"], into / f"lsf.cluster.{name}")
    lsb = into / "lsbatch" / name / "configdir"
    lsb.mkdir(parents=True, exist_ok=True)
    for f in ("lsb.params", "lsb.queues", "lsb.users", "lsb.hosts"):
        if os.path.exists(files[f]):
            shutil.copyfile(files[f], lsb / f)
    return name


def _daemon_running(home: Path) -> bool:
    return (home / "mbatchd.sock").exists() and _connect(str(home / "mbatchd.sock")) is not None


def _empty_shared_store(url: str, force: bool) -> None:
    """The store LSFEMU_DB names must be empty for a replay (with --force: emptied),
    and no daemon may be connected to it (its master lock connection says so)."""
    from lsfemu.daemon.master import APP_PREFIX  # (see the imports at the top)
    from lsfemu.store.bulk import empty_store

    why = empty_store(url, force=force, app_prefix=APP_PREFIX,
                      holds_jobs="the store LSFEMU_DB names holds jobs; use --force to replace that cluster",
                      connected="a daemon is connected to the store LSFEMU_DB names; stop it first")
    if why is not None:
        raise ReplayError(why)


def replay_into(paths: list[Path], into: Path, *, until: float | None = None, force: bool = False,
                progress: bool | None = None, home: Path | None = None, conf: Path | None = None) -> IntoSummary:
    """Load *paths* (oldest first) into a fresh cluster in *into*; see the
    module docstring. *conf*: the real cluster's configuration (an
    LSF_ENVDIR) to use instead of one made from the log."""
    from lsfemu.sched.priority import default_priority  # (see the imports at the top)
    from lsfemu.store.bulk import BulkRows, write_loaded_state
    from lsfemu.store.db import indexes_deferred, open_store
    from lsfemu.store.models import Job, JobGroup

    into = into.expanduser().resolve()
    home = (home or into / "state").expanduser().resolve()
    if (into / "lsf.conf").exists() and not force:
        raise ReplayError(f"{into}/lsf.conf exists; use --force to replace that cluster")
    if _daemon_running(home):
        raise ReplayError(f"a daemon runs for {home}; stop it first (LSFEMU_HOME={home} lsfemu daemon stop)")
    if conf is not None:
        conf = checked_config(conf, "--conf")
    shared_url = os.environ.get("LSFEMU_DB")  # a PostgreSQL store: the replay goes there
    if shared_url:
        _empty_shared_store(shared_url, force)
    if home.exists():
        shutil.rmtree(home)
    (home / "logdir").mkdir(parents=True)
    os.chmod(home, 0o700)

    engine, _ = open_store(shared_url or f"sqlite:///{home / 'lsfemu.db'}")
    tr = JobTracker(_rusage_units(conf) if conf is not None else None)
    warns = Warnings()
    bar = Progress(sum(p.stat().st_size for p in paths), "replay", progress)
    events = 0
    stored = 0
    batch: list[dict[str, Any]] = []
    frozen: dict[tuple[int, int], dict[str, Any]] | None = None  # the rows at `until`
    last_time = 0.0  # of the records up to `until`
    last_seen = 0.0  # of all records
    log_path = home / "logdir" / "lsb.events"

    def flush(rows: BulkRows) -> None:
        nonlocal stored
        if batch:
            rows.insert(batch)
            stored += len(batch)
            batch.clear()

    try:
        with engine.begin() as conn, indexes_deferred(conn, Job.__tablename__), open(log_path, "wb") as log, \
                collector_paused():
            rows = BulkRows(conn, Job)
            log.write(header_line(HEADER_WIDTH + 1))
            out: list[str] = []
            stream = records(paths, warns, bar)
            past: list[tuple[int, str, Record]] = []  # the first record after `until`
            feed = tr.feed
            limit = math.inf if until is None else until
            for item in stream:
                rec = item[2]
                t = rec.event_time
                if t > limit:
                    past.append(item)
                    break
                if t > last_time:
                    last_time = t
                out.append(item[1])
                if len(out) >= BATCH:  # (the events copied are counted here)
                    events += len(out)
                    log.write(("\n".join(out) + "\n").encode("utf-8", "surrogateescape"))
                    out.clear()
                done = feed(rec)
                if done is not None:
                    batch.append(done)
                    if len(batch) >= BATCH:
                        flush(rows)
            events += len(out)
            last_time = last_seen = float(last_time)
            if past:
                frozen = {k: dict(r) for k, r in tr.rows.items()}
                for _lineno, _text, rec in itertools.chain(past, stream):
                    # after `until`: only how the jobs alive then went on
                    last_seen = max(last_seen, float(rec.event_time))
                    key = rec.job_key if not isinstance(rec, JobModify2) else None
                    if key is not None and key in frozen:
                        done = tr.feed(rec)
                        if done is not None:
                            snap = frozen[key]
                            snap.update(sim_runtime=done["sim_runtime"], sim_cputime=done["sim_cputime"],
                                        sim_exit_code=done["sim_exit_code"], _known=True,
                                        _by_limit=str(done["exit_reason"]).startswith("TERM_RUNLIMIT"))
            if out:
                log.write(("\n".join(out) + "\n").encode("utf-8", "surrogateescape"))
            flush(rows)
            now = until if until is not None else last_time
            alive = frozen if frozen is not None else tr.rows
            for row in alive.values():
                _future(row, tr.rows.get((row["id"], row["array_index"])), last_seen)
                batch.append(row)
                if len(batch) >= BATCH:
                    flush(rows)
            flush(rows)
            if tr.job_groups:  # the groups of bsub -g, as mbatchd made them (no limit: the log does not say)
                BulkRows(conn, JobGroup).insert([dict(path=path, owner=owner, job_limit=None, created=made)
                                                 for path, (owner, made) in tr.job_groups.items()])
            mup = max(100, tr.max_priority_seen) if tr.priorities_seen else None
            log.flush()
            counters = dict(next_job_id=tr.max_job_id + 1, position=int(tr.bottom) + 1,
                            events_offset=log.tell(), events_finished=0)
            write_loaded_state(conn, now=now, counters=counters, queues=tr.queue_ctrl, hosts=tr.host_ctrl,
                               priority=default_priority(mup) if mup is not None else None)
    finally:
        bar.close()
        engine.dispose()

    if events == 0:
        shutil.rmtree(home, ignore_errors=True)
        raise ReplayError("no event records to replay" + (" up to --until" if until is not None else ""))
    if conf is not None:
        cluster = copy_config(conf, into)
    else:
        cluster = tr.cluster or "replay"
        into.mkdir(parents=True, exist_ok=True)
        for rel, text in config_files(tr, cluster, into).items():
            p = into / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    return IntoSummary(into=into, home=home, cluster=cluster, until=now, events=events,
                       jobs=tr.jobs_seen, stored=stored, alive=len(alive), warnings=warns)


def into_message(s: IntoSummary) -> str:
    return (f"Replayed {s.events} events of {s.jobs} jobs into cluster <{s.cluster}> in {s.into}: "
            f"{s.alive} jobs unfinished at {ctime(s.until)}; {s.stored} jobs stored.\n"
            f"Now run:\n    export LSF_ENVDIR={s.into} LSFEMU_HOME={s.home}")
