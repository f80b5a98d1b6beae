"""A small working cluster's configuration: the files `lsfemu init` writes
(three hosts of 4 CPUs and 16 GB with a few boolean resources, lsf.shared, a few queues with fairshare and APS, two application profiles, a
virtual clock by default), used by `lsfemu init`, `lsfemu demo`, the pytest fixture and the tests."""

from __future__ import annotations

import time
from pathlib import Path

from lsfemu import protocol

CLUSTER = "cluster1"


def init_files(cluster: str = CLUSTER, clock: str = "virtual", confdir: str = "",
               start: float | None = None) -> dict[str, str]:
    """The files of a small working cluster, relative path -> text."""
    lsb = f"lsbatch/{cluster}/configdir"
    start_lines = "" if start is None else (
        f"# lsfemu: the virtual clock's first instant, {time.strftime('%a %b %d %H:%M:%S %Y %Z', time.localtime(start))}\n"
        f"# (read when the cluster's store is made; LSFEMU_CLOCK_START in the environment overrides it)\n"
        f"LSFEMU_CLOCK_START={start:.0f}\n")
    return {
        "lsf.conf": f"""# lsf.conf written by 'lsfemu init'
LSF_CONFDIR={confdir}
LSB_CONFDIR={confdir}/lsbatch
LSF_CLUSTER_NAME={cluster}
LSF_UNIT_FOR_LIMITS=MB
LSF_MASTER_LIST="hostA"
# Allow root to submit (LSF refuses root jobs unless this is set).
LSF_ROOT_USER=Y
# lsfemu: 'virtual' time moves only with 'lsfemu clock advance'; 'wall' is real time.
LSFEMU_CLOCK={clock}
{start_lines}""",
        "lsf.shared": f"""# lsf.shared written by 'lsfemu init': the resources hosts may have
# (lsf.cluster's RESOURCES column), host types and host models.
Begin Cluster
ClusterName
{cluster}
End Cluster

Begin HostType
TYPENAME
X86_64
LINUXPPC64LE
End HostType

Begin HostModel
MODELNAME      CPUFACTOR   ARCHITECTURE
Intel_EM64T    60          (x86_64)
POWER9         25          (ppc64le)
End HostModel

Begin Resource
RESOURCENAME  TYPE     INTERVAL  INCREASING  DESCRIPTION
fs            Boolean  ()        ()          (File server)
cs            Boolean  ()        ()          (Compute server)
ssd           Boolean  ()        ()          (Local SSD scratch)
End Resource
""",
        f"lsf.cluster.{cluster}": """Begin ClusterAdmins
Administrators = lsfadmin
End ClusterAdmins

# model and type ! = lsfemu's defaults (Intel_EM64T, X86_64). ncpus, maxmem,
# maxswp, maxtmp are lsfemu's own columns (LSF detects them from the hardware);
# sizes in MB or with a unit (16G); - = the local machine's.
Begin Host
HOSTNAME  model    type     server  ncpus  maxmem  maxswp  maxtmp  RESOURCES
hostA     !        !        1       4      16G     4G      100G    (fs)
hostB     !        !        1       4      16G     4G      100G    (cs ssd)
hostC     !        !        1       4      16G     4G      100G    (cs)
End Host
""",
        f"{lsb}/lsb.params": """Begin Parameters
DEFAULT_QUEUE  = normal   #default job queue name
MBD_SLEEP_TIME = 10       #mbatchd scheduling interval (seconds)
SBD_SLEEP_TIME = 7        #sbatchd scheduling interval (seconds)
JOB_ACCEPT_INTERVAL = 0   #interval for any host to accept a job
MAX_USER_PRIORITY = 100   #bsub -sp 1..100; default job priority 50
CLEAN_PERIOD = 3600       #finished jobs stay visible in bjobs -a this long
End Parameters
""",
        f"{lsb}/lsb.queues": """Begin Queue
QUEUE_NAME   = normal
PRIORITY     = 30
NICE         = 20
DESCRIPTION  = For normal low priority jobs, running only if hosts are \\
lightly loaded.
End Queue

Begin Queue
QUEUE_NAME   = priority
PRIORITY     = 43
NICE         = 10
ADMINISTRATORS = user3
RUNLIMIT     = 60
DESCRIPTION  = Jobs submitted for this queue are scheduled as urgent jobs.
End Queue
""",
        f"{lsb}/lsb.users": """Begin UserGroup
GROUP_NAME   GROUP_MEMBER          USER_SHARES
research     (user1 user2)         ([user1, 2] [user2, 1])
End UserGroup

Begin User
USER_NAME    MAX_JOBS
user1        8
default      12
End User
""",
        f"{lsb}/lsb.applications": """# Application profiles: bsub -app NAME; bapp lists them. lsfemu acts on
# DESCRIPTION, RUNLIMIT (minutes, unless the job has -W) and MEMLIMIT
# (LSF_UNIT_FOR_LIMITS, unless the job has -M).
Begin Application
NAME         = fluent
DESCRIPTION  = Fluent runs: two hours and 4 GB at most
RUNLIMIT     = 120
MEMLIMIT     = 4096
End Application

Begin Application
NAME         = short
DESCRIPTION  = Short jobs, ten minutes at most
RUNLIMIT     = 10
End Application
""",
        f"{lsb}/lsb.hosts": """Begin Host
HOST_NAME  MXJ   JL/U
hostA      4     ()
hostB      4     ()
hostC      4     ()
default    2     ()
End Host
""",
    }


def write_cluster(directory: str, clock: str = "virtual", force: bool = False, start: float | None = None) -> Path:
    d = Path(directory).expanduser().resolve()
    if (d / "lsf.conf").exists() and not force:
        raise FileExistsError(f"{d}/lsf.conf exists; use --force to overwrite")
    for rel, text in init_files(clock=clock, confdir=str(d), start=start).items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    # The cluster key that signs commands from other hosts (LSB_MBD_PORT); an
    # existing one is kept, so --force does not cut off hosts that have a copy.
    protocol.write_key(str(d))
    protocol.read_key(protocol.key_path(str(d)))  # a key file it cannot use is an error here
    return d
