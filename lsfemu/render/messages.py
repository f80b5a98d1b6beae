"""LSF's message texts (reference sections 2 and 12): data in, text out.

Owns

* the lsberrno strings of section 12 as named constants (no trailing
  punctuation -- callers compose them);
* the composition helpers (``Job <N>: msg``, ``obj: msg. Job not submitted.``,
  ``... Job not modified.``);
* the "not found" family of 2.7 (``Job <N> is not found``, ``No unfinished
  job found`` ...), written to stderr by the callers;
* the job-control success lines of 2.1-2.6 (``Job <N> is submitted to
  default queue <q>.`` ...);
* the commands' own complete sentences (``Job ID must be specified.`` ...);
* the text of the typed errors of ``lsfemu/errors.py`` (:func:`error_text`,
  the one place they become text) and the condensed failure lines of the job
  control commands (:func:`job_errors`);
* badmin's configuration check and queue/host control lines;
* the usage texts printed by ``-h`` and after option errors, shaped like LSF
  10's ``Usage: bjobs [-h] [-V] ...`` (:func:`usage`).

Every builder returns the line *without* a newline; :func:`usage` returns
complete lines ending with a newline.
"""

from __future__ import annotations

from lsfemu import errors, options
from lsfemu.render.timefmt import ctime

# --- lsberrno strings (section 12) ------------------------------------------
NO_MATCHING_JOB = "No matching job found"
JOB_NOT_STARTED = "Job has not started yet"
JOB_STARTED = "Job has already started"
JOB_FINISHED = "Job has already finished"
DEPEND_SYNTAX = "Dependency condition syntax error"
QUEUE_NO_EXCLUSIVE = "Queue does not accept EXCLUSIVE jobs"
ROOT_SUBMIT_DISABLED = "Root job submission is disabled"
NOT_CHKPNTABLE = "Job is not checkpointable"
NO_OUTPUT = "No output so far"
UNKNOWN_USER = "Unknown user"
PERM_DENIED = "User permission denied"
NO_SUCH_QUEUE = "No such queue"
QUEUE_NAME_REQUIRED = "Queue name must be specified"
QUEUE_CLOSED = "Queue has been closed"
QUEUE_WINDOWS_CLOSED = "Not activated because queue windows are closed"
QUEUE_USE_DENIED = "User cannot use the queue"
BAD_HOST = "Bad host name, host group name or cluster name"
TOO_MANY_PROCS = "Too many processors requested"
NO_SUCH_GROUP = "No such user/host group"
HOST_NOT_USED_BY_QUEUE = "Host or host group is not used by the queue"
QUEUE_USER_SLOTS = "Queue does not have enough per-user job slots"
BAD_ARG = "Bad argument"
BAD_TIME = "Bad time specification"
START_AFTER_TERM = "Start time is later than termination time"
BAD_CPU_LIMIT = "Bad CPU limit specification"
EXCEED_QUEUE_LIMIT = "Cannot exceed queue's hard limit(s)"
EMPTY_JOB = "Empty job"
SIG_NOT_SUPPORTED = "Signal not supported"
BAD_JOB_NAME = "Bad job name"
DEST_QUEUE_FULL = "The destination queue has reached its job limit"
BAD_RESREQ = "Bad resource requirement syntax"
# lsfemu's own (lsfemu explain pending of a job in another state)
EXPLAIN_NOT_PENDING = "Not a pending job"
# lsfemu's own: a part of a requirement LSF takes that placement does not build yet (subject: the part)
RESREQ_NOT_BUILT = "Not supported by lsfemu yet in a resource requirement"
# LSF 10's refusal of a select[] naming no resource (seen: equinor/ert issue 7550)
SELECT_BAD_NAME = ('Error in select section: Error near "{}" : incorrect section name, resource name, '
                   "or resource function name")
