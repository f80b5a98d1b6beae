"""What a test cluster's daemon costs (issue 23, suite time): `python tests/bench/start.py`.

Every test cluster starts a daemon of its own, so the suite pays a start
(interpreter, imports, the store made, the first requests) hundreds of
times. For `--runs` fresh clusters in turn (virtual clock, the sample
cluster) this starts the daemon as a command does (`lsfemu daemon start`),
then runs `bqueues`, `bsub` and `lsfemu clock advance`, and reads the daemon's
own CPU time (user + system, /proc/PID/stat: it is not our child) after each
step; then stops it. CPU time, not wall: less sensitive to the machine's load.
Prints the medians (ms) and writes them as JSON (--json PATH).

For an A/B comparison run it from two checkouts, interleaved (--runs small,
repeated): each measures its own tree's commands and daemon. `--template`:
the daemons are forked from a daemon template (lsfemu.daemon.forkserver,
started first and waited for), as the test suite's clusters' are.
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from harness import cluster_env, run_ok  # noqa: E402  (tests/bench on sys.path: run as a script)
from run import command  # noqa: E402

STEPS = (("start", ["lsfemu", "daemon", "start"]), ("bqueues", ["bqueues"]), ("bsub", ["bsub", "sleep", "60"]),
         ("clock advance", ["lsfemu", "clock", "advance", "2m"]))


def daemon_cpu(home: Path) -> float:
    """The CPU seconds (user + system) the daemon of `home` has used so far."""
    pid = int((home / "mbatchd.lock").read_text().split()[0])
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_start(root: Path, n: int, template: str | None = None) -> dict[str, float]:
    """The daemon's CPU after each step (cumulative) of one fresh cluster."""
    env = cluster_env(root, f"s{n}")
    if template is not None:
        env["LSFEMU_FORKSERVER"] = template
    home = Path(env["LSFEMU_HOME"])
    seen = {}
    try:
        for name, argv in STEPS:
            run_ok(command(argv[0]) + argv[1:], env)
            seen[name] = daemon_cpu(home)
    finally:
        subprocess.run(command("lsfemu") + ["daemon", "stop"], env=env, capture_output=True)
    return seen


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10, help="fresh clusters, one after the other")
    ap.add_argument("--json", default=None, help="write the samples and medians here")
    ap.add_argument("--template", action="store_true", help="fork the daemons from a daemon template")
    args = ap.parse_args()
    template = None
    if args.template:
        from lsfemu.testing import daemon_template  # (only with --template)

        template = daemon_template()
        deadline = time.monotonic() + 60
        while template is None or not os.path.exists(template):
            if template is None or time.monotonic() > deadline:
                raise SystemExit("start.py: the daemon template did not start")
            time.sleep(0.05)
    root = Path(tempfile.mkdtemp(prefix="lsfemu-start-"))
    try:
        samples = [one_start(root, n, template) for n in range(args.runs)]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    medians = {name: statistics.median(s[name] for s in samples) for name, _ in STEPS}
    for name, _ in STEPS:
        print(f"daemon CPU after {name:<14} {medians[name] * 1000:7.0f} ms (median of {args.runs})")
    if args.json:
        figures = {"runs": args.runs, "template": args.template, "samples": samples, "median_s": medians}
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
