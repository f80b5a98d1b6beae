"""The benchmark's command latency group (tests/bench/all.py, issue 8 and 23):
every command as one user and for all jobs against the interpreter's floors,
on a cluster whose APS queue fills the APS cells and whose clock moves
between rounds.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import cmdprofile
from fill import START, Bulk, bulk_submit
from harness import cluster_env, command, daemon, daemon_memory, daemon_pid, floors, interleaved, pct, run_ok

# The latency cluster's queues: the sample's two, "priority" made an APS queue
# (fairshare, APS_PRIORITY with FS, JPRIORITY, QPRIORITY, PROC), priorities
# escalated every minute: `bjobs -aps` then prints a number in every cell of
# its pending jobs, and they change as the clock moves (the users' fairshare
# with their run time, JPRIORITY with escalation): no line can be reused.
LATENCY_QUEUES = """Begin Queue
QUEUE_NAME   = normal
PRIORITY     = 30
NICE         = 20
End Queue

Begin Queue
QUEUE_NAME   = priority
PRIORITY     = 43
FAIRSHARE    = USER_SHARES[[default, 1]]
APS_PRIORITY = WEIGHT[[FS, 100] [JPRIORITY, 1] [QPRIORITY, 10] [PROC, 1]]
End Queue
"""
LATENCY_PARAMS = """Begin Parameters
DEFAULT_QUEUE  = normal
MBD_SLEEP_TIME = 10
JOB_ACCEPT_INTERVAL = 0
MAX_USER_PRIORITY = 100
JOB_PRIORITY_OVER_TIME = 1/1
CLEAN_PERIOD = 3600
End Parameters
"""
CLOCK_STEP = 60  # simulated seconds between two rounds of the latency group

# Issue 23's targets for the command path, at 10,000 jobs: every command within
# FLOOR_TARGET x the isolated interpreter (`python -I -S -c pass`: what bin/'s
# commands run under); a listing of every job (LISTINGS) within the peer's
# time for the same output: volclava's command beside its own floors in one
# run of tests/bench/peer.py (its time / `python -I -S -c pass` there, so that
# the two runs' loads cancel), read from bench-peer.json when peer.py wrote
# one, else the last quiet run's (PEER_RECORDED). volclava has no -aps:
# `bjobs -u all -aps` is held to its `bjobs -u all` (the same jobs, the same
# lines, without the APS column that lsfemu computes on top).
FLOOR_TARGET = 1.5
LISTINGS = {"bjobs -u all": "bjobs -u all", "bjobs -u all -aps": "bjobs -u all", "bhist -u all": "bhist -u all"}
# volclava's time / `python -I -S -c pass`, 10,000 jobs: peer.py, 2026-11-27
# 12:56 UTC, main at ff676f6, quiet machine (README, "lsfemu beside volclava")
PEER_RECORDED = {"source": "peer.py at ff676f6, 2026-11-27 (README)", "jobs": 10000,
                 "ratios": {"bjobs -u all": 7.53, "bhist -u all": 44.63}}


def peer_ratios(path: Path) -> dict:
    """The peer's listings against its isolated floor ({"source", "jobs",
    "ratios": command -> volclava's median / `python -I -S -c pass`'s}) from
    tests/bench/peer.py's JSON at *path* (its largest size), else PEER_RECORDED."""
    try:
        res = json.loads(path.read_text())
        n, fig = max(((int(k), v) for k, v in res["sizes"].items()), key=lambda kv: kv[0])
        lat = fig["latency"]
        iso = lat["python -I -S -c pass"]["median_s"]
        ratios = {name: lat[f"{name} [volclava]"]["median_s"] / iso for name in set(LISTINGS.values())}
    except (OSError, ValueError, KeyError):
        return PEER_RECORDED
    return {"source": f"{path.name}, {res['machine']['date']}", "jobs": n, "ratios": ratios}


def target_of(name: str, peer: dict) -> tuple[float, str]:
    """(target on the ratio to `python -I -S -c pass`, what it is) of command *name*."""
    if name in LISTINGS:
        return peer["ratios"][LISTINGS[name]], f"peer's {LISTINGS[name]}"
    return FLOOR_TARGET, "floor"


def latency_cases(jid: str, user: str) -> dict[str, tuple[list[str], str]]:
    """Each command once as one user (*user*: 1% of the jobs) and once for all
    jobs (-u all), with its scope ("user", "all" or "job" for one job's ID)."""
    return {
        "bjobs": (command("bjobs"), "user"),
        "bjobs -u all": (command("bjobs") + ["-u", "all"], "all"),
        "bjobs -aps": (command("bjobs") + ["-aps"], "user"),
        "bjobs -u all -aps": (command("bjobs") + ["-u", "all", "-aps"], "all"),
        "bjobs -l ID": (command("bjobs") + ["-l", jid], "job"),
        "bhist": (command("bhist"), "user"),
        "bhist -u all": (command("bhist") + ["-u", "all"], "all"),
        "bhist -l ID": (command("bhist") + ["-l", jid], "job"),
        f"bqueues -u {user}": (command("bqueues") + ["-u", user], "user"),
        "bqueues": (command("bqueues"), "all"),
        "bsub": (command("bsub") + ["-q", "priority", "sleep", "100000"], "job"),
        "bmod -sp ID": (command("bmod") + ["-sp", "60", jid], "job"),
    }