NOT_ENOUGH_HOSTS = "Not enough host(s) currently eligible"
BAD_CLUSTER_NAME = "Invalid cluster name"  # OpenLava lib.err.c LSE_BAD_CLUSTER (lsclusters)
LIM_BAD_HOST = "Host name not recognizable by LIM"  # OpenLava lib.err.c LSE_LIM_BADHOST (lsload, lshosts)
UNKNOWN_RESNAME = "Unknown resource name"  # LSE_UNKWN_RESNAME: LIM's answer to -R naming no resource
# shared resources (bhosts -s, lshosts -s, lsload -s; OpenLava lib.err.c, lsb.err.c, intlib/resourcecmd.c)
NO_SHARED_RESOURCE = "No shared resources"  # LSE_NO_RESOURCE: LIM has no shared resource at all
NO_RESOURCE_DEFINED = "No resource defined"  # LSBE_NO_RESOURCE: mbatchd's answer to the same
BAD_RESOURCE_NAME = "Bad resource name"  # LSBE_BAD_RESOURCE: bhosts -s naming no shared resource
NO_STATIC_SHARED = "No static shared resources defined \n"  # lshosts -s (the blank before the newline is LSF's)
NO_EXCEPTIONAL_HOST = "There is no exceptional host found"  # bhosts -x with none (IBM's bhosts page, as remembered)
NO_DYNAMIC_SHARED = "No dynamic shared resources defined \n"  # lsload -s
BAD_INDEX_LIST = "Bad index name list"  # LSE_BAD_NAMELIST: lsload -I naming no load index
NOT_IN_USER_GROUP = "User not in the specified user group"
BAD_USER_GROUP = "Bad user group name"
ESUB_ABORT = "Request aborted by esub"
NO_JOB_GROUP = "Job group does not exist"
BAD_JOB_GROUP = "Bad/empty job group name"  # LSBE_JGRP_BAD (OpenLava lsb.err.c 93)
JOB_GROUP_EXISTS = "Job group already exists"  # LSBE_JGRP_EXIST; wording inferred
JOB_GROUP_HAS_JOBS = "Job group contains unfinished jobs"  # LSBE_JGRP_HASJOB; wording inferred
JOB_GROUP_LIMIT_PARENT = "Job group limit cannot exceed the limits of its parent job groups"  # inferred (bgmod(1))
JOB_GROUP_LIMIT_CHILD = "Job group limit cannot be less than the limits of its child job groups"  # inferred
NO_JOB_GROUP_FOUND = "No job group found"  # inferred
MOD_JGRP_MIX = "Cannot combine modify job group or service class option with others"  # LSBE_MOD_MIX
MOD_JGRP_ARRAY = "Cannot modify job group on element of job array"  # LSBE_MOD_JGRP_ARRAY
NO_SUCH_APP = "No such application"  # LSBE_APP_NULL; wording as lsf-breadth 8.2 infers it
NO_APP_FOUND = "No application profiles found"  # bapp with no lsb.applications; inferred
ARRAY_OP_NOT_SUPPORTED = "Cannot operate on job array"
SUSPENDED_OP_NOT_SUPPORTED = "Operation not supported for a suspended job"
ARRAY_INDEX_ERROR = "Job array index error"
NO_SUCH_ARRAY = "Job array does not exist"
BAD_JOBID = "Bad jobId"
BAD_USER_PRIORITY = "Bad user priority"
PRIORITY_UNDEFINED = "Job priority control undefined"
ALREADY_REQUEUED = "Job has already been requeued"
TOO_FEW_PROCS = "Too few processors requested"
RUNNING_JOB_MOD = (
    "Only the following parameters can be used to modify a running job: -c, -M, -W, -o, -e, -r"
)
MOD_MEMLIMIT = "You must set LSB_JOB_MEMLIMIT in lsf.conf to modify the memory limit of a running job"
MOD_CPULIMIT = "You must set LSB_JOB_CPULIMIT in lsf.conf to modify the CPU limit of a running job"
BAD_CPULIMIT = "Bad CPULIMIT specification"  # bsub -c (OpenLava lsb.sub.c)
CPULIMIT_TOO_BIG = "CPULIMIT value is too big"
BAD_HOST_SPEC = "Bad host specification"  # LSBE_BAD_HOST_SPEC: -c's /host_name or /host_model
MOD_ERRFILE = ("No error file specified before job dispatch. Error file does not exist, so error file name "
               "cannot be changed")
ARRAY_NAME_MOD = "Change job name is not allowed for job array"
PEND_THRESHOLD = "Pending job threshold reached"
SYNTAX_ERROR = "Syntax error"
NO_COMMAND = "No command is specified"
VERSION_IN_PACK = "Option -V is not supported in -pack job submission file"
BLOCK_IN_PACK = "Option -K is not supported in -pack job submission file"
INTERACTIVE_IN_PACK = "Option -I/-Ip/-Is is not supported in -pack job submission file"
PACK_IN_PACK = "Option -pack is not supported in -pack job submission file"

