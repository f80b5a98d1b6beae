"""The virtual clock in its steady state, and what-if replay (issue 23, part 4):
``python tests/bench/clock.py [--jobs 100000] [--span 20000] [--whatif 10000]``.

``all.py``'s clock group gives the clock a wall-time budget, which on a loaded
machine is spent in the first pass over the pending jobs. This one measures
what a simulated job costs once the clock runs: the cluster of the clock
group (``--jobs`` jobs from 100 users, 1,000 slots, run times such that the
jobs fill the slots for 7 days), its first simulated hour run and committed
first (the first pass, its 1,000 starts), then ``--span`` simulated seconds
in requests of ``--step`` seconds, each committed as a ``clock advance``
would be: the jobs that finished in that span per CPU second of this process
(CPU: the wall time of a shared machine says little). With ``--digest`` it
prints a digest of the store's jobs, history and usage rows and of lsb.events
and lsb.acct, times relative to the first start (for an A/B run whose clock
origins differ): two trees that must write the same give the same digest.

``--profile PATH``: cProfile (its own timer: one on the process's CPU clock
costs a system call a function call and swamps what it measures) of exactly the
measured requests, written to PATH as pstats text (top functions by their
own time, then the stages by cumulative time).

``--whatif N``: ``lsfemu replay FILE --what-if CONF`` (its own process) of a
synthetic lsb.events of N jobs (lsfemu.events.synth) under a configuration
of 1,000 slots: wall and CPU time (wait4) and jobs per CPU second.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import os
import pstats
import re
import resource
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

from all import clock_files  # noqa: E402
from fill import START, Bulk, bulk_submit  # noqa: E402
from harness import cluster_env  # noqa: E402

_EPOCH = re.compile(rb"(?<![\d.])1[6-9]\d{8}(?:\.\d+)?\b")  # (not the digits of a fraction)


def _relative(data: bytes, origin: float) -> bytes:
    """Times at or after *origin* (the first start) written relative to it,
    both in whole seconds: the files hold the store's fractional instants
    truncated, and a difference rounded would hang on the origin's fraction
    (which the wall clock picks anew each run)."""
    base = int(origin)
    return _EPOCH.sub(lambda m: (b"T+%d" % (int(float(m.group(0))) - base)) if float(m.group(0)) >= base
                      else m.group(0), data)


def digest(cl, root: Path) -> str:
    from sqlalchemy import text

    with cl.engine.connect() as c:
        origin = c.execute(text("SELECT MIN(start_time) FROM jobs")).scalar() or 0.0
        rows = [repr(tuple(r)).encode() for tbl in ("jobs", "job_events", "user_usage")
                for r in c.execute(text(f"SELECT * FROM {tbl} ORDER BY 1, 2"))]
    h = hashlib.sha1(_relative(b"\n".join(rows), origin))
    for f in sorted(p for p in root.rglob("lsb.*") if p.is_file() and p.name.startswith(("lsb.events", "lsb.acct"))):
        h.update(f.name.encode())
        h.update(_relative(f.read_bytes(), origin))
    return h.hexdigest()[:16]


def steady(jobs: int, span: float, step: float, with_digest: bool, profile: Path | None = None) -> dict:
    root = Path(tempfile.mkdtemp(prefix="lsfemu-bench-clock-"))
    env = cluster_env(root, "clock", clock_files(10, 100))
    mean = 7 * 86400 * 1000 / jobs
    bulk_submit(env["LSF_ENVDIR"], env["LSFEMU_HOME"],
                Bulk(n=jobs, users=[f"user{i}" for i in range(1, 101)], queues=["normal"],
                     runtimes=(int(mean * 0.2), int(mean * 1.8))), t=START, log_events=False)
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        from lsfemu.engine.cluster import Cluster

        cl = Cluster(env["LSF_ENVDIR"], env["LSFEMU_HOME"])

        def finished() -> int:
            return sum(1 for j in cl.jobs.values() if j.status in ("DONE", "EXIT"))

        cl.run_until(cl.now() + 3600)
        cl.commit()
        before = finished()
        prof = cProfile.Profile() if profile else None
        c0, w0 = time.process_time(), time.perf_counter()
        if prof:
            prof.enable()
        end = cl.now() + span
        requests = 0
        while cl.now() < end:
            cl.run_until(min(end, cl.now() + step))
            cl.commit()
            requests += 1
        if prof:
            prof.disable()
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        out = {"jobs": jobs, "span_s": span, "step_s": step, "requests": requests, "finished": finished() - before,
               "cpu_s": cpu, "wall_s": wall}
        out["jobs_per_cpu_s"] = out["finished"] / cpu if cpu else 0.0
        if with_digest:
            out["digest"] = digest(cl, root)
        if prof:
            write_profile(prof, profile, out)
        cl.close()
    finally:
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(root, ignore_errors=True)
    return out


def write_profile(prof: cProfile.Profile, path: Path, out: dict) -> None:
    """The measured requests' profile as pstats text: the top functions by
    their own time, then the top-level stages (the clock's run and its
    commit, and what they call) by cumulative time. cProfile's per-call cost
    inflates small functions called often; the figure of the run itself
    (printed first) is taken with the profiler on, so it is below the
    unprofiled figure."""
    buf = io.StringIO()
    buf.write(f"# measured with the profiler on: {out['finished']} jobs finished, {out['cpu_s']:.2f} s CPU, "
              f"{out['finished'] / out['cpu_s']:.0f} jobs per CPU second ({out['requests']} requests)\n\n")
    st = pstats.Stats(prof, stream=buf)
    st.sort_stats("tottime").print_stats(30)
    st.sort_stats("cumulative").print_stats(r"cluster\.py.*\((run_until|commit)\)|loop\.py|jobs\.py|passes\.py"
                                            r"|eventlog\.py|acctlog\.py|changedrows\.py|passdelta\.py", 40)
    text = re.sub(r"\s*\n\s*\n\s*\n+", "\n\n", buf.getvalue())
    path.write_text(text.replace(str(ROOT) + "/", ""))
    if os.environ.get("CLOCK_PROFILE_RAW"):  # (the raw stats too, for pstats' callers/callees)
        prof.dump_stats(os.environ["CLOCK_PROFILE_RAW"])


def whatif(jobs: int) -> dict:
    from lsfemu.events.synth import RECORDS_PER_JOB, write_events

    root = Path(tempfile.mkdtemp(prefix="lsfemu-bench-whatif-"))
    try:
        log = root / "lsb.events"
        n = write_events(log, jobs * RECORDS_PER_JOB + 1)
        conf = cluster_env(root, "conf", clock_files(100, 10))["LSF_ENVDIR"]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
        env["TZ"] = "UTC"
        w0 = time.perf_counter()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, str(ROOT / "bin" / "lsfemu"), "replay", str(log), "--what-if", conf,
                        "--no-progress", "--json", str(root / "report.json")], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
        return {"jobs": n, "wall_s": time.perf_counter() - w0, "cpu_s": cpu, "jobs_per_cpu_s": n / cpu,
                "max_rss_mb": r1.ru_maxrss / 1024}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--span", type=float, default=20_000.0, help="simulated seconds measured")
    ap.add_argument("--step", type=float, default=1800.0, help="simulated seconds per request")
    ap.add_argument("--digest", action="store_true", help="print a digest of what the clock wrote")
    ap.add_argument("--whatif", type=int, default=0, help="jobs of the what-if replay (0: none)")
    ap.add_argument("--profile", type=Path, help="write cProfile's pstats text of the measured requests here")
    args = ap.parse_args()
    if args.jobs:
        r = steady(args.jobs, args.span, args.step, args.digest, args.profile)
        print(f"clock, {r['jobs']} jobs / 1000 slots, {r['span_s']:.0f} s simulated in {r['requests']} requests: "
              f"{r['finished']} finished, {r['cpu_s']:.2f} s CPU ({r['wall_s']:.2f} s wall), "
              f"{r['jobs_per_cpu_s']:.0f} jobs per CPU second" + (f", digest {r['digest']}" if args.digest else ""))
    if args.whatif:
        r = whatif(args.whatif)
        print(f"replay --what-if, {r['jobs']} jobs: {r['cpu_s']:.1f} s CPU ({r['wall_s']:.1f} s wall), "
              f"{r['jobs_per_cpu_s']:.0f} jobs per CPU second, peak RSS {r['max_rss_mb']:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
