"""The daemon's submission path (issue 23, part 3): ``python tests/bench/submit.py``.

Three figures on a fresh virtual-clock cluster (nothing is dispatched: every
CPU second the daemon spends is the submission path's), each with the
daemon's CPU time (user + system, /proc/PID/stat) per job:

* ``sequential``: ``--jobs`` submissions one after another from one client
  process (``lsfemu.client.call("bsub", ...)`` in a loop: the wire, the
  daemon and its commit, without starting an interpreter per job, which is
  the client's cost, not the daemon's): jobs per second, daemon CPU per job.
* ``concurrent``: the same from ``--clients`` client processes at once (16:
  the issue's figure), each ``--jobs / --clients`` submissions: jobs per
  second from the first request to the last answer, daemon CPU per job.
* ``pack``: one real ``bsub -pack FILE`` of ``--pack`` lines
  (``-o /dev/null sleep 1000``): jobs per second of the whole command,
  daemon CPU per job.

``--preload N`` submits N jobs first (one ``bsub -pack``, not timed), so
that the sequential and concurrent submissions are timed with N jobs pending.

Targets (issue 23): daemon CPU per submission <= 1 ms, >= 500 submissions/s
from 16 clients, ``bsub -pack`` of 10,000 jobs >= 5,000 jobs/s. On a loaded
machine the rates move with the load; CPU per job less so.

``--profile PREFIX`` profiles each figure as it is measured: the daemon runs
with cProfile (CPU time per thread, ``time.thread_time``) in every thread that
serves a connection -- the accepting thread's accept and hand-over, a
worker's read, decode, run, answer and close -- switched on at the figure's
first request and off after its last answer (signals), so the profile is of
exactly the work the figure's "daemon CPU per job" counts (idle waits are
not in it; profiling itself inflates it). Written per figure as
``PREFIX-sequential.txt``, ``PREFIX-concurrent.txt``, ``PREFIX-pack.txt``: a
header (the command line, the commit, the load, the figure unprofiled and
profiled), the stages' cumulative CPU per job, the functions by own time (top
30) and by cumulative time. ``--json`` writes the figures
(``bench-submit.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from harness import ROOT, cluster_env, command, run_ok  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
ARGS = ["-o", "/dev/null", "sleep", "1000"]

# The daemon profiled per figure (see --profile): a profiler per thread (CPU time),
# enabled around each connection's work while the figure runs; SIGUSR1 starts a
# figure, SIGUSR2 ends it and writes its merged stats to DIR/figure-N.pstats.
PROFILED = """
import cProfile, os, pstats, signal, socketserver, sys, threading, time
sys.path.insert(0, os.getcwd())
from lsfemu.daemon import server
out, local, state = sys.argv[1], threading.local(), {"on": False, "n": 0, "profs": []}
def profiled(fn):
    def run(*a, **k):
        if not state["on"]:
            return fn(*a, **k)
        if getattr(local, "n", None) != state["n"]:
            local.n, local.p = state["n"], cProfile.Profile(time.thread_time)
            state["profs"].append(local.p)
        local.p.enable()
        try:
            return fn(*a, **k)
        finally:
            local.p.disable()
    return run
socketserver.BaseServer._handle_request_noblock = profiled(socketserver.BaseServer._handle_request_noblock)
server._Server.process_request_thread = profiled(server._Server.process_request_thread)
def start(*_):
    state["n"] += 1
    state["profs"] = []
    state["on"] = True
    open(os.path.join(out, f"figure-{state['n']}.on"), "w").close()
def stop(*_):
    state["on"] = False
    time.sleep(0.3)  # (a worker's last close after its answer)
    profs = [p for p in state["profs"] if p.getstats()]
    tmp = os.path.join(out, f"figure-{state['n']}.tmp")
    st = pstats.Stats(profs[0])
    for p in profs[1:]:
        st.add(p)
    st.dump_stats(tmp)
    os.replace(tmp, os.path.join(out, f"figure-{state['n']}.pstats"))
