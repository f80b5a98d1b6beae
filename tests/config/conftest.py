"""Shared fixtures of the configuration-parser tests: a complete, valid cluster
configuration (the samples of lsf-formats.md section 10) and a writer that puts
it, with per-test replacements, into a folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CLUSTER = "mycluster"
CLUSTER_FILE = f"lsf.cluster.{CLUSTER}"

LSF_CONF = """\
# LSF_ENVDIR/lsf.conf
LSF_UNIT_FOR_LIMITS=MB
LSB_JOBID_DISP_LENGTH = 10
LSB_DISPLAY_YEAR=Y
LSB_BJOBS_FORMAT="jobid stat user queue # not a comment"
LSF_MASTER_LIST="hostA hostB"   # trailing comment
lsb_short_hostlist=1
"""

LSF_CLUSTER = """\
Begin ClusterAdmins
Administrators = lsfadmin admin2
End ClusterAdmins

Begin Host
HOSTNAME  model  type  server  r1m  mem  swp  RESOURCES
hostA     !      !     1       -    -    -    ()
hostB     !      !     1       -    -    -    (linux bigmem)
client1   !      !     0       -    -    -    ()
End Host
"""

LSB_PARAMS = """\
Begin Parameters
DEFAULT_QUEUE  = normal   #default job queue name
MBD_SLEEP_TIME = 10       #Time used for calculating parameter values (60 secs is default)
SBD_SLEEP_TIME = 7        #sbatchd scheduling interval (30 secs is default)
JOB_ACCEPT_INTERVAL = 1   #interval for any host to accept a job
MAX_USER_PRIORITY = 100
JOB_PRIORITY_OVER_TIME = 1/10
HIST_HOURS = 5
End Parameters
"""

LSB_QUEUES = """\
Begin Queue
QUEUE_NAME   = normal
PRIORITY     = 30
NICE         = 20
FAIRSHARE    = USER_SHARES[[user1, 5000] [user2, 5000] [others, 1]]
APS_PRIORITY = WEIGHT[[JPRIORITY, 1] [QPRIORITY, 10] [FS, 100]] LIMIT[[JPRIORITY, 100]] GRACE_PERIOD[[MEM,10h] [JPRIORITY, 10m]]
QUEUE_GROUP  = short
RUNLIMIT     = 720
USERS        = all
HOSTS        = all
DESCRIPTION  = For normal low priority jobs, running only if hosts \\
are lightly loaded.
End Queue

Begin Queue
QUEUE_NAME = short
PRIORITY = 40
RUNLIMIT = 10 1:30
End Queue
"""

LSB_USERS = """\
Begin UserGroup
GROUP_NAME   GROUP_MEMBER               USER_SHARES
groupA       (user1 user2 user3)        ()
groupB       (user4 user5)              ([user4, 2] [user5, 4])
groupC       (groupA groupB user6)      ([user6, 1] [groupA, 2] [default, 10])
End UserGroup

Begin User
USER_NAME   MAX_JOBS   JL/P   MAX_PEND_JOBS
user1       10         -      -
groupA@     10         1      10
default     6          1      10
End User
"""

LSB_HOSTS = """\
Begin Host
HOST_NAME  MXJ  JL/U  r1m      pg     DISPATCH_WINDOW
hostA      1    -     0.6/1.6  10/20  (5:19:00-1:8:30 20:00-8:30)
default    2    1     ()       ()     ()
End Host

Begin HostGroup
GROUP_NAME   GROUP_MEMBER
hg1          (hostA hostB)
End HostGroup

Begin HostPartition
HPART_NAME = part1
HOSTS = hostA hostB
USER_SHARES = [groupA@, 3] [default, 1]
End HostPartition
"""

SAMPLE: dict[str, str] = {
    "lsf.conf": LSF_CONF,
    CLUSTER_FILE: LSF_CLUSTER,
    "lsb.params": LSB_PARAMS,
    "lsb.queues": LSB_QUEUES,
    "lsb.users": LSB_USERS,
    "lsb.hosts": LSB_HOSTS,
}


def write_env(folder: str | os.PathLike, overrides: dict[str, str | None] | None = None) -> str:
    """Write SAMPLE into `folder` with `overrides` (basename -> text, None = no such file)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    files = dict(SAMPLE)
    files.update(overrides or {})
    for name, text in files.items():
        path = folder / name
        if text is None:
            if path.exists():
                path.unlink()
        else:
            path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return str(folder)


@pytest.fixture(scope="session")
def make_env():
    """`make_env(folder, overrides=None) -> envdir`: see `write_env`."""
    return write_env


@pytest.fixture(scope="session")
def sample():
    return dict(SAMPLE)
