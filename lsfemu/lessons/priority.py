"""`lsfemu demo priority`: user-assigned job priority (bsub -sp, bmod -sp),
btop/bbot, and JOB_PRIORITY_OVER_TIME escalating pending jobs past
MAX_USER_PRIORITY (seed 001, "Job priority")."""

from lsfemu.lessons import START, Run, Say, Topic

PARAMS = """Begin Parameters
DEFAULT_QUEUE  = normal
MBD_SLEEP_TIME = 10
MAX_USER_PRIORITY = 100        # bsub -sp 1..100; without -sp a job gets 100/2 = 50
JOB_PRIORITY_OVER_TIME = 10/20 # every 20 minutes pending: +10
End Parameters
"""
HOSTS = """Begin Host
HOST_NAME  MXJ
hostA      1
hostB      0
hostC      0
End Host
"""

TOPIC = Topic("priority", "job priority: bsub -sp, bmod -sp, btop/bbot, escalation over time", [
    Say("Job priority: inside a queue, pending jobs go in order of their job priority, "
        "then first come, first served. Users set it with bsub -sp N (1 to "
        "MAX_USER_PRIORITY = 100 here); a job without -sp gets MAX_USER_PRIORITY/2 = 50. "
        "The cluster has a single job slot, so jobs queue up."),
    Run(f"lsfemu clock set {START}"),
    Run("bparams -l"),
    Say("user1 takes the slot for two hours; then three jobs wait behind it."),
    Run("bsub -J long sleep 7200", "user1"),
    Run("lsfemu clock advance 10s"),
    Run("bsub -J plain sleep 600", "user2"),
    Run("bsub -J urgent -sp 80 sleep 600", "user2"),
    Run("bsub -J later -sp 20 sleep 600", "user3"),
    Run("bjobs -u all -o 'jobid user stat job_name priority'"),
    Say("'urgent' (80) is first, 'plain' (50) next, 'later' (20) last. A user may not go "
        "above MAX_USER_PRIORITY ..."),
    Run("bmod -sp 200 4", "user3", fails=True),
    Say("... but may change the priority of their own job with bmod -sp."),
    Run("bmod -sp 50 4", "user3"),
    Say("Jobs 2 and 4 now have the same priority, 50: between equals the order is first "
        "come, first served. btop and bbot move a job among its equals, never past a job "
        "of another priority; a user among their own jobs, the administrator among all."),
    Run("btop 4", "lsfadmin"),
    Run("bjobs -u all -o 'jobid user stat job_name priority'"),
    Say("JOB_PRIORITY_OVER_TIME = 10/20: every 20 minutes a job pends, its priority grows "
        "by 10, also past MAX_USER_PRIORITY: long-waiting jobs are not starved. After an "
        "hour and a half 'urgent' has climbed from 80 by 4 x 10 = 40 to 120."),
    Run("lsfemu clock advance 90m"),
    Run("bjobs -u all -o 'jobid user stat job_name priority'"),
    Run("bjobs -l 3"),
    Say("A bmod -sp restarts the count from the value set (lsfemu's reading: see "
        "docs/semantics.md). When the slot frees, the highest priority goes first; a "
        "running job's priority stays where it was when it started."),
    Run("lsfemu clock advance 40m"),
    Run("bjobs -u all -o 'jobid user stat job_name priority'"),
    Run("lsfemu clock advance 30m"),
    Run("bjobs -a -u all -o 'jobid user stat job_name priority start_time'"),
], confs={"conf": {"lsb.params": PARAMS, "lsb.hosts": HOSTS}})