signal.signal(signal.SIGUSR1, start)
signal.signal(signal.SIGUSR2, stop)
sys.exit(server.main())
"""

# bsub through lsfemu.client with no limit on the wait for its answer (a profiled pack)
PATIENT_BSUB = ("import sys; sys.path.insert(0, sys.argv[1]); from lsfemu import client; "
                "client.CONNECT_TIMEOUT = None; sys.exit(client.run('bsub', sys.argv[2:]))")

# One client: N submissions through lsfemu.client, after a go signal on stdin.
CLIENT = """
import sys
from lsfemu import client
n = int(sys.argv[1])
argv = sys.argv[2:]
sys.stdin.readline()
for _ in range(n):
    out, err, rc = client.call("bsub", argv)
    if rc != 0:
        sys.exit("bsub failed: " + err)
"""


def daemon_pid(env: dict[str, str]) -> int:
    return int((Path(env["LSFEMU_HOME"]) / "mbatchd.lock").read_text().split()[0])


def cpu_s(pid: int) -> float:
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in f[11:15]) / TICK


def start_daemon(env: dict[str, str], profile: str | None) -> subprocess.Popen | None:
    """The daemon of *env*; *profile*: a folder, the daemon profiled per figure (PROFILED)."""
    if profile is None:
        run_ok(command("lsfemu") + ["daemon", "start"], env)
        return None
    p = subprocess.Popen([sys.executable, "-c", PROFILED, profile], env=env, cwd=ROOT,
                         stdout=subprocess.DEVNULL, stderr=open(Path(profile) / "daemon.err", "ab"))
    sock = Path(env["LSFEMU_HOME"]) / "mbatchd.sock"
    wait_for(lambda: sock.exists() or p.poll() is not None, "the profiled daemon's start")
    if p.poll() is not None:
        raise RuntimeError("the profiled daemon did not start")
    return p


def wait_for(ready, what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


class Profiling:
    """The figures of a profiled daemon (PROFILED): each between start and stop;
    stop gives the figure's stats file."""

    def __init__(self, proc: subprocess.Popen, folder: str):
        self.proc, self.folder, self.n = proc, Path(folder), 0

    def start(self) -> None:
        self.n += 1
        self.proc.send_signal(signal.SIGUSR1)
        on = self.folder / f"figure-{self.n}.on"
        wait_for(on.exists, "the daemon's profiler")

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGUSR2)
        path = self.folder / f"figure-{self.n}.pstats"
        wait_for(path.exists, "the daemon's profile")
        return str(path)


def stop_daemon(env: dict[str, str], proc: subprocess.Popen | None) -> None:
    if proc is None:
        subprocess.run(command("lsfemu") + ["daemon", "stop"], env=env, capture_output=True)
        return
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)


