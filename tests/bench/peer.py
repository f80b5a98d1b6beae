"""lsfemu beside volclava (issue 23): ``python tests/bench/peer.py`` (see README, "Benchmark").

volclava (an OpenLava fork: a real batch system of LSF's lineage, in C) is
built and run by ``../shared/peer`` (``build.sh``, ``start.sh``, ...; its
README says how to time it fairly). When it is built here, this runs the
same commands, submissions and dispatch against both systems, set up alike
(the peer's host name, 8 slots, its queues ``normal`` and ``fair``, its
lsb.params: MBD_SLEEP_TIME, JOB_ACCEPT_INTERVAL 0; lsfemu on the wall clock,
its jobs run for real; every job root's, as the peer's), and prints
lsfemu / volclava ratios beside each one's ratio to the floors (the
interpreter that runs lsfemu's commands doing nothing: ``python -c pass``
and ``python -I -S -c pass``). When the peer is not built (or this is not
root, which its daemons need) it says why and exits 0: skipped.

For each size (``--sizes``, jobs in each system, the host closed so that
nothing runs):

* sequential submissions: the jobs that bring each system to the size,
  ``bsub -o /dev/null sleep 1000`` one after another, in chunks alternating
  between the systems: jobs per second, and the daemon's CPU per submission
  (mbatchd's user + system time with the children it reaped, /proc/PID/stat
  fields 14-17; lsfemu's daemon's likewise);
* command latency: ``bsub``, ``bjobs``, ``bjobs -u all``, ``bjobs -l ID``,
  ``bhist -l ID``, ``bhist -u all`` (every job's history: all jobs are
  unfinished here, so no ``-a`` is needed to list them all), ``bqueues``, medians of ``--runs`` rounds, every command of
  both systems and both floors once a round, in an order rotated every round;
* the daemon's resident memory (VmRSS).

Then dispatch: both systems emptied (the peer by ``reset.sh``, lsfemu a new
cluster), ``--dispatch`` jobs ``sleep 0`` submitted to each with the host
closed, then each system alone (never one draining while the other is
timed): host opened, ``bqueues normal`` polled every second until nothing
is pending or running: jobs per second.

Figures go to ``bench-peer.json`` (or ``--json``). The peer is stopped at the
end if this started it (``--keep`` leaves it running).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from harness import ROOT, command, daemon_memory, floors, interleaved, pct, run_ok  # noqa: E402

sys.path.insert(0, str(ROOT))

SCRIPTS = Path(os.environ.get("PEER_SCRIPTS", ROOT.parent / "shared" / "peer"))
PEER_DIR = Path(os.environ.get("PEER_DIR", "/tmp/lsfemu-peer"))
INST = PEER_DIR / "install"
TICK = os.sysconf("SC_CLK_TCK")


def skip_reason() -> str | None:
    """Why the peer cannot be measured here, or None."""
    if not (SCRIPTS / "start.sh").is_file():
        return f"no peer scripts in {SCRIPTS} (set PEER_SCRIPTS)"
    if not (INST / "bin" / "bjobs").is_file():
        return f"the peer is not built in {PEER_DIR}: run bash {SCRIPTS}/build.sh (as root; minutes)"
    if os.geteuid() != 0:
        return "the peer's daemons run as root: run this as root"
    return None


def script(name: str, *args: str) -> str:
    p = subprocess.run(["bash", str(SCRIPTS / name), *args], capture_output=True, text=True,
                       env=dict(os.environ, PEER_DIR=str(PEER_DIR)), timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"{name} failed ({p.returncode}): {p.stdout[-1500:]}{p.stderr[-1500:]}")
    return p.stdout


def peer_pids() -> dict[str, int]:
    return {name: int(pid) for pid, name in (line.split() for line in script("pids.sh").splitlines())}


def base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_", "LSFEMU_"))}


class System:
    """One of the two: how to call its commands and find its daemon."""

    def __init__(self, name: str, env: dict[str, str]):
        self.name, self.env = name, env

    def argv(self, cmd: str, *args: str) -> list[str]:
        return ([str(INST / "bin" / cmd)] if self.name == "volclava" else command(cmd)) + list(args)

    def run(self, cmd: str, *args: str) -> str:
        return run_ok(self.argv(cmd, *args), self.env)

    def daemon_pid(self) -> int:
        if self.name == "volclava":
            return peer_pids()["mbatchd"]
        return int((Path(self.env["LSFEMU_HOME"]) / "mbatchd.lock").read_text().split()[0])

    def cpu_s(self) -> float:
        """The daemon's user + system time, with its reaped children's (fields 14-17)."""
        f = Path(f"/proc/{self.daemon_pid()}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(x) for x in f[11:15]) / TICK

    def rss_mb(self) -> float:
        if self.name == "lsfemu":
            return daemon_memory(self.env)["VmRSS"]
        for line in Path(f"/proc/{self.daemon_pid()}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def queue_counts(self, queue: str) -> tuple[int, int]:
        """(PEND, RUN) of *queue* as bqueues prints them."""
        line = self.run("bqueues", queue).splitlines()[1].split()
        return int(line[-3]), int(line[-2])


def lsfemu_cluster(root: Path, host: str) -> System:
    """A new lsfemu cluster set up as the peer: its lsb.* files (standard LSF
    syntax), its one host by the peer's name, the wall clock, root allowed."""
    from lsfemu.config.sample import write_cluster

    envdir = Path(write_cluster(str(root / "conf"), clock="wall", force=True))
    lsb = envdir / "lsbatch" / "cluster1" / "configdir"
    for f in ("lsb.params", "lsb.queues", "lsb.hosts", "lsb.users"):
        if (INST / "etc" / f).exists():
            text = (INST / "etc" / f).read_text()
            # an OpenLava parameter LSF 10.1 has not (lsfemu would warn of it at every start)
            text = "".join(ln for ln in text.splitlines(True) if "DEFAULT_LIMIT_IGNORE_USER_GROUP" not in ln)
            (lsb / f).write_text(text)
    (lsb / "lsb.applications").unlink(missing_ok=True)
    # The peer's host by its name; model and type lsfemu's defaults (the peer's IntelI5 and
    # linux are OpenLava's lsf.shared names), the slots from lsb.hosts (MXJ 8) as the peer's.
    (envdir / "lsf.cluster.cluster1").write_text(
        "Begin ClusterAdmins\nAdministrators = root\nEnd ClusterAdmins\n\nBegin Host\n"
        f"HOSTNAME model type server RESOURCES\n{host} ! ! 1 (cs)\nEnd Host\n")
    conf = envdir / "lsf.conf"
    conf.write_text(conf.read_text().replace('LSF_MASTER_LIST="hostA"', f'LSF_MASTER_LIST="{host}"'))
    env = dict(base_env(), LSF_ENVDIR=str(envdir), LSFEMU_HOME=str(root / "home"), TZ="UTC")
    emu = System("lsfemu", env)
    emu.run("lsfemu", "daemon", "start")
    return emu


