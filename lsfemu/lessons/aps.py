"""`lsfemu demo aps`: absolute priority scheduling, seed 001's `bjobs -aps`
example at 14:41 built live, `lsfemu explain aps` term by term, bmod -aps
system= and admin=, then limits and grace periods."""

from lsfemu.lessons import Edit, Run, Say, Topic

PARAMS = """Begin Parameters
DEFAULT_QUEUE  = normal
MBD_SLEEP_TIME = 10
MAX_USER_PRIORITY = 100
JOB_PRIORITY_OVER_TIME = 5/10
End Parameters
"""
APS = "WEIGHT[[QPRIORITY, 10] [JPRIORITY, 1]]"
QUEUES = """Begin Queue
QUEUE_NAME   = priority
PRIORITY     = 43
End Queue

Begin Queue
QUEUE_NAME   = normal
PRIORITY     = 30
APS_PRIORITY = {aps}
QUEUE_GROUP  = Short
End Queue

Begin Queue
QUEUE_NAME   = Short
PRIORITY     = 20
End Queue

Begin Queue
QUEUE_NAME   = Idle
PRIORITY     = 10
End Queue
"""
QUEUES_PATH = "conf/lsbatch/cluster1/configdir/lsb.queues"

TOPIC = Topic("aps", "absolute priority scheduling: bjobs -aps, bmod -aps, limits, grace periods", [
    Say("Absolute priority scheduling (APS): a queue's APS_PRIORITY orders the pending jobs "
        "of that queue and of its QUEUE_GROUP by one number, a weighted sum of factors. "
        "This is the example of seed 001: queue 'normal' (PRIORITY 30) has "
        f"APS_PRIORITY = {APS} and QUEUE_GROUP = Short; JOB_PRIORITY_OVER_TIME = 5/10 "
        "raises a pending job's priority by 5 every 10 minutes. The administrator closes "
        "the hosts, so every job pends. The seed's date: December 21."),
    Run("lsfemu clock set 2025-12-21T11:00"),
    Run("badmin hclose hostA hostB hostC", "lsfadmin"),
    Run("bsub -q Short -J myjob sleep 600", "user1"),
    Run("lsfemu clock set 2025-12-21T14:00"),
    Run("bsub -q Short -J myjob sleep 600", "user1"),
    Run("lsfemu clock set 2025-12-21T14:01"),
    Run("bsub -q Idle -J myjob sleep 600", "user1"),
    Run("lsfemu clock set 2025-12-21T14:30"),
    Run("bsub -q normal -J myjob sleep 600", "user2"),
    Run("bsub -q priority -J myjob sleep 600", "user2"),
    Run("bsub -q Short -J myjob sleep 600", "user1"),
    Say("The administrator gives the last job a fixed APS value of 60 (bmod -aps "
        "\"system=60\"): it is listed with its value in parentheses, above the others."),
    Run("bmod -aps system=60 6", "lsfadmin"),
    Say("bjobs -aps at 14:41, as in the seed (its job IDs 2, 4, 5, 12, 15, 22 are 1 to 6 "
        "here): 'priority' is above the APS block, 'Idle' below it; inside it the "
        "system value first, then by APS value."),
    Run("lsfemu clock set 2025-12-21T14:41"),
    Run("bjobs -aps -u all"),
    Say("Where 360 comes from: APS = 10 x QPRIORITY + 1 x JPRIORITY, and job 1 has pended "
        "220 minutes: its job priority is 50 + 220 x 5/10 = 160, so 10 x 20 + 1 x 160 = 360."),
    Run("lsfemu explain aps 1"),
    Run("lsfemu explain aps 4"),
    Say("bmod -aps \"admin=V\" adds V to the computed value instead of fixing it."),
    Run("bmod -aps admin=-100 1", "lsfadmin"),
    Run("bjobs -aps -u all"),
    Say("LIMIT caps a factor's value; GRACE_PERIOD counts a factor only once the job has "
        "pended that long. Here job priority counts at most 100, and queue priority "
        "only after 30 minutes."),
    Edit(QUEUES_PATH, QUEUES.format(aps=APS + " LIMIT[[JPRIORITY, 100]] GRACE_PERIOD[[QPRIORITY, 30m]]")),
    Run("badmin reconfig", "lsfadmin"),
    Run("bjobs -aps -u all"),
    Say("Job 1's job priority, 160, now counts 100 at most: 10 x 20 + 100, and its admin "
        "value -100, make 200. Job 4 has pended 11 minutes, inside its 30-minute grace "
        "period: its queue priority does not count yet, only its job priority, 55."),
    Run("lsfemu explain aps 4"),
    Say("Twenty minutes later job 4's grace period is over: its queue priority counts."),
    Run("lsfemu clock advance 20m"),
    Run("bjobs -aps -u all"),
], confs={"conf": {"lsb.params": PARAMS, "lsb.queues": QUEUES.format(aps=APS)}})
