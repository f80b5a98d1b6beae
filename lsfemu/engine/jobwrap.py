"""The job wrapper: one small process per running job, in LSF's child
sbatchd's role. It starts the job, watches its process group, and records
how it ended, so that a job outlives the daemon that dispatched it.

    python -I -S .../lsfemu/engine/jobwrap.py JOBDIR

Standard library only, and run by path in isolated mode: it does not import
lsfemu, so it starts fast and does not depend on the daemon's environment.

The job directory (see lsfemu.engine.runner, which writes `spec.json` and
the job file before starting the wrapper):

  spec.json    what to run: argv, cwd, environment, output files, and what
               the job report needs (written by the daemon)
  lock         flock-ed by the wrapper for its whole life: a daemon that
               finds it unlocked knows no wrapper runs this job
  wrapper.pid  the wrapper's pid (written by the daemon right after spawning)
  started      the job was started (JSON: pid = pgid, start time). A wrapper
               that finds it, or `status.json`, exits at once: no job runs twice
  usage.json   the usage so far, rewritten at every sample (about every second)
  signal.json  why the daemon signalled the job (written by the daemon before
               signalling): {"reason": "TERM_...", "signal": N or null}. With
               a signal number the reason counts only if the job died of it.
  stdout, stderr  the spooled output (LSF's default; not with LSB_STDOUT_DIRECT);
               an interactive job's (bsub -I, -Ip, -Is) go to bsub instead: `Relay`
  status.json  how the job ended (written last, atomically, after the job
               report): what the daemon collects. With bsub -E, a pre-execution
               command that exits non-zero ends the wrapper before the job starts:
               status PREEXEC and its exit code (the daemon makes the job pend
               again); with bsub -Ep, `post` says whether the post-execution
               command (run after the job) exited 0

Having written `status.json` the wrapper sends one datagram to the daemon's
wake socket (spec `wake`, when the daemon has one): the daemon collects the
end at once, as sbatchd tells mbatchd, rather than at its next tick.

Usage is measured from /proc: every member of the job's process group
(its pgid is the job's pid) is read from /proc/PID/stat (CPU ticks, threads,
resident pages, virtual size: LSF's swap). CPU time never decreases:
time of reaped children moves into their parent's cutime/cstime, and the
final wait4() adds what the job's top process collected. When the job's top
process exits, processes left in its group are killed (SIGKILL), as sbatchd
cleans up a finished job.
"""

from __future__ import annotations

import fcntl
import json
import os
import resource
import select
import signal
import socket
import struct
import sys
import termios
import time

if __package__:  # imported as part of lsfemu (the daemon reads its files' helpers)
    from lsfemu.engine.jobreport import open_out, write_report
else:  # run by path, isolated (-I -S): the report module sits beside this file
    sys.path.append(os.path.dirname(os.path.realpath(__file__)))
    from jobreport import open_out, write_report  # noqa: E402 (after the path it needs)

SAMPLE_INTERVAL = 1.0
#: bsub -c: the kernel sends SIGXCPU at RLIMIT_CPU's soft limit (every second after it, to a
#: job that catches it) and SIGKILL at the hard one, this much CPU time later -- LSF's
#: SIGXCPU first, the kill after. The reason is lsfemu.engine.cpulimit's (this script
#: runs on its own, with the standard library only).
CPU_GRACE = 10
CPULIMIT_REASON = "TERM_CPULIMIT: job killed after reaching LSF CPU usage limit"
_CLK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE_KB = (os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096) // 1024


