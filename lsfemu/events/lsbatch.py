"""LSF's numbers in ``lsb.events`` records, as ``lsbatch.h`` names them.

Job status words (JOB_STAT_*) and their names, bsub/bmod option bits
(SUB_*, SUB2_*, SUB3_*), resource limit slots (RLIMIT_*), btop/bbot,
badmin and pending-reason codes, TERM_* termination reasons and the wait(2)
status word. Nothing here knows a record's layout (that is
:mod:`lsfemu.events.records`): bhist, the emitter and replay read these
numbers without the schemas. Standard library only, no imports at all.
"""

from __future__ import annotations

# job status bits (JOB_STAT_*), as logged in JOB_STATUS / JOB_START
JOB_STAT_NULL = 0x00
JOB_STAT_PEND = 0x01
JOB_STAT_PSUSP = 0x02
JOB_STAT_RUN = 0x04
JOB_STAT_SSUSP = 0x08
JOB_STAT_USUSP = 0x10
JOB_STAT_EXIT = 0x20
JOB_STAT_DONE = 0x40
JOB_STAT_PDONE = 0x80
JOB_STAT_PERR = 0x100
JOB_STAT_WAIT = 0x200
JOB_STAT_RUNKWN = 0x8000
JOB_STAT_UNKWN = 0x10000
JOB_STAT_PROV = 0x20000

#: status name -> JOB_STAT_* bit
STATUS_CODES = {
    "NULL": JOB_STAT_NULL,
    "PEND": JOB_STAT_PEND,
    "PSUSP": JOB_STAT_PSUSP,
    "RUN": JOB_STAT_RUN,
    "SSUSP": JOB_STAT_SSUSP,
    "USUSP": JOB_STAT_USUSP,
    "EXIT": JOB_STAT_EXIT,
    "DONE": JOB_STAT_DONE,
    "PDONE": JOB_STAT_PDONE,
    "PERR": JOB_STAT_PERR,
    "WAIT": JOB_STAT_WAIT,
    "RUNKWN": JOB_STAT_RUNKWN,
    "UNKWN": JOB_STAT_UNKWN,
    "PROV": JOB_STAT_PROV,
}


def status_name(code: int) -> str:
    """The main state of a JOB_STAT_* word (post-job bits ignored): ``DONE``
    for 0xC0, ``RUN`` for 4; unknown words give ``UNKWN``."""
    name = _STATUS_NAMES.get(code)
    if name is None:
        name = _status_name(code)
        if len(_STATUS_NAMES) < 4096:
            _STATUS_NAMES[code] = name
    return name


#: status_name's answers so far (a log has a handful of distinct words; a damaged one may have many: bounded)
_STATUS_NAMES: dict[int, str] = {}


def _status_name(code: int) -> str:
    base = code & ~(JOB_STAT_PDONE | JOB_STAT_PERR | JOB_STAT_WAIT)
    for name in ("DONE", "EXIT", "RUN", "SSUSP", "USUSP", "PSUSP", "PEND", "UNKWN", "RUNKWN", "PROV"):
        if base == STATUS_CODES[name]:
            return name
    if code == 0:
        return "NULL"
    return "UNKWN"


# bsub/bmod option bits (SUB_*), in JOB_NEW / JOB_MODIFY2 ``options``
SUB_JOB_NAME = 0x01
SUB_QUEUE = 0x02
SUB_HOST = 0x04
SUB_IN_FILE = 0x08
SUB_OUT_FILE = 0x10
SUB_ERR_FILE = 0x20
SUB_EXCLUSIVE = 0x40
SUB_NOTIFY_END = 0x80
SUB_NOTIFY_BEGIN = 0x100
SUB_USER_GROUP = 0x200
SUB_CHKPNT_PERIOD = 0x400
SUB_CHKPNT_DIR = 0x800
SUB_RESTART_FORCE = 0x1000
SUB_RESTART = 0x2000
SUB_RERUNNABLE = 0x4000
SUB_WINDOW_SIG = 0x8000
SUB_HOST_SPEC = 0x10000
SUB_DEPEND_COND = 0x20000
SUB_RES_REQ = 0x40000
SUB_OTHER_FILES = 0x80000
SUB_PRE_EXEC = 0x100000
SUB_LOGIN_SHELL = 0x200000
SUB_MAIL_USER = 0x400000
SUB_MODIFY = 0x800000
SUB_MODIFY_ONCE = 0x1000000
SUB_PROJECT_NAME = 0x2000000
SUB_INTERACTIVE = 0x4000000
SUB_PTY = 0x8000000
SUB_PTY_SHELL = 0x10000000
SUB_POST_EXEC = 0x40000000  # [OL lsbatch.h]; bmod -Ep (JOB_MODIFY2's post_exec_cmd is lsfemu's tail)

