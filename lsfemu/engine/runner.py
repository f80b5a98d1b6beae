"""Real execution of jobs in wall clock mode: sbatchd's role on this machine.

With `LSFEMU_CLOCK=wall` a dispatched job really runs; with `virtual` it is
simulated (lsfemu.sched.simulate) and nothing here is used. Virtual hosts all
map to this machine; their MXJ slots bound how many jobs run at once (the
scheduler sees to that).

How a job runs
  - When a scheduling pass starts a job, the cluster asks for a launch; the
    launch happens after the store has committed the start (`after_commit`),
    so a job never runs unless its start is durable.
  - The launch writes the job's directory `LSFEMU_HOME/jobs/<id>.<index>.<start
    ms>/` (`spec.json`: lsfemu.engine.jobspec, the job file `<submit time>.<id>` that
    LSB_JOBFILENAME names, the host file) and starts the wrapper
    (lsfemu/engine/jobwrap.py, standard library only) in a new session. The
    wrapper starts the job as its own process group (a new session) in the
    submission directory (or -cwd) with the submission environment and
    LSF's variables, measures it from /proc, writes the job report into the
    output file, and records the end in `status.json`.
  - The daemon's ticker (every second) and every command call `poll`: it
    collects ended jobs, reads their usage (CPU time, memory, swap, processes,
    threads: bjobs -l and fairshare), enforces run limits and moves kill
    sequences on.

Signals go to the job's process group: bstop/bresume send SIGSTOP/SIGCONT;
bkill sends SIGINT, SIGTERM, SIGKILL spaced by JOB_TERMINATE_INTERVAL
(lsb.params, default 10 s) — a parallel job (more than one slot) only gets
SIGKILL unless LSB_USE_SEQUENTIAL_SIGNAL=Y in lsf.conf; `bkill -s SIG` sends
just SIG. At the run limit the job gets SIGUSR2 and, when still running ten
minutes later, bkill's sequence (LSF's bsub -W).

Surviving the daemon: the wrapper does not depend on the daemon. A daemon
that starts (or re-executes itself for badmin mbdrestart) finds the running
jobs in the store and watches their directories again: a `status.json`
is collected once (the job's end and the store's commit go together; the
directory is removed only after the commit); a live wrapper holds `lock`; a
job whose wrapper never started is launched then (the `started` marker and
the lock keep it from running twice); a job whose wrapper died without a
status ends EXIT.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

from lsfemu.engine import cpulimit
from lsfemu.engine.jobspec import job_spec, whole_seconds
from lsfemu.engine.jobwrap import CPU_GRACE, read_json, write_json
from lsfemu.jobstate import ON_HOST, SUSPENDED
from lsfemu.sched import simulate

log = logging.getLogger("lsfemu.daemon")

WRAPPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jobwrap.py")
RUNLIMIT_GRACE = 600.0  # bsub -W: SIGUSR2 at the limit, killed if still running ten minutes later
RUNLIMIT_REASON = "TERM_RUNLIMIT: job killed after reaching LSF run time limit"
MEMLIMIT_REASON = "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit"


def _read_at(path: str, offset: int, limit: int) -> bytes:
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read(limit)
    except OSError:
        return b""


class Runner:
    """The running jobs of one cluster, seen from the daemon."""

    def __init__(self, home: str):
        self.home = home
        self.root = os.path.join(home, "jobs")
        self.active: set[tuple[int, int]] = set()  # real jobs started and not yet collected
        self.to_launch: list = []  # jobs started in this request, launched after the commit
        self.procs: dict[str, subprocess.Popen] = {}  # wrappers this process started
        self.pgids: dict[str, int] = {}
        self.queued: dict[str, list[tuple[float, list[int]]]] = {}  # signals waiting for their time or the pgid
        self.killing: set[str] = set()
        self.limit_hit: set[str] = set()
        self.usage_seen: dict[str, float] = {}
        self.done_dirs: list[str] = []  # collected: removed after the commit
        self.abandoned: set[str] = set()  # requeued or lost with a host: killed, removed once ended
        self.relaunched: set[str] = set()
        # The daemon's wake socket (lsfemu.daemon.server.Ticker), when it has one: a
        # wrapper that wrote its status says so there, and the job's end is collected
        # (and a pass started) without waiting for the next tick.
        self.wake: str | None = None

    # -- job scripts ---------------------------------------------------------------
    # A script read from stdin (`bsub < script`) is kept as mbatchd keeps a job
    # file, in logdir/info/<submit time>.<job ID> (the JOB_NEW record's job file
    # name): the job's command is the script's lines joined with `;`, which is
    # what LSF shows but not what it runs.
    def _script_path(self, submit_time: float, job_id: int) -> str:
        return os.path.join(self.home, "logdir", "info", f"{int(submit_time)}.{job_id}")

    def save_script(self, submit_time: float, job_id: int, text: str) -> None:
        path = self._script_path(submit_time, job_id)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)

    def read_script(self, submit_time: float, job_id: int) -> str | None:
        try:
            with open(self._script_path(submit_time, job_id)) as f:
                return f.read()
        except OSError:
            return None

    # -- naming ------------------------------------------------------------------
    def job_dir(self, job) -> str:
        return os.path.join(self.root, f"{job.id}.{job.array_index}.{int(round(job.start_time * 1000))}")

    def interactive_dir(self, job_id: int) -> str:
        """Where an interactive job's terminal or pipes meet the waiting bsub
        (jobwrap.Relay names the files); kept after the job until bsub has read it."""
        return os.path.join(self.home, "interactive", str(job_id))

    def talk(self, job_id: int, out_off: int, err_off: int, limit: int, data: bytes = b"",
             eof: bool = False, size: tuple[int, int] | None = None) -> tuple[bytes, bytes]:
        """An interactive job's output from these offsets (at most `limit` bytes
        of each), after handing it the caller's new input (`eof`: it has ended)
        and its terminal's new size (rows, columns)."""
        d = self.interactive_dir(job_id)
        if data or eof or size:
            try:
                os.makedirs(d, mode=0o700, exist_ok=True)  # the wrapper may not have made it yet
                if data:
                    with open(os.path.join(d, "stdin"), "ab") as f:
                        f.write(data)
                if eof:
                    open(os.path.join(d, "stdin.eof"), "a").close()
                if size:
                    write_json(os.path.join(d, "winsize.json"), {"rows": size[0], "cols": size[1]})
            except OSError as e:
                log.warning("job %s: cannot pass on the caller's input: %s", job_id, e)
        return _read_at(os.path.join(d, "stdout"), out_off, limit), _read_at(os.path.join(d, "stderr"), err_off, limit)

    def forget_talk(self, job_id: int) -> None:
        """The waiting bsub has read all: the job's interactive folder goes."""
        shutil.rmtree(self.interactive_dir(job_id), ignore_errors=True)

    # -- starting ----------------------------------------------------------------
    def adopt(self, jobs) -> None:
        """A (re)started daemon (or a reloaded store): watch the real jobs the store says are running."""
        self.active = set()
        mine = set()
        for job in jobs:
            if job.real_run and job.status in ON_HOST and job.start_time is not None:
                self.active.add((job.id, job.array_index))
                mine.add(self.job_dir(job))
        try:
            names = os.listdir(self.root)
        except OSError:
            names = []
        old = time.time() - 30.0  # younger runs may belong to a commit this snapshot does not show yet
        for name in names:  # runs the store no longer knows (requeued just before a crash): end them
            d = os.path.join(self.root, name)
            if d in mine or d in self.abandoned or not os.path.isdir(d):
                continue
            try:
                born = os.stat(os.path.join(d, "spec.json")).st_mtime
            except OSError:
                try:
                    born = os.stat(d).st_mtime
                except OSError:
                    continue
            if born < old:
                self.abandoned.add(d)
                self.queued[d] = [(0.0, [signal.SIGKILL])]

    def start(self, job) -> None:
        """The cluster started a real job; it is launched after the commit."""
        self.active.add((job.id, job.array_index))
        self.to_launch.append(job)

    def rollback(self) -> None:
        self.to_launch.clear()

    def after_commit(self, cl) -> None:
        launch, self.to_launch = self.to_launch, []
        for job in launch:
            if job.status in ON_HOST and job.start_time is not None:
                self.launch(cl, job)
        for d in self.done_dirs:
            self._reap_pid(d)
            shutil.rmtree(d, ignore_errors=True)
        self.done_dirs.clear()

    def launch(self, cl, job) -> None:
        d = self.job_dir(job)
        try:
            os.makedirs(d, mode=0o700, exist_ok=True)
            spec = self.spec(cl, job, d)
            write_json(os.path.join(d, "spec.json"), spec, durable=False)  # (under the daemon's lock: no fsync wait)
            logf = open(os.path.join(d, "wrapper.log"), "a")
            try:
                # -I -S: the standard library only, no site (its .pth files): a faster start per job
                p = subprocess.Popen([sys.executable, "-I", "-S", WRAPPER, d], stdin=subprocess.DEVNULL,
                                     stdout=logf, stderr=logf, cwd="/", start_new_session=True, close_fds=True)
            finally:
                logf.close()
            self.procs[d] = p
            with open(os.path.join(d, "wrapper.pid"), "w") as f:
                f.write(f"{p.pid}\n")
        except OSError as e:
            log.error("job %s: cannot start: %s", job.id, e)
            now = time.time()
            try:
                os.makedirs(d, mode=0o700, exist_ok=True)
                write_json(os.path.join(d, "status.json"), {
                    "status": "EXIT", "exit_code": 127, "reason": None, "start": now, "end": now,
                    "cpu": 0.0, "usage": {}})
            except OSError:
                pass

    def spec(self, cl, job, d: str) -> dict:
        """What the wrapper needs (lsfemu.engine.jobspec)."""
        return job_spec(cl, job, d, home=self.home, script=self.read_script(job.submit_time, job.id),
                        interactive_dir=self.interactive_dir(job.id), wake=self.wake)

    # -- watching ------------------------------------------------------------------
    def _alive(self, d: str) -> bool:
        """Does a wrapper still run for this directory?"""
        p = self.procs.get(d)
        if p is not None:
            return p.poll() is None
        self._reap_pid(d)
        try:
            with open(os.path.join(d, "lock"), "a") as f:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return True
        except OSError:
            pass
        try:  # a wrapper that has not taken its lock yet
            with open(os.path.join(d, "wrapper.pid")) as f:
                pid = int(f.read().strip())
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                return b"jobwrap" in f.read()
        except (OSError, ValueError):
            return False

    def _reap_pid(self, d: str) -> None:
        """Reap a wrapper started before this process re-executed itself (badmin mbdrestart)."""
        if d in self.procs:
            return
        try:
            with open(os.path.join(d, "wrapper.pid")) as f:
                os.waitpid(int(f.read().strip()), os.WNOHANG)
        except (OSError, ValueError):
            pass

    def _reap(self) -> None:
        for d, p in list(self.procs.items()):
            if p.poll() is not None and (d in self.done_dirs or not os.path.isdir(d)):
                del self.procs[d]

    def poll(self, cl) -> None:
        """Collect ended jobs, read usage, enforce run limits, send due signals."""
        if not self.active and not self.abandoned:
            return
        now = time.time()
        for key in sorted(self.active):
            job = cl.jobs.get(key)
            if job is None or not job.real_run or job.status not in ON_HOST or job.start_time is None:
                self.active.discard(key)
                continue
            if job in self.to_launch:
                continue
            d = self.job_dir(job)
            st = read_json(os.path.join(d, "status.json"))
            if st is None and not self._alive(d):
                st = read_json(os.path.join(d, "status.json"))
                if st is None and not os.path.exists(os.path.join(d, "started")) and d not in self.relaunched:
                    log.info("job %s: its wrapper never ran; starting it", job.id)
                    self.relaunched.add(d)
                    self.launch(cl, job)
                    continue
                if st is None:
                    st = self._lost(d, now)
            if st is not None:
                if (read_json(os.path.join(d, "signal.json")) or {}).get("done"):  # bkill -d
                    st = dict(st, status="DONE", exit_code=0, reason=None)
                self._forget(d)
                self.active.discard(key)
                self.done_dirs.append(d)
                cl.real_job_ended(job, st)
                continue
            self._read_usage(job, d)
            self._run_limit(cl, job, d, now)
            self._mem_limit(cl, job, d, now)
            self._deliver(d, now, job.status)
        for d in list(self.abandoned):
            self._deliver(d, now, "RUN")
            if os.path.exists(os.path.join(d, "status.json")) or not self._alive(d):
                self.abandoned.discard(d)
                self._forget(d)
                shutil.rmtree(d, ignore_errors=True)
        self._reap()

    def _lost(self, d: str, now: float) -> dict:
        """The wrapper died without a status (killed, or the machine restarted)."""
        log.warning("job directory %s: the wrapper ended without a status; the job is lost", d)
        started = read_json(os.path.join(d, "started")) or {}
        if started.get("pgid"):
            try:
                os.killpg(int(started["pgid"]), signal.SIGKILL)
            except OSError:
                pass
        u = read_json(os.path.join(d, "usage.json")) or {}
        return {"status": "EXIT", "exit_code": None, "reason": None, "start": started.get("start", now),
                "end": now, "cpu": u.get("cpu", 0.0), "usage": u}

    def _forget(self, d: str) -> None:
        for m in (self.pgids, self.queued, self.usage_seen):
            m.pop(d, None)
        self.killing.discard(d)
        self.limit_hit.discard(d)

    def _read_usage(self, job, d: str) -> None:
        path = os.path.join(d, "usage.json")
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return
        if self.usage_seen.get(d) == mtime:
            return
        u = read_json(path)
        if u is None:
            return
        self.usage_seen[d] = mtime
        job.sim_cputime = float(u.get("cpu") or 0.0)
        job.usage_json = json.dumps(u)

    def _run_limit(self, cl, job, d: str, now: float) -> None:
        limit = cl.effective_run_limit(job)
        if limit is None or job.status != "RUN" or d in self.limit_hit:
            return
        if simulate.work_at(job.work_done, job.segment_start, cl.now()) < limit * 60.0:
            return
        self._usr2_then_kill(cl, job, d, now, RUNLIMIT_REASON)

    def deadline(self, cl, job, reason: str) -> None:
        """bsub -t: SIGUSR2 at the termination time, killed if still running ten minutes later."""
        d = self.job_dir(job)
        if d not in self.limit_hit:
            now = time.time()
            self._usr2_then_kill(cl, job, d, now, reason)
            self._deliver(d, now, job.status)

    def _usr2_then_kill(self, cl, job, d: str, now: float, reason: str) -> None:
        self.limit_hit.add(d)
        self.killing.add(d)
        self._note(d, reason, None)
        self._queue(d, now, [signal.SIGUSR2])
        interval = max(0, cl.config.params.job_terminate_interval)
        for i, s in enumerate(self._sequence(cl, job)):
            self._queue(d, now + RUNLIMIT_GRACE + i * interval, [s])

    def _mem_limit(self, cl, job, d: str, now: float) -> None:
        """bsub -M enforced by LSF (see Cluster.mem_limit_enforced): once the job's
        processes together hold more resident memory than the limit, bkill's
        sequence (SIGINT, SIGTERM, SIGKILL; LSF's documented order) and TERM_MEMLIMIT."""
        if job.mem_limit_kb is None or d in self.killing or not cl.mem_limit_enforced(job):
            return
        try:
            used = int(json.loads(job.usage_json or "{}").get("mem_kb") or 0)
        except (ValueError, TypeError, AttributeError):
            return
        if used <= job.mem_limit_kb:
            return
        log.info("job %s: %d KB of memory over its limit of %d KB; killed", job.id, used, job.mem_limit_kb)
        self.killing.add(d)
        self._note(d, MEMLIMIT_REASON, None)
        interval = max(0, cl.config.params.job_terminate_interval)
        for i, s in enumerate(self._sequence(cl, job)):
            self._queue(d, now + i * interval, [s])

    def cpu_limit(self, cl, job) -> None:
        """bmod -c / -cn of a running job: its process's RLIMIT_CPU as the new limit
        says (prlimit; processes it started before keep theirs). Raising a hard
        limit needs privileges an ordinary user lacks: then the old one stays."""
        pid = self._pgid(self.job_dir(job))
        secs = whole_seconds(cpulimit.limit_seconds(cl.config, job))
        inf = resource.RLIM_INFINITY
        try:
            if pid is not None:
                resource.prlimit(pid, resource.RLIMIT_CPU, (inf, inf) if secs is None else (secs, secs + CPU_GRACE))
        except (OSError, ValueError) as e:
            log.warning("job %s: cannot set its CPU limit: %s", job.id, e)

    # -- signals ---------------------------------------------------------------------
    def _pgid(self, d: str) -> int | None:
        if d not in self.pgids:
            st = read_json(os.path.join(d, "started"))
            if st is None or not st.get("pgid"):
                return None
            self.pgids[d] = int(st["pgid"])
        return self.pgids[d]

    def _queue(self, d: str, when: float, sigs: list[int]) -> None:
        self.queued.setdefault(d, []).append((when, sigs))

    def _deliver(self, d: str, now: float, status: str) -> None:
        """Send the signals that are due, once the job's process group exists."""
        q = self.queued.get(d)
        if not q:
            return
        pgid = self._pgid(d)
        if pgid is None:
            return
        keep = []
        for when, sigs in q:
            if when > now:
                keep.append((when, sigs))
                continue
            for s in sigs:
                try:
                    os.killpg(pgid, s)
                except ProcessLookupError:
                    break  # the job has ended; its wrapper reports it
                except OSError as e:
                    log.warning("signal %s to process group %s: %s", s, pgid, e)
            if status in SUSPENDED and any(s in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR2) for s in sigs):
                try:  # a stopped job only sees these signals once it runs again
                    os.killpg(pgid, signal.SIGCONT)
                except OSError:
                    pass
        self.queued[d] = keep

    def _note(self, d: str, reason: str | None, signum: int | None, as_done: bool = False) -> None:
        """Why the job was signalled, for its end (see lsfemu/engine/jobwrap.py);
        `as_done` (bkill -d): its end is recorded DONE (read back by `poll`)."""
        try:
            write_json(os.path.join(d, "signal.json"), {"reason": reason, "signal": signum, "done": as_done})
        except OSError as e:
            log.warning("cannot record the signal reason in %s: %s", d, e)

    def _sequence(self, cl, job) -> list[int]:
        sequential = cl.config.lsf_conf.get("LSB_USE_SEQUENTIAL_SIGNAL", "N").strip().upper() in ("Y", "YES")
        if job.num_processors > 1 and not sequential:
            return [signal.SIGKILL]  # LSF: a parallel job only gets SIGKILL
        return [signal.SIGINT, signal.SIGTERM, signal.SIGKILL]

    def kill(self, cl, job, signum: int | None, reason: str, as_done: bool = False) -> None:
        """bkill: the default sequence (signum None) or one signal (bkill -s);
        `as_done`: bkill -d."""
        d = self.job_dir(job)
        now = time.time()
        if signum is None:
            if d in self.killing:
                return  # a sequence is under way already
            self.killing.add(d)
            self._note(d, reason, None, as_done)
            interval = max(0, cl.config.params.job_terminate_interval)
            for i, s in enumerate(self._sequence(cl, job)):
                self._queue(d, now + i * interval, [s])
        else:
            if d not in self.killing:
                self._note(d, reason, signum)
            self._queue(d, now, [signum])
        self._deliver(d, now, job.status)

    def send(self, job, signum: int) -> None:
        """One signal now (bstop, bresume, bkill -s of a signal that does not end a job by default)."""
        d = self.job_dir(job)
        now = time.time()
        self._queue(d, now, [signum])
        self._deliver(d, now, "RUN")

    def abandon(self, job) -> None:
        """The job leaves its run (brequeue, bmig, host failure): kill what runs."""
        key = (job.id, job.array_index)
        self.active.discard(key)
        if job in self.to_launch:
            self.to_launch.remove(job)
            return
        d = self.job_dir(job)
        self.abandoned.add(d)
        self.queued[d] = [(0.0, [signal.SIGKILL])]
        self._deliver(d, time.time(), "RUN")

    def wait_all(self, cl, timeout: float) -> None:
        """Poll until no real job runs or `timeout` seconds passed (daemon stop --kill-jobs)."""
        deadline = time.time() + timeout
        while self.active and time.time() < deadline:
            self.poll(cl)
            if self.active:
                time.sleep(0.05)
