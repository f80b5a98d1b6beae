"""What the daemon keeps in memory per pending job (issue 23, part 3b):
``python tests/bench/memory.py [--sizes 10000,100000] [--trace]``.

For each size, a store bulk-filled with that many pending jobs (1,000 users,
two queues: tests/bench/fill.py) is loaded into a cluster in this process,
as the daemon loads it at its start (``Cluster(...)``), and then one
scheduling pass runs (the virtual clock moved one MBD_SLEEP_TIME: what a
running daemon keeps between passes). The figures are the growth of this
process's resident memory (VmRSS) over the same cluster with an empty store,
per job: after the load and after the pass. A second part submits
``--submit`` jobs one request at a time through the daemon's request
handler (lsfemu.daemon.dispatch.handle: ``bsub``, then the clock a second
on), as sequential ``bsub`` fill a daemon (tests/bench/peer.py's figure),
and gives the growth per job likewise (in a process of its own: one that
loaded the big stores before has their freed memory to reuse).

``--trace`` runs the load and the pass again under tracemalloc and prints what
holds the memory after the load, and what the pass added to it, per job: by allocation site (file:line), the first lsfemu frame of
each traceback, and the bytes per job of the traced total (a figure that
tracemalloc's own bookkeeping makes slower to get, not larger).
JSON in ``bench-memory.json`` (or ``--json``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fill import START, Bulk, bulk_submit  # noqa: E402
from harness import ROOT, cluster_env  # noqa: E402

sys.path.insert(0, str(ROOT))


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def open_cluster(env: dict[str, str]):
    from lsfemu.engine.cluster import Cluster

    os.environ.update({k: v for k, v in env.items() if k.startswith(("LSF", "LSFEMU_", "TZ"))})
    return Cluster(env["LSF_ENVDIR"], env["LSFEMU_HOME"])


def loaded(root: Path, n: int, trace: bool) -> dict:
    """RSS growth per job: the store loaded, then one pass."""
    env = cluster_env(root, f"mem{n}")
    bulk_submit(env["LSF_ENVDIR"], env["LSFEMU_HOME"], Bulk(n=n, users=[f"user{i}" for i in range(1, 1001)],
                                                             queues=["normal", "priority"], runtimes=(60, 7200)),
                t=START, log_events=False)
    empty = open_cluster(cluster_env(root, f"empty{n}"))
    empty.catch_up()
    empty.commit()
    gc.collect()
    base = rss_mb()
    if trace:
        tracemalloc.start(25)
    t0 = time.process_time()
    cl = open_cluster(env)
    load_cpu = time.process_time() - t0
    gc.collect()
    after_load = rss_mb()
    row = {"jobs": len(cl.jobs), "rss_empty_mb": base, "load_cpu_s": load_cpu,
           "kb_per_job_loaded": (after_load - base) * 1024 / n}
    snap = tracemalloc.take_snapshot() if trace else None
    cl.advance(float(max(1, cl.config.params.mbd_sleep_time)))
    cl.commit()
    gc.collect()
    if trace:  # what the load holds, and what the pass adds to it
        after = tracemalloc.take_snapshot()
        row["trace"] = breakdown(snap.statistics("traceback"), n)
        row["trace_pass"] = breakdown(after.compare_to(snap, "traceback"), n)
        tracemalloc.stop()
    else:
        row["kb_per_job_after_pass"] = (rss_mb() - base) * 1024 / n
    cl.close()
    empty.close()
    return row


def breakdown(stats, n: int) -> dict:
    """Bytes per job by allocation site and by the first lsfemu frame, of a
    snapshot's statistics (or of the differences between two: what was added)."""
    stats = [(s.size_diff, s.count_diff, s.traceback) if hasattr(s, "size_diff") else (s.size, s.count, s.traceback)
             for s in stats]
    sites: dict[str, list[float]] = {}
    owners: dict[str, float] = {}
    for size, count, tb in stats:
        top = tb[-1] if tb else None  # (most recent call last)
        site = f"{top.filename.split('site-packages/')[-1].split('lsfemu/')[-1]}:{top.lineno}" if top else "?"
        acc = sites.setdefault(site, [0.0, 0.0])
        acc[0] += size / n
        acc[1] += count / n
        own = next((f for f in reversed(tb) if "/lsfemu/" in f.filename), None)
        key = f"{own.filename.split('lsfemu/')[-1]}:{own.lineno}" if own else "?"
        owners[key] = owners.get(key, 0.0) + size / n
    top_sites = sorted(sites.items(), key=lambda kv: -kv[1][0])[:15]
    return {"traced_bytes_per_job": sum(v[0] for v in sites.values()),
            "sites": [{"site": k, "bytes_per_job": round(v[0], 1), "objects_per_job": round(v[1], 2)}
                      for k, v in top_sites],
            "owners": [{"frame": k, "bytes_per_job": round(v, 1)}
                       for k, v in sorted(owners.items(), key=lambda kv: -kv[1])[:8]]}