# ``options2`` bits (SUB2_*) [OL]
SUB2_HOLD = 0x01
SUB2_MODIFY_CMD = 0x02
SUB2_BSUB_BLOCK = 0x04
SUB2_HOST_NT = 0x08
SUB2_HOST_UX = 0x10
SUB2_QUEUE_CHKPNT = 0x20
SUB2_QUEUE_RERUNNABLE = 0x40
SUB2_IN_FILE_SPOOL = 0x80
SUB2_JOB_CMD_SPOOL = 0x100
SUB2_JOB_PRIORITY = 0x200
SUB2_USE_DEF_PROCLIMIT = 0x400
SUB2_MODIFY_RUN_JOB = 0x800
SUB2_MODIFY_PEND_JOB = 0x1000
# [inferred] -oo / -eo (LSF 10 has such bits; their values are not verified)
SUB2_OVERWRITE_OUT_FILE = 0x10000
SUB2_OVERWRITE_ERR_FILE = 0x20000
# [inferred] LSF 9/10 options2 bits that gate JOB_NEW's tail strings (a real LSF 9.1.3 JOB_NEW without
# them has none of those strings; the values are Platform's lsbatch.h as remembered, not verified)
SUB2_WARNING_ACTION = 0x4000
SUB2_USE_RSV = 0x8000
SUB2_JOB_GROUP = 0x40000
SUB2_SLA = 0x80000
SUB2_EXTSCHED = 0x100000
SUB2_LICENSE_PROJECT = 0x200000

# ``options3`` bits of lsfemu's JOB_MODIFY2 tail and JOB_NEW's options3 [lsfemu]
SUB3_APS = 0x01
SUB3_CWD = 0x02
SUB3_DESCRIPTION = 0x04  # bmod -Jd / -Jdn (the text in the tail's job_description)
SUB3_OUTDIR = 0x08  # bmod -outdir / -outdirn (the tail's outdir)
SUB3_JOB_GROUP = 0x10  # bmod -g / -gn; the group in JOB_MODIFY2's job_group
SUB3_APP = 0x20  # bmod -app / -appn; the profile in JOB_MODIFY2's app
SUB3_RUNTIME_EST = 0x40  # bmod -We / -Wen; the estimate (seconds) in JOB_MODIFY2's runtime_estimate
#: numProcessors in JOB_MODIFY2: -n not given / bmod -nn [OL lsbatch.h]
DEFAULT_NUMPRO = 2147483647 - 1
DEL_NUMPRO = 2147483647

#: rLimits indices (LSF_RLIMIT_*); 11 limits are logged
RLIMIT_CPU = 0
RLIMIT_FSIZE = 1
RLIMIT_DATA = 2
RLIMIT_STACK = 3
RLIMIT_CORE = 4
RLIMIT_RSS = 5
RLIMIT_NOFILE = 6
RLIMIT_OPEN_MAX = 7
RLIMIT_SWAP = 8
RLIMIT_RUN = 9
RLIMIT_PROCESS = 10
NUM_RLIMITS = 11
#: rLimits values: no limit / limit removed by bmod (``-Wn`` etc.) [OL]
DEFAULT_RLIMIT = -1
DELETE_NUMBER = -2

#: number of values of an lsfRusage block (JOB_STATUS when ``ru`` != 0)
NUM_RUSAGE = 19