# -- files ------------------------------------------------------------------
def write_json(path: str, data: dict, durable: bool = True) -> None:
    """Atomically (a reader sees the old or the new file, never a part); `durable`:
    on disk before it replaces the old one (fsync). The job's spec and its usage so
    far need not be: a machine that crashes ends the wrapper too, and a restarted
    daemon writes the spec again or ends the job EXIT (`started`, `status.json`
    say how far it got, and those are durable)."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(json.dumps(data))  # (json.dump streams through the Python encoder: ~10x the C one's time)
        if durable:
            f.flush()
            os.fsync(f.fileno())
    os.replace(tmp, path)


def read_json(path: str) -> dict | None:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


# -- /proc ---------------------------------------------------------------------
def _stat_fields(pid: str) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    r = data.rfind(b")")
    return data[r + 2:].split() if r > 0 else None


def sample_group(pgid: int, swap_minus_rss: bool = False) -> dict:
    """One look at the process group: pids, CPU seconds, memory, swap, threads.

    Fields of /proc/PID/stat after the command name: [0] state, [2] pgrp,
    [11..14] utime stime cutime cstime (clock ticks), [17] num_threads,
    [20] vsize (bytes), [21] rss (pages). Swap is LSF's: the virtual memory
    size (VSZ) of the job's processes, or VSZ - RSS with
    EGO_PIM_SWAP_REPORT=Y (`swap_minus_rss`)."""
    pids, cpu_ticks, rss_kb, swap_kb, threads = [], 0, 0, 0, 0
    want = str(pgid).encode()
    try:
        names = os.listdir("/proc")
    except OSError:
        names = []
    for name in names:
        if not name.isdigit():
            continue
        f = _stat_fields(name)
        if f is None or len(f) < 22 or f[2] != want:
            continue
        try:
            cpu_ticks += int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])
            if f[0] != b"Z":
                pids.append(int(name))
                threads += int(f[17])
                rss = int(f[21]) * _PAGE_KB
                rss_kb += rss
                swap_kb += max(0, int(f[20]) // 1024 - (rss if swap_minus_rss else 0))
        except ValueError:
            continue
    pids.sort()
    return {"pids": pids, "cpu": cpu_ticks / _CLK, "mem_kb": rss_kb, "swap_kb": swap_kb,
            "nprocs": len(pids), "nthreads": threads}


class Usage:
    """Running maxima and averages over the samples of one job."""

    def __init__(self, pgid: int, swap_minus_rss: bool = False):
        self.pgid = pgid
        self.swap_minus_rss = swap_minus_rss
        self.cpu = 0.0
        self.max_mem_kb = self.max_swap_kb = self.max_procs = self.max_threads = 0
        self.mem_sum = 0
        self.samples = 0
        self.last: dict = {}

    def sample(self) -> None:
        s = sample_group(self.pgid, self.swap_minus_rss)
        self.cpu = max(self.cpu, s["cpu"])
        if s["nprocs"]:
            self.samples += 1
            self.mem_sum += s["mem_kb"]
            self.max_mem_kb = max(self.max_mem_kb, s["mem_kb"])
            self.max_swap_kb = max(self.max_swap_kb, s["swap_kb"])
            self.max_procs = max(self.max_procs, s["nprocs"])
            self.max_threads = max(self.max_threads, s["nthreads"])
        self.last = s

    def record(self, t: float) -> dict:
        return {
            "t": t, "cpu": round(self.cpu, 2), "pgid": self.pgid,
            "pids": self.last.get("pids", []), "mem_kb": self.last.get("mem_kb"),
            "swap_kb": self.last.get("swap_kb"), "nthreads": self.last.get("nthreads"),
            "nprocs": self.last.get("nprocs"),
            "max_mem_kb": self.max_mem_kb or None,
            "avg_mem_kb": (self.mem_sum // self.samples) if self.samples else None,
            "max_swap_kb": self.max_swap_kb, "max_procs": self.max_procs or None,
            "max_threads": self.max_threads or None,
        }


# -- running the job ---------------------------------------------------------------
def _wait_status(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    return 255


def _outputs(spec: dict, jobdir: str):
    """(stdout file, stderr file) for the job's process."""
    out, err = spec["stdout"], spec.get("stderr")
    if spec["direct"]:
        fo = open_out(out["path"], out["overwrite"], out.get("mkdir", False))
        fe = open_out(err["path"], err["overwrite"], err.get("mkdir", False)) if err else None
    else:
        fo = open(os.path.join(jobdir, "stdout"), "wb")
        fe = open(os.path.join(jobdir, "stderr"), "wb") if err else None
    return fo, fe


