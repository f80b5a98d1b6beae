"""The lsfemu benchmark (issue 8): ``python tests/bench/all.py`` (see README, "Performance").

Measures five groups of figures, each side by side with a floor measured in
the same run on the same machine, prints one table and writes the figures as
JSON (``bench-all.json``, or ``--json PATH``):

1. ``latency``: median wall time (and CPU: the command's process, the
   daemon's for it) of ``bjobs``, ``bjobs -aps``, ``bhist``
   and ``bqueues``, each as one user (1% of the jobs) and for all jobs
   (``-u all``), and of ``bjobs -l ID``, ``bhist -l ID``, ``bsub`` and
   ``bmod -sp ID`` (real client processes, warm daemon, 10,000 jobs in the
   store from 100 users, half of them in an APS queue so that every APS
   cell is a number), against two floors, the interpreter that runs the
   commands doing nothing: ``python -c pass`` and ``python -I -S -c pass``
   (``sys.executable``, never a shim). Medians of ``--runs`` (>= 5) rounds,
   each round every command once in an order rotated every round; the
   virtual clock moves a minute between rounds (jobs start and end,
   priorities and APS values change: no listing can be served from a
   cache). Targets (issue 23, on the ratio to ``python -I -S -c pass``):
   every command <= 1.5 x; a listing of every job (``bjobs -u all``,
   ``bhist -u all``, ``bjobs -u all -aps``) <= the peer's own ratio for the
   same output (volclava's command / ``python -I -S -c pass``, both timed in
   one run of tests/bench/peer.py: read from ``--peer-json`` when peer.py
   wrote it, else its last quiet run's, latency.PEER_RECORDED; volclava has
   no -aps: ``bjobs -u all -aps`` is held to its ``bjobs -u all``).
2. ``sched``: full scheduling passes at 10k, 100k and 1M pending jobs
   (``--sched-sizes``) against ``sorted()`` of as many tuples -- the first
   pass after a start (its commit shown apart) and a full pass in a running
   daemon -- and a pass after one new submission with a slot free, so that
   it ranks; each timed 5 times, medians, the running daemon's passes
   interleaved with the floor (tests/bench/sched.py owns the figures).
   Targets <= 10 x at 100k, growth 100k -> 1M <= 12 x, incremental <= 5 %.
3. ``clock``: the virtual clock running 100,000 jobs through 1,000 slots for
   7 days (what ``lsfemu clock advance 7d`` runs: ``Cluster.run_until`` and
   the commit), in steps each committed as one request would be (10
   simulated seconds first, doubled while a step takes under 1/50 of the
   budget, at most 6 h), up to ``--clock-budget`` seconds of wall time: jobs finished per second (of
   wall time, and of the process's CPU time), and
   the share of the time spent in the scheduling pass, in the store (ORM
   flush, commit, SQL) and in the event log (making records, writing them),
   each counted exclusively (time in SQL inside the pass counts as store).
   If the budget ends before the 7 days, the table says how far it got.
4. ``replay``: synthetic lsb.events of 100k and 1M records through
   ``bhist -t -a -u all -f`` and ``lsfemu replay --into`` (own processes)
   against reading the file and splitting its lines in plain Python; peak
   RSS of each (wait4), which must be flat in the file's length. Targets
   <= 5 x (bhist) and <= 10 x (replay: issue 23's; issue 8 asked 15 x), wall
   and CPU each against the floor's. With them, as a reference (no
   target): the least any Python renderer of ``bhist -t`` does per record
   (tests/bench/replay.py ``least_render``: split, format the time, write).
5. ``memory``: the daemon's resident memory (VmRSS and peak VmHWM) with 1M
   pending jobs in the store (bulk-inserted, see tests/bench/fill.py), after
   it answered its first request; the floor is the RSS of the same daemon
   with an empty store.

``--only latency,replay`` runs some groups; ``--quick`` runs every group
small (``QUICK``: seconds in all; the suite's smoke test,
tests/bench/test_bench_quick.py; not figures to quote). The exit status is
1 when a target is missed, 0 otherwise.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from fill import START, Bulk, bulk_submit  # noqa: E402
from harness import cluster_env, command, daemon, daemon_memory, run_measured, run_ok  # noqa: E402
from latency import bench_latency  # noqa: E402

GROUPS = ("latency", "sched", "clock", "replay", "memory")
# Each group's size: the benchmark's, and --quick's (a smoke test in the suite,
# tests/bench/test_bench_quick.py: every figure made and labelled in seconds;
# not figures to quote).
FULL = {"latency": 10_000, "runs": 15, "warmup": 2, "clock": (100_000, 10, 100), "replay": [100_000, 1_000_000],
        "memory": 1_000_000}
# --quick: no warm-up round (its samples are not figures), small logs, and the
# memory group's loaded daemon on the latency group's store (one fill, one
# cluster fewer; see bench_memory).
QUICK = {"latency": 300, "runs": 5, "warmup": 0, "sched": [300, 1_000], "clock": (1_000, 2, 10), "clock_budget": 1.0,
         "replay": [500, 2_000], "memory": 300, "poll": 0.05}


def _module(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------
# 2. scheduling pass (tests/bench/sched.py owns it)
# ---------------------------------------------------------------------------


def bench_sched(root: Path, sizes: list[int]) -> dict:
    return {"runs": _module("sched").run(sizes)}


# ---------------------------------------------------------------------------
# 3. virtual clock
# ---------------------------------------------------------------------------


def clock_files(hosts: int, slots_per_host: int) -> dict[str, str]:
    names = [f"host{i:03d}" for i in range(hosts)]
    lsb = "lsbatch/cluster1/configdir"
    return {
        "lsf.cluster.cluster1": ("Begin ClusterAdmins\nAdministrators = lsfadmin\nEnd ClusterAdmins\n\nBegin Host\n"
                                 "HOSTNAME model type server r1m mem swp RESOURCES\n"
                                 + "".join(f"{h} ! ! 1 - - - ()\n" for h in names) + "End Host\n"),
        f"{lsb}/lsb.hosts": ("Begin Host\nHOST_NAME MXJ JL/U\n"
                             + "".join(f"{h} {slots_per_host} ()\n" for h in names) + "End Host\n"),
        f"{lsb}/lsb.users": "Begin UserGroup\nGROUP_NAME GROUP_MEMBER\nEnd UserGroup\n",
    }


class Timers:
    """Exclusive wall time per category: entering a category stops the clock
    of the one it interrupts (time in SQL inside the pass is the store's)."""

    def __init__(self) -> None:
        self.total: dict[str, float] = {}
        self.stack: list[str] = ["other"]
        self.since = time.perf_counter()

    def _switch(self) -> None:
        now = time.perf_counter()
        top = self.stack[-1]
        self.total[top] = self.total.get(top, 0.0) + now - self.since
        self.since = now

    def enter(self, cat: str) -> None:
        self._switch()
        self.stack.append(cat)

    def leave(self) -> None:
        self._switch()
        self.stack.pop()

    def wrap(self, obj, attr: str, cat: str) -> None:
        fn = getattr(obj, attr)

        @functools.wraps(fn)
        def timed_call(*a, **k):
            self.enter(cat)
            try:
                return fn(*a, **k)
            finally:
                self.leave()

        setattr(obj, attr, timed_call)


class _OverBudget(Exception):
    """The clock's wall-time budget is spent."""


def bench_clock(root: Path, jobs: int, hosts: int, slots_per_host: int, days: float, budget: float) -> dict:
    from sqlalchemy import event

    from lsfemu.engine.cluster import Cluster

    env = cluster_env(root, "clock", clock_files(hosts, slots_per_host))
    users = [f"user{i}" for i in range(1, 101)]
    slots = hosts * slots_per_host
    # Mean run time such that the jobs just fill the slots for the whole period.
    mean = days * 86400 * slots / jobs
    t0 = time.perf_counter()
    # No JOB_NEW records (log_events=False): the figure is the cost of the records the clock writes.
    bulk_submit(env["LSF_ENVDIR"], env["LSFEMU_HOME"], Bulk(n=jobs, users=users, queues=["normal"],
                                                             runtimes=(int(mean * 0.2), int(mean * 1.8))), t=START,
                log_events=False)
    fill_s = time.perf_counter() - t0
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        t0 = time.perf_counter()
        cl = Cluster(env["LSF_ENVDIR"], env["LSFEMU_HOME"])
        load_s = time.perf_counter() - t0
        tm = Timers()
        tm.wrap(cl, "scheduling_pass", "pass")
        tm.wrap(cl.events, "stage_job", "eventlog")
        tm.wrap(cl.events, "write_staged", "eventlog")
        tm.wrap(cl.session, "flush", "store")
        tm.wrap(cl.session, "commit", "store")

        @event.listens_for(cl.engine, "before_cursor_execute")
        def _before(*_a):
            tm.enter("store")

        @event.listens_for(cl.engine, "after_cursor_execute")
        def _after(*_a):
            tm.leave()

        def finished() -> int:
            return sum(1 for j in cl.jobs.values() if j.status in ("DONE", "EXIT"))

        start = cl.now()
        end = start + days * 86400
        passes = 0
        tm.total.clear()
        tm.since = time.perf_counter()
        t0 = time.perf_counter()
        c0 = time.process_time()  # (CPU time too: the wall time of a loaded machine says little)
        done = 0
        step = 10.0  # simulated seconds per request (one MBD_SLEEP_TIME); doubled while a request stays short
        steps = 0
        pass_fn = cl.scheduling_pass

        def pass_within_budget(t: float) -> None:
            # The budget is checked before each pass: a long request stops in the middle
            # (its work so far is counted, the clock shows how far it got).
            if time.perf_counter() - t0 > budget:
                raise _OverBudget
            pass_fn(t)
            nonlocal passes
            passes += 1

        cl.scheduling_pass = pass_within_budget
        while cl.now() < end:
            ts = time.perf_counter()
            try:
                cl.run_until(min(end, cl.now() + step))
            except _OverBudget:
                break
            cl.commit()
            steps += 1
            if time.perf_counter() - t0 > budget:
                break
            if time.perf_counter() - ts < budget / 50:
                step = min(step * 2, 6 * 3600)
        tm._switch()
        wall = time.perf_counter() - t0
        cpu = time.process_time() - c0
        done = finished()
        simulated = cl.now() - start
        running = sum(1 for j in cl.jobs.values() if j.status == "RUN")
        cl.session.close()
        cl.events.close()
        cl.engine.dispose()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    total = sum(tm.total.values()) or 1.0
    return {"jobs": jobs, "slots": slots, "days": days, "fill_s": fill_s, "load_s": load_s, "wall_s": wall,
            "budget_s": budget, "simulated_s": simulated, "complete": simulated >= days * 86400,
            "finished": done, "running_at_end": running, "passes": passes, "requests": steps, "jobs_per_s": done / wall,
            "cpu_s": cpu, "jobs_per_cpu_s": done / cpu if cpu else 0.0,
            "share": {k: v / total for k, v in sorted(tm.total.items())}}


# ---------------------------------------------------------------------------
# 4. replay and bhist -t -f
# ---------------------------------------------------------------------------

def bench_replay(root: Path, sizes: list[int]) -> dict:
    mod = _module("replay")
    from lsfemu.events.synth import write_events

    env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
    env["TZ"] = "UTC"
    rows = []
    for n in sizes:
        path = root / f"lsb.events.{n}"
        t0 = time.perf_counter()
        jobs = write_events(path, n)
        gen = time.perf_counter() - t0
        base = min(mod.floor(path) for _ in range(3))
        base_cpu = min(mod.floor(path, time.process_time) for _ in range(3))
        row = {"events": n, "jobs": jobs, "bytes": path.stat().st_size, "generate_s": gen, "floor_s": base,
               "floor_cpu_s": base_cpu, "least_render_s": min(mod.least_render(path) for _ in range(3))}
        dt, rss, cpu = run_measured(command("bhist") + ["-t", "-a", "-u", "all", "-f", str(path)], env)
        row.update(bhist_s=dt, bhist_ratio=dt / base, bhist_rss_mb=rss, bhist_cpu_s=cpu,
                   bhist_cpu_ratio=cpu / base_cpu)
        into = root / f"into{n}"
        dt, rss, cpu = run_measured(command("lsfemu") + ["replay", str(path), "--into", str(into), "--no-progress"],
                                    env)
        row.update(replay_s=dt, replay_ratio=dt / base, replay_rss_mb=rss, replay_cpu_s=cpu,
                   replay_cpu_ratio=cpu / base_cpu)
        shutil.rmtree(into, ignore_errors=True)
        path.unlink()
        rows.append(row)
    small, large = rows[0], rows[-1]
    return {"runs": rows, "replay_rss_growth": large["replay_rss_mb"] / max(1, small["replay_rss_mb"]),
            "bhist_rss_growth": large["bhist_rss_mb"] / max(1, small["bhist_rss_mb"])}


# ---------------------------------------------------------------------------
# 5. memory
# ---------------------------------------------------------------------------


def _latency_store(root: Path) -> dict[str, str]:
    """The environment of the latency group's cluster (tests/bench/latency.py
    made it as cluster_env(root, "latency", ...)): its files are not written again."""
    env = cluster_env(root, "memory")  # the commands' environment, as harness.py makes it
    env.update(LSF_ENVDIR=str(root / "conf-latency"), LSFEMU_HOME=str(root / "home-latency"))
    return env


def bench_memory(root: Path, jobs: int, poll: float = 1.0, store_of: dict[str, str] | None = None) -> dict:
    """*store_of*: the environment of a cluster already filled with *jobs* jobs
    (--quick: the latency group's, its daemon stopped), whose daemon is measured
    instead of a new cluster's; *poll*: seconds between two probes of the
    starting daemon."""
    empty = cluster_env(root, "mem-empty")
    with daemon(empty):
        run_ok(command("bqueues"), empty)
        floor = daemon_memory(empty)
    t0 = time.perf_counter()
    if store_of is not None:
        env = store_of
    else:
        env = cluster_env(root, "memory")
        users = [f"user{i}" for i in range(1, 1001)]
        bulk_submit(env["LSF_ENVDIR"], env["LSFEMU_HOME"], Bulk(n=jobs, users=users, queues=["normal", "priority"],
                                                                 runtimes=(60, 7200)), t=START, log_events=False)
    fill_s = time.perf_counter() - t0
    # Started here, not by `lsfemu daemon start`, which gives a daemon 30 s to answer:
    # loading a million jobs takes longer on a busy 2-core machine.
    t0 = time.perf_counter()
    denv = dict(env, PYTHONPATH=str(ROOT))
    home = Path(env["LSFEMU_HOME"])
    with open(home / "daemon.log", "a") as log:
        proc = subprocess.Popen([sys.executable, "-m", "lsfemu.daemon"], env=denv, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=log, start_new_session=True, cwd="/")
    try:
        quiet = dict(env, LSFEMU_AUTOSTART="0")
        while subprocess.run(command("bqueues"), env=quiet, capture_output=True).returncode != 0:
            if proc.poll() is not None or time.perf_counter() - t0 > 900:
                raise RuntimeError(f"the daemon did not answer: {(home / 'daemon.log').read_text()[-2000:]}")
            time.sleep(poll)
        start_s = time.perf_counter() - t0
        mem = daemon_memory(env)
    finally:
        subprocess.run(command("lsfemu") + ["daemon", "stop"], env=env, capture_output=True)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return {"jobs": jobs, "fill_s": fill_s, "start_and_first_answer_s": start_s, "rss_mb": mem["VmRSS"],
            "peak_mb": mem["VmHWM"], "empty_rss_mb": floor["VmRSS"], "empty_peak_mb": floor["VmHWM"],
            "kb_per_job": (mem["VmRSS"] - floor["VmRSS"]) * 1024 / jobs}


# ---------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------


def verdict(value: float, target: float | None) -> str:
    if target is None:
        return ""
    return "met" if value <= target else f"MISSED x{value / target:.1f}"


def table(res: dict) -> tuple[list[tuple], bool]:
    rows: list[tuple] = []
    ok = True

    def add(group, figure, value, floor, ratio, target=None, ratio2=None, target_is=""):
        # ratio2: the same value against a second floor (the isolated interpreter), shown beside; a
        # target then holds ratio2 (issue 23: commands against `python -I -S -c pass`)
        nonlocal ok
        judged = ratio if ratio2 is None else ratio2
        v = verdict(judged, target) if judged is not None else ""
        ok = ok and not v.startswith("MISSED")
        shown = "" if ratio is None else f"{ratio:.2f}" + ("" if ratio2 is None else f" / {ratio2:.2f}")
        rows.append((group, figure, value, floor, shown,
                     "" if target is None else f"<= {target:.4g}" + (f" ({target_is})" if target_is else ""), v))

    if "latency" in res:
        r = res["latency"]
        floor = f"{r['floor_s'] * 1000:.0f} / {r['floor_isolated_s'] * 1000:.0f} ms"
        fcpu = r.get("floors_cpu")
        add("latency", f"floors: python -c pass / python -I -S -c pass ({r['runs']} runs)",
            f"{r['floor_s'] * 1000:.0f} / {r['floor_isolated_s'] * 1000:.0f} ms"
            + (f" (CPU {fcpu['python -c pass'] * 1000:.0f} / {fcpu['python -I -S -c pass'] * 1000:.0f})"
               if fcpu else ""), "", None)
        for name, c in r["commands"].items():
            scope = {"user": "1 user's jobs", "all": "all jobs", "job": "one job"}[c["scope"]]
            lines = "" if c.get("lines") is None else f", {c['lines']} lines"
            # CPU: the command's process + the daemon's for it (less sensitive to load than wall)
            used = f" (CPU {c['cpu_s'] * 1000:.0f} + {c['daemon_cpu_s'] * 1000:.0f})" if "cpu_s" in c else ""
            # the target on the isolated floor's ratio: 1.5, or the peer's own for a listing of every job
            peer = c.get("target_is", "floor") != "floor"
            add("latency", f"{name} ({r['jobs_in_store']} jobs, {scope}{lines})",
                f"{c['median_s'] * 1000:.0f} ms{used}", floor, c["ratio"], c["target"], c["ratio_isolated"],
                c["target_is"] if peer else "")
        if "peer" in r:
            p = r["peer"]
            add("latency", "  peer: volclava / python -I -S -c pass (the listings' targets)",
                ", ".join(f"{k} {v:.2f}" for k, v in sorted(p["ratios"].items())) + f" ({p['jobs']} jobs)",
                p["source"], None)
        add("latency", "  check: bjobs -u all -aps, APS cells that are numbers",
            f"{r['aps_numeric_cells']} of {r['aps_pending_lines']} pending",
            f"clock moved {r['clock_moved_s']} s", None)
    if "sched" in res and "error" in res["sched"]:
        add("sched", "scheduling pass", "FAILED: " + res["sched"]["error"][:60], "", None)
        ok = False
    elif "sched" in res:
        runs = res["sched"]["runs"]
        for s in runs:
            n = s["pending"]
            # Two full passes, both held to the target: the first after a start
            # (every job's row built from the loaded objects, every pending
            # reason written to the store) and one in a running daemon (jobs
            # ended, every priority escalated: every job ranked again).
            add("sched", f"full pass, first after start, {n} pending", f"{s['full_pass_s']:.2f} s",
                f"{s['floor_sorted_s']:.4f} s", s["ratio"], 10 if n == 100_000 else None)
            if "ratio_cpu" in s:  # CPU time: less noisy on a shared machine
                add("sched", "  same, CPU time", f"{s['full_pass_cpu_s']:.2f} s", f"{s['floor_sorted_cpu_s']:.4f} s",
                    s["ratio_cpu"], None)
            if "warm_ratio" in s:
                add("sched", f"full pass, running daemon, {n}", f"{s['warm_full_pass_s']:.2f} s",
                    f"{s['floor_sorted_s']:.4f} s", s["warm_ratio"], 10 if n == 100_000 else None)
                add("sched", "  same, CPU time", f"{s['warm_full_pass_cpu_s']:.2f} s",
                    f"{s['floor_sorted_cpu_s']:.4f} s", s["warm_ratio_cpu"], None)
            add("sched", f"  commit of the first pass, {n}", f"{s['commit_s']:.3f} s", "", None)
            add("sched", f"pass after 1 submit, a slot free, {n}", f"{s['pass_after_one_submit_s']:.3f} s",
                f"{s['warm_full_pass_s']:.2f} s", s["incremental_share"], 0.05 if n == 100_000 else None)
        by = {s["pending"]: s for s in runs}
        if len(by) >= 2:  # the growth between the two largest sizes
            small, big = sorted(by)[-2:]
            for what, key in (("first pass", "full_pass"), ("running daemon", "warm_full_pass")):
                for clock, suffix in (("", "_s"), (", CPU time", "_cpu_s")):
                    a, b = by[small][key + suffix], by[big][key + suffix]
                    add("sched", f"growth {small} -> {big}, {what}{clock}", f"{b:.2f} s",
                        f"{a:.2f} s", b / a, 12 if big == 1_000_000 and not clock else None)
    if "clock" in res:
        r = res["clock"]
        how = ("7 days" if r["complete"] else
               f"{r['simulated_s'] / 3600:.1f} h of {r['days'] * 24:g} h in the {r['budget_s']:g} s budget")
        add("clock", f"{r['jobs']} jobs / {r['slots']} slots, {how}", (f"{r['jobs_per_s']:.0f}" if r["jobs_per_s"] >= 10 else f"{r['jobs_per_s']:.2f}") + " jobs/s",
            f"{r['wall_s']:.0f} s", None)
        if "jobs_per_cpu_s" in r:
            add("clock", "  per CPU second", f"{r['jobs_per_cpu_s']:.1f} jobs/s", f"{r['cpu_s']:.0f} s CPU", None)
        add("clock", "  share: pass / store / event log / other",
            " / ".join(f"{100 * r['share'].get(k, 0):.0f}%" for k in ("pass", "store", "eventlog", "other")),
            f"{r['passes']} passes", None)
    if "replay" in res:
        for s in res["replay"]["runs"]:
            n = s["events"]
            add("replay", f"bhist -t -f, {n} events", f"{s['bhist_s']:.1f} s ({s['bhist_rss_mb']} MB)",
                f"{s['floor_s']:.2f} s", s["bhist_ratio"], 5 if n >= 1_000_000 else None)
            if "least_render_s" in s:  # a reference for the bhist target: no renderer in Python does less
                add("replay", f"  (reference: the least Python renderer, {n})", f"{s['least_render_s']:.2f} s",
                    f"{s['floor_s']:.2f} s", s["least_render_s"] / s["floor_s"], None)
            add("replay", "  same, CPU time", f"{s['bhist_cpu_s']:.1f} s", f"{s['floor_cpu_s']:.2f} s",
                s["bhist_cpu_ratio"], None)
            add("replay", f"lsfemu replay, {n} events", f"{s['replay_s']:.1f} s ({s['replay_rss_mb']} MB)",
                f"{s['floor_s']:.2f} s", s["replay_ratio"], 10 if n >= 1_000_000 else None)
            add("replay", "  same, CPU time", f"{s['replay_cpu_s']:.1f} s", f"{s['floor_cpu_s']:.2f} s",
                s["replay_cpu_ratio"], None)
        r = res["replay"]
        add("replay", "replay peak RSS growth (10x file)", f"x{r['replay_rss_growth']:.2f}", "", None)
        add("replay", "bhist -t peak RSS growth (10x file)", f"x{r['bhist_rss_growth']:.2f}", "", None)
    if "memory" in res:
        r = res["memory"]
        add("memory", f"daemon RSS, {r['jobs']} pending jobs", f"{r['rss_mb']} MB (peak {r['peak_mb']})",
            f"{r['empty_rss_mb']} MB empty", r["rss_mb"] / max(1, r["empty_rss_mb"]))
        add("memory", "  per job / daemon start", f"{r['kb_per_job']:.2f} KB",
            f"{r['start_and_first_answer_s']:.0f} s", None)
    return rows, ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default=",".join(GROUPS), help="comma-separated groups: " + ", ".join(GROUPS))
    ap.add_argument("--quick", action="store_true", help="every group small, 5 runs (a smoke test, seconds)")
    ap.add_argument("--runs", type=int, default=FULL["runs"], help="latency: interleaved runs of each command (>= 5)")
    ap.add_argument("--sched-sizes", default="10000,100000,1000000", help="sched: pending jobs")
    ap.add_argument("--clock-budget", type=float, default=120.0, help="clock: wall seconds to simulate for at most")
    ap.add_argument("--json", default=str(ROOT / "bench-all.json"))
    ap.add_argument("--peer-json", default=str(ROOT / "bench-peer.json"),
                    help="latency: tests/bench/peer.py's figures, the listings' targets (absent: its last quiet run's)")
    ap.add_argument("--profile", metavar="PATH", help="latency: where each command's time goes, written to PATH "
                    "(tests/bench/cmdprofile.py: client imports, the daemon side's cProfile)")
    ap.add_argument("--show", metavar="JSON", help="print the table of a saved run and exit")
    args = ap.parse_args()
    if args.show:
        res = json.loads(Path(args.show).read_text())
        print_table(res, args.show)
        return 0 if table(res)[1] else 1
    only = [g.strip() for g in args.only.split(",") if g.strip()]
    bad = [g for g in only if g not in GROUPS]
    if bad:
        ap.error(f"unknown group(s) {', '.join(bad)}; choose from {', '.join(GROUPS)}")
    size = QUICK if args.quick else FULL
    sched_sizes = size["sched"] if args.quick else [int(x) for x in args.sched_sizes.split(",")]
    runs = max(5, args.runs if not args.quick else size["runs"])  # medians of >= 5 interleaved runs
    root = Path(tempfile.mkdtemp(prefix="lsfemu-bench-"))
    res: dict = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                             "platform": platform.platform(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
                 "quick": args.quick}
    t_all = time.perf_counter()
    try:
        for g in only:
            t0 = time.perf_counter()
            print(f"[{g}] ...", file=sys.stderr, flush=True)
            if g == "sched":
                try:
                    res[g] = bench_sched(root, sched_sizes)
                except Exception as e:  # its owner's code: report the failure, measure the rest
                    res[g] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
                    print(f"[sched] failed: {res[g]['error']}", file=sys.stderr, flush=True)
            elif g == "latency":
                res[g] = bench_latency(root, size["latency"], runs, size["warmup"], Path(args.peer_json),
                                       Path(args.profile) if args.profile else None)
            elif g == "clock":
                jobs, hosts, per_host = size["clock"]
                res[g] = bench_clock(root, jobs, hosts, per_host, 7, args.clock_budget if not args.quick
                                     else size["clock_budget"])
            elif g == "replay":
                res[g] = bench_replay(root, size["replay"])
            elif g == "memory":
                shared = args.quick and "latency" in res  # the latency group's store (its daemon stopped)
                res[g] = bench_memory(root, res["latency"]["jobs_in_store"] if shared else size["memory"],
                                      size.get("poll", 1.0), _latency_store(root) if shared else None)
            res[g]["group_wall_s"] = time.perf_counter() - t0
            print(f"[{g}] {res[g]['group_wall_s']:.0f} s", file=sys.stderr, flush=True)
            Path(args.json).write_text(json.dumps(res, indent=1) + "\n")  # what is measured so far
    finally:
        shutil.rmtree(root, ignore_errors=True)
    res["total_wall_s"] = time.perf_counter() - t_all
    Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    print_table(res, args.json)
    return 0 if table(res)[1] else 1


def print_table(res: dict, json_path: str) -> None:
    rows, _ = table(res)
    try:
        from tabulate import tabulate

        print(tabulate(rows, headers=["group", "figure", "value", "floor", "ratio", "target", ""], tablefmt="github"))
    except ImportError:
        for r in rows:
            print(" | ".join(str(x) for x in r))
    m = res["machine"]
    total = f"total {res['total_wall_s']:.0f} s" if "total_wall_s" in res else "incomplete run"
    print(f"\n{m['cpus']} CPUs, Python {m['python']}, {m['platform']}, {m['date']}; {total}; JSON in {json_path}")


if __name__ == "__main__":
    sys.exit(main())
