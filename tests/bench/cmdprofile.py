"""The latency group's profile (issue 23): ``tests/bench/all.py --only latency
--profile PATH`` writes, after the timed rounds, where each command's time
goes, per command at the group's size:

* the figures of the timed rounds: wall, the command's CPU (its process:
  the interpreter's start, the imports, the call) and the daemon's for it;
* the client's imports (``python -X importtime`` of the command, run once
  against the daemon: the lsfemu modules' and the standard library's
  cumulative import times);
* the daemon's side, in this process: the group's store loaded by the same
  engine (the daemon stopped first), each command's request run through
  ``lsfemu.daemon.dispatch.handle`` as the daemon runs it, in *runs* rounds
  with the virtual clock moving a minute between rounds, as in the timed
  rounds; its CPU (median, no profiler), and for each command over its
  target (and each listing of every job) a cProfile of as many calls (each round, after the timed ones and
  another minute of the clock): the top functions by own time and the
  top-level stages by cumulative time.

The engine is imported here only when a profile is asked for.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path

TOP_OWN = 30  # functions by own time
TOP_CUM = 18  # stages by cumulative time


def client_imports(argv: list[str], env: dict[str, str], runs: int = 7) -> list[tuple[str, int, int]]:
    """(module, own us, cumulative us) of the top-level imports of *argv*
    under ``-X importtime`` (the modules a command's client imports), each the
    least of *runs* runs (a loaded machine's time slices inflate single runs)."""
    exe, *rest = argv
    best: dict[str, tuple[int, int]] = {}
    for _ in range(runs):
        p = subprocess.run([exe, "-X", "importtime", *rest], env=env, capture_output=True, text=True)
        for line in p.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            own, cum, name = line[len("import time:"):].split("|")
            if not name.startswith("  "):  # (nested imports are indented further)
                name = name.strip()
                was = best.get(name)
                best[name] = (int(own), int(cum)) if was is None or int(cum) < was[1] else was
    return [(name, own, cum) for name, (own, cum) in best.items()]


def _stats_text(prof: cProfile.Profile, order: str, top: int) -> str:
    s = io.StringIO()
    st = pstats.Stats(prof, stream=s)
    st.strip_dirs().sort_stats(order).print_stats(top)
    text = s.getvalue()
    return text[text.find("   ncalls"):].rstrip() if "   ncalls" in text else text.rstrip()


def daemon_side(env: dict[str, str], argvs: dict[str, list[str]], runs: int, step: int,
                profiled: set[str]) -> dict[str, dict]:
    """Each command's request run in this process on the group's store (see
    the module docstring): {name: {"cpu_s": [...], "own": text, "cum": text}}."""
    os.environ["TZ"] = env.get("TZ", "UTC")
    from lsfemu.daemon import dispatch  # (the engine: only for a profile)
    from lsfemu.engine.cluster import Cluster

    cl = Cluster(env["LSF_ENVDIR"], env["LSFEMU_HOME"])

    def request(argv: list[str]) -> dict:
        return {"v": 1, "cmd": Path(argv[0]).name, "argv": argv[1:], "cwd": "/", "env": env, "stdin": None,
                "tty": False}

    def run(argv: list[str]) -> None:
        r = dispatch.handle(cl, request(argv), os.getuid())
        if r.rc != 0:
            raise RuntimeError(f"{argv}: {r.err[-500:]}")

    words = {k: _words(v) for k, v in argvs.items()}
    for w in words.values():  # warm, as the timed rounds' warm-up
        run(w)
    profs = {k: cProfile.Profile() for k in words if k in profiled}
    cpu: dict[str, list[float]] = {k: [] for k in words}
    for _ in range(runs):
        # each round: every command timed (no profiler), the clock moved, the
        # commands over target run again under the profiler, the clock moved
        for k, w in words.items():
            t0 = time.process_time()
            run(w)
            cpu[k].append(time.process_time() - t0)
        run(["lsfemu", "clock", "advance", str(step)])
        if profs:
            for k, prof in profs.items():
                prof.enable()
                run(words[k])
                prof.disable()
            run(["lsfemu", "clock", "advance", str(step)])
    cl.session.close()
    cl.engine.dispose()
    return {k: {"cpu_s": cpu[k], "own": _stats_text(profs[k], "tottime", TOP_OWN) if k in profs else "",
                "cum": _stats_text(profs[k], "cumulative", TOP_CUM) if k in profs else ""} for k in words}


def _words(argv: list[str]) -> list[str]:
    """A command's words (its name, its arguments) from the argv the rounds ran (bin/NAME's)."""
    bin_ = str(Path(__file__).resolve().parents[2] / "bin") + "/"
    for i, a in enumerate(argv):
        if a.startswith(bin_):
            return [Path(a).name, *argv[i + 1:]]
    raise ValueError(f"not a bin/ command: {argv}")


def write(path: Path, header: str, rows: dict, floors_cpu: dict, imports: dict, daemon: dict) -> None:
    """The profile file: *header*, a table of each command's figures, then
    each command's client imports and daemon profile."""
    out = [header.rstrip(), ""]
    iso = floors_cpu["python -I -S -c pass"]
    out.append(f"Floors (CPU, median): python -c pass {floors_cpu['python -c pass'] * 1e3:.1f} ms, "
               f"python -I -S -c pass {iso * 1e3:.1f} ms")
    out.append("")
    out.append(f"{'command':24s} {'wall':>7s} {'/-I -S':>7s} {'target':>7s}  {'CPU client':>10s} "
               f"{'(- floor)':>9s} {'daemon':>7s} {'in-proc':>8s}")
    for name, c in rows.items():
        d = daemon.get(name)
        inproc = f"{statistics.median(d['cpu_s']) * 1e3:6.1f}ms" if d else ""
        out.append(f"{name:24s} {c['median_s'] * 1e3:5.0f}ms {c['ratio_isolated']:7.2f} {c['target']:7.2f}  "
                   f"{c['cpu_s'] * 1e3:8.1f}ms {(c['cpu_s'] - iso) * 1e3:7.1f}ms {c['daemon_cpu_s'] * 1e3:5.1f}ms "
                   f"{inproc:>8s}")
    out.append("")
    out.append("wall: median of the timed rounds; CPU client: the command's process (median, wait4); daemon: the")
    out.append("daemon's CPU during the command (mean, /proc clock ticks); in-proc: the request run in the")
    out.append("profiling process on the same store (median CPU, no profiler).")
    for name in rows:
        out.append("")
        out.append("=" * 100)
        out.append(f"{name}")
        imp = imports.get(name)
        if imp:
            total = sum(c for _n, _o, c in imp)
            lsf = [(n, c) for n, _o, c in imp if n.split(".")[0] == "lsfemu"]
            others = sorted((x for x in imp if x[0].split(".")[0] != "lsfemu"), key=lambda x: -x[2])[:6]
            out.append(f"  client imports (-X importtime, least of 7 runs, cumulative ms): {total / 1e3:.1f} in all; lsfemu "
                       + ", ".join(f"{n} {c / 1e3:.1f}" for n, c in lsf)
                       + "; others " + ", ".join(f"{n} {c / 1e3:.1f}" for n, _o, c in others))
        d = daemon.get(name)
        if d and d["own"]:
            out.append("")
            out.append(f"  daemon side, cProfile of {len(d['cpu_s'])} requests, by own time (top {TOP_OWN}):")
            out.extend("  " + line for line in d["own"].splitlines())
            out.append("")
            out.append(f"  the same, by cumulative time (top {TOP_CUM}):")
            out.extend("  " + line for line in d["cum"].splitlines())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out) + "\n")


def header_lines(argv: list[str], root: Path) -> str:
    """Command line, commit, machine and load of this run."""
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()
    return (f"command: {' '.join(argv)}\ncommit: {commit}{' (with uncommitted changes)' if dirty else ''}\n"
            f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n")
