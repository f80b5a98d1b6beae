"""Scheduling-pass benchmark: `python tests/bench/sched.py [--sizes 10000,100000] [--big] [--json OUT]
[--cluster aps|fairshare] [--profile PATH] [--profile-after PATH]`.

A cluster with N pending jobs from 1,000 users in a three-level share tree
(10 groups x 10 subgroups x 10 users), two APS queues in a QUEUE_GROUP
whose APS_PRIORITY weighs FS, JPRIORITY, QPRIORITY, MEM and PROC, user
priorities with escalation (JOB_PRIORITY_OVER_TIME), 100 slots: most jobs
stay pending, and every pass orders all of them. Measured in this process,
side by side (issue 8):

* one full scheduling pass of the daemon's Cluster, the jobs loaded from the
  store as after a restart (the first pass: every job is ranked, every
  pending reason written -- to the store too, the commit that follows is
  timed apart), and
* the floor: sorted() of N plain (float, int) tuples, measured right after.

Then the pass after one new submission with a slot free (one running job
ended at the same instant, so that the pass has to rank; target: <= 5% of a
full pass, held against the running daemon's full pass, the faster of the
two). Every pass and the floor are timed REPEATS (5) times and reported as
medians; the warm passes interleaved with the floor; the first pass's
commit is timed apart and shown.
Wall times, and CPU times (less noisy on a shared machine). Prints a table
and writes bench-sched.json (or --json PATH). ``--profile PATH``: one more
first pass after loading, under cProfile (not counted in the figures), its
profile written to PATH as text (`write_profile`: the functions by own time,
then the pass's stages by cumulative time); ``--profile-after PATH``: the
measured passes after one submission of the largest size under cProfile
(the figures of such a run are the profiled ones: take them from a run
without it), written likewise. 1M jobs take
minutes and gigabytes (filling and loading the store): only with --big
(adds 1000000 to the sizes). ``--cluster fairshare``: the same share tree
and queues as plain fairshare queues (no APS, no escalation: where the
delta pass runs; the issue's figures are the APS cluster's). `run(sizes)` is the entry point for tests/bench/all.py.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

START = 1767603600.0


def config_files(maxmem: str | None = None, cluster: str = "aps") -> dict[str, str]:
    """The benchmark's cluster. *maxmem* (e.g. "1000G"): every host's memory
    (lsfemu's maxmem column); None: this machine's, as for an lsf.cluster
    that leaves the column out. *cluster* "fairshare": the same share tree
    and queues without APS and without JOB_PRIORITY_OVER_TIME (two
    fairshare queues: what the delta pass covers)."""
    groups = []
    top_members = []
    for g in range(10):
        sub_names = []
        for s in range(10):
            users = " ".join(f"u{g}{s}{u}" for u in range(10))
            shares = " ".join(f"[u{g}{s}{u}, {1 + u % 3}]" for u in range(10))
            groups.append(f"sg{g}{s}  ({users})  ({shares})")
            sub_names.append(f"sg{g}{s}")
        shares = " ".join(f"[{n}, {1 + i % 4}]" for i, n in enumerate(sub_names))
        groups.append(f"g{g}  ({' '.join(sub_names)})  ({shares})")
        top_members.append(f"g{g}")
    shares = " ".join(f"[{n}, {10 - i}]" for i, n in enumerate(top_members))
    groups.append(f"top  ({' '.join(top_members)})  ({shares})")
    users = "Begin UserGroup\nGROUP_NAME GROUP_MEMBER USER_SHARES\n" + "\n".join(groups) + "\nEnd UserGroup\n"
    aps = ("APS_PRIORITY = WEIGHT[[FS, 100] [JPRIORITY, 1] [QPRIORITY, 10] [MEM, 1] [PROC, 1]]\nQUEUE_GROUP = low\n"
           if cluster == "aps" else "")
    queues = (
        f"Begin Queue\nQUEUE_NAME = high\nPRIORITY = 50\nFAIRSHARE = USER_SHARES[[top, 1]]\n{aps}"
        "End Queue\n\n"
        "Begin Queue\nQUEUE_NAME = low\nPRIORITY = 30\nFAIRSHARE = USER_SHARES[[top, 1]]\nEnd Queue\n"
    )
    # MAX_JOBID above the default 999999: with 1M jobs in the store the default leaves no free ID
    params = ("Begin Parameters\nDEFAULT_QUEUE = low\nMBD_SLEEP_TIME = 10\nMAX_USER_PRIORITY = 100\nMAX_JOBID = 99999999\n"
              + ("JOB_PRIORITY_OVER_TIME = 1/10\n" if cluster == "aps" else "") + "End Parameters\n")
    hosts = "Begin Host\nHOST_NAME MXJ JL/U\n" + "".join(f"host{i} 10 ()\n" for i in range(10)) + "End Host\n"
    cluster = ("Begin ClusterAdmins\nAdministrators = lsfadmin\nEnd ClusterAdmins\n\nBegin Host\n"
               "HOSTNAME model type server r1m mem swp maxmem RESOURCES\n"
               + "".join(f"host{i} ! ! 1 - - - {maxmem or '-'} ()\n" for i in range(10)) + "End Host\n")
    lsb = "lsbatch/cluster1/configdir"
    return {f"{lsb}/lsb.users": users, f"{lsb}/lsb.queues": queues, f"{lsb}/lsb.params": params,
            f"{lsb}/lsb.hosts": hosts, "lsf.cluster.cluster1": cluster}


def fill(home: Path, envdir: Path, n: int, seed: int = 1) -> None:
    """N pending jobs straight into the store (bsub would take minutes)."""
    from sqlalchemy import delete, insert

    from lsfemu.engine.cluster import Cluster
    from lsfemu.store.models import Counter, Job

    cl = Cluster(str(envdir), str(home))
    cl.session.close()
    rng = random.Random(seed)
    users = [f"u{g}{s}{u}" for g in range(10) for s in range(10) for u in range(10)]
    rows = []
    with cl.engine.begin() as conn:
        for i in range(1, n + 1):
            t = START - rng.randint(0, 7200)
            mem = rng.choice((None, 100, 1000, 4000))
            # a few distinct requirements, as real clusters have (issue 19: placement reads them)
            req = (f"rusage[mem={mem}]" if mem != 4000 else "select[mem>2000] rusage[mem=4000] span[hosts=1]") \
                if mem else None
            rows.append(dict(
                id=i, array_index=0, user=users[i % len(users)], status="PEND", queue=rng.choice(("high", "low")),
                from_host="host0", command="sleep 600", num_processors=rng.choice((1, 1, 2, 4)),
                res_req=req, mem_req_mb=float(mem) if mem else None,
                priority=rng.randint(1, 100), priority_base_time=t, pend_since=t, submit_time=t,
                position=float(i), exec_hosts="", pend_reasons="", sim_runtime=600.0, sim_cputime=600.0,
                env_json="{}"))
            if len(rows) == 5000:
                conn.execute(insert(Job), rows)
                rows.clear()
        if rows:
            conn.execute(insert(Job), rows)
        # (the Cluster made the counters when it created the store)
        conn.execute(delete(Counter).where(Counter.name.in_(("next_job_id", "position"))))
        conn.execute(insert(Counter), [dict(name="next_job_id", value=n + 1), dict(name="position", value=n + 1)])
    cl.engine.dispose()


def _timed(f):
    w0, c0 = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - w0, time.process_time() - c0


REPEATS = 5  # each pass (and the floor) timed this many times: the figures are medians


def _finish_running(cl, t: float, limit: int | None = None) -> int:
    """End (DONE at *t*) the running jobs, or the first *limit* of them; how many ended."""
    running = [j for j in cl.jobs.values() if j.status == "RUN"][:limit]
    for job in running:
        cl._finish(job, t, "DONE", None, None)
    return len(running)


#: the first pass's stages, as the profile's second table shows them (cumulative time)
STAGES = (r"passes\.py:\d+\((scheduling_pass|full_input|pass_input|run_pass|write_reasons|order_for)\)"
          r"|passrows\.py:\d+\(build_all\)|dispatch\.py:\d+\(schedule_pass\)|pendmake\.py:\d+\(make\)"
          r"|apsrank\.py:\d+\(entries\)|jobs\.py:\d+\((replace|write)_pend_reasons\)")


#: the stages of a pass after one submission (a delta pass where one may run, else a full pass)
AFTER_STAGES = (STAGES + r"|passes\.py:\d+\(held_input\)|passdelta\.py:\d+\(run\)|delta\.py:\d+\((delta_pass|__iter__)\)"
                r"|fairshare\.py:\d+\((_build|choose_account|scope_usage)\)|passes\.py:\d+\(_start\)")


def write_profile(prof: cProfile.Profile, path: str, header: str, stages: str = STAGES) -> None:
    """*prof* as text in *path*: *header*, the 30 functions with the most own
    time, then the pass's *stages* by cumulative time."""
    out = io.StringIO()
    st = pstats.Stats(prof, stream=out)
    st.sort_stats("tottime").print_stats(30)
    out.write("\n--- the pass's stages, cumulative ---\n")
    st.sort_stats("cumulative").print_stats(stages)
    text = out.getvalue().replace(str(ROOT) + "/", "")
    Path(path).write_text(header.rstrip("\n") + "\n\n" + text)


def measure(n: int, root: Path, maxmem: str | None = None, repeats: int = REPEATS,
            profile: cProfile.Profile | None = None, cluster: str = "aps",
            profile_after: cProfile.Profile | None = None) -> dict:
    """The figures of one size (the module docstring). *profile*: one more
    first pass profiled into it; *profile_after*: the measured passes after
    one submission profiled into it (all *repeats*)."""
    from lsfemu.config.sample import write_cluster
    from lsfemu.engine.cluster import Cluster
    from lsfemu.engine.jobs import SubmitSpec

    envdir = Path(write_cluster(str(root / f"conf{n}"), force=True))
    for rel, text in config_files(maxmem, cluster).items():
        (envdir / rel).write_text(text)
    home = root / f"home{n}"
    os.environ["LSFEMU_CLOCK_START"] = str(int(START))
    fill(home, envdir, n)
    # The first pass after a start, *repeats* times: each time a new Cluster
    # loaded from the same store, its pass, then the pass's writes rolled back
    # (its lsb.events records are only staged until a commit) -- but the last
    # time, when its commit is timed and kept.
    # (*profile*: one more time, profiled, not counted)
    loads, cold, cold_cpu = [], [], []
    last = repeats if profile is not None else repeats - 1
    for k in range(last + 1):
        t0 = time.perf_counter()
        cl = Cluster(str(envdir), str(home))
        if k < repeats:
            loads.append(time.perf_counter() - t0)
        now = cl.now()
        if k == repeats:
            profile.runcall(cl.scheduling_pass, now)
        else:
            w, c = _timed(lambda: cl.scheduling_pass(now))
            cold.append(w)
            cold_cpu.append(c)
        if k == last:
            break
        cl.session.rollback()
        cl.close()
        cl = None  # freed before the next one loads
        gc.unfreeze()  # the Cluster froze its loaded jobs (gc.freeze): give them back to the collector
        gc.collect()
    started = sum(1 for j in cl.jobs.values() if j.status == "RUN")
    commit, _ = _timed(cl.session.commit)
    # A warm full pass, *repeats* times, each beside the floor (sorted() of n
    # tuples): the running jobs end 700 s later (every priority has escalated
    # meanwhile, the users' fairshare has changed), their slots are free again
    # and every pending job is ranked anew -- what the daemon does whenever
    # jobs end, with what it keeps between passes.
    rng = random.Random(2)
    data = [(rng.random(), i) for i in range(n)]
    warm, warm_cpu, floor, floor_cpu = [], [], [], []
    t = now
    for _ in range(repeats):
        t += 700
        _finish_running(cl, t)
        cl.session.commit()
        cl.passes.last_delta = None  # a full pass (where a delta pass may run: it would take the head only)
        w, c = _timed(lambda: cl.scheduling_pass(t))
        warm.append(w)
        warm_cpu.append(c)
        cl.session.commit()
        w, c = _timed(lambda: sorted(data))
        floor.append(w)
        floor_cpu.append(c)
    warm_started = sum(1 for j in cl.jobs.values() if j.status == "RUN")
    data = []  # n tuples: freed before the incremental passes
    # The pass after one new submission, with a slot free so that it has to
    # rank (one running job ended at the same instant: a pass with every slot
    # taken starts nothing and may skip the ranking). One settling pass first
    # (it looks again at the jobs the last pass judged before its last start).
    spec = SubmitSpec(user="u000", queue="high", default_queue_used=False, command="sleep 60", name=None,
                      num_processors=1, max_processors=None, cwd="/", home="/", specified_cwd=None,
                      output_file=None, error_file=None, output_overwrite=False, error_overwrite=False,
                      run_limit_min=None, submit_priority=None, res_req=None, mem_req_mb=None,
                      project="default", user_group=None, env={}, from_host="host0")
    t += 5
    cl.scheduling_pass(t)
    cl.session.commit()
    again, again_cpu, started_after = [], [], []
    for _ in range(repeats):
        t += 5
        ended = _finish_running(cl, t, limit=1)
        new_job = cl.submit(spec)
        before = sum(1 for j in cl.jobs.values() if j.status == "RUN")
        if profile_after is not None:
            profile_after.enable()
        w, c = _timed(lambda: cl.scheduling_pass(t))
        if profile_after is not None:
            profile_after.disable()
        assert ended == 1 and (new_job.status == "RUN" or new_job.pend_reasons), "the new job was looked at"
        started_after.append(sum(1 for j in cl.jobs.values() if j.status == "RUN") - before)
        again.append(w)
        again_cpu.append(c)
        cl.session.commit()
    cl.close()
    gc.unfreeze()
    med = statistics.median
    full, full_cpu, fl, fl_cpu = med(cold), med(cold_cpu), med(floor), med(floor_cpu)
    wm, wm_cpu, ag, ag_cpu = med(warm), med(warm_cpu), med(again), med(again_cpu)
    return {"pending": n, "cluster": cluster, "repeats": repeats, "load_s": med(loads), "full_pass_s": full, "full_pass_cpu_s": full_cpu,
            "full_pass_samples_s": cold, "commit_s": commit,
            "started": started, "floor_sorted_s": fl, "floor_sorted_cpu_s": fl_cpu, "floor_samples_s": floor,
            "ratio": full / fl, "ratio_cpu": full_cpu / fl_cpu,
            "pass_after_one_submit_s": ag, "pass_after_one_submit_cpu_s": ag_cpu, "pass_after_one_samples_s": again,
            # slots the pass after one submission filled (1 free each time: it had to choose)
            "pass_after_one_started": started_after,
            # against the running daemon's full pass: the smaller of the two
            "incremental_share": ag / wm,
            "warm_full_pass_s": wm, "warm_full_pass_cpu_s": wm_cpu, "warm_pass_samples_s": warm,
            "warm_started": warm_started, "warm_ratio": wm / fl, "warm_ratio_cpu": wm_cpu / fl_cpu}


def run(sizes=(10_000, 100_000), maxmem: str | None = None, repeats: int = REPEATS,
        profile: cProfile.Profile | None = None, cluster: str = "aps",
        profile_after: cProfile.Profile | None = None) -> list[dict]:
    """Measure each size (in a fresh cluster): one dict of figures per size
    (what tests/bench/all.py, the project's benchmark command, calls).
    *profile*: the largest size's extra first pass profiled into it;
    *profile_after*: the largest size's passes after one submission."""
    root = Path(tempfile.mkdtemp(prefix="lsfemu-bench-sched-"))
    results = []
    try:
        for n in sizes:
            big = n == max(sizes)
            results.append(measure(n, root, maxmem, repeats, profile if big else None, cluster,
                                   profile_after if big else None))
            gc.collect()  # the last size's cluster, before the next one is filled
            print(f"sched: {n} pending done", file=sys.stderr)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return results


def summary(results: list[dict]) -> dict:
    """The figures with the machine and the growth from each size to the
    next (the issue's 100k -> 1M figure when both are measured)."""
    growth = [{"from": a["pending"], "to": b["pending"], "full_pass_x": b["full_pass_s"] / a["full_pass_s"],
               "full_pass_cpu_x": b["full_pass_cpu_s"] / a["full_pass_cpu_s"],
               "warm_full_pass_x": b["warm_full_pass_s"] / a["warm_full_pass_s"],
               "warm_full_pass_cpu_x": b["warm_full_pass_cpu_s"] / a["warm_full_pass_cpu_s"]}
              for a, b in zip(results, results[1:])]
    return {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "results": results,
            "growth": growth}


def table(figures: dict) -> str:
    lines = [f"cluster: {figures['results'][0].get('cluster', 'aps') if figures['results'] else ''}",
             "first pass after loading (cold) | warm full pass (jobs ended, all re-ranked) | "
             "pass after one new submission (a slot free) | the first pass's commit; wall s (cpu s), "
             "medians of REPEATS runs, x floor = / sorted() of as many tuples",
             f"{'pending':>9} {'load s':>7} {'sorted s':>13} {'cold pass s':>15} {'x floor':>11} "
             f"{'warm pass s':>15} {'x floor':>11} {'1 new: pass s':>15} {'share':>6} {'commit s':>8}"]
    for r in figures["results"]:
        lines.append(
            f"{r['pending']:>9} {r['load_s']:>7.1f} {r['floor_sorted_s']:>6.3f} ({r['floor_sorted_cpu_s']:.3f}) "
            f"{r['full_pass_s']:>7.3f} ({r['full_pass_cpu_s']:.3f}) {r['ratio']:>4.1f} ({r['ratio_cpu']:.1f}) "
            f"{r['warm_full_pass_s']:>7.3f} ({r['warm_full_pass_cpu_s']:.3f}) "
            f"{r['warm_ratio']:>4.1f} ({r['warm_ratio_cpu']:.1f}) "
            f"{r['pass_after_one_submit_s']:>7.4f} ({r['pass_after_one_submit_cpu_s']:.4f}) "
            f"{100 * r['incremental_share']:>5.1f}% {r['commit_s']:>8.3f}")
    for g in figures["growth"]:
        lines.append(f"{g['from']} -> {g['to']} pending: cold pass x{g['full_pass_x']:.1f} "
                     f"(cpu x{g['full_pass_cpu_x']:.1f}), warm pass x{g['warm_full_pass_x']:.1f} "
                     f"(cpu x{g['warm_full_pass_cpu_x']:.1f})")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--big", action="store_true", help="add 1000000 pending jobs (minutes, gigabytes)")
    ap.add_argument("--json", default=str(ROOT / "bench-sched.json"))
    ap.add_argument("--maxmem", default=None, metavar="SIZE",
                    help="every host's memory (e.g. 1000G: requirements evaluated, memory never short); "
                         "default: this machine's")
    ap.add_argument("--profile", metavar="PATH",
                    help="profile one more first pass after loading (the largest size) into PATH")
    ap.add_argument("--profile-after", metavar="PATH",
                    help="profile the passes after one submission (the largest size) into PATH")
    ap.add_argument("--cluster", choices=("aps", "fairshare"), default="aps",
                    help="aps: the share tree under two APS queues with escalation (the issue's figures); "
                         "fairshare: the same two queues as plain fairshare queues, no APS, no escalation")
    ap.add_argument("--repeats", type=int, default=REPEATS, help="timed runs of each pass (medians)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x]
    if args.big and 1_000_000 not in sizes:
        sizes.append(1_000_000)
    # (the process's CPU clock: on a shared machine the wall clock counts the other processes' turns)
    prof = cProfile.Profile(time.process_time) if args.profile else None
    after = cProfile.Profile(time.process_time) if args.profile_after else None
    figures = summary(run(sizes, args.maxmem, args.repeats, prof, args.cluster, after))
    print(table(figures))
    r = figures["results"][-1]
    head = f"# tests/bench/sched.py {' '.join(sys.argv[1:])}\n"
    load = f"# load average (1 min) at the end: {os.getloadavg()[0]:.2f}"
    if after is not None:
        write_profile(after, args.profile_after, (
            f"{head}# the {r['repeats']} passes after one new submission (a slot free), {r['pending']} pending "
            f"jobs, {args.cluster} cluster, under cProfile (CPU time)\n"
            f"# profiled: median {r['pass_after_one_submit_cpu_s']:.4f} s CPU, {100 * r['incremental_share']:.1f}% of "
            f"the running daemon's full pass ({r['warm_full_pass_cpu_s']:.3f} s CPU, not profiled)\n{load}"),
            AFTER_STAGES)
    if prof is not None:
        write_profile(prof, args.profile, (
            f"{head}# the first pass after loading, {r['pending']} pending jobs, one more run under cProfile "
            f"(CPU time)\n# unprofiled: {r['full_pass_cpu_s']:.3f} s CPU, {r['ratio_cpu']:.1f} x sorted() (CPU)\n{load}"))
    Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