def submitted(root: Path, n: int) -> dict:
    """RSS growth per job of *n* submissions, one request each, the clock a second on after each."""
    from lsfemu.daemon.dispatch import handle

    env = cluster_env(root, f"sub{n}")
    cl = open_cluster(env)
    cl.catch_up()
    cl.commit()
    # (the environment a bsub sends: its whole environment, kept with the job for its run)
    req = {"cmd": "bsub", "argv": ["-o", "/dev/null", "sleep", "1000"], "cwd": "/tmp",
           "env": dict(os.environ, LSFEMU_USER="user1", TZ="UTC", LSF_ENVDIR=env["LSF_ENVDIR"])}
    handle(cl, dict(req, cmd="bqueues", argv=[]), os.getuid())
    gc.collect()
    base = rss_mb()
    t0 = time.process_time()
    for _ in range(n):
        r = handle(cl, req, os.getuid())
        if r.rc != 0:
            raise RuntimeError(r.err)
        cl.advance(1.0)
        cl.commit()
    cpu = time.process_time() - t0
    gc.collect()
    row = {"jobs": n, "kb_per_job": (rss_mb() - base) * 1024 / n, "cpu_ms_per_job": cpu * 1000 / n}
    cl.close()
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000", help="pending jobs loaded")
    ap.add_argument("--submit", type=int, default=2000, help="jobs submitted one request at a time (0: none)")
    ap.add_argument("--trace", action="store_true", help="also the tracemalloc breakdown (at the first size)")
    ap.add_argument("--json", default=str(ROOT / "bench-memory.json"))
    ap.add_argument("--submitted-here", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.submitted_here:  # (the child: the submitted part, its figures on stdout)
        print(json.dumps(submitted(Path(args.json), args.submitted_here)))
        return 0
    res: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_before": os.getloadavg(),
                 "python": sys.version.split()[0], "loaded": [], "submitted": None}
    with tempfile.TemporaryDirectory(prefix="lsfemu-bench-mem-") as tmp:
        root = Path(tmp)
        sizes = [int(x) for x in args.sizes.split(",")]
        for n in sizes:
            res["loaded"].append(loaded(root / f"l{n}", n, trace=False))
        if args.trace:
            traced = loaded(root / "trace", sizes[0], trace=True)
            res["trace"], res["trace_pass"] = traced["trace"], traced["trace_pass"]
        if args.submit:  # in a process of its own: this one has the loads' freed memory to reuse
            p = subprocess.run([sys.executable, __file__, "--submitted-here", str(args.submit), "--json", str(root)],
                               capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(p.stderr[-2000:])
            res["submitted"] = json.loads(p.stdout)
    Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    for r in res["loaded"]:
        print(f"{r['jobs']:>8} pending jobs: {r['kb_per_job_loaded']:.2f} KB/job loaded, "
              f"{r['kb_per_job_after_pass']:.2f} KB/job after a pass (load {r['load_cpu_s']:.2f} s CPU)")
    if res["submitted"]:
        s = res["submitted"]
        print(f"{s['jobs']:>8} submitted one at a time: {s['kb_per_job']:.2f} KB/job, {s['cpu_ms_per_job']:.1f} ms CPU/job")
    for part, what in (("trace", "loaded"), ("trace_pass", "added by the pass")):
        if part not in res:
            continue
        t = res[part]
        print(f"traced at {sizes[0]}, {what}: {t['traced_bytes_per_job']:.0f} B/job")
        for s in t["sites"]:
            print(f"  {s['bytes_per_job']:7.0f} B {s['objects_per_job']:6.2f} obj  {s['site']}")
        for o in t["owners"]:
            print(f"  {o['bytes_per_job']:7.0f} B  under {o['frame']}")
    print(f"JSON in {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