#: every lsberrno string above, for lookups and tests
LSBERRNO: tuple[str, ...] = tuple(
    v for k, v in sorted(globals().items()) if k.isupper() and isinstance(v, str)
)

# --- the commands' own texts (complete sentences; not lsberrno strings) ------
# bacct (issue 20; not lsberrno strings): the files (the C library's strerror texts, as bhist prints them) and -N
NO_SUCH_FILE = "No such file or directory"
NOT_A_REGULAR_FILE = "Not a regular file"
BACCT_NO_CLUSTER = "bacct: no cluster to read the accounting log of; use -f logfile_name"
BAD_CPU_FACTOR = "Bad CPU factor"
#: IBM's bacct page: run offline (-f), -N needs a CPU factor (lsfemu's wording)
BACCT_OFFLINE_FACTOR = "Not a CPU factor; with -f and no cluster, -N needs a CPU factor"
INPUT_EXCLUSIVE = "isn|is|in|i options are exclusive"  # bsub -i with -is (lsb.sub.c, catgets 444)
FILE_NAME_TOO_LONG = "File name too long"  # lsb.sub.c, catgets 409
#: bsub -hostfile with -n, -m or -R (IBM's -hostfile page lists the conflicts; LSF's text was not found:
#: its words, docs/semantics.md "bsub -hostfile")
HOSTFILE_CONFLICT = "-hostfile cannot be used with -n, -m or -R"
#: a host file line that is neither `host` nor `host slots`, or no host at all [inferred wording]
BAD_HOSTFILE = "Bad user-specified host file"
MAIL_USER_TOO_LONG = "Mail destination name too long"  # bsub -u (lsb.sub.c, catgets 411)
BAD_RUNTIME = "Bad runtime specification"  # bsub -We (IBM's support note: no object)
#: bsub/bmod -ptl, -eptl: a value that is not a positive [hour:]minute (lsfemu's wording, after -W's; LSF's not found)
BAD_PEND_LIMIT = "Bad pending time limit specification"
#: bsub/bmod -eptl without lsb.params TRACK_ELIGIBLE_PENDINFO=Y (IBM's -eptl page's condition; lsfemu's wording)
EPTL_NOT_TRACKED = "TRACK_ELIGIBLE_PENDINFO=Y must be defined in lsb.params to use -eptl"
NO_LIMIT_USAGE = "No resource usage found."  # blimits: no row to show (IBM's blimits(1) note; wording inferred)
JOB_NOT_SUSPENDED = "Job is not suspended"
ILLEGAL_JOB_ID = "Illegal job ID."
JOB_ID_OUT_OF_RANGE = "Job ID out of valid range."
ILLEGAL_SIGNAL = "Illegal signal value"
NEED_JOB_SELECTION = "Job ID or one of '-m', '-u' '-q' and '-J' must be specified."
NEED_DEST_QUEUE = "The destination queue name must be specified."
NEED_JOB_ID = "Job ID must be specified."
JOB_ID_ZERO = "Job Id = 0 is out of valid range."
BAD_POSITION = "Position value must be a positive integer."
BAD_RUNLIMIT = "Bad RUNLIMIT specification"
BAD_MEMLIMIT = "MEMLIMT value should be a positive integer"  # OpenLava's spelling
BAD_GPU_REQ = "Bad GPU requirement syntax"
BAD_NPROC = "Bad argument for option -n"
PEEK_NOT_STARTED = "Not yet started."  # bpeek's own texts (`Job <N> : text`, OpenLava bpeek.c)
PEEK_FINISHED = "Already finished."
PEEK_INTERACTIVE = "Cannot bpeek an interactive job."
PEEK_ONE_OF = "Command syntax error: more than one of -m , -q, -J or jobId are specified."
PEEK_STDOUT = "<< output from stdout >>"
PEEK_STDERR = "<< output from stderr >>"
NO_DEPENDENCY = "No dependency job found"  # bjdepinfo with nothing to list (lsfemu's text: LSF's is unknown)
BAD_LEVEL = "The level must be a positive integer."  # bjdepinfo -r (lsfemu's text)
FORCE_FAILED = "Failed to run the job"  # brun's lsb_perror prefix: `Failed to run the job: <reason>`
#: bkill -l: the signal names LSF's bkill lists (OpenLava lib.sig.c sigSymbol, in its order)
SIGNAL_NAMES = ("HUP INT QUIT ILL TRAP IOT EMT FPE KILL BUS SEGV SYS PIPE ALRM TERM STOP TSTP CONT CHLD TTIN "
                "TTOU IO XCPU XFSZ VTALRM PROF WINCH LOST USR1 USR2 ")