# JOB_MOVE ``base``
TO_TOP = 1
TO_BOTTOM = 2

# QUEUE_CTRL / HOST_CTRL opcodes
QUEUE_OPEN = 1
QUEUE_CLOSED = 2
QUEUE_ACTIVATE = 3
QUEUE_INACTIVATE = 4
HOST_OPEN = 1
HOST_CLOSE = 2
HOST_REBOOT = 3
HOST_SHUTDOWN = 4

# pending reasons used in JOB_STATUS records written by lsfemu [OL numbering, unverified]
PEND_JOB_NEW = 1
PEND_JOB_PRE_EXEC = 6  # the job's pre-execution command (bsub -E) exited non-zero
PRE_EXEC_REASON = "The job's pre-exec command exited with non-zero status"  # its text (OpenLava lsb.reason.c)
PEND_USER_STOP = 21  # job held/stopped by user while pending
PEND_JOB_REQUEUED = 23

# suspending reasons (LSF lsbatch.h)
SUSP_MBD_PREEMPT = 0x80  # preempted by mbatchd for a higher priority job
#: its text in bjobs -l and bhist (LSF 10's own wording not found: lsbatch.h's description of the bit)
PREEMPTED_REASON = "The job was preempted by a higher priority job"

#: JOB_STATUS ``exit_info`` (TERM_* termination reasons) -> bjobs/bhist text
TERM_REASONS: dict[int, str] = {
    1: "TERM_PREEMPT: job killed after preemption",
    2: "TERM_WINDOW: job killed after queue run window closed",
    3: "TERM_LOAD: job killed after load exceeds threshold",
    4: "TERM_OTHER: job killed by other reasons",
    5: "TERM_RUNLIMIT: job killed after reaching LSF run time limit",
    6: "TERM_DEADLINE: job killed after deadline",
    7: "TERM_PROCESSLIMIT: job killed after reaching LSF process limit",
    8: "TERM_FORCE_OWNER: job killed by owner without time for cleanup",
    9: "TERM_FORCE_ADMIN: job killed by root or LSF administrator without time for cleanup",
    10: "TERM_REQUEUE_OWNER: job killed and requeued by owner",
    11: "TERM_REQUEUE_ADMIN: job killed and requeued by root or LSF administrator",
    12: "TERM_CPULIMIT: job killed after reaching LSF CPU usage limit",
    13: "TERM_CHKPNT: job killed after checkpointing",
    14: "TERM_OWNER: job killed by owner",
    15: "TERM_ADMIN: job killed by root or LSF administrator",
    16: "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit",
    17: "TERM_EXTERNAL_SIGNAL: job killed by a signal external to LSF",
    19: "TERM_ZOMBIE: job exited while LSF is not available",
    20: "TERM_SWAP: job killed after reaching LSF swap usage limit",
    21: "TERM_THREADLIMIT: job killed after reaching LSF thread limit",
    23: "TERM_BUCKET_KILL: job killed with bkill -b",
    25: "TERM_CWD_NOTEXIST: current working directory is not accessible or does not exist on the execution host",
}


def term_code(reason: str | None) -> int:
    """The TERM_* number of a reason text such as ``"TERM_OWNER: job killed
    by owner"`` (matched on the ``TERM_X`` word); 0 (TERM_UNKNOWN) otherwise."""
    if not reason:
        return 0
    word = reason.split(":", 1)[0].strip()
    for code, text in TERM_REASONS.items():
        if text.split(":", 1)[0] == word:
            return code
    return 0


def wait_status(exit_code: int = 0, signal: int = 0) -> int:
    """A wait(2) status word as LSF logs ``exitStatus``: code << 8, or the signal."""
    if signal:
        return signal & 0x7F
    return (exit_code & 0xFF) << 8


def exit_code_of(status: int) -> int:
    """The exit code bhist prints for a wait status: WEXITSTATUS, or 128 + the
    signal number when the job was killed by a signal."""
    sig = status & 0x7F
    if sig:
        return 128 + sig
    return (status >> 8) & 0xFF
