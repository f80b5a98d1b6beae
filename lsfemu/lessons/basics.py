"""`lsfemu demo basics` (also `lsfemu demo`): bsub, bjobs, bstop, bresume, bkill and the
virtual clock on the `lsfemu init` cluster."""

from lsfemu.lessons import START, Run, Say, Topic

TOPIC = Topic("basics", "the first hour: bsub, bjobs, bstop, bkill and the virtual clock", [
    Say("This is a small LSF cluster on your machine: 3 hosts with 4 job slots each, "
        "queues 'normal' and 'priority', users user1..user3 and the admin lsfadmin. "
        "Its clock is virtual: time moves only when we say so. We set it to a fixed "
        "date, so that every number of this tour is the same each time."),
    Run(f"lsfemu clock set {START}"),
    Say("Which cluster is this?"),
    Run("lsid"),
    Say("Queues, highest priority first."),
    Run("bqueues"),
    Say("Hosts and their job slots (MAX)."),
    Run("bhosts"),
    Say("user1 submits a 2-slot job that sleeps 10 minutes."),
    Run("bsub -J hello -n 2 sleep 600", "user1"),
    Say("user2 submits to the high-priority queue."),
    Run("bsub -q priority -J urgent sleep 120", "user2"),
    Say("user3 asks for all 12 slots of the cluster."),
    Run("bsub -J big -n 12 sleep 300", "user3"),
    Say("and a small one."),
    Run("bsub -J small sleep 60", "user3"),
    Say("Everything pends until the next scheduling pass (every MBD_SLEEP_TIME = 10 s)."),
    Run("bjobs -u all"),
    Say("Move the clock to the next pass."),
    Run("lsfemu clock advance 10s"),
    Say("The priority queue went first. Inside 'normal' jobs go first come, "
        "first served; the 12-slot job cannot start (3 slots are taken), but the small job behind it "
        "fits in a free slot: LSF does not hold slots back for a big job unless told to."),
    Run("bjobs -u all -w"),
    Say("Why do jobs pend? bjobs -p says."),
    Run("bjobs -p -u all"),
    Say("user1 suspends job 1 ..."),
    Run("bstop 1", "user1"),
    Run("bjobs 1", "user1"),
    Say("... and resumes it."),
    Run("bresume 1", "user1"),
    Say("Nobody may touch another user's job ..."),
    Run("bkill 2", "user1", fails=True),
    Say("... except the cluster administrator."),
    Run("bkill 2", "lsfadmin"),
    Say("Fast-forward 15 minutes: jobs run and finish on the virtual clock."),
    Run("lsfemu clock advance 15m"),
    Say("bjobs -a shows finished jobs too (for CLEAN_PERIOD)."),
    Run("bjobs -a -u all"),
    Say("The long form of job 1, in LSF's 79-column layout."),
    Run("bjobs -l 1"),
    Say("Per-user job slot counts and limits (MAX_JOBS from lsb.users)."),
    Run("busers all"),
    Say("Custom columns, as scripts use them."),
    Run("bjobs -o 'jobid user stat queue exec_host run_time' -u all -a"),
    Say("That is the tour. Try it yourself: 'lsfemu init ~/lsfconf', "
        "'export LSF_ENVDIR=~/lsfconf', then bsub, bjobs and 'lsfemu clock advance'. "
        "Other tours: 'lsfemu demo --list'."),
])
