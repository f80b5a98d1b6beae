"""The lsfemu benchmark: `python tests/bench/run.py` (see README, "Benchmark").

Measures, side by side in one run, the median wall time of LSF commands
against the floor `python3 -c pass` (same interpreter), on a warm daemon with
100 jobs in the store, and prints the ratios as a table; the figures are
also written as JSON (bench-results.json, or --json PATH).

Targets (issue 2): bjobs and bsub each at most 2.5 x the floor.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def command(name: str) -> list[str]:
    """bin/NAME as its shebang runs it (`python3 -I -S`), by this interpreter."""
    return [sys.executable, "-I", "-S", str(ROOT / "bin" / name)]


def timed(argv: list[str], env: dict[str, str]) -> float:
    return timed_cpu(argv, env)[0]


def timed_cpu(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and the process's CPU time (user + system, from wait4: less
    sensitive to the machine's load than wall) of one command."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    p.stderr.close()
    p.returncode = rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        raise RuntimeError(f"{argv} failed ({rc}): {err.decode()[-2000:]}")
    return dt, usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30, help="runs of each command (interleaved)")
    ap.add_argument("--jobs", type=int, default=100, help="jobs in the store")
    ap.add_argument("--json", default=str(ROOT / "bench-results.json"))
    args = ap.parse_args()

    from lsfemu.config.sample import write_cluster

    root = Path(tempfile.mkdtemp(prefix="lsfemu-bench-"))
    env = dict(os.environ)
    env.update({"LSF_ENVDIR": str(write_cluster(str(root / "conf"))), "LSFEMU_HOME": str(root / "home"),
                "LSFEMU_USER": "user1", "TZ": "UTC"})
    env.pop("LSFEMU_DAEMON", None)
    try:
        # Fill the store (this also starts and warms the daemon).
        for i in range(args.jobs):
            timed(command("bsub") + ["-J", f"fill{i}", "sleep", "100000"], env)
        cases = {
            "python3 -c pass (floor)": [sys.executable, "-c", "pass"],
            "bjobs": command("bjobs"),
            "bsub": command("bsub") + ["sleep", "100000"],
        }
        samples: dict[str, list[float]] = {k: [] for k in cases}
        for _ in range(3):  # warm-up
            for argv in cases.values():
                timed(argv, env)
        for _ in range(args.runs):
            for name, argv in cases.items():  # interleaved: same conditions for all
                samples[name].append(timed(argv, env))
        floor = statistics.median(samples["python3 -c pass (floor)"])
        rows = []
        result = {"jobs_in_store": args.jobs, "runs": args.runs, "floor_s": floor, "commands": {}}
        for name, s in samples.items():
            med = statistics.median(s)
            ratio = med / floor
            target = None if name.startswith("python3") else 2.5
            rows.append((name, f"{med * 1000:.1f}", f"{ratio:.2f}", "-" if target is None else f"<= {target}",
                         "-" if target is None else ("ok" if ratio <= target else "MISSED")))
            result["commands"][name] = {"median_s": med, "ratio": ratio, "target": target}
        try:
            from tabulate import tabulate

            print(tabulate(rows, headers=["command", "median ms", "ratio", "target", ""]))
        except ImportError:
            for r in rows:
                print("  ".join(r))
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
        print(f"\n{args.jobs} jobs in the store, {args.runs} interleaved runs each; JSON in {args.json}")
        return 0 if all(r[4] != "MISSED" for r in rows) else 1
    finally:
        subprocess.run(command("lsfemu") + ["daemon", "stop"], env=env, capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