BMOD_EXCLUSIVE = "bmod: -sp and -spn, and -aps and -apsn, cannot be used together."
ARRAY_QUEUE_MOD = "Options -q and -O cannot be applied on job array"  # bmod's own (catgets 352)
MOD_AND_DEFAULT = "You cannot modify and set default at the same time"  # lsb.sub.c's parser (catgets 406)
# bsub -pack (OpenLava's cmd.sub.c texts; IBM documents none)
PACK_DISABLED = "Pack submission disabled by LSB_MAX_PACK_JOBS in lsf.conf. Job not submitted."
PACK_NOT_TEXT = "Error: File <{}> is not a valid text file. Job not submitted."
PACK_UNREADABLE = "Cannot read file <{}>. Job not submitted."
PACK_BAD_LINE = 'Failed to parse command line: "{}"'  # + ". Job not submitted."
INTERACTIVE_ARRAY = "Interactive job not supported for job arrays"  # OpenLava lsb.sub.c, catgets 440
BLOCK_ARRAY = "Job array doesn't support -K option"  # catgets 441
INTERACTIVE_VIRTUAL = ("Interactive job not supported with LSFEMU_CLOCK=virtual: jobs are simulated there, "
                       "no process runs to talk to; use LSFEMU_CLOCK=wall, or bsub -K")

# --- bsub -K and -I: what the waiting bsub prints on stderr (OpenLava lsb.sub.c and
# nios.c, LSF's "Example messages"; reference lsf-breadth.md 6.5) ------------------
WAITING_FOR_DISPATCH = "<<Waiting for dispatch ...>>\n"
JOB_IS_FINISHED = "<<Job is finished>>\r\n"
TERMINATED_WHILE_PENDING = "<<Terminated while pending>>\r\n"
REQUEUED_WAITING = "<<Job has been requeued, waiting for dispatch......>>\n"
INTERACT_WIDTH = 80  # nios.c's WIDTH: its message lines wrap before column 73


def starting_on(host: str) -> str:
    """``<<Starting on hostA>>`` and nios's CR LF."""
    return f"<<Starting on {host}>>\r\n"


def terminated_by_user(job_id: object) -> str:
    """nios.c's line for a job killed before it ran (catgets 815), echoed as a message."""
    return f"Job <{job_id}> has been terminated by user or administrator"


def interact_reason(reason: str) -> str:
    """A pending or suspending reason as LSF's interactive messages show it:
    host-counted reasons as lsb_pendreason gives them (`` Job's resource
    requirements not satisfied: 2 hosts;``), the job's own as the sentence
    (``New job is waiting for scheduling``)."""
    head, sep, tail = reason.rpartition(": ")
    if sep and tail.split(" ", 1)[0].isdigit() and tail.rstrip(";").endswith(("host", "hosts")):
        return f" {reason.rstrip(';')};"
    return reason


def interact_message(lines: list[str]) -> str:
    """nios.c's prtLine: a CR LF, then each line as ``<< line >>`` (lines
    longer than the terminal's width broken at column 73 as nios breaks them),
    each ending with CR LF."""
    text = "\n".join(lines)
    out = ["\r\n<< "]
    cursor = 5
    for ch in text:
        if ch == "\n":
            out.append(" >>\r\n<< ")
            cursor = 0
            continue
        if cursor == INTERACT_WIDTH - 7:
            out.append(" >>\r\n<< ")
            cursor = 0
        out.append(ch)
        cursor += 1
    out.append(" >>\r\n")
    return "".join(out)

# --- composition --------------------------------------------------------------


def job_error(job_id: object, message: str) -> str:
    """Per-job failure of bkill/bstop/bresume/bswitch: ``Job <1234>: msg``."""
    return f"Job <{job_id}>: {message}"


def object_error(obj: object, message: str) -> str:
    """``obj: msg`` (``normal: No such queue``)."""
    return f"{obj}: {message}"


