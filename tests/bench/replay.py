"""Replay benchmark: `python tests/bench/replay.py [--events 1000000]` (see README, "Benchmark").

Generates synthetic lsb.events files (lsfemu.events.synth) of a tenth of
--events and of --events records, and measures on each, side by side:

* the floor: reading the file and splitting its lines in plain Python, in
  this process;
* `lsfemu replay FILE --into DIR` and `bhist -t -a -u all -f FILE`, each as a
  process of its own: wall time (ratio to the floor), CPU time (user +
  system, from wait4's rusage; ratio to the floor's CPU time: the figure to
  trust on a loaded machine) and peak resident memory (wait4's rusage).

The memory peak must be flat in the file's length (issue 5): the table
shows both sizes, and the JSON (bench-replay.json, or --json PATH) has every
figure.

``--base DIR --pairs N`` (an A/B): the same commands of this checkout and of
the checkout DIR (``git worktree add --detach /tmp/base main``) on the larger
file only, in N interleaved pairs (the pair's order alternating); printed:
the median CPU of each, and their ratio. ``--profile DIR``: instead of the
table, each of the two commands run once on the larger file under cProfile
(this checkout, its own process as measured, on the process's CPU clock),
written to DIR/bhist-t-f.txt and DIR/replay.txt (docs/profiles/): a header
(the command, the commit, the machine's load, the CPU time against the
floor's), the functions by their own time (top 30), then the stages by
cumulative time.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import run_measured  # noqa: E402  (the launcher: a command's wall, peak RSS and CPU)


def floor(path: Path, clock=time.perf_counter) -> float:
    """Reading the file and splitting its lines (*clock*: time.process_time for its CPU time)."""
    t0 = clock()
    n = 0
    with open(path, "rb") as fh:
        for line in fh:
            n += len(line.split())
    return clock() - t0


def least_render(path: Path) -> float:
    """A reference for `bhist -t`, not a floor: the least any Python
    renderer of it does per record -- read the line as text, split it on
    blanks (no quoted strings honoured, nothing checked), format its event
    time (memoised per second) and write one line naming the job and the
    record type. No history, no fields beyond those, no validation."""
    cache: dict[str, str] = {}
    t0 = time.perf_counter()
    with open(path, encoding="utf-8") as fh, open(os.devnull, "w") as out:
        for line in fh:
            f = line.split()
            if len(f) < 4:
                continue
            when = cache.get(f[2])
            if when is None:
                when = cache[f[2]] = time.strftime("%a %b %d %H:%M:%S", time.localtime(int(f[2])))
            out.write(f"{when}: Job <{f[3]}>, {f[0]};\n")
    return time.perf_counter() - t0


def _commands(checkout: Path, path: Path, into: Path, no_bhist: bool, no_replay: bool = False) -> dict[str, list[str]]:
    """The measured commands of *checkout* on *path* (the replay into *into*)."""
    out = {}
    if not no_replay:
        out["replay"] = [sys.executable, str(checkout / "bin" / "lsfemu"), "replay", str(path), "--into", str(into),
                         "--no-progress"]
    if not no_bhist:
        out["bhist"] = [sys.executable, str(checkout / "bin" / "bhist"), "-t", "-a", "-u", "all", "-f", str(path)]
    return out


_PROFILE = """
import cProfile, io, os, pstats, runpy, sys, time
out, head, script = sys.argv[1], sys.argv[2], sys.argv[3]
sys.argv = sys.argv[3:]
prof = cProfile.Profile(time.process_time)
stdout = sys.stdout
sys.stdout = open(os.devnull, "w")
t0 = time.process_time()
try:
    prof.runcall(runpy.run_path, script, run_name="__main__")
except SystemExit:
    pass