def clients(env: dict[str, str], n_clients: int, jobs: int, prof: Profiling | None = None) -> dict:
    """*jobs* submissions from *n_clients* processes at once."""
    each = [jobs // n_clients + (1 if i < jobs % n_clients else 0) for i in range(n_clients)]
    procs = [subprocess.Popen([sys.executable, "-c", CLIENT, str(k), *ARGS], env=env, cwd=ROOT,
                              stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in each]
    time.sleep(1.0)  # every client imported and waiting (not timed)
    pid = daemon_pid(env)
    if prof is not None:
        prof.start()
    c0, t0 = cpu_s(pid), time.perf_counter()
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        _, err = p.communicate(timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"a client failed: {err[-2000:]}")
    wall, cpu = time.perf_counter() - t0, cpu_s(pid) - c0
    res = {"clients": n_clients, "jobs": jobs, "wall_s": wall, "jobs_per_s": jobs / wall,
           "daemon_cpu_ms_per_job": cpu / jobs * 1000}
    if prof is not None:
        res["profile"] = prof.stop()
    return res


def pack(env: dict[str, str], root: Path, jobs: int, prof: Profiling | None = None) -> dict:
    f = root / "pack.txt"
    f.write_text("".join(f"-o /dev/null -J p{i} sleep 1000\n" for i in range(jobs)))
    pid = daemon_pid(env)
    if prof is not None:
        prof.start()
    # profiled, the pack takes longer than the client's 60 s wait for an answer: a patient client
    argv = command("bsub") if prof is None else [sys.executable, "-c", PATIENT_BSUB, str(ROOT)]
    c0, t0 = cpu_s(pid), time.perf_counter()
    out = run_ok(argv + ["-pack", str(f)], env)
    wall, cpu = time.perf_counter() - t0, cpu_s(pid) - c0
    if out.count("is submitted") != jobs:
        raise RuntimeError(f"bsub -pack submitted {out.count('is submitted')} of {jobs}")
    res = {"jobs": jobs, "wall_s": wall, "jobs_per_s": jobs / wall, "daemon_cpu_ms_per_job": cpu / jobs * 1000}
    if prof is not None:
        res["profile"] = prof.stop()
    return res


def packing_env(root: Path, name: str, jobs: int) -> dict[str, str]:
    env = cluster_env(root, name)
    conf = Path(env["LSF_ENVDIR"]) / "lsf.conf"
    conf.write_text(conf.read_text() + f"LSB_MAX_PACK_JOBS={max(jobs, 1)}\n")
    return env


def profile_folder(root: Path, name: str) -> str:
    folder = root / "profiles" / name  # (one a daemon: each numbers its figures from 1)
    folder.mkdir(parents=True)
    return str(folder)


def run(jobs: int, n_clients: int, pack_jobs: int, profile: bool = False, preload: int = 0) -> dict:
    """The figures; *profile*: each measured on a profiled daemon (its stats file in the figure's "profile")."""
    root = Path(tempfile.mkdtemp(prefix="lsfemu-bench-submit-"))
    res: dict = {"preload": preload}
    env = packing_env(root, "seq", preload)
    folder = profile_folder(root, "seq") if profile else None
    proc = start_daemon(env, folder)
    prof = Profiling(proc, folder) if proc is not None else None
    try:
        if preload:
            pack(env, root, preload)
        res["sequential"] = clients(env, 1, jobs, prof)
        res["concurrent"] = clients(env, n_clients, jobs, prof)
    finally:
        stop_daemon(env, proc)
    if pack_jobs:
        env = packing_env(root, "pack", pack_jobs)
        folder = profile_folder(root, "pack") if profile else None
        proc = start_daemon(env, folder)
        prof = Profiling(proc, folder) if proc is not None else None
        try:
            res["pack"] = pack(env, root, pack_jobs, prof)
        finally:
            stop_daemon(env, proc)
    return res


#: the stages of a submission in a profile (file name end, function) -> what the stage is
STAGES = (
    ("socketserver.py", "_handle_request_noblock", "accepting thread: accept, hand the connection to a worker"),
    ("socketserver.py", "process_request_thread", "worker: a connection (read, decode, run, answer, close)"),
    ("lsfemu/protocol.py", "decode_request", "  the request decoded"),
    ("lsfemu/daemon/server.py", "serve", "  Daemon.serve: the daemon's lock, the group, the run"),
    ("lsfemu/daemon/dispatch.py", "_request", "    the request checked (argv, environment, user)"),
    ("lsfemu/engine/loop.py", "catch_up", "    the clock caught up"),
    ("lsfemu/cli/base.py", "run_command", "    the command (bsub: options, checks, the job made)"),
    ("lsfemu/options.py", "parse", "      bsub's options parsed"),
    ("lsfemu/ops/submit.py", "submit", "      ops.submit: bsub's checks and the job stored"),
    ("lsfemu/engine/jobs.py", "submit", "        Transitions.submit: job ID, row, JOB_NEW made"),
    ("lsfemu/store/counters.py", "take", "          the job ID and position taken (the transaction begun)"),
    ("lsfemu/engine/jobs.py", "new_job", "          the job's row and record"),
    ("lsfemu/engine/eventlog.py", "stage_job", "          the JOB_NEW record made"),
    ("lsfemu/engine/cluster.py", "commit", "    Cluster.commit"),
    ("lsfemu/store/newrows.py", "write", "      the jobs' and history's INSERTs"),
    ("lsfemu/engine/eventlog.py", "write_staged", "      lsb.events: JOB_NEW encoded, appended"),
    ("sqlalchemy/orm/session.py", "commit", "      Session.commit (the committed lengths' UPDATE, SQLite's commit)"),
    ("<method 'commit' of 'sqlite3.Connection' objects>", "", "        SQLite's commit itself"),
)


def profile_text(res: dict, profiled: dict, name: str, argv: list[str]) -> str:
    """The text profile of one figure (see --profile)."""
    import io
    import pstats

    fig, pfig = res[name], profiled[name]
    jobs = fig["jobs"]
    st = pstats.Stats(pfig["profile"])
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()
    lines = [f"# tests/bench/submit.py: profile of the figure '{name}' ({jobs} jobs)", "#",
             f"# command: python tests/bench/{Path(argv[0]).name} {' '.join(argv[1:])}",
             f"# commit: {commit}{' (with uncommitted changes)' if dirty else ''}",
             f"# load average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (2-core VM, shared)",
             f"# the figure unprofiled: {fig['daemon_cpu_ms_per_job']:.3f} ms daemon CPU per job, "
             f"{fig['jobs_per_s']:.0f} jobs/s",
             f"# the same run profiled: {pfig['daemon_cpu_ms_per_job']:.3f} ms daemon CPU per job "
             f"(cProfile's own cost in it), {pfig['jobs_per_s']:.0f} jobs/s",
             f"# profiled CPU in the serving threads: {st.total_tt / jobs * 1000:.3f} ms per job", "",
             "## stages: cumulative CPU per job (ms; profiled) and share of the serving threads' CPU", ""]
    for fname, func, label in STAGES:  # (the outermost of same-named functions: Session.commit calls another commit)
        cum = max((v[3] for (f, _, fn), v in st.stats.items()
                   if (f.endswith(fname) and fn == func) or (not func and fn == fname)), default=0.0)
        lines.append(f"{cum / jobs * 1000:8.3f} ms {cum / st.total_tt * 100:5.1f}%  {label}")
    for order, title, n in (("tottime", "functions by own time", 30), ("cumulative", "functions by cumulative time", 40)):
        buf = io.StringIO()
        pstats.Stats(pfig["profile"], stream=buf).sort_stats(order).print_stats(n)
        text = buf.getvalue()
        text = text[text.index("   ncalls"):] if "   ncalls" in text else text
        lines += ["", f"## {title} (top {n}; seconds over the {jobs} jobs)", "", text.rstrip()]
    return "\n".join(lines) + "\n"


def table(res: dict) -> str:
    pre = f", {res['preload']} jobs pending before" if res.get("preload") else ""
    rows = [(f"sequential submissions, 1 client{pre}", res["sequential"]),
            (f"concurrent submissions, {res['concurrent']['clients']} clients{pre}", res["concurrent"])]
    if "pack" in res:
        rows.append((f"bsub -pack of {res['pack']['jobs']} jobs", res["pack"]))
    lines = ["| figure | jobs | jobs/s | daemon CPU per job |", "| --- | --- | --- | --- |"]
    lines += [f"| {name} | {r['jobs']} | {r['jobs_per_s']:.0f} | {r['daemon_cpu_ms_per_job']:.2f} ms |"
              for name, r in rows]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=1000, help="submissions, sequential and concurrent each")
    ap.add_argument("--clients", type=int, default=16, help="concurrent client processes")
    ap.add_argument("--pack", type=int, default=10000, help="lines of the bsub -pack file (0: none)")
    ap.add_argument("--preload", type=int, default=0, help="jobs submitted first (bsub -pack, not timed)")
    ap.add_argument("--profile", metavar="PREFIX",
                    help="also profile each figure: PREFIX-sequential.txt, -concurrent.txt, -pack.txt")
    ap.add_argument("--json", default=str(ROOT / "bench-submit.json"))
    args = ap.parse_args()
    res = run(args.jobs, args.clients, args.pack, False, args.preload)
    res["load"] = os.getloadavg()
    Path(args.json).write_text(json.dumps(res, indent=1))
    print(table(res))
    print(f"load average {res['load'][0]:.1f}")
    if args.profile:
        profiled = run(args.jobs, args.clients, args.pack, True, args.preload)
        for name in ("sequential", "concurrent", "pack"):
            if name in profiled:
                path = Path(f"{args.profile}-{name}.txt")
                path.write_text(profile_text(res, profiled, name, sys.argv))
                print(f"profile of '{name}': {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