def aps_cells(text: str) -> tuple[int, int]:
    """(pending lines, those whose APS cell is a number) in a `bjobs -aps` listing."""
    lines = text.splitlines()
    if not lines:
        return 0, 0
    col = lines[0].find("APS")
    pend = numeric = 0
    for line in lines[1:]:
        if " PEND " not in line or " priority " not in line:
            continue
        pend += 1
        cell = line[col:].split()[0] if len(line) > col else ""
        try:
            float(cell)
            numeric += 1
        except ValueError:
            pass
    return pend, numeric


def bench_latency(root: Path, jobs: int, runs: int, warmup: int = 2, peer_json: Path | None = None,
                  profile: Path | None = None) -> dict:
    """The group's figures; with *profile*, also where each command's time
    goes, written there (tests/bench/cmdprofile.py)."""
    lsb = "lsbatch/cluster1/configdir"
    env = cluster_env(root, "latency", {f"{lsb}/lsb.queues": LATENCY_QUEUES, f"{lsb}/lsb.params": LATENCY_PARAMS})
    users = [f"user{i}" for i in range(1, 101)]
    t0 = time.perf_counter()
    bulk_submit(env["LSF_ENVDIR"], env["LSFEMU_HOME"], Bulk(n=jobs, users=users, queues=["normal", "priority"],
                                                             runtimes=(60, 7200)), t=START)
    fill_s = time.perf_counter() - t0
    with daemon(env):
        out = run_ok(command("bsub") + ["-J", "probe", "sleep", "100000"], env)
        jid = out.split("<", 1)[1].split(">", 1)[0]
        run_ok(command("lsfemu") + ["clock", "advance", "600"], env)  # passes: some jobs run and finish
        cases = latency_cases(jid, env["LSFEMU_USER"])
        argvs = {**floors(), **{k: v[0] for k, v in cases.items()}}
        aps_before = run_ok(command("bjobs") + ["-u", "all", "-aps"], env)

        def move_clock(_round: int) -> None:
            # The virtual clock moves between rounds (untimed): passes run, jobs
            # start and end, pending times, priorities and APS values change.
            run_ok(command("lsfemu") + ["clock", "advance", str(CLOCK_STEP)], env)

        cpu: dict[str, list[float]] = {}
        dcpu: dict[str, list[float]] = {}
        samples = interleaved(argvs, env, runs, warmup, between=move_clock, cpu=cpu,
                              daemon_pid=daemon_pid(env), daemon_cpu=dcpu)
        aps_after = run_ok(command("bjobs") + ["-u", "all", "-aps"], env)
        listed = {k: len(run_ok(argv, env).splitlines()) - 1 for k, argv in argvs.items()
                  if k.startswith(("bjobs", "bhist", "bqueues")) and "-l" not in k}
        mem = daemon_memory(env)
        imports = {k: cmdprofile.client_imports(v[0], env) for k, v in cases.items()} if profile else {}
    fl = {k: statistics.median(samples.pop(k)) for k in floors()}
    fl_cpu = {k: statistics.median(cpu[k]) for k in floors()}
    floor, iso = fl["python -c pass"], fl["python -I -S -c pass"]
    peer = peer_ratios(peer_json) if peer_json is not None else PEER_RECORDED
    rows = {}
    for name, s in samples.items():
        med = statistics.median(s)
        rows[name] = {"median_s": med, "p10_s": pct(s, 10), "p90_s": pct(s, 90), "ratio": med / floor,
                      "ratio_isolated": med / iso, "scope": cases[name][1], "lines": listed.get(name),
                      # (on ratio_isolated; the listings of every job: the peer's own ratio)
                      "target": target_of(name, peer)[0], "target_is": target_of(name, peer)[1],
                      # CPU: the command's process (median) and the daemon's for it (mean: clock ticks)
                      "cpu_s": statistics.median(cpu[name]), "daemon_cpu_s": statistics.fmean(dcpu[name])}
    if profile is not None:  # (the daemon stopped: its store loaded here)
        # the commands over target here, and the listings of every job (their target, the peer's, is
        # another run's: on a quiet machine lsfemu's ratio may come out above it)
        over = {k for k, c in rows.items() if c["ratio_isolated"] > c["target"] or k in LISTINGS}
        side = cmdprofile.daemon_side(env, {k: v[0] for k, v in cases.items()}, runs, CLOCK_STEP, over)
        cmdprofile.write(profile, cmdprofile.header_lines(sys.argv, Path(__file__).resolve().parents[2]),
                         rows, fl_cpu, imports, side)
    pend, numeric = aps_cells(aps_after)
    return {"jobs_in_store": jobs, "users": len(users), "runs": runs, "fill_s": fill_s, "floor_s": floor,
            "floor_isolated_s": iso, "floors": fl, "floors_cpu": fl_cpu, "commands": rows, "peer": peer, "daemon_rss_mb": mem.get("VmRSS"),
            "aps_pending_lines": pend, "aps_numeric_cells": numeric, "clock_moved_s": CLOCK_STEP * runs,
            "aps_listing_changed": aps_before != aps_after}
