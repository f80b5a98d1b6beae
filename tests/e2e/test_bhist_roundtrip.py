"""A scripted history through every job command, read back two ways: live
`bhist -l` on the cluster, and `bhist -l -f` on a copy of its lsb.events
read with no cluster at all. Both must be identical."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow(9)  # seconds, quiet machine: scheduled early (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def test_live_and_file_bhist_agree(lsf_cluster, tmp_path):
    c = lsf_cluster
    c.run("bsub -J first -sp 40 sleep 600", user="user1")
    c.run("bsub -q priority -n 2 sleep 300", user="user2")
    c.run("bsub -r sleep 900", user="user1")
    c.run("bmod -sp 70 1", user="user1")
    c.run("bmod -aps system=10 1", user="lsfadmin")
    c.run("bmod -apsn 1", user="lsfadmin")
    c.run("btop 3", user="user1")
    c.advance("10s")
    c.run("bstop 2", user="user2")
    c.advance("1m")
    c.run("bresume 2", user="user2")
    c.run("bswitch priority 1", user="user1")
    c.run("brequeue 3", user="user1")
    c.advance("5m")
    assert c.run("bkill 3", user="lsfadmin").rc == 0
    c.advance("1h")
    live = c.run("bhist -l -a -u all")
    assert live.rc == 0 and live.out.count("Summary of time in seconds") == 3
    c.run("lsfemu daemon stop")
    copy = tmp_path / "lsb.events.copy"
    shutil.copy(c.home / "logdir" / "lsb.events", copy)
    env = {"PATH": "/usr/bin:/bin", "TZ": "UTC", "HOME": str(tmp_path)}  # no LSF_ENVDIR: no cluster
    p = subprocess.run([sys.executable, str(ROOT / "bin" / "bhist"), "-l", "-a", "-u", "all", "-f", str(copy)],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert (p.stdout, p.returncode) == (live.out, 0), p.stderr
    for text in ("New job priority is: 70;", "Absolute Priority Scheduling factor string changed to : system=10;",
                 "Absolute Priority Scheduling factor string deleted;", "Switched to Queue <priority> by user or",
                 "Pending: Job has been requeued;", "Signal <KILL> requested by user or administrator <lsfadmin>;"):
        assert text in live.out.replace("\n                     ", ""), text