class Relay:
    """bsub -I, -Ip, -Is: the job talks to the waiting bsub through the files of
    its folder `LSFEMU_HOME/interactive/<job ID>/` (the daemon reads and writes
    them for bsub): `stdout` and `stderr` as the job writes them, `stdin` as
    bsub sends it, `stdin.eof` once bsub's input has ended. -Ip and -Is run the
    job on a pseudo-terminal (its stdin, stdout and stderr; what it writes goes
    to `stdout`), -I on pipes."""

    def __init__(self, conf: dict, reads_caller: bool = True):
        d = conf["dir"]
        os.makedirs(d, mode=0o700, exist_ok=True)
        self.pty = conf["mode"] in ("Ip", "Is")
        self.out = open(os.path.join(d, "stdout"), "wb", buffering=0)
        self.err = None if self.pty else open(os.path.join(d, "stderr"), "wb", buffering=0)
        self.stdin_path = os.path.join(d, "stdin")
        self.winsize_path = os.path.join(d, "winsize.json")
        self.winsize_seen = None  # the size file's mtime last applied
        self.eof_path = os.path.join(d, "stdin.eof")
        self.fed = 0  # bytes of `stdin` given to the job
        self.pending = b""  # read from `stdin`, not yet taken by the job
        self.input_closed = not reads_caller  # with bsub -i the job reads its file instead
        if self.pty:
            self.master, self.slave = os.openpty()
            os.set_blocking(self.master, False)
        else:
            self.in_r, self.in_w = os.pipe()
            os.set_blocking(self.in_w, False)

    def child(self) -> None:
        """In the job's process: its session, and its terminal or pipes as 0, 1, 2."""
        if self.pty:
            os.close(self.master)
            os.login_tty(self.slave)  # a new session with the pty as its controlling terminal
            return
        os.setsid()
        os.dup2(self.in_r, 0)
        os.dup2(self.out.fileno(), 1)
        os.dup2(self.err.fileno(), 2)

    def forked(self) -> None:
        """In the wrapper, once the job runs: its ends of the terminal or pipes closed."""
        if self.pty:
            os.close(self.slave)
        else:
            os.close(self.in_r)
            self.out.close()
            self.err.close()

    def fds(self) -> list[int]:
        return [self.master] if self.pty else []

    def pump(self) -> None:
        """The job's output to `stdout`; bsub's new input to the job; the
        caller's terminal size to the job's (which then gets SIGWINCH)."""
        if self.pty:
            self._drain()
            self._resize()
        if self.input_closed:
            return
        try:
            with open(self.stdin_path, "rb") as f:
                f.seek(self.fed + len(self.pending))
                self.pending += f.read(1 << 16)
        except OSError:
            pass
        fd = self.master if self.pty else self.in_w
        while self.pending:
            try:
                n = os.write(fd, self.pending)
            except BlockingIOError:
                return  # the job has not read yet: the rest waits
            except OSError:
                self.pending = b""
                self._close_input()
                return
            self.fed += n
            self.pending = self.pending[n:]
        if os.path.exists(self.eof_path) and self._size() <= self.fed:
            if self.pty:
                try:
                    os.write(self.master, b"\x04")  # the terminal's end of input (VEOF)
                except OSError:
                    pass
            self._close_input()

    def _resize(self) -> None:
        try:
            mtime = os.stat(self.winsize_path).st_mtime_ns
        except OSError:
            return
        if mtime == self.winsize_seen:
            return
        self.winsize_seen = mtime
        size = read_json(self.winsize_path)
        if size:
            try:
                fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", size["rows"], size["cols"], 0, 0))
            except (OSError, KeyError, TypeError, struct.error):
                pass

    def _size(self) -> int:
        try:
            return os.path.getsize(self.stdin_path)
        except OSError:
            return 0

    def _close_input(self) -> None:
        self.input_closed = True
        if not self.pty:
            os.close(self.in_w)

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.master, 1 << 16)
            except (BlockingIOError, OSError):  # EIO: no process holds the terminal any more
                return
            if not data:
                return
            self.out.write(data)

    def close(self) -> None:
        """The job has ended: what it left on the terminal, then the files closed."""
        if self.pty:
            self._drain()
            os.close(self.master)
            self.out.close()
        elif not self.input_closed:
            self._close_input()


def _open_outputs(spec: dict, jobdir: str):
    try:
        return _outputs(spec, jobdir)
    except OSError:
        return open(os.devnull, "wb"), None  # LSF: an inaccessible output file is not stored