cpu = time.process_time() - t0
sys.stdout = stdout
text = io.StringIO()
st = pstats.Stats(prof, stream=text)
st.sort_stats("tottime").print_stats(30)
st.sort_stats("cumulative").print_stats(30)
load = open("/proc/loadavg").read().split()[:3]
open(out, "w").write(head.format(cpu=cpu, load=" ".join(load)) + text.getvalue())
"""


def ab_or_profile(args: argparse.Namespace, write_events) -> int:
    """--base (A/B pairs) or --profile on a file of --events records."""
    root = Path(tempfile.mkdtemp(prefix="lsfemu-bench-replay-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
    env["TZ"] = "UTC"
    try:
        path = root / "lsb.events"
        write_events(path, args.events)
        base_cpu = min(floor(path, time.process_time) for _ in range(3))
        print(f"{args.events} events, floor {base_cpu:.2f} s CPU")
        if args.profile:
            commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True).stdout.strip()
            for name, argv in _commands(ROOT, path, root / "into", args.no_bhist, args.no_replay).items():
                target = Path(args.profile) / ("bhist-t-f.txt" if name == "bhist" else "replay.txt")
                shown = " ".join(a.replace(str(root), "$TMP").replace(str(ROOT) + "/", "") for a in argv[1:])
                head = (f"# `{shown}` under cProfile (its own process, the process's CPU clock)\n"
                        f"# written by: python tests/bench/replay.py --events {args.events} --profile {args.profile}\n"
                        f"# commit {commit}; synthetic lsb.events of {args.events} records (events.synth);"
                        f" load average at the end {{load}}\n"
                        f"# CPU {{cpu:.1f}} s under the profiler; the floor (read + split) {base_cpu:.2f} s CPU\n#\n")
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-c", _PROFILE, str(target), head, *argv[1:]], env=env, check=True)
                print(f"{name}: profile in {target} ({time.perf_counter() - t0:.1f} s wall)")
                shutil.rmtree(root / "into", ignore_errors=True)
            return 0
        sides = {"new": ROOT, "base": Path(args.base).resolve()}
        cpu: dict[tuple[str, str], list[float]] = {}
        for i in range(args.pairs):
            for side in (("new", "base") if i % 2 == 0 else ("base", "new")):
                for name, argv in _commands(sides[side], path, root / "into", args.no_bhist, args.no_replay).items():
                    _dt, _rss, c = run_measured(argv, env)
                    cpu.setdefault((name, side), []).append(c)
                    shutil.rmtree(root / "into", ignore_errors=True)
            print(f"pair {i + 1} done", file=sys.stderr)
        for name in ("bhist", "replay"):
            if (name, "new") not in cpu:
                continue
            new, base = statistics.median(cpu[name, "new"]), statistics.median(cpu[name, "base"])
            print(f"{name:>7}: base {base:6.2f} s CPU ({base / base_cpu:5.1f}x floor)  new {new:6.2f} s CPU "
                  f"({new / base_cpu:5.1f}x floor)  new/base {new / base:.3f}   "
                  f"(new {[round(c, 2) for c in cpu[name, 'new']]}, base {[round(c, 2) for c in cpu[name, 'base']]})")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000, help="records in the larger file")
    ap.add_argument("--json", default=str(ROOT / "bench-replay.json"))
    ap.add_argument("--no-bhist", action="store_true", help="measure only lsfemu replay")
    ap.add_argument("--no-replay", action="store_true", help="with --base or --profile: only bhist -t")
    ap.add_argument("--base", help="another checkout: interleaved A/B pairs against it (see the docstring)")
    ap.add_argument("--pairs", type=int, default=5, help="A/B pairs (with --base)")
    ap.add_argument("--profile", help="cProfile each command once on the larger file into PATH (see the docstring)")
    args = ap.parse_args()

    from lsfemu.events.synth import write_events

    if args.base or args.profile:
        return ab_or_profile(args, write_events)

    root = Path(tempfile.mkdtemp(prefix="lsfemu-bench-replay-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
    env["TZ"] = "UTC"
    lsfemu = [sys.executable, str(ROOT / "bin" / "lsfemu")]
    bhist = [sys.executable, str(ROOT / "bin" / "bhist")]
    results = []
    try:
        for n in (args.events // 10, args.events):
            path = root / f"lsb.events.{n}"
            t0 = time.perf_counter()
            jobs = write_events(path, n)
            gen = time.perf_counter() - t0
            base = min(floor(path) for _ in range(3))
            base_cpu = min(floor(path, time.process_time) for _ in range(3))
            row = {"events": n, "jobs": jobs, "bytes": path.stat().st_size, "generate_s": gen, "floor_s": base,
                   "floor_cpu_s": base_cpu}
            into = root / f"into{n}"
            dt, rss, cpu = run_measured(lsfemu + ["replay", str(path), "--into", str(into), "--no-progress"], env)
            row.update(replay_s=dt, replay_ratio=dt / base, replay_rss_mb=rss, replay_cpu_s=cpu,
                       replay_cpu_ratio=cpu / base_cpu)
            shutil.rmtree(into, ignore_errors=True)
            if not args.no_bhist:
                dt, rss, cpu = run_measured(bhist + ["-t", "-a", "-u", "all", "-f", str(path)], env)
                row.update(bhist_s=dt, bhist_ratio=dt / base, bhist_rss_mb=rss, bhist_cpu_s=cpu,
                           bhist_cpu_ratio=cpu / base_cpu)
            path.unlink()
            results.append(row)
            print(f"{n} events done", file=sys.stderr)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    head = f"{'events':>9} {'floor s (cpu)':>14} {'replay s (cpu)':>15} {'x floor (cpu)':>14} {'RSS MB':>7}"
    if not args.no_bhist:
        head += f" {'bhist -t s (cpu)':>17} {'x floor (cpu)':>14} {'RSS MB':>7}"
    print(head)
    for r in results:
        line = (f"{r['events']:>9} {r['floor_s']:>6.2f} ({r['floor_cpu_s']:5.2f}) "
                f"{r['replay_s']:>7.1f} ({r['replay_cpu_s']:5.1f}) "
                f"{r['replay_ratio']:>6.1f} ({r['replay_cpu_ratio']:5.1f}) {r['replay_rss_mb']:>7}")
        if not args.no_bhist:
            line += (f" {r['bhist_s']:>9.1f} ({r['bhist_cpu_s']:5.1f}) "
                     f"{r['bhist_ratio']:>6.1f} ({r['bhist_cpu_ratio']:5.1f}) {r['bhist_rss_mb']:>7}")
        print(line)
    small, large = results
    growth = large["replay_rss_mb"] / max(1, small["replay_rss_mb"])
    print(f"replay memory peak, {large['events']} vs {small['events']} events: x{growth:.2f} "
          f"({'flat' if growth < 1.25 else 'GROWS'})")
    Path(args.json).write_text(json.dumps({"runs": results, "replay_rss_growth": growth}, indent=1) + "\n")
    return 0 if growth < 1.25 else 1


if __name__ == "__main__":
    sys.exit(main())