def not_submitted(message: str, obj: object | None = None) -> str:
    """``[obj: ]msg. Job not submitted.`` (an empty obj is left out, as bsub always did)"""
    return f"{obj}: {message}. Job not submitted." if obj else f"{message}. Job not submitted."


def not_modified(message: str, obj: object | None = None) -> str:
    """``[obj: ]msg. Job not modified.``"""
    return f"{obj}: {message}. Job not modified." if obj is not None else f"{message}. Job not modified."


def _filters(queue: str | None = None, host: str | None = None, cluster: str | None = None) -> str:
    s = ""
    if queue:
        s += f" in queue <{queue}>"
    if host:
        s += f" on host/group <{host}>"
    if cluster:
        s += f" in cluster <{cluster}>"
    return s


# --- the "not found" family (2.7) ----------------------------------------------


def not_found(job: object, *, queue: str | None = None, host: str | None = None, cluster: str | None = None) -> str:
    """``Job <1234> is not found`` (+ `` in queue <q>`` ...); *job* may be a name."""
    return f"Job <{job}> is not found{_filters(queue, host, cluster)}"


def not_an_array(job_id: object) -> str:
    return f"Job <{job_id}> is not a job array"


_KINDS = {
    "": "No job found",
    "all": "No job found",
    "unfinished": "No unfinished job found",
    "pending": "No pending job found",
    "running": "No running job found",
    "suspended": "No suspended job found",
    "done": "No DONE/EXIT job found",
    "finished": "No DONE/EXIT job found",
}


def no_job_found(
    kind: str = "unfinished",
    *,
    queue: str | None = None,
    host: str | None = None,
    cluster: str | None = None,
) -> str:
    """``No unfinished job found`` and friends; *kind* is one of ``unfinished``
    (bjobs default), ``""``/``all`` (``-a``), ``pending``, ``running``,
    ``suspended``, ``done``."""
    try:
        base = _KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown kind {kind!r}") from None
    return base + _filters(queue, host, cluster)


# --- typed errors (lsfemu/errors.py), rendered once --------------------------------


def error_text(e: errors.LsfError) -> str:
    """The text of an operation's error (lines without the last newline)."""
    if isinstance(e, errors.BadJobIds):
        return "\n".join(object_error(arg, reason) for arg, reason in e.bad)
    if isinstance(e, errors.NoJobFound):
        if e.name is not None:
            return not_found(e.name, host=e.host)
        return no_job_found(e.kind, queue=e.queue, host=e.host)
    if isinstance(e, errors.WallClockAhead):
        return (f"LSFEMU_CLOCK=wall: the cluster's clock is at {ctime(e.cluster_time)}, ahead of this machine's "
                f"({ctime(e.wall_time)}); time cannot run backwards: keep LSFEMU_CLOCK=virtual until then")
    if isinstance(e, errors.JobError):
        return job_error(e.subject, e.reason)
    if isinstance(e, errors.NotSubmitted):
        return not_submitted(e.reason, e.subject)
    if isinstance(e, errors.NotModified):
        return not_modified(e.reason, e.subject)
    return object_error(e.subject, e.reason) if e.subject is not None else e.reason


def job_errors(failures) -> list[str]:
    """The stderr lines of a job control command's failures, [(job or None, ID as typed,
    reason)] in order: elements of one job array named one by one with the same reason
    in a row are condensed as LSF 10 does (`Job <123[1-2:1]>: Job has already finished`)."""
    lines: list[str] = []
    run: list | None = None  # [job ID, first index, last index, reason]

    def flush() -> None:
        nonlocal run
        if run is not None:
            jid, first, last, text = run
            lines.append(job_error(f"{jid}[{first}]" if first == last else f"{jid}[{first}-{last}:1]", text))
            run = None

    for job, typed, reason in failures:
        if job is not None and job.array_index and typed == f"{job.id}[{job.array_index}]":
            if run is not None and run[0] == job.id and run[2] + 1 == job.array_index and run[3] == reason:
                run[2] = job.array_index
                continue
            flush()
            run = [job.id, job.array_index, job.array_index, reason]
            continue
        flush()
        lines.append(job_error(typed, reason))
    flush()
    return lines


# --- badmin ----------------------------------------------------------------------------

