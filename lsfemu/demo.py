"""`lsfemu demo`: a narrated tour on a fresh temporary cluster.

It writes the `lsfemu init` cluster to a temporary folder, starts a daemon
for it, and runs real commands (through the same client the LSF commands
use) as several users while it moves the virtual clock, printing each
command line and its exact output.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tempfile
import textwrap

from lsfemu.client import call, stop_daemon
from lsfemu.config.sample import write_cluster
from lsfemu.store.db import holds_jobs, storage_failure


def _say(text: str) -> None:
    print()
    for line in textwrap.wrap(text, 76):
        print(f"# {line}")


def _run(cmdline: str, user: str | None = None) -> int:
    argv = shlex.split(cmdline)
    shown = (f"LSFEMU_USER={user} " if user else "") + cmdline
    print(f"$ {shown}")
    if user:
        os.environ["LSFEMU_USER"] = user
    else:
        os.environ.pop("LSFEMU_USER", None)
    out, err, rc = call(argv[0], argv[1:])
    sys.stdout.write(out + err)
    sys.stdout.flush()
    return rc


def _shared_store_in_use() -> str | None:
    """With LSFEMU_DB (a PostgreSQL store, say) the demo's cluster is not in its
    temporary folder: the tour's job IDs need that store empty. Why not, or None."""
    url = os.environ.get("LSFEMU_DB")
    if not url:
        return None
    try:
        if holds_jobs(url):
            return "the store LSFEMU_DB names already holds jobs; the demo needs an empty store"
        return None
    except Exception as e:
        why = storage_failure(e)
        if why is None:
            raise
        return why


def run_demo(keep: bool = False) -> int:
    why = _shared_store_in_use()
    if why is not None:
        print(f"lsfemu demo: {why}", file=sys.stderr)
        return 1
    root = tempfile.mkdtemp(prefix="lsfemu-demo-")
    saved = {k: os.environ.get(k) for k in ("LSF_ENVDIR", "LSFEMU_HOME", "LSFEMU_USER", "LSFEMU_DAEMON")}
    failures = 0
    try:
        envdir = str(write_cluster(os.path.join(root, "conf"), clock="virtual"))
        os.environ["LSF_ENVDIR"] = envdir
        os.environ["LSFEMU_HOME"] = os.path.join(root, "home")
        os.environ.pop("LSFEMU_DAEMON", None)
        print("lsfemu demo: a fresh cluster in", root)
        _say("This is a small LSF cluster on your machine: 3 hosts with 4 job slots each, "
             "queues 'normal' and 'priority', users user1..user3 and the admin lsfadmin. "
             "Its clock is virtual: time moves only when we say so.")
        steps = [
            ("lsid", None, "Which cluster is this?"),
            ("bqueues", None, "Queues, highest priority first."),
            ("bhosts", None, "Hosts and their job slots (MAX)."),
            ("bsub -J hello -n 2 sleep 600", "user1", "user1 submits a 2-slot job that sleeps 10 minutes. "
             "The first command starts the daemon (mbatchd's role)."),
            ("bsub -q priority -J urgent sleep 120", "user2", "user2 submits to the high-priority queue."),
            ("bsub -J big -n 12 sleep 300", "user3", "user3 asks for all 12 slots of the cluster."),
            ("bsub -J small sleep 60", "user3", "and a small one."),
            ("bjobs -u all", None, "Everything pends until the next scheduling pass (every MBD_SLEEP_TIME = 10 s)."),
            ("lsfemu clock advance 10s", None, "Move the clock to the next pass."),
            ("bjobs -u all -w", None, "The priority queue went first. Inside 'normal' jobs go first come, "
             "first served; the 12-slot job cannot start (3 slots are taken), but the small job behind it "
             "fits in a free slot: LSF does not hold slots back for a big job unless told to."),
            ("bjobs -p -u all", None, "Why do jobs pend? bjobs -p says."),
            ("bstop 1", "user1", "user1 suspends job 1 ..."),
            ("bjobs 1", "user1", None),
            ("bresume 1", "user1", "... and resumes it."),
            ("bkill 2", "user1", "Nobody may touch another user's job ..."),
            ("bkill 2", "lsfadmin", "... except the cluster administrator."),
            ("lsfemu clock advance 15m", None, "Fast-forward 15 minutes: jobs run and finish on the virtual clock."),
            ("bjobs -a -u all", None, "bjobs -a shows finished jobs too (for CLEAN_PERIOD)."),
            ("bjobs -l 1", None, "The long form of job 1, in LSF's 79-column layout."),
            ("busers all", None, "Per-user job slot counts and limits (MAX_JOBS from lsb.users)."),
            ("bjobs -o 'jobid user stat queue exec_host run_time' -u all -a", None, "Custom columns, as scripts use them."),
        ]
        for cmd, user, text in steps:
            if text:
                _say(text)
            rc = _run(cmd, user)
            if rc != 0 and (cmd, user) != ("bkill 2", "user1"):
                failures += 1  # every other step must succeed
        _say("That is the tour. Try it yourself: 'lsfemu init ~/lsfconf', "
             "'export LSF_ENVDIR=~/lsfconf', then bsub, bjobs and 'lsfemu clock advance'.")
    finally:
        try:
            stop_daemon()
        except Exception as e:  # the tour is over either way
            print(f"lsfemu demo: could not stop the daemon: {e}", file=sys.stderr)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if keep:
            print(f"\nThe demo cluster is kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if failures else 0