def _spawn(spec: dict, argv: list[str], fo, fe, relay: Relay | None = None,
           env_extra: dict | None = None) -> tuple[int, str]:
    """Fork and exec argv (the job, or its pre/post-execution command) in a new
    session, in the job's directory and environment, writing to fo (and fe) or
    talking through the relay; (pid, working directory)."""
    cwd = spec["cwd"]
    if not os.path.isdir(cwd):
        cwd = "/tmp"  # LSF: a submission directory that does not exist -> /tmp
    env = dict(spec["env"])
    env["PWD"] = cwd
    env.update(env_extra or {})
    pid = os.fork()
    if pid == 0:  # the job
        try:
            if relay is not None:
                relay.child()
                if spec.get("stdin"):  # bsub -I -i FILE: the job reads the file, not the caller
                    os.dup2(os.open(spec["stdin"], os.O_RDONLY), 0)
            else:
                os.setsid()
                os.dup2(fo.fileno(), 1)
                os.dup2((fe or fo).fileno(), 2)
                stdin = spec.get("stdin")  # bsub -i / -is: a file that cannot be opened ends the job (127)
                os.dup2(os.open(stdin or os.devnull, os.O_RDONLY), 0)
            os.chdir(cwd)
            os.closerange(3, 65536)
            if spec.get("rlimit_rss"):  # bsub -M passed to the operating system, as LSF does
                lim = int(spec["rlimit_rss"])
                hard = resource.getrlimit(resource.RLIMIT_RSS)[1]
                if hard != resource.RLIM_INFINITY:
                    lim = min(lim, hard)
                try:
                    resource.setrlimit(resource.RLIMIT_RSS, (lim, lim))
                except (OSError, ValueError):
                    pass
            if spec.get("rlimit_cpu"):  # bsub -c: SIGXCPU at the limit, SIGKILL CPU_GRACE seconds later
                _limit_cpu(int(spec["rlimit_cpu"]))
            if spec.get("nice"):  # lsb.queues NICE; lowering it below 0 needs root, as for sbatchd
                try:
                    os.nice(int(spec["nice"]))
                except OSError:
                    pass
            for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGCHLD,
                      signal.SIGPIPE, signal.SIGXFSZ, signal.SIGXCPU):
                signal.signal(s, signal.SIG_DFL)
            os.execve(argv[0], argv, env)
        except BaseException as e:  # noqa: BLE001 - report and leave with LSF's "command not found"
            try:
                os.write(2, f"{getattr(e, 'filename', None) or argv[0]}: {e}\n".encode())
            finally:
                os._exit(127)
    if relay is not None:
        relay.forked()
    return pid, cwd


def _limit_cpu(seconds: int) -> None:
    """RLIMIT_CPU of the job's process (its children inherit it), within the hard limit it has."""
    soft, hard = max(1, seconds), max(1, seconds) + CPU_GRACE
    cur_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if cur_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, cur_hard), min(hard, cur_hard)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    except (OSError, ValueError):
        pass


def _run_to_end(spec: dict, command: str, fo, fe, env_extra: dict | None = None) -> int:
    """Run a pre- or post-execution command with /bin/sh to its end (its
    process group cleaned up after, as the job's); its exit code."""
    pid, _cwd = _spawn(spec, ["/bin/sh", "-c", command], fo, fe, env_extra=env_extra)
    _, status = os.waitpid(pid, 0)
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    return _wait_status(status)


RELAY_INTERVAL = 0.05  # seconds between looks at an interactive job's input


