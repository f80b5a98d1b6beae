"""`lsfemu demo history`: a job's life in `bhist -l`, the cluster's own
lsb.events replayed `--into` an earlier instant, and `--what-if` another
share split schedules the same jobs."""

from lsfemu.lessons import START, Run, Say, Topic
from lsfemu.lessons.fairshare import HOSTS

QUEUES = """Begin Queue
QUEUE_NAME  = fair
PRIORITY    = 30
HOSTS       = hostA
FAIRSHARE   = USER_SHARES[[user1, {user1}] [user2, {user2}]]
End Queue
"""
#: LSF's default factors (CPU_TIME_FACTOR 0.7, RUN_TIME_FACTOR 0.7, RUN_JOB_FACTOR 3)
PARAMS = """Begin Parameters
DEFAULT_QUEUE  = fair
MBD_SLEEP_TIME = 10
ENABLE_HIST_RUN_TIME = Y
End Parameters
"""
FILES = {"lsb.params": PARAMS, "lsb.hosts": HOSTS}

TOPIC = Topic("history", "bhist -l of a job's life, replay --into an earlier instant, --what-if", [
    Say("History: every change of every job is written to lsb.events (here in "
        "$LSFEMU_HOME/logdir), as LSF's mbatchd does; bhist reads it back, and 'lsfemu "
        "replay' can rebuild the cluster from it or schedule the same jobs under another "
        "configuration. Queue 'fair' (one job slot) splits its shares evenly between user1 "
        "and user2."),
    Run(f"lsfemu clock set {START}"),
    Run("bsub -J first sleep 1200", "user1"),
    Run("bsub -J second sleep 1200", "user2"),
    Run("bsub -J third sleep 1200", "user1"),
    Run("bsub -J fourth sleep 1200", "user2"),
    Run("lsfemu clock advance 5m"),
    Say("A job's life: user1 suspends job 1 for five minutes, then changes the pending "
        "job 3's name."),
    Run("bstop 1", "user1"),
    Run("lsfemu clock advance 5m"),
    Run("bresume 1", "user1"),
    Run("bmod -J renamed 3", "user1"),
    Run("lsfemu clock advance 2h"),
    Run("bhist -l 1"),
    Run("bhist -a -u all"),
    Say("Equal shares: the users took turns. The log is the cluster's history. Replayed "
        "into a new cluster up to 09:20, it shows the jobs as they were then: job 1 still "
        "running (it lost five minutes suspended), the others pending."),
    Run("lsfemu replay home/logdir/lsb.events --into replayed --until 2026-01-05T09:20"),
    Run("LSF_ENVDIR=replayed LSFEMU_HOME=replayed/state LSFEMU_DAEMON=off bjobs -u all"),
    Say("What if user1 had had three times user2's shares? --what-if schedules the same "
        "submissions under the configuration in whatif/ (USER_SHARES[[user1, 30] [user2, "
        "10]]) and compares the two: user1's jobs go first, user2's wait longer."),
    Run("lsfemu replay home/logdir/lsb.events --what-if whatif"),
], confs={"conf": dict(FILES, **{"lsb.queues": QUEUES.format(user1=10, user2=10)}),
          "whatif": dict(FILES, **{"lsb.queues": QUEUES.format(user1=30, user2=10)})})
