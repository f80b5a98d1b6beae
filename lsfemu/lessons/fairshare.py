"""`lsfemu demo fairshare`: dynamic user priority (seed 000's formula), two
users with equal shares submitting at once with and without
ENABLE_HIST_RUN_TIME (seed 001's story), and a share tree (seed 003's
.50 x .80 x .25 entitlement)."""

from lsfemu.lessons import START, Edit, Run, Say, Topic

PARAMS = """Begin Parameters
DEFAULT_QUEUE   = fair
MBD_SLEEP_TIME  = 10
CLEAN_PERIOD    = 3600
# only run time counts, as in the seed's example
CPU_TIME_FACTOR = 0
RUN_JOB_FACTOR  = 0
RUN_TIME_FACTOR = 1
{extra}End Parameters
"""
QUEUES = """Begin Queue
QUEUE_NAME  = fair
PRIORITY    = 30
HOSTS       = hostA
FAIRSHARE   = USER_SHARES[[user1, 10] [user2, 10]]
DESCRIPTION = two users, equal shares, one job slot
End Queue

Begin Queue
QUEUE_NAME  = tree
PRIORITY    = 20
HOSTS       = hostB hostC
FAIRSHARE   = USER_SHARES[[dev, 50] [research, 30] [marketing, 20]]
DESCRIPTION = a share tree: dev gets 50%, its group chipx 80% of that
End Queue
"""
USERS = """Begin UserGroup
GROUP_NAME  GROUP_MEMBER                  USER_SHARES
chipx       (user1 user2 user3 user4)     ([default, 1])
chipy       (user5 user6)                 ([default, 1])
dev         (chipx chipy)                 ([chipx, 80] [chipy, 20])
research    (user7 user8)                 ([default, 1])
marketing   (user9)                       ([default, 1])
End UserGroup
"""
HOSTS = """Begin Host
HOST_NAME  MXJ
hostA      1
hostB      4
hostC      4
End Host
"""
PARAMS_PATH = "conf/lsbatch/cluster1/configdir/lsb.params"


def _submit_both(prefix: str) -> list:
    """user1's four 10-minute jobs, then user2's, at the same instant."""
    return [Run(f"bsub -J {prefix}{u[-1]}{n} sleep 600", u) for u in ("user1", "user2") for n in range(1, 5)]


TOPIC = Topic("fairshare", "dynamic user priority, historical run time, a share tree", [
    Say("Fairshare: when users compete for job slots, LSF computes a dynamic priority "
        "for each and dispatches the highest first. The formula (lsb.params factors): "
        "priority = number_shares / (cpu_time * CPU_TIME_FACTOR + run_time * RUN_TIME_FACTOR "
        "+ (1 + job_slots) * RUN_JOB_FACTOR + ...). Here only run time counts, and queue "
        "'fair' has one job slot, shared by user1 and user2 with 10 shares each."),
    Run(f"lsfemu clock set {START}"),
    Run("bqueues -l fair"),
    Say("Both users submit four 10-minute jobs at the same moment."),
    *_submit_both("a"),
    Run("lsfemu clock advance 10s"),
    Say("Equal shares, no usage yet: a tie, and user1 (listed first) wins it. Now user1 "
        "has run time, so its priority falls; 'lsfemu explain priority' shows the formula "
        "with the live numbers, term by term."),
    Run("bjobs -u all"),
    Run("lsfemu clock advance 5m"),
    Run("lsfemu explain priority user1 -q fair"),
    Run("lsfemu explain priority user2 -q fair"),
    Say("But when user1's job ends its run time no longer counts: both users are back "
        "at a tie, and user1 wins again. Watch the order the jobs ran in."),
    Run("lsfemu clock advance 75m"),
    Run("bjobs -a -u all -o 'jobid user stat start_time finish_time'"),
    Say("user1 ran all four jobs before user2 got the slot: that is the problem seed 001 "
        "describes for two users with the same shares submitting at the same time. "
        "ENABLE_HIST_RUN_TIME=Y adds the decayed run time of finished jobs: "
        "(historical_run_time + run_time) * RUN_TIME_FACTOR. The administrator "
        "changes lsb.params and reconfigures."),
    Edit(PARAMS_PATH, PARAMS.format(extra="ENABLE_HIST_RUN_TIME = Y\n")),
    Run("badmin reconfig", "lsfadmin"),
    Run("lsfemu explain priority user1 -q fair"),
    Say("The same submissions again."),
    *_submit_both("b"),
    Run("lsfemu clock advance 2h"),
    Run("bjobs -a -u all -o 'jobid user stat start_time finish_time'"),
    Say("Now a user who just ran carries that run time after the job ends, so the "
        "users take turns."),
    Say("A share tree: queue 'tree' divides its shares among groups (lsb.users "
        "USER_SHARES), and groups among their members. user1 is entitled to "
        ".50 (dev) x .80 (chipx in dev) x .25 (one of chipx's four users) = .10 of the "
        "queue's resources; the ACCOUNT table shows each level."),
    Run("lsfemu explain priority user1 -q tree"),
    Run("bqueues -l tree"),
], confs={"conf": {"lsb.params": PARAMS.format(extra=""), "lsb.queues": QUEUES,
                   "lsb.users": USERS, "lsb.hosts": HOSTS}})
