"""Scheduling-pass benchmark: `python tests/bench/sched.py [--sizes 10000,100000]`.

A cluster with N pending jobs from 1,000 users in a three-level share tree
(10 groups x 10 subgroups x 10 users), two APS queues in a QUEUE_GROUP
whose APS_PRIORITY weighs FS, JPRIORITY, QPRIORITY, MEM and PROC, user
priorities with escalation (JOB_PRIORITY_OVER_TIME), 100 slots: most jobs
stay pending, and every pass orders all of them. Measured in this process,
side by side:

* one full scheduling pass of the daemon's Cluster (the jobs loaded from the
  store, as after a restart), and
* the floor: sorted() of N plain (float, int) tuples.

Then one new submission and another pass (target: <= 5% of a full pass,
issue 8). Prints a table and writes bench-sched.json (or --json PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

START = 1767603600.0


def config_files() -> dict[str, str]:
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
    aps = "APS_PRIORITY = WEIGHT[[FS, 100] [JPRIORITY, 1] [QPRIORITY, 10] [MEM, 1] [PROC, 1]]"
    queues = (
        f"Begin Queue\nQUEUE_NAME = high\nPRIORITY = 50\nFAIRSHARE = USER_SHARES[[top, 1]]\n{aps}\n"
        "QUEUE_GROUP = low\nEnd Queue\n\n"
        "Begin Queue\nQUEUE_NAME = low\nPRIORITY = 30\nFAIRSHARE = USER_SHARES[[top, 1]]\nEnd Queue\n"
    )
    params = ("Begin Parameters\nDEFAULT_QUEUE = low\nMBD_SLEEP_TIME = 10\nMAX_USER_PRIORITY = 100\n"
              "JOB_PRIORITY_OVER_TIME = 1/10\nEnd Parameters\n")
    hosts = "Begin Host\nHOST_NAME MXJ JL/U\n" + "".join(f"host{i} 10 ()\n" for i in range(10)) + "End Host\n"
    cluster = ("Begin ClusterAdmins\nAdministrators = lsfadmin\nEnd ClusterAdmins\n\nBegin Host\n"
               "HOSTNAME model type server r1m mem swp RESOURCES\n"
               + "".join(f"host{i} ! ! 1 - - - ()\n" for i in range(10)) + "End Host\n")
    lsb = "lsbatch/cluster1/configdir"
    return {f"{lsb}/lsb.users": users, f"{lsb}/lsb.queues": queues, f"{lsb}/lsb.params": params,
            f"{lsb}/lsb.hosts": hosts, "lsf.cluster.cluster1": cluster}


def fill(home: Path, envdir: Path, n: int, seed: int = 1) -> None:
    """N pending jobs straight into the store (bsub would take minutes)."""
    from sqlalchemy import insert

    from lsfemu.daemon.cluster import Cluster
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
            rows.append(dict(
                id=i, array_index=0, user=users[i % len(users)], status="PEND", queue=rng.choice(("high", "low")),
                from_host="host0", command="sleep 600", num_processors=rng.choice((1, 1, 2, 4)),
                res_req=f"rusage[mem={mem}]" if mem else None, mem_req_mb=float(mem) if mem else None,
                priority=rng.randint(1, 100), priority_base_time=t, pend_since=t, submit_time=t,
                position=float(i), exec_hosts="", pend_reasons="", sim_runtime=600.0, sim_cputime=600.0,
                env_json="{}"))
            if len(rows) == 5000:
                conn.execute(insert(Job), rows)
                rows.clear()
        if rows:
            conn.execute(insert(Job), rows)
        conn.execute(insert(Counter), [dict(name="next_job_id", value=n + 1), dict(name="position", value=n + 1)])
    cl.engine.dispose()


def measure(n: int, root: Path) -> dict:
    from lsfemu.cli.lsfemu_cmd import write_cluster
    from lsfemu.daemon.cluster import Cluster, SubmitSpec

    envdir = Path(write_cluster(str(root / f"conf{n}"), force=True))
    for rel, text in config_files().items():
        (envdir / rel).write_text(text)
    home = root / f"home{n}"
    os.environ["LSFEMU_CLOCK_START"] = str(int(START))
    fill(home, envdir, n)
    t0 = time.perf_counter()
    cl = Cluster(str(envdir), str(home))
    load = time.perf_counter() - t0
    now = cl.now()
    t0 = time.perf_counter()
    cl.scheduling_pass(now)
    full = time.perf_counter() - t0
    started = sum(1 for j in cl.jobs.values() if j.status == "RUN")
    cl.session.commit()
    spec = SubmitSpec(user="u000", queue="high", default_queue_used=False, command="sleep 60", name=None,
                      num_processors=1, max_processors=None, cwd="/", home="/", specified_cwd=None,
                      output_file=None, error_file=None, output_overwrite=False, error_overwrite=False,
                      run_limit_min=None, submit_priority=None, res_req=None, mem_req_mb=None,
                      project="default", user_group=None, env={}, from_host="host0")
    cl.submit(spec)
    t0 = time.perf_counter()
    cl.scheduling_pass(now + 10)
    again = time.perf_counter() - t0
    rng = random.Random(2)
    data = [(rng.random(), i) for i in range(n)]
    t0 = time.perf_counter()
    sorted(data)
    floor = time.perf_counter() - t0
    cl.session.close()
    cl.engine.dispose()
    return {"pending": n, "load_s": load, "full_pass_s": full, "started": started, "floor_sorted_s": floor,
            "ratio": full / floor, "pass_after_one_submit_s": again, "incremental_share": again / full}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--json", default=str(ROOT / "bench-sched.json"))
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="lsfemu-bench-sched-"))
    results = []
    try:
        for n in (int(x) for x in args.sizes.split(",")):
            results.append(measure(n, root))
            print(f"{n} done", file=sys.stderr)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{'pending':>9} {'load s':>8} {'pass s':>8} {'sorted s':>9} {'x floor':>8} {'1 new: pass s':>14} {'share':>6}")
    for r in results:
        print(f"{r['pending']:>9} {r['load_s']:>8.2f} {r['full_pass_s']:>8.2f} {r['floor_sorted_s']:>9.4f} "
              f"{r['ratio']:>8.0f} {r['pass_after_one_submit_s']:>14.2f} {100 * r['incremental_share']:>5.0f}%")
    Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