def peer_system() -> System:
    return System("volclava", dict(base_env(), LSF_ENVDIR=str(INST / "etc")))


def submit_id(system: System, *args: str) -> str:
    out = system.run("bsub", "-o", "/dev/null", *args)
    return out.split("<", 1)[1].split(">", 1)[0]


def fill(systems: list[System], target: int, have: dict[str, int], chunk: int) -> dict[str, dict]:
    """Sequential submissions up to *target* jobs in each system, chunks alternating."""
    spent = {s.name: {"jobs": 0, "wall_s": 0.0, "daemon_cpu_s": 0.0} for s in systems}
    while any(have[s.name] < target for s in systems):
        for s in systems:
            n = min(chunk, target - have[s.name])
            if n <= 0:
                continue
            argv = s.argv("bsub", "-o", "/dev/null", "sleep", "1000")
            c0, t0 = s.cpu_s(), time.perf_counter()
            for _ in range(n):
                p = subprocess.run(argv, env=s.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                if p.returncode != 0:
                    raise RuntimeError(f"{s.name} bsub failed: {p.stderr.decode()[-1500:]}")
            spent[s.name]["wall_s"] += time.perf_counter() - t0
            spent[s.name]["daemon_cpu_s"] += s.cpu_s() - c0
            spent[s.name]["jobs"] += n
            have[s.name] += n
    return spent


def latency(systems: list[System], ids: dict[str, str], runs: int) -> dict[str, dict]:
    cases = {"bsub": ["bsub", "-o", "/dev/null", "sleep", "1000"], "bjobs": ["bjobs"],
             "bjobs -u all": ["bjobs", "-u", "all"], "bjobs -l ID": ["bjobs", "-l", "ID"],
             "bhist -l ID": ["bhist", "-l", "ID"], "bhist -u all": ["bhist", "-u", "all"], "bqueues": ["bqueues"]}
    argvs: dict[str, list[str]] = dict(floors())
    envs = {k: systems[0].env for k in argvs}
    for s in systems:
        for name, (cmd, *args) in cases.items():
            argvs[f"{name} [{s.name}]"] = s.argv(cmd, *[ids[s.name] if a == "ID" else a for a in args])
            envs[f"{name} [{s.name}]"] = s.env
    samples = interleaved(argvs, envs, runs, warmup=2)
    return {k: {"median_s": statistics.median(v), "p10_s": pct(v, 10), "p90_s": pct(v, 90)}
            for k, v in samples.items()}


def dispatch(system: System, host: str, jobs: int, timeout: float) -> dict:
    system.run("badmin", "hclose", host)
    for _ in range(jobs):
        system.run("bsub", "-o", "/dev/null", "sleep", "0")
    c0, t0 = system.cpu_s(), time.perf_counter()
    system.run("badmin", "hopen", host)
    while True:
        time.sleep(1)
        pend, run = system.queue_counts("normal")
        wall = time.perf_counter() - t0
        if pend == run == 0 or wall > timeout:
            break
    return {"jobs": jobs, "wall_s": wall, "jobs_per_s": jobs / wall, "complete": pend == run == 0,
            "left": pend + run, "daemon_cpu_s": system.cpu_s() - c0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100,10000", help="jobs in each system for the latency runs ('': none)")
    ap.add_argument("--runs", type=int, default=30, help="interleaved rounds of the commands (>= 5)")
    ap.add_argument("--chunk", type=int, default=100, help="sequential submissions per turn")
    ap.add_argument("--dispatch", type=int, default=1000, help="sleep 0 jobs dispatched on 8 slots (0: none)")
    ap.add_argument("--dispatch-timeout", type=float, default=1800.0)
    ap.add_argument("--keep", action="store_true", help="leave the peer running")
    ap.add_argument("--json", default=str(ROOT / "bench-peer.json"))
    args = ap.parse_args()
    why = skip_reason()
    if why:
        print(f"peer.py: skipped: {why}")
        return 0
    runs = max(5, args.runs)
    sizes = sorted(int(x) for x in args.sizes.split(",") if x.strip())  # (--sizes '': the dispatch alone)
    started_here = not peer_pids()
    script("reset.sh")  # an empty history, the daemons (re)started
    host = run_ok([str(INST / "bin" / "bhosts")], peer_system().env).splitlines()[1].split()[0]
    root = Path(tempfile.mkdtemp(prefix="lsfemu-bench-peer-"))
    res: dict = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                             "platform": platform.platform(), "load_before": os.getloadavg(),
                             "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
                 "host": host, "runs": runs, "sizes": {}}
    emu = None
    try:
        peer = peer_system()
        emu = lsfemu_cluster(root / "latency", host)
        systems = [peer, emu]
        for s in systems:
            s.run("badmin", "hclose", host)
        ids = {s.name: submit_id(s, "-J", "probe", "sleep", "1000") for s in systems}
        have = {s.name: 1 for s in systems}
        for n in sizes:
            print(f"[peer] {n} jobs in each ...", file=sys.stderr, flush=True)
            fig = {"submit": fill(systems, n, have, args.chunk)}
            fig["latency"] = latency(systems, ids, runs)
            fig["rss_mb"] = {s.name: s.rss_mb() for s in systems}
            fig["jobs"] = dict(have)
            res["sizes"][str(n)] = fig
            Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
        run_ok(command("lsfemu") + ["daemon", "stop"], emu.env)
        emu = None
        if args.dispatch:
            print(f"[peer] dispatch of {args.dispatch} jobs ...", file=sys.stderr, flush=True)
            script("reset.sh")
            emu = lsfemu_cluster(root / "dispatch", host)
            res["dispatch"] = {s.name: dispatch(s, host, args.dispatch, args.dispatch_timeout)
                               for s in (peer_system(), emu)}
        res["machine"]["load_after"] = os.getloadavg()
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    finally:
        if emu is not None:
            subprocess.run(command("lsfemu") + ["daemon", "stop"], env=emu.env, capture_output=True)
        if started_here and not args.keep:
            script("stop.sh", "--kill-jobs")
        shutil.rmtree(root, ignore_errors=True)
    print(render(res))
    print(f"\nJSON in {args.json}")
    return 0


def render(res: dict) -> str:
    """The issue's table: each figure for volclava and lsfemu, lsfemu / volclava,
    and each one's ratio to the floors (python -c pass / python -I -S -c pass)."""
    rows = [("figure", "volclava", "lsfemu", "lsfemu / volclava", "volclava / floors", "lsfemu / floors")]

    def ms(x: float) -> str:
        return f"{x * 1000:.0f} ms"

    for n, fig in res["sizes"].items():
        lat = fig["latency"]
        fl = (lat["python -c pass"]["median_s"], lat["python -I -S -c pass"]["median_s"])
        rows.append((f"floors, python -c pass / -I -S ({n} jobs)", "", f"{ms(fl[0])} / {ms(fl[1])}", "", "", ""))
        for name in ("bsub", "bjobs", "bjobs -u all", "bjobs -l ID", "bhist -l ID", "bhist -u all", "bqueues"):
            p, e = lat[f"{name} [volclava]"]["median_s"], lat[f"{name} [lsfemu]"]["median_s"]
            rows.append((f"{name} ({n} jobs)", ms(p), ms(e), f"{e / p:.2f}",
                         f"{p / fl[0]:.2f} / {p / fl[1]:.2f}", f"{e / fl[0]:.2f} / {e / fl[1]:.2f}"))
        sub = fig["submit"]
        if all(sub[k]["jobs"] for k in sub):
            rate = {k: v["jobs"] / v["wall_s"] for k, v in sub.items()}
            cpu = {k: v["daemon_cpu_s"] / v["jobs"] for k, v in sub.items()}
            jobs = sub["lsfemu"]["jobs"]
            rows.append((f"sequential submissions ({jobs} to reach {n})", f"{rate['volclava']:.0f} jobs/s",
                         f"{rate['lsfemu']:.0f} jobs/s", f"{rate['lsfemu'] / rate['volclava']:.2f}", "", ""))
            rows.append((f"daemon CPU per submission ({n})", f"{cpu['volclava'] * 1000:.2f} ms",
                         f"{cpu['lsfemu'] * 1000:.2f} ms", f"{cpu['lsfemu'] / max(cpu['volclava'], 1e-9):.2f}", "", ""))
        m = fig["rss_mb"]
        rows.append((f"daemon memory at {n} jobs", f"{m['volclava']:.0f} MB", f"{m['lsfemu']:.0f} MB",
                     f"{m['lsfemu'] / m['volclava']:.2f}", "", ""))
    if "dispatch" in res:
        d = res["dispatch"]
        p, e = d["volclava"], d["lsfemu"]
        note = "" if p["complete"] and e["complete"] else " (timed out: see JSON)"
        rows.append((f"dispatch of {p['jobs']} sleep 0 jobs, 8 slots{note}", f"{p['jobs_per_s']:.1f} jobs/s",
                     f"{e['jobs_per_s']:.1f} jobs/s", f"{e['jobs_per_s'] / p['jobs_per_s']:.2f}", "", ""))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    m = res["machine"]
    lines.append(f"\n{m['cpus']} CPUs, Python {m['python']}, {m['platform']}, {m['date']}, load "
                 f"{m['load_before'][0]:.1f} before, {m.get('load_after', [float('nan')])[0]:.1f} after; "
                 f"medians of {res['runs']} interleaved rounds; host {res['host']}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
