"""Commands of two checkouts side by side (issue 23): an A/B of the command path.

    git worktree add --detach /tmp/base main        # the "before"
    python tests/bench/ab.py --base /tmp/base --jobs 10000 --runs 11

Each checkout gets the latency group's cluster (tests/bench/latency.py: its
queues and parameters, *--jobs* jobs of 100 users bulk-filled, a probe job,
ten minutes of the virtual clock) and its own daemon, started from that
checkout (its bin/, its lsfemu). Each command is warmed once on both (what a
daemon keeps -- bhist's index, the kept table lines -- is made before the
rounds), then timed in *--runs* rounds: in each round every command runs on
both checkouts, the pair's order alternating, and both clocks move a minute
after it (passes run, pending times move). Printed per command and checkout:
the median CPU of the command's process (wait4), the mean CPU the daemon
spent meanwhile (/proc, clock ticks: average many rounds) and the median
wall time; ``floor`` and ``floor-plain`` are ``python -I -S -c pass`` and
``python -c pass``. CPU, not wall, is what a loaded machine leaves
comparable; the daemons run side by side, so both see the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import daemon_pid, process_cpu
from run import timed_cpu

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

DEFAULT = ("floor", "floor-plain", "bjobs", "bjobs -u all", "bjobs -l ID", "bqueues", "busers", "lsid",
           "bsub -q priority sleep 100000", "bhist", "bhist -l ID")

# run by each checkout's interpreter with that checkout's tests/bench first on sys.path
_SETUP = """
import json, sys
from pathlib import Path
from fill import START, Bulk, bulk_submit
from harness import cluster_env, command, run_ok
from latency import LATENCY_PARAMS, LATENCY_QUEUES
root, jobs = sys.argv[1], int(sys.argv[2])
lsb = "lsbatch/cluster1/configdir"
env = cluster_env(Path(root), "ab", {f"{lsb}/lsb.queues": LATENCY_QUEUES, f"{lsb}/lsb.params": LATENCY_PARAMS})
bulk_submit(env["LSF_ENVDIR"], env["LSFEMU_HOME"], Bulk(n=jobs, users=[f"user{i}" for i in range(1, 101)],
            queues=["normal", "priority"], runtimes=(60, 7200)), t=START)
run_ok(command("lsfemu") + ["daemon", "start"], env)
out = run_ok(command("bsub") + ["-J", "probe", "sleep", "100000"], env)
run_ok(command("lsfemu") + ["clock", "advance", "600"], env)
print(json.dumps({"env": env, "jid": out.split("<", 1)[1].split(">", 1)[0]}))
"""


def setup(checkout: Path, root: Path, jobs: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = f"{checkout / 'tests' / 'bench'}{os.pathsep}{checkout}"
    p = subprocess.run([sys.executable, "-c", _SETUP, str(root), str(jobs)], env=env, capture_output=True,
                       text=True, cwd=checkout)
    if p.returncode != 0:
        raise RuntimeError(f"setting up {checkout}: {p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def argv_of(checkout: Path, case: str, jid: str) -> list[str]:
    if case == "floor":
        return [sys.executable, "-I", "-S", "-c", "pass"]
    if case == "floor-plain":
        return [sys.executable, "-c", "pass"]
    words = case.split()
    return [sys.executable, "-I", "-S", str(checkout / "bin" / words[0])] + [w.replace("ID", jid) for w in words[1:]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the other checkout (the 'before')")
    ap.add_argument("--jobs", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("commands", nargs="*", default=list(DEFAULT), help="commands (ID: the probe job's)")
    args = ap.parse_args()
    sides = {"base": Path(args.base).resolve(), "this": ROOT}
    with tempfile.TemporaryDirectory(prefix="lsfemu-ab-") as tmp:
        cfg = {}
        try:
            for name, checkout in sides.items():
                (Path(tmp) / name).mkdir()
                cfg[name] = setup(checkout, Path(tmp) / name, args.jobs)
            res: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
            for case in args.commands:  # warm: what each daemon keeps is made before the rounds
                for name, checkout in sides.items():
                    timed_cpu(argv_of(checkout, case, cfg[name]["jid"]), cfg[name]["env"])
            for r in range(args.runs):
                for case in args.commands:
                    for name in (("base", "this") if r % 2 else ("this", "base")):
                        env = cfg[name]["env"]
                        pid = daemon_pid(env)
                        before = process_cpu(pid)
                        wall, cpu = timed_cpu(argv_of(sides[name], case, cfg[name]["jid"]), env)
                        res.setdefault((case, name), []).append((wall, cpu, process_cpu(pid) - before))
                for name, checkout in sides.items():
                    subprocess.run(argv_of(checkout, "lsfemu clock advance 60", ""), env=cfg[name]["env"],
                                   capture_output=True)
        finally:
            for name, checkout in sides.items():
                if name in cfg:
                    subprocess.run(argv_of(checkout, "lsfemu daemon stop", ""), env=cfg[name]["env"],
                                   capture_output=True)
    print(f"{args.jobs} jobs, {args.runs} rounds; CPU client (median) / daemon (mean), wall (median); "
          f"base {sides['base']}, this {sides['this']}")
    for case in args.commands:
        cells = []
        for name in sides:
            s = res[(case, name)]
            cells.append(f"{name}: {statistics.median(x[1] for x in s) * 1e3:6.1f} / "
                         f"{statistics.fmean(x[2] for x in s) * 1e3:6.1f} ms, {statistics.median(x[0] for x in s) * 1e3:5.0f} ms")
        print(f"{case:32s} " + "   ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