def _wait(pid: int, usage: Usage, jobdir: str, relay: Relay | None = None) -> tuple[int, object]:
    """Sample until the job's top process exits; (wait status, rusage). An
    interactive job's terminal and input are relayed meanwhile."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    next_sample = 0.0
    while True:
        if relay is not None:
            relay.pump()
        got, status, ru = os.wait4(pid, os.WNOHANG)
        if got == pid:
            if pidfd is not None:
                os.close(pidfd)
            return status, ru
        now = time.time()
        if now >= next_sample:
            usage.sample()
            write_json(os.path.join(jobdir, "usage.json"), usage.record(now), durable=False)
            next_sample = now + SAMPLE_INTERVAL
        wait = max(0.0, next_sample - time.time())
        if relay is not None:
            wait = min(wait, RELAY_INTERVAL)
        if pidfd is not None:
            select.select([pidfd] + (relay.fds() if relay is not None else []), [], [], wait)
        else:
            time.sleep(min(wait, 0.05))


def wake(spec: dict) -> None:
    """Tell the daemon that this job's status is written (best effort: without
    an answer the daemon finds it at its next tick all the same)."""
    if not spec.get("wake"):
        return
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.setblocking(False)
            s.sendto(b"e", spec["wake"])
    except OSError:
        pass


def run(jobdir: str) -> int:
    spec = read_json(os.path.join(jobdir, "spec.json"))
    if spec is None:
        return 2
    lock = open(os.path.join(jobdir, "lock"), "a")
    fcntl.flock(lock, fcntl.LOCK_EX)  # a second wrapper waits here, then finds `started`
    started_path = os.path.join(jobdir, "started")
    if os.path.exists(started_path) or os.path.exists(os.path.join(jobdir, "status.json")):
        return 0
    if spec["env"].get("TZ"):  # the report's times as the submitter sees them
        os.environ["TZ"] = spec["env"]["TZ"]
    else:
        os.environ.pop("TZ", None)
    time.tzset()
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)  # the wrapper outlives what hits the job or the daemon
    start = time.time()
    relay = Relay(spec["interactive"], reads_caller=not spec.get("stdin")) if spec.get("interactive") else None
    fo, fe = _open_outputs(spec, jobdir) if relay is None else (relay.out, relay.err)
    if spec.get("pre_exec"):  # bsub -E: to the job's output; non-zero: the job pends again
        code = _run_to_end(spec, spec["pre_exec"], fo, fe)
        if code != 0:
            write_json(os.path.join(jobdir, "status.json"), {
                "status": "PREEXEC", "exit_code": code, "reason": None, "start": start, "end": time.time(),
                "cpu": 0.0, "usage": {}})
            wake(spec)
            return 0
    pid, cwd = _spawn(spec, spec["argv"], fo, fe, relay)
    if relay is None:
        fo.close()
        if fe:
            fe.close()
    write_json(started_path, {"pid": pid, "pgid": pid, "start": start, "cwd": cwd, "wrapper": os.getpid()})
    usage = Usage(pid, bool(spec.get("swap_minus_rss")))
    status, ru = _wait(pid, usage, jobdir, relay)
    if relay is not None:
        relay.close()
    end = time.time()
    usage.sample()  # what is left in the group, then clean it up
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    code = _wait_status(status)
    post_ok = None
    if spec.get("post_exec"):  # bsub -Ep: after the job, told how it ended; its output is not kept
        with open(os.devnull, "wb") as null:
            post_ok = _run_to_end(spec, spec["post_exec"], null, None, {"LSB_JOBEXIT_STAT": str(status)}) == 0
    usage.cpu = max(usage.cpu, ru.ru_utime + ru.ru_stime)
    rec = usage.record(end)
    if ru.ru_maxrss and ru.ru_maxrss > (rec["max_mem_kb"] or 0):
        rec["max_mem_kb"] = int(ru.ru_maxrss)
    sig = read_json(os.path.join(jobdir, "signal.json")) or {}
    reason = None
    if sig.get("reason") and (sig.get("signal") is None or (os.WIFSIGNALED(status) and os.WTERMSIG(status) == sig["signal"])):
        reason = sig["reason"]
    elif os.WIFSIGNALED(status) and (os.WTERMSIG(status) == signal.SIGXCPU or os.WTERMSIG(status) == signal.SIGKILL
                                     and spec.get("rlimit_cpu") and usage.cpu >= int(spec["rlimit_cpu"]) - 1):
        reason = CPULIMIT_REASON  # the kernel ended it at its RLIMIT_CPU (bsub -c, or bmod -c since)
    st = {"status": "DONE" if code == 0 and reason is None else "EXIT", "exit_code": code, "reason": reason,
          "start": start, "end": end, "cwd": cwd, "cpu": round(usage.cpu, 2), "usage": rec, "post": post_ok}
    try:
        if relay is None:  # an interactive job's output went to bsub, as in LSF: no report
            write_report(spec, jobdir, st)
    except OSError as e:
        print(f"jobwrap: cannot write the job report: {e}", file=sys.stderr)
    write_json(os.path.join(jobdir, "status.json"), st)
    wake(spec)
    return 0


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: jobwrap.py JOBDIR", file=sys.stderr)
        return 2
    return run(sys.argv[1])


if __name__ == "__main__":
    sys.exit(main())
