"""What the benchmark's groups share (issue 8, issue 23): the commands of this
checkout, a cluster made for one group, its daemon, timing commands
interleaved against the interpreter's own floors.

tests/bench/all.py (the benchmark) and tests/bench/peer.py (lsfemu beside
volclava) use it; run as scripts, each puts this folder on sys.path.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

from fill import START
from run import command, timed_cpu  # bin/NAME as its shebang runs it; one timed client call (tests/bench/run.py)

ROOT = Path(__file__).resolve().parents[2]


# Linux carries a process's peak RSS over fork and exec: a command forked by
# this (by now large) process would report this process's peak as its own.
# A small launcher process forks it instead and reports its wall time and
# peak RSS (wait4).
_LAUNCHER = """
import os, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = p.stderr.read()
_, status, ru = os.wait4(p.pid, 0)
dt = time.perf_counter() - t0
sys.stderr.write(err.decode(errors="replace")[-2000:])
sys.stderr.write(f"\\nLAUNCHER {dt} {ru.ru_maxrss} {os.waitstatus_to_exitcode(status)} {ru.ru_utime + ru.ru_stime}\\n")
"""


def run_measured(argv: list[str], env: dict[str, str]) -> tuple[float, int, float]:
    """(wall seconds, peak RSS in MB, CPU seconds) of one command, run by _LAUNCHER."""
    p = subprocess.run([sys.executable, "-c", _LAUNCHER, *argv], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    lines = p.stderr.rstrip().splitlines()
    if not lines or not lines[-1].startswith("LAUNCHER "):
        raise RuntimeError(f"{argv}: launcher failed: {p.stderr[-2000:]}")
    _, dt, rss, rc, cpu = lines[-1].split()
    if int(rc) != 0:
        raise RuntimeError(f"{argv} failed ({rc}): {chr(10).join(lines[:-1])[-2000:]}")
    return float(dt), int(rss) // 1024, float(cpu)


def run_ok(argv: list[str], env: dict[str, str]) -> str:
    p = subprocess.run(argv, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{argv} failed ({p.returncode}): {p.stderr[-2000:]}")
    return p.stdout


def cluster_env(root: Path, name: str, files: dict[str, str] | None = None) -> dict[str, str]:
    """A fresh virtual-clock cluster under *root*: the environment of its commands."""
    from lsfemu.config.sample import write_cluster

    envdir = Path(write_cluster(str(root / f"conf-{name}"), clock="virtual"))
    for rel, text in (files or {}).items():
        (envdir / rel).write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
    env.update({"LSF_ENVDIR": str(envdir), "LSFEMU_HOME": str(root / f"home-{name}"), "LSFEMU_USER": "user1",
                "TZ": "UTC", "LSFEMU_CLOCK_START": str(int(START))})
    # The suite's smoke run (test_bench_quick.py) hands down its daemon template
    # (lsfemu.daemon.forkserver): its daemons are forked from it, not started
    # anew (~1 s of imports each). A benchmark run has none: cold starts.
    if os.environ.get("LSFEMU_FORKSERVER"):
        env["LSFEMU_FORKSERVER"] = os.environ["LSFEMU_FORKSERVER"]
    return env


# `lsfemu daemon start` without typer (~0.4 s of CPU a start): the client's own start
_START = ("import sys; sys.path.insert(0, sys.argv[1]); from lsfemu.client import start_daemon, state_dir; "
          "start_daemon(state_dir())")


@contextlib.contextmanager
def daemon(env: dict[str, str]):
    run_ok([sys.executable, "-I", "-S", "-c", _START, str(ROOT)], env)
    try:
        yield
    finally:
        subprocess.run(command("lsfemu") + ["daemon", "stop"], env=env, capture_output=True)


def daemon_memory(env: dict[str, str]) -> dict[str, int]:
    pid = daemon_pid(env)
    st = {}
    for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM"):
            st[k] = int(v.split()[0]) // 1024
    return st


def floors() -> dict[str, list[str]]:
    """The interpreter that runs the commands, doing nothing: plain and isolated (-I -S).
    Always sys.executable itself, never a shim (a pyenv shim is a shell script)."""
    return {"python -c pass": [sys.executable, "-c", "pass"],
            "python -I -S -c pass": [sys.executable, "-I", "-S", "-c", "pass"]}


def interleaved(cases: dict[str, list[str]], env: dict[str, str] | dict[str, dict[str, str]], runs: int,
                warmup: int = 2, between=None, cpu: dict[str, list[float]] | None = None,
                daemon_pid: int | None = None, daemon_cpu: dict[str, list[float]] | None = None
                ) -> dict[str, list[float]]:
    """Wall times of each case, *runs* rounds, each round every case once in
    an order rotated every round (timecmp.py's way: load drifts alike for
    all); *between(round)* runs untimed after each round. *env*: one
    environment for all, or one per case (keyed like *cases*). *cpu*, when
    given, gets each case's CPU times (the command's process); *daemon_cpu*
    the CPU the daemon *daemon_pid* spent during each (clock ticks: average them)."""
    names = list(cases)
    envs = env if set(env) == set(names) and all(isinstance(v, dict) for v in env.values()) \
        else {k: env for k in names}
    samples: dict[str, list[float]] = {k: [] for k in names}
    for _ in range(warmup):  # the daemon's caches, the page cache
        for k in names:
            timed_cpu(cases[k], envs[k])
    for r in range(runs):
        for j in range(len(names)):
            name = names[(r + j) % len(names)]
            before = process_cpu(daemon_pid) if daemon_pid is not None else 0.0
            wall, used = timed_cpu(cases[name], envs[name])
            samples[name].append(wall)
            if cpu is not None:
                cpu.setdefault(name, []).append(used)
            if daemon_pid is not None and daemon_cpu is not None:
                daemon_cpu.setdefault(name, []).append(process_cpu(daemon_pid) - before)
        if between is not None:
            between(r)
    return samples


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) process *pid* has used so far (/proc, in clock ticks)."""
    fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def daemon_pid(env: dict[str, str]) -> int:
    return int((Path(env["LSFEMU_HOME"]) / "mbatchd.lock").read_text().split()[0])


def pct(values: list[float], p: float) -> float:
    """The *p*th percentile (nearest rank) of *values*."""
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]