_CHECKING = "\nChecking configuration files ...\n\n"
RECONFIG_REFUSED = "No reconfiguration: the running configuration is kept."
PERFMON_NOT_STARTED = "Performance metric sampling has not been started"  # seen (Datadog fixture)
PERFMON_NO_DATA = "No performance metric data available. Please wait until first sample period ends."
PERFMON_STARTED = "Performance metric sampling has been started"  # (badmin perfmon start, setperiod; inferred)
PERFMON_STOPPED = "Performance metric sampling has been stopped"  # (badmin perfmon stop; inferred)
PERFMON_BAD_PERIOD = "The sample period must be a whole number of seconds from 1 to 3600"
#: badmin rc without LSF's resource connector (lsfemu has none; LSF's own text was not found)
RC_NOT_ENABLED = "badmin: rc: the LSF resource connector is not enabled in this cluster"
RECONFIG_DONE = "Reconfiguration initiated"
RESTART_DONE = "MBD restart initiated"


def config_check(issues) -> str:
    """badmin ckconfig's stderr text (complete lines) for the issues found, each
    with `.fatal` and its `file(line): text` as str(); fatal ones first."""
    fatal = [i for i in issues if i.fatal]
    warn = [i for i in issues if not i.fatal]
    if not issues:
        return _CHECKING + "No errors found.\n\n"
    head = "There are fatal errors.\n\n" if fatal else "There are warning errors.\n\n"
    body = "".join(f"{i}\n" for i in fatal + warn)
    return _CHECKING + head + body + "\n"


def queue_done(queue: str, done: str) -> str:
    """badmin q*: ``Queue <normal> is opened``."""
    return f"Queue <{queue}> is {done}"


def host_done(host: str, opened: bool) -> str:
    """badmin hopen/hclose (LSF writes it to stderr): ``Open <hostA> ...... done``."""
    return f"{'Open' if opened else 'Close'} <{host}> ...... done"


# --- lsfemu's own subcommands -----------------------------------------------------------

NO_FAIRSHARE = "the queue has no fairshare (no FAIRSHARE, no host partition)"
NO_FAIRSHARE_QUEUE = "no queue uses fairshare in this cluster"
CLOCK_IS_WALL = "the clock is wall time; set LSFEMU_CLOCK=virtual in lsf.conf to move it"


def clock_cannot_go_back(now: float) -> str:
    return (f"the clock cannot go back (it is {ctime(now)}; "
            "only a cluster that has never had a job can be set back)")


def clock_past_9999(text: str) -> str:
    return f"bad duration <{text}>: the clock cannot go past the year 9999"


def clock_moved(now: float, passes: int, finished: int) -> str:
    return f"virtual clock: {ctime(now)} ({now:.0f}); {passes} scheduling pass(es), {finished} job(s) finished"


# --- success lines (2.1-2.6) -----------------------------------------------------


def job_group_done(path: str, done: str) -> str:
    """bgadd's ``Job group </risk_group> was added.`` (LSF 10, seen in IBM's support
    note); bgdel likewise (``was deleted.``, inferred)."""
    return f"Job group <{path}> was {done}."


def job_group_modified(path: str) -> str:
    """bgmod's ``Job group /user1 is modified.`` (seen in IBM's support note)."""
    return f"Job group {path} is modified."


def submitted(job_id: object, queue: str, *, default_queue: bool) -> str:
    """``Job <N> is submitted to [default ]queue <q>.``"""
    which = "default queue" if default_queue else "queue"
    return f"Job <{job_id}> is submitted to {which} <{queue}>."


def submit_times(begin: float | None, term: float | None) -> list[str]:
    """What bsub adds on stderr after the submission line for -b and -t (lsb.sub.c's
    prtBETime_): ``Job will be scheduled after <ctime>`` / ``Job will be terminated by <ctime>``."""
    said = (("Job will be scheduled after", begin), ("Job will be terminated by", term))
    return [f"{text} {ctime(t)}" for text, t in said if t is not None]


def being_changed(job_id: object) -> str:
    return f"Parameters of job <{job_id}> are being changed"


def being_terminated(job_id: object) -> str:
    return f"Job <{job_id}> is being terminated"


def being_signaled(job_id: object) -> str:
    return f"Job <{job_id}> is being signaled"


def being_stopped(job_id: object) -> str:
    return f"Job <{job_id}> is being stopped"


