"""Load: 16 concurrent clients x 25 bsub each, interleaved with bjobs, bmod
and bkill from other clients. Every acknowledged job is there exactly once,
no client sees an error, and lsb.events agrees with the store."""

import concurrent.futures
import re
import sqlite3

import pytest

from lsfemu.events.log import read_events
from lsfemu.events import lsbatch
from lsfemu.events.records import JobNew, JobStatus

pytestmark = pytest.mark.slow(35)  # seconds, quiet machine: scheduled early (tests/conftest.py)

CLIENTS = 16
PER_CLIENT = 25  # 16 at once is the load; more per client only lengthens it
MEDDLES = 12  # rounds of bjobs, bmod and bkill per meddler: they end with the submitters
SUBMITTED = re.compile(r"^Job <(\d+)> is submitted to (default )?queue <normal>\.\n$")


def test_sixteen_clients_submit_400_jobs(lsf_cluster):
    c = lsf_cluster
    c.run("lsid")  # start the daemon

    def submitter(n):
        ids = []
        for i in range(PER_CLIENT):
            r = c.run(["bsub", "-J", f"c{n}-{i}", "sleep", "1000"], user=f"user{n % 3 + 1}")
            m = SUBMITTED.match(r.out)
            assert m and r.rc == 0 and r.err == "", r.text
            ids.append(int(m.group(1)))
        return ids

    def meddler(n):
        errors = []
        for i in range(MEDDLES):
            for cmd, user in ((["bjobs", "-u", "all", "-noheader", "-o", "jobid"], None),
                              (["bmod", "-sp", "70", str(i + 1)], "lsfadmin"),
                              (["bkill", str(CLIENTS * PER_CLIENT // 2 + i)], "lsfadmin")):
                r = c.run(cmd, user=user)
                if "Traceback" in r.text or "internal error" in r.text or "no answer" in r.text:
                    errors.append(r.text)
        return errors

    with concurrent.futures.ThreadPoolExecutor(CLIENTS + 3) as pool:
        subs = [pool.submit(submitter, n) for n in range(CLIENTS)]
        meds = [pool.submit(meddler, n) for n in range(3)]
        ids = [i for f in subs for i in f.result()]
        errors = [e for f in meds for e in f.result()]
    assert errors == []
    assert len(ids) == CLIENTS * PER_CLIENT == len(set(ids))
    assert sorted(ids) == list(range(1, CLIENTS * PER_CLIENT + 1))

    c.run("lsfemu daemon stop")
    with sqlite3.connect(c.home / "lsfemu.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        stored = {r[0] for r in db.execute("SELECT id FROM jobs")}
        killed = {r[0] for r in db.execute("SELECT id FROM jobs WHERE status = 'EXIT'")}
    assert stored == set(ids)
    logged = [rec for _, rec in read_events([c.home / "logdir" / "lsb.events"])]
    new = [r.job_id for r in logged if isinstance(r, JobNew)]
    assert sorted(new) == sorted(ids)  # each acknowledged job logged once
    exits = {r.job_id for r in logged if isinstance(r, JobStatus) and r.status == lsbatch.JOB_STAT_EXIT}
    assert exits == killed
