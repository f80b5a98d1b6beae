"""A crash between lsb.acct's append and the store's commit (issue 20): the
process dies (os._exit) in the very commit that finishes a job, after its
JOB_FINISH reached lsb.acct. The next start cuts the record off (the store
never finished the job), the job ends again, and lsb.acct holds its record
exactly once. (tests/hardening/test_crash.py kills a daemon at random
moments; this one hits the window on purpose.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lsfemu.events.acct import read_acct

pytestmark = pytest.mark.slow(6)

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r'''
import os, sys
from lsfemu.config.sample import write_cluster
from lsfemu.engine.cluster import Cluster
from lsfemu.engine.jobs import SubmitSpec

root, step = sys.argv[1], sys.argv[2]
os.environ["LSFEMU_CLOCK_START"] = "1767603600"
envdir = write_cluster(os.path.join(root, "conf"), force=True) if step == "crash" else os.path.join(root, "conf")
cl = Cluster(str(envdir), os.path.join(root, "home"))
if step == "crash":
    cl.submit(SubmitSpec(
        user="user1", queue="normal", default_queue_used=True, command="sleep 60", name=None, num_processors=1,
        max_processors=None, cwd=root, home=root, specified_cwd=None, output_file=None, error_file=None,
        output_overwrite=False, error_overwrite=False, run_limit_min=None, submit_priority=None, res_req=None,
        mem_req_mb=None, project="default", user_group=None, env={}, from_host="hostA"))
    cl.commit()
    commit = cl.session.commit

    def dying_commit():
        if cl.acct.size():  # the JOB_FINISH is in lsb.acct, the store not yet committed
            os._exit(9)
        commit()

    cl.session.commit = dying_commit
else:
    print(cl.acct.size(), cl.jobs[(1, 0)].status)
cl.run_until(cl.now() + 600)
cl.commit()
print(cl.jobs[(1, 0)].status, cl.acct.size())
'''


def _run(root: Path, step: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SCRIPT, str(root), step], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_a_crash_after_the_append_neither_loses_nor_repeats_the_record(tmp_path):
    crashed = _run(tmp_path, "crash")
    assert crashed.returncode == 9, crashed.stderr
    acct = tmp_path / "home" / "logdir" / "lsb.acct"
    assert [r.job_id for r in read_acct(acct)] == [1]  # written, never acknowledged
    again = _run(tmp_path, "restart")
    assert again.returncode == 0, again.stderr
    first, last = again.stdout.splitlines()
    # cut back at start; the store has the job as before that commit (run_until's start and end
    # were one commit)
    assert first == "0 PEND"
    assert last.startswith("DONE ")
    recs = list(read_acct(acct, lambda w: pytest.fail(str(w))))
    assert [(r.job_id, r.j_status) for r in recs] == [(1, 64)]