def being_resumed(job_id: object) -> str:
    return f"Job <{job_id}> is being resumed"


def being_requeued(job_id: object) -> str:
    """OpenLava's text carries one trailing space."""
    return f"Job <{job_id}> is being requeued "


def being_forced(job_id: object) -> str:
    """brun's success line."""
    return f"Job <{job_id}> is being forced to run."


def being_migrated(job_id: object) -> str:
    return f"Job <{job_id}> is being migrated"


def switched(job_id: object, queue: str) -> str:
    return f"Job <{job_id}> is switched to queue <{queue}>"


def moved(job_id: object, position: int, *, top: bool) -> str:
    return f"Job <{job_id}> has been moved to position {position} from {'top' if top else 'bottom'}."


def beyond_movable(position: int) -> str:
    """btop/bbot's warning (stderr, before the line saying where the job went)."""
    return f"Warning: position value <{position}> is beyond movable range."


# --- usage texts ----------------------------------------------------------------

_JOB_IDS = '[jobId | "jobId[index_list]" ...]'

#: usage texts of commands without an option grammar (the others: lsfemu.options.usage)
USAGES: dict[str, str] = {
    "badmin": (
        "badmin: [-h] [-V] [command] [command_options] [command_args]\n"
        "\n"
        "    where 'command' is:\n"
        "\n"
        "    ckconfig     - Check configuration files\n"
        "    reconfig     - Reconfigure the system\n"
        "    mbdrestart   - Restart mbatchd\n"
        "    qopen        - Open queues\n"
        "    qclose       - Close queues\n"
        "    qact         - Activate queues\n"
        "    qinact       - Inactivate queues\n"
        "    hopen        - Open hosts\n"
        "    hclose       - Close hosts\n"
        "    showconf     - Display all configured parameters\n"
        "    showstatus   - Display current LSF runtime information\n"
        "    hist         - Display the history of queues, hosts and mbatchd\n"
        "    mbdhist      - Display the history of the master batch daemon\n"
        "    qhist        - Display the history of LSF queues\n"
        "    hhist        - Display the history of hosts\n"
        "    perfmon      - Collect and view performance metrics\n"
    ),
    "lsadmin": (
        "lsadmin: [-h] [-V] [command] [command_options] [command_args]\n"
        "\n"
        "    where 'command' is:\n"
        "\n"
        "    showconf     - Display all configured parameters\n"
    ),
}


# --- bhist's own (OpenLava lsbatch/bhist/bhist.c) -----------------------------
BHIST_NFILES = "bhist: The number of event log files must be a positive integer."
BHIST_NFILES_RANGE = "bhist: The numbers of both event log files must be positive integers."
BHIST_NFILES_ORDER = "bhist: The value of min_logfile should not exceed the value of max_logfile"
BHIST_NOT_A_FACTOR = "neither a host model, nor a host name, nor a CPU factor"
BHIST_NOT_A_HOST = "Warning: <{host}> is not a valid hostname"
# bjobs -N's (OpenLava lsbatch/cmd/bjobs.c: "is", no full stop, unlike bhist's)
BJOBS_NOT_A_FACTOR = "is neither a host model, nor a host name, nor a CPU factor"


#: how a command answers an option its grammar refuses (lsfemu.options.OptionError.kind)
_OPTION_ERRORS = {
    "illegal": "{cmd}: illegal option -- {opt}",
    "requires": "{cmd}: option requires an argument -- {opt}",
    "no_argument": "{cmd}: option cannot have an argument -- {opt}",
    "not_implemented": "{cmd}: option -{opt} is not supported by lsfemu yet",
}


def option_error(cmd: str, kind: str, flag: str) -> str:
    """The line (with its newline) a command prints for a refused option: LSF's
    texts (OpenLava my_getopt) name the option without its dash."""
    return _OPTION_ERRORS[kind].format(cmd=cmd, opt=flag.lstrip("-")) + "\n"


def usage(cmd: str) -> str:
    """The usage text of *cmd* (complete lines): made from the command's option
    grammar (lsfemu.options: it lists only what works); badmin's own; a bare
    ``Usage: cmd [-h] [-V]`` for commands without one."""
    if cmd in options.GRAMMARS:
        return options.usage(options.grammar(cmd))
    return USAGES.get(cmd, f"Usage: {cmd} [-h] [-V]\n")