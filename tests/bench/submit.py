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

``--profile FILE`` runs the daemon with every request profiled (cProfile,
the request's execution under the daemon's lock: dispatch.handle and
handle_group) and writes the stats of the sequential and concurrent submissions to FILE
(``python -m pstats FILE``). ``--json`` writes the figures
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

# The daemon with dispatch.handle profiled (one request at a time: it runs
# under the daemon's lock); the stats written when it stops.
PROFILED = """
import cProfile, sys
from lsfemu.daemon import dispatch, server
prof = cProfile.Profile()
def profiled(fn):
    def run(*a, **k):
        prof.enable()
        try:
            return fn(*a, **k)
        finally:
            prof.disable()
    return run
dispatch.handle = profiled(dispatch.handle)
dispatch.handle_group = profiled(dispatch.handle_group)
rc = server.main()
prof.dump_stats(sys.argv[1])
sys.exit(rc)
"""

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
    if profile is None:
        run_ok(command("lsfemu") + ["daemon", "start"], env)
        return None
    p = subprocess.Popen([sys.executable, "-c", PROFILED, profile], env=env, cwd=ROOT,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sock = Path(env["LSFEMU_HOME"]) / "mbatchd.sock"
    deadline = time.monotonic() + 60
    while not sock.exists():
        if time.monotonic() > deadline or p.poll() is not None:
            raise RuntimeError("the profiled daemon did not start")
        time.sleep(0.05)
    return p


def stop_daemon(env: dict[str, str], proc: subprocess.Popen | None) -> None:
    if proc is None:
        subprocess.run(command("lsfemu") + ["daemon", "stop"], env=env, capture_output=True)
        return
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)


def clients(env: dict[str, str], n_clients: int, jobs: int) -> dict:
    """*jobs* submissions from *n_clients* processes at once."""
    each = [jobs // n_clients + (1 if i < jobs % n_clients else 0) for i in range(n_clients)]
    procs = [subprocess.Popen([sys.executable, "-c", CLIENT, str(k), *ARGS], env=env, cwd=ROOT,
                              stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in each]
    time.sleep(1.0)  # every client imported and waiting (not timed)
    pid = daemon_pid(env)
    c0, t0 = cpu_s(pid), time.perf_counter()
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        _, err = p.communicate(timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"a client failed: {err[-2000:]}")
    wall, cpu = time.perf_counter() - t0, cpu_s(pid) - c0
    return {"clients": n_clients, "jobs": jobs, "wall_s": wall, "jobs_per_s": jobs / wall,
            "daemon_cpu_ms_per_job": cpu / jobs * 1000}


def pack(env: dict[str, str], root: Path, jobs: int) -> dict:
    f = root / "pack.txt"
    f.write_text("".join(f"-o /dev/null -J p{i} sleep 1000\n" for i in range(jobs)))
    pid = daemon_pid(env)
    c0, t0 = cpu_s(pid), time.perf_counter()
    out = run_ok(command("bsub") + ["-pack", str(f)], env)
    wall, cpu = time.perf_counter() - t0, cpu_s(pid) - c0
    if out.count("is submitted") != jobs:
        raise RuntimeError(f"bsub -pack submitted {out.count('is submitted')} of {jobs}")
    return {"jobs": jobs, "wall_s": wall, "jobs_per_s": jobs / wall, "daemon_cpu_ms_per_job": cpu / jobs * 1000}


def packing_env(root: Path, name: str, jobs: int) -> dict[str, str]:
    env = cluster_env(root, name)
    conf = Path(env["LSF_ENVDIR"]) / "lsf.conf"
    conf.write_text(conf.read_text() + f"LSB_MAX_PACK_JOBS={max(jobs, 1)}\n")
    return env


def run(jobs: int, n_clients: int, pack_jobs: int, profile: str | None = None, preload: int = 0) -> dict:
    root = Path(tempfile.mkdtemp(prefix="lsfemu-bench-submit-"))
    res: dict = {"preload": preload}
    env = packing_env(root, "seq", preload)
    proc = start_daemon(env, profile)
    try:
        if preload:
            pack(env, root, preload)
        res["sequential"] = clients(env, 1, jobs)
        res["concurrent"] = clients(env, n_clients, jobs)
    finally:
        stop_daemon(env, proc)
    if pack_jobs:
        env = packing_env(root, "pack", pack_jobs)
        start_daemon(env, None)
        try:
            res["pack"] = pack(env, root, pack_jobs)
        finally:
            stop_daemon(env, None)
    return res


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
    ap.add_argument("--profile", help="profile the daemon's requests into this file")
    ap.add_argument("--json", default=str(ROOT / "bench-submit.json"))
    args = ap.parse_args()
    res = run(args.jobs, args.clients, args.pack, args.profile, args.preload)
    res["load"] = os.getloadavg()
    Path(args.json).write_text(json.dumps(res, indent=1))
    print(table(res))
    print(f"load average {res['load'][0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
