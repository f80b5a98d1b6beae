"""Crashes: the daemon is killed with SIGKILL at random moments during a
submission burst, 12 times over (6 on PostgreSQL); clients restart it. Every job a client saw
acknowledged is still there with its parameters, a client that got no
answer says so (never a false acknowledgement), the store's integrity check
passes, lsb.events holds exactly the jobs the store holds, and lsb.acct
exactly one JOB_FINISH record for each job the store has finished (one client
kills its first two jobs of each round: those kills are committed while the
daemon dies too; tests/hardening/test_crash_acct.py hits that window on purpose).
On SQLite and on PostgreSQL."""

import concurrent.futures
import os
import random
import re
import signal
import threading
import time

import pytest

from lsfemu.events.acct import read_acct
from lsfemu.events.records import JobNew
from lsfemu.events.log import read_events

pytestmark = pytest.mark.slow(53)  # seconds, quiet machine: scheduled early (tests/conftest.py)

# Each client submits this many per round: the kill comes within its first one or two
# (0.05-0.4 s in), the rest start the daemon again and go on; more only lengthen the round.
PER_CLIENT = 6
SUBMITTED = re.compile(r"^Job <(\d+)> is submitted to queue <priority>\.\n$")


def _daemon_pid(c):
    try:
        return int((c.home / "mbatchd.lock").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


@pytest.mark.lsfemu_stores  # also on PostgreSQL
def test_sigkill_during_bursts_loses_nothing_acknowledged(lsf_cluster):
    c = lsf_cluster
    # 12 rounds on SQLite, 6 on PostgreSQL: the second variant runs in the same
    # xdist worker (--dist loadfile) and this file is the suite's longest.
    rounds = 6 if c.db_url else 12
    c.run("lsid")
    rng = random.Random(7)
    acked: dict[int, str] = {}
    lock = threading.Lock()
    no_answer = 0
    kills = 0

    def client(n, rnd):
        nonlocal no_answer
        for i in range(PER_CLIENT):
            name = f"r{rnd}-c{n}-{i}"
            r = c.run(["bsub", "-q", "priority", "-n", "2", "-J", name, "sleep", "500"], user="user2")
            m = SUBMITTED.match(r.out)
            if m:
                assert r.rc == 0
                with lock:
                    acked[int(m.group(1))] = name
                if n == 0 and i < 2:  # its end goes to lsb.acct; the answer may be lost in a kill
                    c.run(["bkill", m.group(1)], user="user2")
            else:
                assert r.rc != 0 and r.out == "", r.text  # never a partial or false acknowledgement
                assert "Traceback" not in r.err
                with lock:
                    no_answer += 1

    for rnd in range(rounds):
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            futures = [pool.submit(client, n, rnd) for n in range(4)]
            time.sleep(rng.uniform(0.05, 0.4))
            pid = _daemon_pid(c)
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                    kills += 1
                except ProcessLookupError:
                    pass
            for f in futures:
                f.result()
    assert kills >= rounds * 3 // 4
    c.run("lsfemu daemon stop")
    c.run("lsid")  # one clean start: the event log is cut to what the store committed
    c.run("lsfemu daemon stop")
    assert c.store_intact()
    rows = {r[0]: (r[1], r[2], r[3], r[4]) for r in c.store_rows('SELECT id, name, queue, num_processors, "user" FROM jobs')}
    for jid, name in acked.items():
        assert rows[jid] == (name, "priority", 2, "user2"), jid
    logged = [r.job_id for _, r in read_events([c.home / "logdir" / "lsb.events"]) if isinstance(r, JobNew)]
    assert sorted(logged) == sorted(rows)  # the log and the store agree exactly
    ended = [r[0] for r in c.store_rows("SELECT id FROM jobs WHERE status IN ('DONE', 'EXIT')")]
    accounted = [r.job_id for r in read_acct(c.home / "logdir" / "lsb.acct", lambda w: pytest.fail(str(w)))]
    assert ended and sorted(accounted) == sorted(ended)  # none lost, none twice
    print(f"acknowledged {len(acked)}, unanswered {no_answer}, kills {kills}")
