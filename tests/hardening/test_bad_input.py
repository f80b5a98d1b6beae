"""Hardening: a corpus of bad command lines across every command.

For each bad command line: LSF's wording where LSF has one, a non-zero exit
status, an empty stdout, no traceback (neither on the terminal nor in the
daemon log, where lsfemu hides its internal errors), and a store that did not
change (every table of `LSFEMU_HOME/lsfemu.db`, read-only, before and after).

Where lsfemu prints something that is clearly not LSF's answer, the case
carries `xfail(strict=True, reason="BUG: ...")`: it documents the bug, and the
suite tells when it gets fixed (the case then XPASSes and fails, so the mark
must be removed).

Sources of the expected texts: /work/shared/reference/lsf-formats.md sections
2 and 12, and OpenLava's command sources (LSF's ancestor) for the job-ID
parser (`cmd.jobid.c`: `<arg>: Illegal job ID.`, `<arg>: Job ID out of valid
range.`, `Job Id = 0 is out of valid range.`) and for the "nothing matched"
errors (`cmd.err.c`: `Job <name> is not found`, `No unfinished job found in
queue <q>`). Where LSF's exact text is unknown (malformed -aps strings, bad
array index lists, lsfemu's own `lsfemu clock`), the case checks lsfemu's
composition (`<object>: <text>. Job not modified.`) with a regular expression.

What the operating system allows, and what is therefore tested how:
- A NUL byte cannot pass through exec (argv entries are C strings): Python
  refuses with `ValueError: embedded null byte` before any process starts.
  The NUL-in-argv refusal of lsfemu itself is tested by talking to the daemon's
  socket directly. A NUL *can* arrive on stdin (a job script): tested too.
- Linux limits one argument to MAX_ARG_STRLEN (128 KiB) and argv + environment
  together to ARG_MAX (2 MiB here, `getconf ARG_MAX`). The 1 MB command line is
  therefore 16 arguments of 64 KiB; a 3 MB command line cannot be exec'd at
  all (E2BIG), so lsfemu's own 2 MiB limit is tested through the socket.
- Bytes that are not UTF-8 pass through exec fine (subprocess encodes the
  surrogate escapes of a str argument back to the raw bytes).

Speed: one module-scoped cluster serves the whole corpus; it is rebuilt only
after a case that changed the store (a bug), so that every case starts from
the same jobs:
  job 1  user1  RUN   normal            (sleep 1000)
  job 2  user1  DONE  normal            (sleep 5, named "fin")
  job 3  user2  PEND  normal  -n 12     (cannot start: job 1 holds a slot)
  job 4  user1  PEND  normal  -n 12
  queue closedq closed (badmin qclose); queue restricted: USERS = user2;
  lsb.users MAX_PEND_JOBS: user2 1, the group research (user1 user2) 4.
The clock stands at 09:01:05, between two scheduling passes.
"""

from __future__ import annotations

import _socket
import json
import re
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import pytest

from lsfemu.protocol import decode_fields, encode_request
from lsfemu.testing import LsfCluster, _command_path

pytestmark = pytest.mark.slow(75)  # seconds, quiet machine: scheduled early (tests/conftest.py)

EXTRA_QUEUES = """
Begin Queue
QUEUE_NAME   = closedq
PRIORITY     = 20
DESCRIPTION  = Closed by the test fixture.
End Queue

Begin Queue
QUEUE_NAME   = restricted
PRIORITY     = 20
USERS        = user2
DESCRIPTION  = Only user2 may submit here.
End Queue
"""

#: the sample's lsb.users with MAX_PEND_JOBS: user2 (job 3 pending) may have
#: one pending job, research (user1 and user2: jobs 3 and 4) four (the
#: fixture's four submissions pend together before the first pass)
USERS = """Begin UserGroup
GROUP_NAME   GROUP_MEMBER          USER_SHARES
research     (user1 user2)         ([user1, 2] [user2, 1])
End UserGroup

Begin User
USER_NAME    MAX_JOBS   JL/P   MAX_PEND_JOBS
user1        8          -      -
user2        12         -      1
research     -          -      4
default      12         -      -
End User
"""

TABLES = ("jobs", "job_events", "counters", "queue_state", "host_state", "user_usage", "clock", "job_groups")


# -- the cluster ----------------------------------------------------------------------------------

def _new_cluster(with_targets: bool = True) -> LsfCluster:
    root = Path(tempfile.mkdtemp(prefix="lsfh-"))
    c = LsfCluster(root)
    queues = c.path_of("lsb.queues")
    queues.write_text(queues.read_text() + EXTRA_QUEUES)
    if with_targets:
        c.path_of("lsb.users").write_text(USERS)
    for name, text in (("hf.good", "hostA 1\n"), ("hf.bad", "hostA two\n"), ("hf.nohost", "hostA\nhostZ 2\n")):
        (root / "userhome" / name).write_text(text)  # bsub/bmod -hostfile's files (relative to the caller's CWD)
    if with_targets:
        r = c.run(["badmin", "qclose", "closedq"], user="lsfadmin")
        assert r.rc == 0, r.text
        for argv, user in ((["bsub", "sleep", "1000"], "user1"),
                           (["bsub", "-J", "fin", "sleep", "5"], "user1"),
                           (["bsub", "-n", "12", "sleep", "1000"], "user2"),
                           (["bsub", "-n", "12", "sleep", "1000"], "user1")):
            r = c.run(argv, user=user)
            assert r.rc == 0, r.text
        r = c.run(["bgadd", "-L", "1", "/g2"], user="user2")  # another user's job group
        assert r.rc == 0, r.text
        c.advance("65s")
        r = c.run(["bjobs", "-u", "all", "-a", "-noheader", "-o", "jobid stat user"])
        assert r.out == "1 RUN user1\n3 PEND user2\n4 PEND user1\n2 DONE user1\n", r.text
    return c


def _drop(c: LsfCluster) -> None:
    c.stop()
    shutil.rmtree(c.root, ignore_errors=True)


class _Pool:
    """One cluster for many cases; rebuilt after a case changed the store."""

    def __init__(self) -> None:
        self.cluster: LsfCluster | None = None
        self.dirty = True

    def get(self) -> LsfCluster:
        if self.dirty or self.cluster is None:
            if self.cluster is not None:
                _drop(self.cluster)
            self.cluster = _new_cluster()
            self.dirty = False
        return self.cluster

    def close(self) -> None:
        if self.cluster is not None:
            _drop(self.cluster)


@pytest.fixture(scope="module")
def pool():
    p = _Pool()
    yield p
    p.close()


@pytest.fixture(scope="module")
def good_cluster():
    """A cluster for the good-but-odd input (it gains jobs as the tests run)."""
    c = _new_cluster(with_targets=False)
    yield c
    _drop(c)


# -- observing the store and the daemon log ----------------------------------------------------------

def snapshot(c: LsfCluster) -> dict[str, list]:
    """Every row of every table (sorted), read-only, plus the job_events count."""
    con = sqlite3.connect(f"file:{c.home / 'lsfemu.db'}?mode=ro", uri=True)
    try:
        snap = {t: sorted(con.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in TABLES}
        snap["job_events#"] = con.execute("SELECT count(*) FROM job_events").fetchone()[0]
        return snap
    finally:
        con.close()


def diff(before: dict, after: dict) -> str:
    lines = []
    for t in before:
        if before[t] != after[t]:
            if isinstance(before[t], list):
                gone = [r for r in before[t] if r not in after[t]]
                new = [r for r in after[t] if r not in before[t]]
                lines.append(f"{t}: -{str(gone)[:300]} +{str(new)[:300]}")
            else:
                lines.append(f"{t}: {before[t]} -> {after[t]}")
    return "\n".join(lines)


def log_size(c: LsfCluster) -> int:
    try:
        return (c.home / "daemon.log").stat().st_size
    except FileNotFoundError:
        return 0


def log_since(c: LsfCluster, offset: int) -> str:
    try:
        with open(c.home / "daemon.log", errors="replace") as f:
            f.seek(offset)
            return f.read()
    except FileNotFoundError:
        return ""


def run_bytes(c: LsfCluster, argv: list, user: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Like cluster.run, but stdin/stdout/stderr as raw bytes."""
    env = dict(c.env, LSFEMU_USER=user)
    return subprocess.run(_command_path(argv[0]) + list(argv[1:]), input=stdin, capture_output=True,
                          env=env, cwd=str(c.root / "userhome"), timeout=60)


def socket_call(c: LsfCluster, cmd: str, argv: list[str], user: str, *, started: bool = False) -> tuple[str, str, int]:
    """Send one request straight to the daemon's socket (no exec: no OS limits
    on argv); unless the caller knows it is `started`, run lsid first so that
    the daemon runs."""
    if not started:
        r = c.run(["lsid"])
        assert r.rc == 0, r.text
    env = dict(c.env, LSFEMU_USER=user)
    req = {"cmd": cmd, "argv": argv, "cwd": str(c.root / "userhome"), "env": env, "stdin": None, "tty": False}
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        s.settimeout(60)
        s.connect(str(c.home / "mbatchd.sock"))
        s.sendall(encode_request(req))

        def exact(n: int) -> bytes:
            buf = bytearray()
            while len(buf) < n:
                chunk = s.recv(min(n - len(buf), 1 << 20))
                if not chunk:
                    raise ConnectionError("daemon closed the connection")
                buf += chunk
            return bytes(buf)

        rc, out, err = decode_fields(exact(int.from_bytes(exact(4), "big")))
        return out, err, int(rc)
    finally:
        s.close()


# -- expected texts -----------------------------------------------------------------------------------

BAD_SP = "Bad user priority. Job not submitted.\n"
BAD_SP_MOD = "Bad user priority. Job not modified.\n"
NO_PERM_MOD = "User permission denied. Job not modified.\n"
ONLY_RUNNING = ("Only the following parameters can be used to modify a running job: "
                "-c, -M, -W, -o, -e, -r. Job not modified.\n")
BAD_N = "Bad argument for option -n. Job not submitted.\n"
NOT_FOUND_OR_UNKNOWN = re.compile(r"(No unfinished job found|nosuchuser: Unknown user)\n\Z")
SELECT_MSG = "Job ID or one of '-m', '-u' '-q' and '-J' must be specified.\n"


def illegal(arg: str) -> str:
    return f"{arg}: Illegal job ID.\n"


def usage(cmd: str, first_line: str | None = None) -> re.Pattern:
    """An optional message line, then LSF's usage text."""
    head = re.escape(first_line) + r"\n" if first_line is not None else ""
    return re.compile(head + r"Usage: " + re.escape(cmd) + r" ")


def illegal_option(cmd: str, opt: str) -> re.Pattern:
    return usage(cmd, f"{cmd}: illegal option -- {opt}")


def needs_value(cmd: str, opt: str) -> re.Pattern:
    return usage(cmd, f"{cmd}: option requires an argument -- {opt}")


def aps_bad(obj: str) -> re.Pattern:
    """LSF's composition for bmod: `<object>: <message>. Job not modified.`"""
    return re.compile(re.escape(obj) + r": .+\. Job not modified\.\n\Z")


def obj_err(obj: str) -> re.Pattern:
    """`<object>: <some message>` on one line (LSF's exact text unknown)."""
    return re.compile(re.escape(obj) + r": .+\n\Z")


def C(argv, expect, user="user1", *, id, bug=None, stdin=None):
    """One bad command line. `bug` records a bug this case found (fixed since):
    the case now guards against its return."""
    return pytest.param(list(argv), user, expect, stdin, id=id)


LONG_NAME = "n" * 4095

CASES = [
    # ---- bsub -sp: out of range, not a number -------------------------------------------------------
    C(["bsub", "-sp", "0", "sleep", "1"], BAD_SP, id="bsub-sp-zero"),
    C(["bsub", "-sp", "101", "sleep", "1"], BAD_SP, id="bsub-sp-above-MAX_USER_PRIORITY"),
    C(["bsub", "-sp", "-5", "sleep", "1"], BAD_SP, id="bsub-sp-negative"),
    C(["bsub", "-sp", "abc", "sleep", "1"], BAD_SP, id="bsub-sp-not-a-number"),
    C(["bsub", "-sp", "1.5", "sleep", "1"], BAD_SP, id="bsub-sp-fraction"),
    C(["bsub", "-sp", "0x10", "sleep", "1"], BAD_SP, id="bsub-sp-hex"),
    C(["bsub", "-sp", "99999999999999999999", "sleep", "1"], BAD_SP, id="bsub-sp-20-digits"),
    C(["bsub", "-sp", "", "sleep", "1"], BAD_SP, id="bsub-sp-empty"),
    C(["bsub", "-sp", "2147483648", "sleep", "1"], BAD_SP, "lsfadmin", id="bsub-sp-admin-above-int-max"),
    C(["bsub", "-q", "normal", "-sp", "150", "sleep", "1"], BAD_SP, "user3",
      id="bsub-sp-queue-admin-of-another-queue"),
    C(["bsub", "-sp", "５０", "sleep", "1"], BAD_SP, id="bsub-sp-fullwidth-digits",
      bug="bsub -sp accepts Unicode digits (regex \\d): '５０' is taken as 50; LSF wants ASCII digits"),
    C(["bsub", "-sp"], needs_value("bsub", "sp"), id="bsub-sp-missing-value"),
    # ---- bsub past lsb.users MAX_PEND_JOBS (OpenLava cmd.sub.c: the user's own, then its groups') ---------
    C(["bsub", "sleep", "1"], "User <user2>: Pending job threshold reached. Job not submitted.\n", "user2",
      id="bsub-max-pend-jobs-user"),
    C(["bsub", "-J", "arr[1-3]", "sleep", "1"], "Group <research>: Pending job threshold reached. Job not submitted.\n",
      id="bsub-max-pend-jobs-group-array-elements"),
    # ---- bmod -sp ---------------------------------------------------------------------------------------
    C(["bmod", "-sp", "101", "4"], BAD_SP_MOD, id="bmod-sp-above-max"),
    C(["bmod", "-sp", "0", "4"], BAD_SP_MOD, id="bmod-sp-zero"),
    C(["bmod", "-sp", "abc", "4"], BAD_SP_MOD, id="bmod-sp-not-a-number"),
    C(["bmod", "-sp", "99999999999999999999", "4"], BAD_SP_MOD, id="bmod-sp-20-digits"),
    C(["bmod", "-sp", "5", "3"], NO_PERM_MOD, id="bmod-sp-other-users-job"),
    C(["bmod", "-sp", "5", "1"], ONLY_RUNNING, id="bmod-sp-running-job"),
    C(["bmod", "-sp", "5", "2"], "2: Job has already finished. Job not modified.\n", id="bmod-sp-finished-job"),
    C(["bmod", "-sp", "5", "99"], "99: No matching job found. Job not modified.\n", id="bmod-sp-no-such-job"),
    C(["bmod", "-sp", "5", "-spn", "4"], usage("bmod", "bmod: -sp and -spn, and -aps and -apsn, cannot be used together."),
      id="bmod-sp-and-spn"),
    C(["bmod", "4"], usage("bmod"), id="bmod-no-option"),
    C(["bmod", "-sp", "5", "abc"], illegal("abc"), id="bmod-job-id-abc",
      bug="bmod prints 'abc: Bad job ID. Job not modified.'; LSF's one-job parser (getOneJobId) prints "
          "'abc: Illegal job ID.' as btop/bbot do"),
    C(["bmod", "-sp", "5", "4", "3"], usage("bmod"), id="bmod-two-job-ids",
      bug="bmod -sp 5 4 3 silently ignores the extra job ID and modifies job 4; bmod takes one job ID "
          "(usage, nothing changed)"),
    # ---- bmod -aps: malformed strings (administrator, pending job 4) ----------------------------------------
    C(["bmod", "-aps", "system=0", "4"], aps_bad("system=0"), "lsfadmin", id="bmod-aps-system-zero"),
    C(["bmod", "-aps", "admin=", "4"], aps_bad("admin="), "lsfadmin", id="bmod-aps-admin-empty"),
    C(["bmod", "-aps", "foo=1", "4"], aps_bad("foo=1"), "lsfadmin", id="bmod-aps-unknown-factor"),
    C(["bmod", "-aps", "", "4"], re.compile(r".*Job not modified\.\n\Z"), "lsfadmin", id="bmod-aps-empty-string"),
    C(["bmod", "-aps", "system=abc", "4"], aps_bad("system=abc"), "lsfadmin", id="bmod-aps-not-a-number"),
    C(["bmod", "-aps", "system=inf", "4"], aps_bad("system=inf"), "lsfadmin", id="bmod-aps-infinite"),
    C(["bmod", "-aps", "admin=nan", "4"], aps_bad("admin=nan"), "lsfadmin", id="bmod-aps-nan"),
    C(["bmod", "-aps", "system=1 admin=2", "4"], aps_bad("system=1 admin=2"), "lsfadmin", id="bmod-aps-two-factors"),
    C(["bmod", "-aps", "system=5", "4"], NO_PERM_MOD, "user1", id="bmod-aps-by-non-admin"),
    C(["bmod", "-aps", "system=5", "1"], ONLY_RUNNING, "lsfadmin", id="bmod-aps-running-job"),
    C(["bmod", "4", "-aps"], needs_value("bmod", "aps"), "lsfadmin", id="bmod-aps-missing-value"),
    # ---- bmod's other fields: malformed values, other users' jobs, running and finished jobs ---------------
    C(["bmod", "-q", "nosuch", "4"], "nosuch: No such queue. Job not modified.\n", id="bmod-q-no-such-queue"),
    C(["bmod", "-n", "abc", "4"], "Bad argument for option -n. Job not modified.\n", id="bmod-n-not-a-number"),
    C(["bmod", "-n", "0", "4"], "Bad argument for option -n. Job not modified.\n", id="bmod-n-zero"),
    C(["bmod", "-n", "4,2", "4"], "Bad argument for option -n. Job not modified.\n", id="bmod-n-max-below-min"),
    C(["bmod", "-W", "0", "4"], "0: Bad RUNLIMIT specification. Job not modified.\n", id="bmod-W-zero"),
    C(["bmod", "-W", "1:xx", "4"], "1:xx: Bad RUNLIMIT specification. Job not modified.\n", id="bmod-W-malformed"),
    C(["bmod", "-M", "abc", "4"], "abc: MEMLIMT value should be a positive integer. Job not modified.\n",
      id="bmod-M-not-a-number"),
    C(["bmod", "-R", "rusage[mem=", "4"], "rusage[mem=: Bad resource requirement syntax. Job not modified.\n",
      id="bmod-R-malformed"),
    C(["bmod", "-R", "select[bigmemory]", "4"],
      'Error in select section: Error near "bigmemory" : incorrect section name, resource name, or resource'
      ' function name. Job not modified.\n', id="bmod-R-select-unknown-name"),
    C(["bmod", "-G", "nogroup", "4"], "nogroup: Bad user group name. Job not modified.\n", id="bmod-G-no-such-group"),
    C(["bmod", "-J", "a[1]", "4"], "a[1]: Bad job name. Job not modified.\n", id="bmod-J-array-name-on-a-job"),
    C(["bmod", "-Z", "", "4"], "No command is specified. Job not modified.\n", id="bmod-Z-empty"),
    C(["bmod", "-w", "done(((", "4"], "done(((: Dependency condition syntax error. Job not modified.\n",
      id="bmod-w-malformed"),
    C(["bmod", "-q", "normal", "-qn", "4"], "You cannot modify and set default at the same time. Job not modified.\n",
      id="bmod-q-and-qn"),
    C(["bmod", "-J", "x", "3"], NO_PERM_MOD, id="bmod-J-other-users-job"),
    C(["bmod", "-J", "x", "1"], ONLY_RUNNING, id="bmod-J-running-job"),
    C(["bmod", "-J", "x", "2"], "2: Job has already finished. Job not modified.\n", id="bmod-J-finished-job"),
    C(["bmod", "-M", "100", "1"], "You must set LSB_JOB_MEMLIMIT in lsf.conf to modify the memory limit of a "
      "running job. Job not modified.\n", id="bmod-M-running-job-without-LSB_JOB_MEMLIMIT"),
    C(["bmod", "4", "-q"], needs_value("bmod", "q"), id="bmod-q-missing-value"),
    C(["bmod", "-b", "25:00", "4"], "25:00: Bad time specification. Job not modified.\n", id="bmod-b-bad-hour"),
    C(["bmod", "-t", "1:2:3:4:5:6", "4"], "1:2:3:4:5:6: Bad time specification. Job not modified.\n",
      id="bmod-t-too-many-fields"),
    C(["bmod", "-L", "", "4"], "Bad argument. Job not modified.\n", id="bmod-L-empty"),
    C(["bmod", "-Jd", "d", "-Jdn", "4"], "You cannot modify and set default at the same time. Job not modified.\n",
      id="bmod-Jd-and-Jdn"),
    C(["bmod", "-Jd", "d", "1"], ONLY_RUNNING, id="bmod-Jd-running-job"),
    C(["bmod", "-x", "4"], "normal: Queue does not accept EXCLUSIVE jobs. Job not modified.\n",
      id="bmod-x-queue-not-exclusive"),
    C(["bmod", "-m", "nosuchhost", "4"], "nosuchhost: Bad host name, host group name or cluster name. "
      "Job not modified.\n", id="bmod-m-no-such-host"),
    C(["bmod", "-u", "a/b", "4"], "a/b: Bad argument. Job not modified.\n", id="bmod-u-slash"),
    C(["bmod", "-hostfile", "hf.good", "-m", "hostA", "4"],
      "-hostfile cannot be used with -n, -m or -R. Job not modified.\n", id="bmod-hostfile-and-m"),
    C(["bmod", "-hostfile", "hf.nohost", "4"],
      "hostZ: Bad host name, host group name or cluster name. Job not modified.\n", id="bmod-hostfile-unknown-host"),
    C(["bmod", "-hostfile", "hf.good", "1"], "Only the following parameters can be used to modify a running job: "
      "-c, -M, -W, -o, -e, -r. Job not modified.\n", id="bmod-hostfile-running-job"),
    C(["bsub", "-c", "abc", "sleep", "1"], "abc: Bad CPULIMIT specification. Job not submitted.\n",
      id="bsub-c-not-a-number"),
    C(["bsub", "-c", "0", "sleep", "1"], "0: Bad CPULIMIT specification. Job not submitted.\n", id="bsub-c-zero"),
    C(["bsub", "-c", "1:xx", "sleep", "1"], "1:xx: Bad CPULIMIT specification. Job not submitted.\n",
      id="bsub-c-bad-minutes"),
    C(["bsub", "-c", "-5", "sleep", "1"], "-5: Bad CPULIMIT specification. Job not submitted.\n", id="bsub-c-negative"),
    C(["bsub", "-c", "999999999:0", "sleep", "1"], "999999999:0: CPULIMIT value is too big. Job not submitted.\n",
      id="bsub-c-too-big"),
    C(["bsub", "-c", "5/nosuchhost", "sleep", "1"], "Bad host specification. Job not submitted.\n",
      id="bsub-c-unknown-host-spec"),
    C(["bmod", "-c", "x", "4"], "x: Bad CPULIMIT specification. Job not modified.\n", id="bmod-c-not-a-number"),
    C(["bmod", "-c", "5", "-cn", "4"], "You cannot modify and set default at the same time. Job not modified.\n",
      id="bmod-c-and-cn"),
    C(["bmod", "-c", "5", "1"], "You must set LSB_JOB_CPULIMIT in lsf.conf to modify the CPU limit of a running "
      "job. Job not modified.\n", id="bmod-c-running-job-without-LSB_JOB_CPULIMIT"),
    C(["bmod", "-c", "5", "3"], NO_PERM_MOD, id="bmod-c-other-users-job"),
    C(["bmod", "-We", "0", "4"], re.compile(r".+\. Job not modified\.\n\Z"), id="bmod-We-zero"),
    C(["bmod", "-ptl", "-5", "4"], "-5: Bad pending time limit specification. Job not modified.\n", id="bmod-ptl-neg"),
    C(["bmod", "-ptl", "10", "-ptln", "4"], "You cannot modify and set default at the same time. Job not modified.\n",
      id="bmod-ptl-and-ptln"),
    C(["bmod", "-B", "-Bn", "4"], "You cannot modify and set default at the same time. Job not modified.\n",
      id="bmod-B-and-Bn"),
    # ---- job IDs: abc, -1, 0x10, 20 digits, Unicode digits, shell and SQL text ----------------------------
    C(["bkill", "abc"], illegal("abc"), id="bkill-abc"),
    C(["bkill", "-1"], illegal_option("bkill", "1"), id="bkill-negative"),
    C(["bkill", "0x10"], illegal("0x10"), id="bkill-hex"),
    C(["bkill", "12345678901234567890"], illegal("12345678901234567890"), id="bkill-20-digits"),
    C(["bkill", "1.5"], illegal("1.5"), id="bkill-fraction"),
    C(["bkill", ""], illegal(""), id="bkill-empty-string"),
    C(["bkill", "1", "abc"], illegal("abc"), id="bkill-good-and-bad-id-kills-nothing"),
    C(["bkill", "1;2"], illegal("1;2"), id="bkill-shell-semicolon"),
    C(["bkill", "$(echo 1)"], illegal("$(echo 1)"), id="bkill-shell-substitution"),
    C(["bkill", "1' OR '1'='1"], illegal("1' OR '1'='1"), id="bkill-sql"),
    C(["bkill", "¹"], illegal("¹"), id="bkill-superscript-digit"),
    C(["bstop", "４"], illegal("４"), id="bstop-fullwidth-digit",
      bug="job IDs accept Unicode digits (regex \\d): 'bstop ４' stops job 4; LSF: '４: Illegal job ID.'"),
    C(["bjobs", "٣"], illegal("٣"), id="bjobs-arabic-indic-digit",
      bug="job IDs accept Unicode digits: 'bjobs ٣' shows job 3 (rc 0); LSF: '٣: Illegal job ID.'"),
    C(["bstop", "0x10"], illegal("0x10"), id="bstop-hex"),
    C(["bresume", "abc"], illegal("abc"), id="bresume-abc"),
    C(["bswitch", "priority", "abc"], illegal("abc"), id="bswitch-abc"),
    C(["bswitch", "priority", "-1"], illegal_option("bswitch", "1"), id="bswitch-negative"),
    C(["bjobs", "abc"], illegal("abc"), id="bjobs-abc"),
    C(["bjobs", "-1"], illegal_option("bjobs", "1"), id="bjobs-negative"),
    C(["bjobs", "12345678901234567890"], illegal("12345678901234567890"), id="bjobs-20-digits"),
    C(["bjobs", "1 OR 1=1"], illegal("1 OR 1=1"), id="bjobs-sql"),
    C(["btop", "abc"], illegal("abc"), id="btop-abc"),
    C(["btop", "0x10"], illegal("0x10"), id="btop-hex"),
    C(["bbot", "12345678901234567890"], illegal("12345678901234567890"), id="bbot-20-digits"),
    C(["btop", "0"], "Job Id = 0 is out of valid range.\n", id="btop-job-zero",
      bug="btop 0 answers 'Job <0>: No matching job found'; LSF's one-job parser refuses job 0 with "
          "'Job Id = 0 is out of valid range.'"),
    C(["brequeue", "abc"], illegal("abc"), id="brequeue-abc"),
    C(["brequeue", "0x10"], illegal("0x10"), id="brequeue-hex"),
    C(["bmig", "abc"], illegal("abc"), id="bmig-abc"),
    # ---- bad array index lists ------------------------------------------------------------------------------
    C(["bkill", "0[1]"], "0[1]: Job ID out of valid range.\n", id="bkill-array-of-job-zero",
      bug="bkill '0[1]' is read as 'bkill 0' and KILLS ALL the caller's unfinished jobs; LSF: "
          "'0[1]: Job ID out of valid range.' and nothing killed"),
    C(["bkill", "3[0]"], re.compile(r"(3\[0\]|0): .+\n\Z"), "user2", id="bkill-index-zero",
      bug="index 0 is read as 'the whole job': bkill '3[0]' kills job 3 (bstop/bresume/bjobs alike); "
          "array indices start at 1"),
    C(["bkill", "3[5-1]"], re.compile(r"(3\[5-1\]|5-1): .+\n\Z"), "user2", id="bkill-index-range-reversed"),
    C(["bkill", "3[1-"], obj_err("3[1-"), "user2", id="bkill-index-unterminated"),
    C(["bkill", "3[abc]"], obj_err("3[abc]"), "user2", id="bkill-index-letters"),
    C(["bkill", "3[]"], obj_err("3[]"), "user2", id="bkill-index-empty"),
    C(["bjobs", "3[1-2:0]"], obj_err("3[1-2:0]"), id="bjobs-index-step-zero"),
    # job arrays (OpenLava's mbatchd: LSBE_BAD_IDX / LSBE_BAD_JOB, printed without an object)
    C(["bsub", "-J", "a[10-1]", "sleep", "1"], "Job array index error. Job not submitted.\n",
      id="bsub-array-range-reversed"),
    C(["bsub", "-J", "a[0]", "sleep", "1"], "Job array index error. Job not submitted.\n", id="bsub-array-index-zero"),
    C(["bsub", "-J", "a[1-", "sleep", "1"], "Bad job name. Job not submitted.\n", id="bsub-array-unterminated"),
    C(["bsub", "-J", "a[1-1001]", "sleep", "1"], "Job array index too large. Job not submitted.\n",
      id="bsub-array-too-large"),
    C(["bsub", "-w", "done(1", "sleep", "1"], "done(1: Dependency condition syntax error. Job not submitted.\n",
      id="bsub-depend-syntax"),
    C(["bsub", "-w", "ended(4242)", "sleep", "1"], "4242: No matching job found. Job not submitted.\n",
      id="bsub-depend-no-job"),
    # ---- unknown / closed / restricted queues, unknown users ------------------------------------------------
    C(["bsub", "-q", "nosuch", "sleep", "1"], "nosuch: No such queue. Job not submitted.\n", id="bsub-unknown-queue"),
    C(["bsub", "-q", "ñormal", "sleep", "1"], "ñormal: No such queue. Job not submitted.\n", id="bsub-unicode-queue"),
    C(["bsub", "-q", "normal;rm -rf /", "sleep", "1"], "normal;rm -rf /: No such queue. Job not submitted.\n",
      id="bsub-shell-queue"),
    C(["bsub", "-q", "normal' OR '1'='1", "sleep", "1"], "normal' OR '1'='1: No such queue. Job not submitted.\n",
      id="bsub-sql-queue"),
    C(["bsub", "-q", "", "sleep", "1"], re.compile(r"(: )?No such queue\. Job not submitted\.\n\Z"), id="bsub-empty-queue"),
    C(["bsub", "-q", "closedq", "sleep", "1"], "closedq: Queue has been closed. Job not submitted.\n",
      id="bsub-closed-queue"),
    C(["bsub", "-q", "restricted", "sleep", "1"], "restricted: User cannot use the queue. Job not submitted.\n",
      id="bsub-queue-not-for-user"),
    C(["bswitch", "nosuch", "4"], "Job <4>: No such queue\n", id="bswitch-unknown-queue"),
    C(["bswitch", "ñormal", "4"], "Job <4>: No such queue\n", id="bswitch-unicode-queue"),
    C(["bswitch", "priority|normal", "4"], "Job <4>: No such queue\n", id="bswitch-shell-queue"),
    C(["bswitch", "closedq", "4"], "Job <4>: Queue has been closed\n", id="bswitch-closed-queue"),
    C(["bswitch", "restricted", "4"], "Job <4>: User cannot use the queue\n", id="bswitch-queue-not-for-user"),
    C(["bswitch", "priority", "2"], "Job <2>: Job has already finished\n", id="bswitch-finished-job"),
    C(["bswitch", "priority", "3"], "Job <3>: User permission denied\n", id="bswitch-other-users-job"),
    C(["bswitch", "priority", "99"], "Job <99>: No matching job found\n", id="bswitch-no-such-job"),
    C(["bswitch"], usage("bswitch", "The destination queue name must be specified."), id="bswitch-no-queue"),
    C(["bjobs", "-q", "nosuch"], "nosuch: No such queue\n", id="bjobs-unknown-queue"),
    C(["bjobs", "-q", "队列"], "队列: No such queue\n", id="bjobs-unicode-queue"),
    C(["bjobs", "-q", "`id`"], "`id`: No such queue\n", id="bjobs-shell-queue"),
    C(["bjobs", "-N", "nosuch"], "<nosuch> is neither a host model, nor a host name, nor a CPU factor\n",
      id="bjobs-N-unknown"),
    C(["bjobs", "-N", "0"], "<0> is neither a host model, nor a host name, nor a CPU factor\n", id="bjobs-N-zero"),
    C(["bjobs", "-u", "nosuchuser"], NOT_FOUND_OR_UNKNOWN, id="bjobs-unknown-user"),
    C(["bjobs", "99"], "Job <99> is not found\n", id="bjobs-no-such-job"),
    C(["bjobs", "-J", "x'; DROP TABLE jobs;--"], "Job <x'; DROP TABLE jobs;--> is not found\n", id="bjobs-sql-name"),
    C(["bkill", "-q", "nosuch", "0"], "nosuch: No such queue\n", id="bkill-unknown-queue"),
    C(["bkill", "-u", "nosuchuser", "0"], NOT_FOUND_OR_UNKNOWN, id="bkill-unknown-user"),
    C(["bstop", "-q", "nosuch", "0"], "nosuch: No such queue\n", id="bstop-unknown-queue"),
    C(["bkill", "-J", "x'; DROP TABLE jobs;--"], "Job <x'; DROP TABLE jobs;--> is not found\n", id="bkill-sql-name",
      bug="bkill -J <name> matching nothing prints 'No unfinished job found'; LSF (and lsfemu's own bjobs -J) "
          "print 'Job <name> is not found'"),
    C(["bkill", "-q", "priority", "0"], "No unfinished job found in queue <priority>\n", "user2",
      id="bkill-queue-without-jobs",
      bug="bkill -q q 0 with nothing to kill drops LSF's ' in queue <q>' suffix (bjobs -q has it)"),
    C(["bqueues", "nosuch"], "nosuch: No such queue\n", id="bqueues-unknown-queue"),
    C(["bqueues", "队列"], "队列: No such queue\n", id="bqueues-unicode-queue"),
    # ---- job states and permissions -----------------------------------------------------------------------
    C(["bkill", "3"], "Job <3>: User permission denied\n", id="bkill-other-users-job"),
    C(["bkill", "2"], "Job <2>: Job has already finished\n", id="bkill-finished-job"),
    C(["bkill", "99"], "Job <99>: No matching job found\n", id="bkill-no-such-job"),
    C(["bstop", "2"], "Job <2>: Job has already finished\n", id="bstop-finished-job"),
    C(["bresume", "1"], "Job <1>: Job is not suspended\n", id="bresume-running-job"),
    C(["btop", "1"], "Job <1>: Job has already started\n", id="btop-running-job"),
    C(["bbot", "3"], "Job <3>: User permission denied\n", id="bbot-other-users-job"),
    C(["brequeue", "3"], "Job <3>: Job has not started yet\n", "user2", id="brequeue-pending-job"),
    C(["brequeue", "99"], "Job <99>: No matching job found\n", id="brequeue-no-such-job"),
    C(["bmig", "1"], "Job <1>: Job is not checkpointable\n", id="bmig-not-rerunnable"),
    C(["bmig", "3"], "Job <3>: Job has not started yet\n", "user2", id="bmig-pending-job"),
    # ---- signals, positions, missing arguments --------------------------------------------------------------
    C(["bkill", "-s", "FOO", "1"], "FOO: Illegal signal value\n", id="bkill-unknown-signal"),
    C(["bkill", "-s", "999", "1"], "999: Illegal signal value\n", id="bkill-signal-number-too-big"),
    C(["bkill", "-s", "KILL;rm", "1"], "KILL;rm: Illegal signal value\n", id="bkill-signal-shell"),
    C(["bkill", "1", "-C"], needs_value("bkill", "C"), id="bkill-C-missing-reason"),
    C(["bkill", "-C", "why", "3"], "Job <3>: User permission denied\n", id="bkill-C-other-users-job"),
    C(["bkill", "-C", "why", "2"], "Job <2>: Job has already finished\n", id="bkill-C-finished-job"),
    C(["bkill", "-b", "-C", "why", "1", "abc"], illegal("abc"), id="bkill-b-good-and-bad-id-kills-nothing"),
    C(["bkill", "-b", "3"], "Job <3>: User permission denied\n", id="bkill-b-other-users-job"),
    C(["bkill", "-b"], usage("bkill", SELECT_MSG.rstrip("\n")), id="bkill-b-nothing-selected"),
    C(["bstop", "1", "-C"], needs_value("bstop", "C"), id="bstop-C-missing-reason"),
    C(["bstop", "-C", "why", "2"], "Job <2>: Job has already finished\n", id="bstop-C-finished-job"),
    C(["bresume", "-C", "why", "1"], "Job <1>: Job is not suspended\n", id="bresume-C-running-job"),
    C(["bresume", "-C"], needs_value("bresume", "C"), id="bresume-C-missing-reason"),
    C(["bkill"], usage("bkill", SELECT_MSG.rstrip("\n")), id="bkill-nothing-selected"),
    C(["bstop"], usage("bstop", SELECT_MSG.rstrip("\n")), id="bstop-nothing-selected"),
    C(["btop"], usage("btop", "Job ID must be specified."), id="btop-no-job"),
    C(["btop", "-u"], usage("btop", "Job ID must be specified."), id="btop-u-no-job"),
    C(["bbot", "-u", "3"], "Job <3>: User permission denied\n", id="bbot-u-other-users-job"),
    C(["btop", "4", "0"], "0: Position value must be a positive integer.\n", id="btop-position-zero"),
    C(["btop", "4", "abc"], "abc: Position value must be a positive integer.\n", id="btop-position-abc"),
    C(["btop", "4", "²"], "²: Position value must be a positive integer.\n", id="btop-position-superscript",
      bug="btop/bbot position '²' passes str.isdigit() then int() raises: internal error in lsfemu"),
    C(["brequeue"], usage("brequeue", "Job ID must be specified."), id="brequeue-no-job"),
    # ---- bsub: -n, names, limits, resources, options, scripts on stdin ---------------------------------------
    C(["bsub", "-n", "0", "sleep", "1"], BAD_N, id="bsub-n-zero"),
    C(["bsub", "-n", "10000000", "sleep", "1"], "Too many processors requested. Job not submitted.\n",
      id="bsub-n-ten-million"),
    C(["bsub", "-n", "-1", "sleep", "1"], BAD_N, id="bsub-n-negative"),
    C(["bsub", "-n", "abc", "sleep", "1"], BAD_N, id="bsub-n-not-a-number"),
    C(["bsub", "-n", "4,2", "sleep", "1"], BAD_N, id="bsub-n-max-below-min"),
    C(["bsub", "-n", "1;2", "sleep", "1"], BAD_N, id="bsub-n-shell"),
    C(["bsub", "-n", "４", "sleep", "1"], BAD_N, id="bsub-n-fullwidth-digit",
      bug="bsub -n accepts Unicode digits (regex \\d): '４' submits a 4-slot job"),
    C(["bsub", "-J", "", "sleep", "1"], "Bad job name. Job not submitted.\n", id="bsub-empty-job-name"),
    C(["bsub", "-J", LONG_NAME, "sleep", "1"], f"{LONG_NAME}: Bad job name. Job not submitted.\n",
      id="bsub-job-name-4095-chars"),
    # ---- bsub -b / -t (issue 18): LSF's time syntax, order of the two --------------------------------------
    C(["bsub", "-b", "25:00", "sleep", "1"], "25:00: Bad time specification. Job not submitted.\n", id="bsub-b-hour-25"),
    C(["bsub", "-b", "10", "sleep", "1"], "10: Bad time specification. Job not submitted.\n", id="bsub-b-one-field"),
    C(["bsub", "-b", "x:y", "sleep", "1"], "x:y: Bad time specification. Job not submitted.\n", id="bsub-b-text"),
    C(["bsub", "-b", "2001:1:1:0:0", "sleep", "1"], "2001:1:1:0:0: Bad time specification. Job not submitted.\n",
      id="bsub-b-year-in-the-past"),
    C(["bsub", "-t", "1:2:3:4:5:6", "sleep", "1"], "1:2:3:4:5:6: Bad time specification. Job not submitted.\n",
      id="bsub-t-six-fields"),
    C(["bsub", "-t", "13:1:10:00", "sleep", "1"], "13:1:10:00: Bad time specification. Job not submitted.\n",
      id="bsub-t-month-13"),
    C(["bsub", "-b", "2099:3:1:0:0", "-t", "2099:2:1:0:0", "sleep", "1"],
      "Start time is later than termination time. Job not submitted.\n", id="bsub-b-after-t"),
    C(["bsub", "-r", "-rn", "sleep", "1"], "-rn: Bad argument. Job not submitted.\n", id="bsub-r-and-rn"),
    # ---- bsub -env, -i/-is, -L, -outdir (issue 18) -----------------------------------------------------------
    C(["bsub", "-env", "none, FOO", "sleep", "1"], "none, FOO: Bad argument. Job not submitted.\n",
      id="bsub-env-none-with-names"),
    C(["bsub", "-env", "~FOO", "sleep", "1"], "~FOO: Bad argument. Job not submitted.\n", id="bsub-env-tilde-without-all"),
    C(["bsub", "-env", "FOO, all", "sleep", "1"], "FOO, all: Bad argument. Job not submitted.\n",
      id="bsub-env-all-not-first"),
    C(["bsub", "-env", "\"A\"=x", "sleep", "1"], "\"A\"=x: Bad argument. Job not submitted.\n",
      id="bsub-env-quote-in-name"),
    C(["bsub", "-env", "", "sleep", "1"], "Bad argument. Job not submitted.\n", id="bsub-env-empty"),
    C(["bsub", "-i", "a", "-is", "b", "sleep", "1"], "isn|is|in|i options are exclusive. Job not submitted.\n",
      id="bsub-i-and-is"),
    C(["bsub", "-is", "/nonexistent/input", "sleep", "1"],
      "/nonexistent/input: No such file or directory. Job not submitted.\n", id="bsub-is-missing-file"),
    C(["bsub", "-L", "", "sleep", "1"], "Bad argument. Job not submitted.\n", id="bsub-L-empty"),
    C(["bsub", "-outdir", "a\nb", "sleep", "1"], "a\nb: Bad argument. Job not submitted.\n", id="bsub-outdir-newline"),
    C(["bsub", "-x", "sleep", "1"], "normal: Queue does not accept EXCLUSIVE jobs. Job not submitted.\n",
      id="bsub-x-queue-not-exclusive"),
    C(["bsub", "-m", "nohost", "sleep", "1"],
      "nohost: Bad host name, host group name or cluster name. Job not submitted.\n", id="bsub-m-unknown-host"),
    C(["bsub", "-m", "hostA+x", "sleep", "1"],
      "hostA+x: Bad host name, host group name or cluster name. Job not submitted.\n", id="bsub-m-bad-level"),
    C(["bsub", "-m", "", "sleep", "1"], "Bad host name, host group name or cluster name. Job not submitted.\n",
      id="bsub-m-empty"),
    # bsub -hostfile (issue 21): the conflicts IBM lists, a file that is not there, a line that is not
    # `host [slots]`, a host of no cluster / not of the queue (the files: _new_cluster)
    C(["bsub", "-hostfile", "hf.good", "-n", "2", "sleep", "1"],
      "-hostfile cannot be used with -n, -m or -R. Job not submitted.\n", id="bsub-hostfile-and-n"),
    C(["bsub", "-hostfile", "hf.good", "-R", "select[mem>1]", "sleep", "1"],
      "-hostfile cannot be used with -n, -m or -R. Job not submitted.\n", id="bsub-hostfile-and-R"),
    C(["bsub", "-hostfile", "nosuchfile", "sleep", "1"], "nosuchfile: No such file or directory. Job not submitted.\n",
      id="bsub-hostfile-missing"),
    C(["bsub", "-hostfile", "hf.bad", "sleep", "1"], "hf.bad: Bad user-specified host file. Job not submitted.\n",
      id="bsub-hostfile-bad-line"),
    C(["bsub", "-hostfile", "hf\n.good", "sleep", "1"], "Bad user-specified host file. Job not submitted.\n",
      id="bsub-hostfile-newline-in-name"),
    C(["bsub", "-hostfile", "hf.nohost", "sleep", "1"],
      "hostZ: Bad host name, host group name or cluster name. Job not submitted.\n", id="bsub-hostfile-unknown-host"),
    C(["bjobs", "-hostfile", "1"], usage("bjobs"), id="bjobs-hostfile-without-l"),
    C(["bhist", "-hostfile", "1"], usage("bhist"), id="bhist-hostfile-without-l"),
    C(["bsub", "-u", "", "sleep", "1"], "Bad argument. Job not submitted.\n", id="bsub-u-empty"),
    C(["bsub", "-We", "0", "sleep", "1"], "Bad runtime specification. Job not submitted.\n", id="bsub-We-zero"),
    C(["bsub", "-We", "1:x", "sleep", "1"], "Bad runtime specification. Job not submitted.\n", id="bsub-We-text"),
    C(["bsub", "-ptl", "0", "sleep", "1"], "0: Bad pending time limit specification. Job not submitted.\n",
      id="bsub-ptl-zero"),
    C(["bsub", "-ptl", "1:x", "sleep", "1"], "1:x: Bad pending time limit specification. Job not submitted.\n",
      id="bsub-ptl-text"),
    C(["bsub", "-eptl", "10", "sleep", "1"],
      "TRACK_ELIGIBLE_PENDINFO=Y must be defined in lsb.params to use -eptl. Job not submitted.\n",
      id="bsub-eptl-untracked"),
    C(["bsub", "-u", "../etc/x", "sleep", "1"], "../etc/x: Bad argument. Job not submitted.\n", id="bsub-u-path"),
    C(["bsub", "-u", "u" * 64, "sleep", "1"], "u" * 64 + ": Mail destination name too long. Job not submitted.\n",
      id="bsub-u-too-long"),
    C(["bsub", "-W", "abc", "sleep", "1"], "abc: Bad RUNLIMIT specification. Job not submitted.\n", id="bsub-W-text"),
    C(["bsub", "-W", "0", "sleep", "1"], "0: Bad RUNLIMIT specification. Job not submitted.\n", id="bsub-W-zero"),
    C(["bsub", "-q", "priority", "-W", "100", "sleep", "1"],
      "RUNLIMIT: Cannot exceed queue's hard limit(s). Job not submitted.\n", id="bsub-W-above-queue-limit"),
    C(["bsub", "-W", "1:99999999999999999999", "sleep", "1"],
      re.compile(r".*RUNLIMIT.*\. Job not submitted\.\n\Z"), id="bsub-W-overflow",
      bug="bsub -W 1:99999999999999999999 is accepted (a run limit of 1e20 minutes, stored as a float); "
          "LSF's limits are 32-bit"),
    C(["bsub", "-W", "５", "sleep", "1"], "５: Bad RUNLIMIT specification. Job not submitted.\n",
      id="bsub-W-fullwidth-digit", bug="bsub -W accepts Unicode digits (regex \\d)"),
    C(["bsub", "-R", "select[", "sleep", "1"], "select[: Bad resource requirement syntax. Job not submitted.\n",
      id="bsub-R-unbalanced"),
    C(["bsub", "-R", "rusage[mem=abc]", "sleep", "1"],
      "rusage[mem=abc]: Bad resource requirement syntax. Job not submitted.\n", id="bsub-R-mem-not-a-number"),
    C(["bsub", "-R", "rusage[mem=20] select[gpus > 0 && mem>1]", "sleep", "1"],
      'Error in select section: Error near "gpus" : incorrect section name, resource name, or resource function'
      ' name. Job not submitted.\n', id="bsub-R-select-unknown-name"),
    C(["bsub", "-G", "nosuch", "sleep", "1"], "nosuch: Bad user group name. Job not submitted.\n", id="bsub-G-unknown"),
    C(["bsub", "-G", "research", "sleep", "1"], "research: User not in the specified user group. Job not submitted.\n",
      "user3", id="bsub-G-not-a-member"),
    C(["bsub", "-gpu", "num=0", "sleep", "1"], "num=0: Bad GPU requirement syntax. Job not submitted.\n",
      id="bsub-gpu-zero"),
    # ---- bsub -K, -I, -Ip, -Is (issue 18, part 3) ---------------------------------------------------------
    C(["bsub", "-K", "-I", "sleep", "1"], usage("bsub"), id="bsub-K-and-I"),
    C(["bsub", "-Ip", "-Is", "sleep", "1"], usage("bsub"), id="bsub-Ip-and-Is"),
    C(["bsub", "-I", "sleep", "1"], "Interactive job not supported with LSFEMU_CLOCK=virtual: jobs are simulated "
      "there, no process runs to talk to; use LSFEMU_CLOCK=wall, or bsub -K. Job not submitted.\n",
      id="bsub-I-virtual-clock"),
    C(["bsub", "-K", "-J", "a[1-2]", "sleep", "1"], "Job array doesn't support -K option. Job not submitted.\n",
      id="bsub-K-job-array"),
    C(["bsub", "-Is", "-J", "a[1-2]", "sleep", "1"], "Interactive job not supported for job arrays. "
      "Job not submitted.\n", id="bsub-Is-job-array"),
    C(["bsub", "-Kz", "sleep", "1"], usage("bsub", "bsub: option cannot have an argument -- K"),
      id="bsub-K-with-a-value"),
    C(["bsub", "-Z", "sleep", "1"], illegal_option("bsub", "Z"), id="bsub-unknown-option"),
    C(["bsub", "-q"], needs_value("bsub", "q"), id="bsub-q-missing-value"),
    C(["bsub"], "Empty job. Job not submitted.\n", stdin="", id="bsub-empty-stdin"),
    C(["bsub"], re.compile(r"(No command is specified|Empty job)"), stdin="#BSUB -J onlyopts\n",
      id="bsub-script-without-command",
      bug="a script of only #BSUB lines is submitted (its text becomes the command); LSF: "
          "'No command is specified in the script file'"),
    C(["bsub"], "nosuch: No such queue. Job not submitted.\n", stdin="#BSUB -q nosuch\nsleep 1\n",
      id="bsub-script-unknown-queue"),
    C(["bsub"], BAD_SP, stdin="#BSUB -sp abc\nsleep 1\n", id="bsub-script-bad-sp"),
    # ---- bsub -E / -Ep: an empty command (the usage), one longer than LSF's 4094 characters -------------------
    C(["bsub", "-E", "", "sleep", "1"], usage("bsub"), id="bsub-E-empty"),
    C(["bsub", "-Ep", " ", "sleep", "1"], usage("bsub"), id="bsub-Ep-blank"),
    C(["bsub", "-E", "x" * 4095, "sleep", "1"], "Bad argument. Job not submitted.\n", id="bsub-E-too-long"),
    # ---- bsub -pack: disabled (no LSB_MAX_PACK_JOBS), other options or a command beside it --------------------
    C(["bsub", "-pack", "nosuch.txt"], "Pack submission disabled by LSB_MAX_PACK_JOBS in lsf.conf. Job not submitted.\n",
      id="bsub-pack-disabled"),
    C(["bsub", "-q", "normal", "-pack", "nosuch.txt"], usage("bsub"), id="bsub-pack-with-option"),
    C(["bsub", "-pack", "nosuch.txt", "sleep", "1"], usage("bsub"), id="bsub-pack-with-command"),
    C(["bsub"], re.compile(r".+\. Job not submitted\.\n\Z"), stdin='#BSUB -J "oops\nsleep 1\n',
      id="bsub-script-unterminated-quote"),
    # ---- information commands -----------------------------------------------------------------------------
    C(["bqueues", "-z"], illegal_option("bqueues", "z"), id="bqueues-unknown-option"),
    C(["bqueues", "-o", "queue_name nosuch"], "<nosuch> in the format string is not a valid field name.\n",
      id="bqueues-o-unknown-field"),
    C(["bqueues", "-o", "queue_name:x"], "<queue_name:x>: the output width must be a positive integer.\n",
      id="bqueues-o-bad-width"),
    C(["bqueues", "-json", "-noheader", "-o", "queue_name"],
      usage("bqueues", "bqueues: -json cannot be used with -noheader"), id="bqueues-json-with-noheader"),
    C(["bqueues", "-l", "-o", "queue_name"], usage("bqueues"), id="bqueues-o-with-l"),
    C(["bqueues", "-m", "nosuch"], "nosuch: Bad host name, host group name or cluster name\n",
      id="bqueues-m-unknown-host"),
    C(["bqueues", "-u", "user1", "nosuch"], "nosuch: No such queue\n", id="bqueues-u-unknown-queue"),
    C(["bhosts", "nosuch"], "nosuch: Bad host name, host group name or cluster name\n", id="bhosts-unknown-host"),
    C(["bhosts", "-o", "host_name nosuch"], "<nosuch> in the format string is not a valid field name.\n",
      id="bhosts-o-unknown-field"),
    C(["bhosts", "-o", "status delimiter=ab"], "<delimiter=ab>: the delimiter must be a single character.\n",
      id="bhosts-o-long-delimiter"),
    C(["bhosts", "-json", "-noheader", "-o", "host_name"],
      usage("bhosts", "bhosts: -json cannot be used with -noheader"), id="bhosts-json-with-noheader"),
    C(["bhosts", "-w", "-o", "host_name"], usage("bhosts"), id="bhosts-o-with-w"),
    C(["bhosts", "-R", "select[mem >"], "Bad resource requirement syntax\n", id="bhosts-R-bad-syntax"),
    C(["bhosts", "-R"], needs_value("bhosts", "R"), id="bhosts-R-without-value"),
    C(["bhosts", "-s"], "lsb_sharedresourceinfo: No resource defined\n", id="bhosts-s-no-shared-resource"),
    C(["bhosts", "-s", "-l"], usage("bhosts"), id="bhosts-s-with-l"),
    C(["bhosts", "-s", "-X"], usage("bhosts"), id="bhosts-s-with-X"),
    C(["lshosts", "-s", "mem"], "ls_sharedresourceinfo: No shared resources\n", id="lshosts-s-no-shared-resource"),
    C(["bhosts", "hôstA"], "hôstA: Bad host name, host group name or cluster name\n", id="bhosts-unicode-host"),
    C(["busers", "-z"], illegal_option("busers", "z"), id="busers-unknown-option"),
    C(["busers", "-o", "user USER/GROUP"], "<USER/GROUP> in the format string is not a valid field name.\n",
      id="busers-o-unknown-field"),
    C(["busers", "-w", "-o", "user"], usage("busers"), id="busers-o-with-w"),
    C(["bparams", "-z"], illegal_option("bparams", "z"), id="bparams-unknown-option"),
    C(["bparams", "extra"], usage("bparams"), id="bparams-extra-argument",
      bug="prints click's 'bparams: Got unexpected extra argument(s) (extra)' before the usage; "
          "LSF prints the usage"),
    C(["lsid", "-z"], illegal_option("lsid", "z"), id="lsid-unknown-option"),
    C(["lsid", "extra"], usage("lsid"), id="lsid-extra-argument",
      bug="prints click's 'lsid: Got unexpected extra argument(s) (extra)'; LSF prints the usage"),
    C(["lshosts", "nosuch"], "ls_gethostinfo: Host name not recognizable by LIM\n", id="lshosts-unknown-host"),
    C(["lshosts", "-R", "select[mem >"], "ls_gethostinfo(): Bad resource requirement syntax\n",
      id="lshosts-R-bad-syntax"),
    C(["lshosts", "-o", "HOST_NAME nosuch"], "<nosuch> in the format string is not a valid field name.\n",
      id="lshosts-o-unknown-field"),
    C(["lshosts", "-o", "HOST_NAME", "-w"], usage("lshosts"), id="lshosts-o-with-w"),
    C(["lshosts", "-z"], illegal_option("lshosts", "z"), id="lshosts-unknown-option"),
    C(["lsload", "hostA", "nosuch"], "lsload: Host name not recognizable by LIM\n", id="lsload-unknown-host"),
    C(["lsload", "-R", "select[nosuch > 1]"], "lsload: Unknown resource name\n", id="lsload-R-unknown-resource"),
    C(["lsload", "-R", "select[maxmem > 1T]"], "lsload: Not enough host(s) currently eligible\n",
      id="lsload-R-no-host"),
    C(["lsload", "-n", "0"], usage("lsload"), id="lsload-n-zero"),
    C(["lsload", "-n", "x"], usage("lsload"), id="lsload-n-text"),
    C(["lsload", "-I", "mem:nosuch"], "lsload: Bad index name list\n", id="lsload-I-unknown-index"),
    C(["lsload", "-N", "-E"], usage("lsload"), id="lsload-N-with-E"),
    C(["lsload", "-o", "HOST_NAME nosuch"], "<nosuch> in the format string is not a valid field name.\n",
      id="lsload-o-unknown-field"),
    C(["lsload", "-o", "mem:0"], "<mem:0>: the output width must be a positive integer.\n", id="lsload-o-zero-width"),
    C(["lsload", "-o", "mem", "-w"], usage("lsload"), id="lsload-o-with-w"),
    C(["lsload", "-json", "-gpuload"], usage("lsload", "lsload: option -gpuload is not supported by lsfemu yet"),
      id="lsload-gpuload-unbuilt"),
    C(["lsclusters", "nosuch"], "ls_clusterinfo(): Invalid cluster name\n", id="lsclusters-unknown-cluster"),
    C(["lsclusters", "-l"], usage("lsclusters", "lsclusters: option -l is not supported by lsfemu yet"),
      id="lsclusters-l-unbuilt"),
    C(["lsadmin", "showconf", "lim", "nosuch"], "nosuch: Host name not recognizable by LIM\n",
      id="lsadmin-showconf-unknown-host"),
    C(["lsadmin", "limshutdown"], "lsadmin: subcommand limshutdown is not supported by lsfemu yet\n",
      id="lsadmin-unbuilt-subcommand"),
    C(["lsadmin", "nosuch"], re.compile(r"Invalid command <nosuch> \nlsadmin: \[-h\]"), id="lsadmin-unknown-subcommand"),
    C(["lsload", "-R"], needs_value("lsload", "R"), id="lsload-R-without-value"),
    C(["lsinfo", "-w", "-l"], usage("lsinfo"), id="lsinfo-w-with-l"),
    C(["lsinfo", "-x"], illegal_option("lsinfo", "x"), id="lsinfo-unknown-option"),
    C(["bugroup", "nosuch"], "nosuch: No such user/host group\n", id="bugroup-unknown-group"),
    C(["bhpart", "nosuch"], "nosuch: No such host partition\n", id="bhpart-unknown-partition"),
    C(["bjobs", "-z"], illegal_option("bjobs", "z"), id="bjobs-unknown-option"),
    C(["bjobs", "-o", "nosuchfield"], "<nosuchfield> in the format string is not a valid field name.\n",
      id="bjobs-o-unknown-field"),
    C(["bjobs", "-o", "jobid:²"], obj_err("<jobid:²>"), id="bjobs-o-superscript-width"),
    C(["bjobs", "-m", "nosuchhost"], "nosuchhost: Bad host name, host group name or cluster name\n",
      id="bjobs-m-unknown-host"),
    C(["bjobs", "-G", "grp", "-u", "user1"], usage("bjobs"), id="bjobs-G-with-u"),
    C(["bjobs", "-G", "nosuchgroup"], "nosuchgroup: Bad user group name\n", id="bjobs-G-unknown-group"),
    C(["bjobs", "-G", "all"], "all: Bad user group name\n", id="bjobs-G-all"),
    C(["bjobs", "-env"], usage("bjobs"), id="bjobs-env-without-job"),
    C(["bjobs", "-rusage", ","], usage("bjobs"), id="bjobs-rusage-no-name"),
    C(["bjobs", "-env", "1", "2"], usage("bjobs"), id="bjobs-env-two-jobs"),
    C(["bjobs", "-script", "-l", "1"], usage("bjobs"), id="bjobs-script-with-l"),
    C(["bjobs", "-env", "99"], "Job <99> is not found\n", id="bjobs-env-no-such-job"),
    C(["bjobs", "-ss"], usage("bjobs", "bjobs: option -ss is not supported by lsfemu yet"),
      id="bjobs-ss-unbuilt"),  # (-prio, refused here before, is built since: issue 21)
    # ---- job groups: bsub -g, bjobs/bkill/bstop/bresume -g, bgadd, bgmod, bgdel, bjgroup ------------------
    C(["bsub", "-g", "nogroup", "sleep", "1"], "nogroup: Bad/empty job group name. Job not submitted.\n",
      id="bsub-g-relative-name"),
    C(["bsub", "-g", "/a b", "sleep", "1"], "/a b: Bad/empty job group name. Job not submitted.\n",
      id="bsub-g-blank-in-name"),
    C(["bsub", "-g", "/", "sleep", "1"], "/: Bad/empty job group name. Job not submitted.\n", id="bsub-g-root"),
    C(["bsub", "-g", "/" + "g" * 600, "sleep", "1"], re.compile(r"/g+: Bad/empty job group name. Job not submitted.\n"),
      id="bsub-g-name-too-long"),
    C(["bjobs", "-g", "nogroup"], "nogroup: Bad/empty job group name\n", id="bjobs-g-bad-name"),
    C(["bjobs", "-g", "/nosuch"], "/nosuch: Job group does not exist\n", id="bjobs-g-unknown"),
    C(["bkill", "-g", "/nosuch", "0"], "/nosuch: Job group does not exist\n", id="bkill-g-unknown"),
    C(["bstop", "-g", "x;y", "0"], "x;y: Bad/empty job group name\n", id="bstop-g-bad-name"),
    C(["bresume", "-g", "/g2", "1"], "Job <1>: No matching job found\n", id="bresume-g-job-not-in-group"),
    C(["bgadd"], usage("bgadd"), id="bgadd-no-group"),
    C(["bgadd", "g"], "g: Bad/empty job group name\n", id="bgadd-relative-name"),
    C(["bgadd", "-L", "abc", "/new"], "abc: Bad argument\n", id="bgadd-L-text"),
    C(["bgadd", "-L", "-1", "/new"], "-1: Bad argument\n", id="bgadd-L-negative"),
    C(["bgadd", "-L", "2147483648", "/new"], "2147483648: Bad argument\n", id="bgadd-L-too-big"),
    C(["bgadd", "/g2"], "/g2: Job group already exists\n", id="bgadd-exists"),
    C(["bgadd", "-L", "2", "/g2/child"],
      "/g2/child: Job group limit cannot exceed the limits of its parent job groups\n", id="bgadd-L-above-parent"),
    C(["bgmod", "-L", "5", "/g2"], "User permission denied\n", id="bgmod-other-users-group"),
    C(["bgmod", "-L", "5", "/nosuch"], "/nosuch: Job group does not exist\n", id="bgmod-unknown"),
    C(["bgmod", "/g2"], usage("bgmod"), "user2", id="bgmod-neither-L-nor-Ln"),
    C(["bgmod", "-L", "1", "-Ln", "/g2"], usage("bgmod"), "user2", id="bgmod-L-and-Ln"),
    C(["bgdel", "/g2"], "User permission denied\n", id="bgdel-other-users-group"),
    C(["bgdel", "/nosuch"], "/nosuch: Job group does not exist\n", id="bgdel-unknown"),
    C(["bgdel", "-c", "/g2"], "User permission denied\n", id="bgdel-c-other-users-group"),
    C(["bgdel", "-c", "/nosuch"], "/nosuch: Job group does not exist\n", id="bgdel-c-unknown"),
    C(["bgdel", "-c", "/g2", "/g2"], usage("bgdel"), id="bgdel-c-and-a-group"),
    C(["bgdel", "-u", "user2", "0"], "User permission denied\n", id="bgdel-u-not-admin"),
    C(["bgmod", "-u", "a b", "/g2"], "a b: Unknown user\n", "user2", id="bgmod-u-blank-in-name"),
    C(["bgmod", "-u", "user1", "/g2"], "User permission denied\n", id="bgmod-u-other-users-group"),
    C(["bmod", "-g", "bad", "4"], "bad: Bad/empty job group name. Job not modified.\n", id="bmod-g-bad-name"),
    C(["bmod", "-g", "/x", "3"], "User permission denied. Job not modified.\n", id="bmod-g-other-users-job"),
    C(["bmod", "-g", "/x", "-P", "p", "4"],
      "Cannot combine modify job group or service class option with others. Job not modified.\n",
      id="bmod-g-with-other-options"),
    C(["bmod", "-g", "/x", "1"], ONLY_RUNNING, id="bmod-g-running-job"),
    C(["bmod", "-app", "nosuch", "4"], "nosuch: No such application. Job not modified.\n", id="bmod-app-unknown"),
    C(["bjgroup", "/g2"], usage("bjgroup"), id="bjgroup-name-without-s"),
    C(["bjgroup", "-s", "/nosuch"], "/nosuch: Job group does not exist\n", id="bjgroup-unknown"),
    # ---- application profiles: bsub/bjobs/bkill/bstop/bresume -app, bapp ------------------------------------
    C(["bsub", "-app", "nosuch", "sleep", "1"], "nosuch: No such application. Job not submitted.\n",
      id="bsub-app-unknown"),
    C(["bsub", "-app", "", "sleep", "1"], "No such application. Job not submitted.\n", id="bsub-app-empty"),
    C(["bjobs", "-app", "nosuch"], "nosuch: No such application\n", id="bjobs-app-unknown"),
    C(["bkill", "-app", "nosuch", "0"], "nosuch: No such application\n", id="bkill-app-unknown"),
    C(["bstop", "-app", "fluent", "3"], "Job <3>: No matching job found\n", id="bstop-app-other-users-job"),
    C(["bresume", "-app", "x;rm -rf /", "0"], "x;rm -rf /: No such application\n", id="bresume-app-shell-text"),
    C(["bapp", "nosuch"], "nosuch: No such application\n", id="bapp-unknown"),
    C(["bapp", "-z"], illegal_option("bapp", "z"), id="bapp-unknown-option"),
    C(["bapp", "-alloc"], usage("bapp", "bapp: option -alloc is not supported by lsfemu yet"), id="bapp-alloc-unbuilt"),
    # ---- blimits (issue 19): no positional words, unknown and unbuilt options, a missing value ------------
    C(["blimits", "limit1"], usage("blimits"), id="blimits-positional-word"),
    C(["blimits", "-z"], illegal_option("blimits", "z"), id="blimits-unknown-option"),
    C(["blimits", "-n"], needs_value("blimits", "n"), id="blimits-n-without-name"),
    C(["blimits", "-o", "name"], usage("blimits", "blimits: option -o is not supported by lsfemu yet"),
      id="blimits-o-unbuilt"),
    C(["blimits", "-gl"], usage("blimits", "blimits: option -gl is not supported by lsfemu yet"),
      id="blimits-gl-unbuilt"),
    # ---- bacct (issue 20): time windows, -N, files, job IDs, empty lists, unbuilt options --------------------
    C(["bacct", "-C", "yesterday"], "yesterday: Bad time specification\n", id="bacct-C-bad-time"),
    C(["bacct", "-S", "2026/13/1,"], "2026/13/1,: Bad time specification\n", id="bacct-S-month-13"),
    C(["bacct", "-D", "1,2,3"], "1,2,3: Bad time specification\n", id="bacct-D-three-times"),
    C(["bacct", "-N", "0"], "0: Bad CPU factor\n", id="bacct-N-zero-factor"),
    C(["bacct", "-N", "nosuchhost"], "nosuchhost: Host name not recognizable by LIM\n", id="bacct-N-unknown-host"),
    C(["bacct", "-f", "/nonexistent/lsb.acct"], "/nonexistent/lsb.acct: No such file or directory\n",
      id="bacct-f-missing-file"),
    C(["bacct", "-f", "/"], "/: Not a regular file\n", id="bacct-f-directory"),
    C(["bacct", "abc"], "abc: Illegal job ID.\n", id="bacct-bad-job-id"),
    C(["bacct", "-u", " "], usage("bacct"), id="bacct-u-empty-list"),
    C(["bacct", "-q"], needs_value("bacct", "q"), id="bacct-q-without-queue"),
    C(["bacct", "-U", "all"], usage("bacct", "bacct: option -U is not supported by lsfemu yet"), id="bacct-U-unbuilt"),
    C(["bacct", "-P", ""], usage("bacct"), id="bacct-P-empty-list"),
    C(["bacct", "-m", "hostA", "-M", "hosts.txt"], usage("bacct"), id="bacct-m-and-M"),
    C(["bacct", "-M", "/nonexistent/hosts"], "/nonexistent/hosts: No such file or directory\n", id="bacct-M-missing-file"),
    # ---- badmin -------------------------------------------------------------------------------------------
    C(["badmin", "qclose", "nosuch"], "nosuch: No such queue\n", "lsfadmin", id="badmin-qclose-unknown-queue"),
    C(["badmin", "hclose", "nosuch"], "nosuch: Bad host name, host group name or cluster name\n", "lsfadmin",
      id="badmin-hclose-unknown-host"),
    C(["badmin", "qclose", "normal"], re.compile(r".*User permission denied"), "user1", id="badmin-qclose-not-admin"),
    C(["badmin", "nosuch"], re.compile(r".*nosuch"), "lsfadmin", id="badmin-unknown-subcommand"),
    C(["badmin", "showstatus", "extra"], re.compile(r"badmin: \[-h\]"), id="badmin-showstatus-extra-word"),
    C(["badmin", "hist", "-t", "nosuch"], "nosuch: Bad time specification\n", id="badmin-hist-bad-time"),
    C(["badmin", "mbdhist", "-f", "/nonexistent/lsb.events"], "/nonexistent/lsb.events: No such file or directory\n",
      id="badmin-mbdhist-missing-file"),
    C(["badmin", "rc", "view"], "badmin: rc: the LSF resource connector is not enabled in this cluster\n", "lsfadmin",
      id="badmin-rc-view-without-resource-connector"),
    C(["badmin", "hshutdown"], "badmin: subcommand hshutdown is not supported by lsfemu yet\n", "lsfadmin",
      id="badmin-unbuilt-subcommand"),
    C(["badmin", "perfmon", "start", "-5"], re.compile(r"badmin: illegal option -- 5\n"), "lsfadmin",
      id="badmin-perfmon-negative-period"),
    C(["badmin", "perfmon", "start", "0"], "The sample period must be a whole number of seconds from 1 to 3600\n",
      "lsfadmin", id="badmin-perfmon-zero-period"),
    C(["badmin", "perfmon", "start"], "User permission denied\n", "user1", id="badmin-perfmon-start-not-admin"),
    C(["badmin", "perfmon", "stop"], "Performance metric sampling has not been started\n", "lsfadmin",
      id="badmin-perfmon-stop-not-started"),
    C(["badmin", "nosuch"], re.compile(r".*nosuch"), "user1", id="badmin-unknown-subcommand-non-admin",
      bug="for a non-administrator an unknown badmin subcommand is answered 'User permission denied' "
          "instead of naming the bad subcommand"),
    # ---- lsfemu clock ------------------------------------------------------------------------------------------
    C(["lsfemu", "clock", "advance", "abc"], re.compile(r"lsfemu: bad duration <abc>"), id="clock-advance-text"),
    C(["lsfemu", "clock", "advance", "-5m"], re.compile(r"lsfemu: bad duration <-5m>"), id="clock-advance-negative"),
    C(["lsfemu", "clock", "advance", "nan"], re.compile(r"lsfemu: bad duration <nan>"), id="clock-advance-nan"),
    C(["lsfemu", "clock", "advance", "99999999999w"], re.compile(r"lsfemu: bad duration"), id="clock-advance-huge",
      bug="'lsfemu clock advance 99999999999w' is accepted: the clock jumps to the year 1916536930 and "
          "time rendering later overflows"),
    C(["lsfemu", "clock", "set", "garbage"], re.compile(r"lsfemu: bad time <garbage>"), id="clock-set-text"),
    C(["lsfemu", "clock", "set", "2000-01-01T00:00"], re.compile(r"lsfemu: the clock cannot go back"),
      id="clock-set-past"),
    C(["lsfemu", "clock", "set", "99999999999999999999"], re.compile(r"lsfemu: bad time"), id="clock-set-huge",
      bug="'lsfemu clock set 99999999999999999999' -> internal error (OverflowError in time.localtime)"),
    # ---- brun (OpenLava brun.c: `Failed to run the job: <lsberrno>`; the usage for a missing -m or job) --------
    C(["brun", "-m", "hostA", "4"], "Failed to run the job: User permission denied\n", id="brun-not-admin"),
    C(["brun", "-m", "hostZ", "4"], "Failed to run the job: Bad host name, host group name or cluster name\n",
      "lsfadmin", id="brun-unknown-host"),
    C(["brun", "-m", "hostA#-1", "4"], "Failed to run the job: Bad host name, host group name or cluster name\n",
      "lsfadmin", id="brun-negative-slots"),
    C(["brun", "-m", "hostA", "4"], "Failed to run the job: Too many processors requested\n", "lsfadmin",
      id="brun-too-few-slots-on-the-hosts"),
    C(["brun", "-m", "hostA", "1"], "Failed to run the job: Job has already started\n", "lsfadmin",
      id="brun-running-job"),
    C(["brun", "-m", "hostA", "2"], "Failed to run the job: Job has already finished\n", "lsfadmin",
      id="brun-finished-job"),
    C(["brun", "-m", "hostA", "99"], "Failed to run the job: No matching job found\n", "lsfadmin",
      id="brun-unknown-job"),
    C(["bkill", "-stat", "done"], usage("bkill"), id="bkill-stat-unknown-state"),
    C(["bkill", "-stat"], needs_value("bkill", "stat"), id="bkill-stat-missing-value"),
    C(["bkill", "-m", "nosuch"], "nosuch: Bad host name, host group name or cluster name\n", id="bkill-m-unknown-host"),
    C(["bkill", "-r", "-s", "KILL", "1"], usage("bkill"), id="bkill-r-with-s"),
    C(["bkill", "-r", "3"], "Job <3>: User permission denied\n", id="bkill-r-other-users-job"),
    C(["bkill", "-d", "2"], "Job <2>: Job has already finished\n", id="bkill-d-finished-job"),
    C(["bkill", "-stat", "run", "-m", "hostC"], "No running job found on host/group <hostC>\n",
      id="bkill-stat-nothing-there"),
    C(["bstop", "-m", "nosuch"], "nosuch: Bad host name, host group name or cluster name\n", id="bstop-m-unknown-host"),
    C(["bresume", "-m", "hostA#1"], "hostA#1: Bad host name, host group name or cluster name\n",
      id="bresume-m-malformed-host"),
    C(["bswitch", "-m", "nosuch", "normal"], "nosuch: Bad host name, host group name or cluster name\n",
      id="bswitch-m-unknown-host"),
    C(["bpeek", "-q", "normal", "1"],
      usage("bpeek", "Command syntax error: more than one of -m , -q, -J or jobId are specified."),
      id="bpeek-two-selectors"),
    C(["bpeek", "abc"], usage("bpeek"), id="bpeek-job-not-a-number"),
    C(["bpeek", "3"], "Job <3> : Not yet started.\n", id="bpeek-pending-job"),
    C(["bpeek", "2"], "Job <2> : Already finished.\n", id="bpeek-finished-job"),
    C(["bpeek", "-m", "nosuch"], "nosuch: Bad host name, host group name or cluster name\n", id="bpeek-m-unknown"),
    C(["bpeek", "1"], "Job <1>: User permission denied\n", "user2", id="bpeek-other-users-job"),
    C(["bjdepinfo"], usage("bjdepinfo"), id="bjdepinfo-without-job"),
    C(["bjdepinfo", "-r", "0", "3"], usage("bjdepinfo", "The level must be a positive integer."),
      id="bjdepinfo-level-zero"),
    C(["bjdepinfo", "-r", "x", "3"], usage("bjdepinfo", "The level must be a positive integer."),
      id="bjdepinfo-level-text"),
    C(["bjdepinfo", "-c", "-p", "3"], usage("bjdepinfo"), id="bjdepinfo-c-with-p"),
    C(["bjdepinfo", "99"], "Job <99> is not found\n", id="bjdepinfo-unknown-job"),
    C(["bjdepinfo", "3"], "No dependency job found\n", id="bjdepinfo-no-dependency"),
    C(["brequeue", "-J", "nosuch"], "Job <nosuch> is not found\n", id="brequeue-J-unknown-name"),
    C(["brequeue", "-H", "1"], "Job <1>: User permission denied\n", "user2", id="brequeue-H-other-users-job"),
    C(["bmig", "-J", "nosuch"], "Job <nosuch> is not found\n", id="bmig-J-unknown-name"),
    C(["brun", "4"], usage("brun"), "lsfadmin", id="brun-without-hosts"),
    C(["brun", "-m", "hostA", "abc"], usage("brun"), "lsfadmin", id="brun-job-not-a-number"),
    # ---- bhist -N, -n min,max, -T (issue 21) ----------------------------------------------------------------
    C(["bhist", "-N", "nosuch", "-a"], "<nosuch> neither a host model, nor a host name, nor a CPU factor.\n",
      id="bhist-N-unknown"),
    C(["bhist", "-n", "3,1"], "bhist: The value of min_logfile should not exceed the value of max_logfile\n",
      id="bhist-n-range-reversed"),
    C(["bhist", "-n", "1,x"], "bhist: The numbers of both event log files must be positive integers.\n",
      id="bhist-n-range-text"),
    C(["bhist", "-t", "-T", "13/45"], "13/45: Bad time specification\n", id="bhist-T-bad-time"),
]


@pytest.mark.parametrize("argv,user,expect,stdin", CASES)
def test_bad_command_line(pool, argv, user, expect, stdin):
    c = pool.get()
    before = snapshot(c)
    offset = log_size(c)
    r = c.run(argv, user=user, stdin=stdin)
    after = snapshot(c)
    if after != before:
        pool.dirty = True  # rebuild for the next case, whatever happens below
    log = log_since(c, offset)
    shown = f"argv={argv!r} user={user}\nrc={r.rc}\nout={r.out[:500]!r}\nerr={r.err[:500]!r}"
    assert "Traceback" not in r.out + r.err, shown
    assert "internal error" not in r.err, shown + "\n" + log[-3000:]
    assert "Traceback" not in log and " failed:" not in log, shown + "\n" + log[-3000:]
    assert r.rc != 0, shown
    assert r.err.strip(), shown
    assert r.out == "", shown
    if isinstance(expect, str):
        assert r.err == expect, shown
    else:
        assert expect.match(r.err), shown + f"\nexpected to match: {expect.pattern!r}"
    assert after == before, shown + "\nthe store changed:\n" + diff(before, after)


def test_corpus_size():
    """The issue asks for at least 60 bad command lines across every command."""
    assert len(CASES) >= 60
    commands = {p.values[0][0] for p in CASES}
    assert commands >= {"bsub", "bjobs", "bkill", "bstop", "bresume", "bswitch", "bmod", "btop", "bbot",
                        "brequeue", "bmig", "bqueues", "bparams", "bhosts", "busers", "lsid", "badmin", "lsfemu",
                        "lshosts", "lsload", "lsinfo", "lsclusters", "lsadmin"}


# -- good input that looks dangerous: accepted and kept verbatim -----------------------------------------------

ODD_NAMES = [
    "x'; DROP TABLE jobs;--",
    "Robert'); DROP TABLE students;--",
    "\" OR 1=1 --",
    "1; DELETE FROM jobs WHERE 1=1",
    "$(rm -rf /)",
    "`id`",
    "a|b;c&&d>e<f",
    "$HOME ~user1 * ? !!",
    "C:\\temp\\x\\",
    "%s%n%x%%",
    "-J",
    "--",
    "with  two  spaces",
    "名前ジョブ",
    "🚀rocket",
    "שלום",
    "e\u0301",  # combining accent
    "Ωmega ß",
    "n" * 4094,  # LSF's longest job name
]


@pytest.mark.parametrize("name", ODD_NAMES, ids=[f"name{i}" for i in range(len(ODD_NAMES))])
def test_odd_job_names_are_accepted_verbatim(good_cluster, name):
    c = good_cluster
    r = c.run(["bsub", "-J", name, "sleep", "60"], user="user1")
    assert r.rc == 0 and r.err == "", r.text
    m = re.fullmatch(r"Job <(\d+)> is submitted to default queue <normal>\.\n", r.out)
    assert m, r.out
    jid = m.group(1)
    r = c.run(["bjobs", "-noheader", "-o", "job_name", jid])
    assert (r.out, r.rc) == (name + "\n", 0), r.text[:300]
    r = c.run(["bjobs", "-o", "jobid job_name", "-json", jid])
    assert json.loads(r.out)["RECORDS"] == [{"JOBID": jid, "JOB_NAME": name}]
    con = sqlite3.connect(f"file:{c.home / 'lsfemu.db'}?mode=ro", uri=True)
    try:
        assert con.execute("SELECT name FROM jobs WHERE id = ?", (int(jid),)).fetchone() == (name,)
        # The SQL-looking names did nothing to the store.
        assert con.execute("SELECT count(*) FROM jobs").fetchone()[0] == int(jid)
    finally:
        con.close()


def test_odd_command_text_is_accepted_verbatim(good_cluster):
    c = good_cluster
    cmd = ["echo", "x'; DROP TABLE jobs;--", "$(id)", "|", "名前", "🚀"]
    r = c.run(["bsub", *cmd], user="user2")
    assert r.rc == 0, r.text
    jid = re.search(r"<(\d+)>", r.out).group(1)
    r = c.run(["bjobs", "-o", "command", "-json", jid])
    # kept as LSF's bsub keeps the words (CopyCommand, lsfemu.render.command): re-quoted, nothing run
    assert json.loads(r.out)["RECORDS"][0]["COMMAND"] == "echo \"x'; DROP TABLE jobs;--\" '$'\\('id'\\) | 名前 🚀"


# -- size limits ------------------------------------------------------------------------------------------

def test_one_megabyte_command_line_is_accepted_and_kept_whole(good_cluster):
    """1 MB as 16 arguments of 64 KiB (Linux: at most 128 KiB per argument).

    lsfemu's decision: accepted, as long as argv stays under its 2 MiB limit.
    (LSF documents the job command as up to 4094 characters; see the report.)"""
    c = good_cluster
    args = [chr(ord("a") + i) * (64 * 1024 - 1) for i in range(16)]
    r = c.run(["bsub", "echo", *args], user="user3")
    assert r.rc == 0, r.text[:300]
    jid = re.search(r"<(\d+)>", r.out).group(1)
    con = sqlite3.connect(f"file:{c.home / 'lsfemu.db'}?mode=ro", uri=True)
    try:
        stored = con.execute("SELECT command FROM jobs WHERE id = ?", (int(jid),)).fetchone()[0]
    finally:
        con.close()
    assert stored == " ".join(["echo", *args])
    r = c.run(["bjobs", "-noheader", "-o", "jobid stat", jid])
    assert r.out == f"{jid} PEND\n", r.text[:300]


def test_the_os_refuses_oversized_argv(good_cluster):
    """What exec allows: one argument over 128 KiB, or 3 MB in all, never reach bsub."""
    c = good_cluster
    before = snapshot(c)
    with pytest.raises(OSError) as e:
        c.run(["bsub", "echo", "x" * (200 * 1024)], user="user1")
    assert e.value.errno == 7  # E2BIG
    with pytest.raises(OSError) as e:
        c.run(["bsub", "echo", *(["x" * (100 * 1024)] * 30)], user="user1")
    assert e.value.errno == 7
    assert snapshot(c) == before


def test_three_megabyte_command_line_is_refused_by_lsfemu(good_cluster):
    """Through the socket (exec cannot carry it): lsfemu's own 2 MiB argv limit."""
    c = good_cluster
    before = snapshot(c)
    out, err, rc = socket_call(c, "bsub", ["echo", *(["x" * (100 * 1024)] * 30)], "user1")
    assert (out, rc) == ("", 255)
    assert err.startswith("bsub: ") and "command line" in err and "Traceback" not in err, err
    assert snapshot(c) == before
    assert c.run(["lsid"]).rc == 0  # the daemon is still there


def test_argv_limit_counts_bytes(good_cluster):
    c = good_cluster
    before = snapshot(c)
    out, err, rc = socket_call(c, "bsub", ["echo", "é" * (1100 * 1024)], "user1")
    assert rc == 255 and "command line" in err, (out, err[:200])
    assert snapshot(c) == before


# -- NUL bytes ------------------------------------------------------------------------------------------------

def test_nul_in_argv_cannot_be_exec_d(good_cluster):
    """A C string cannot hold a NUL: the OS interface refuses before lsfemu runs."""
    c = good_cluster
    before = snapshot(c)
    with pytest.raises(ValueError, match="embedded null byte"):
        c.run(["bsub", "-J", "a\x00b", "sleep", "1"], user="user1")
    assert snapshot(c) == before


@pytest.mark.parametrize("cmd,argv", [
    ("bsub", ["-J", "a\x00b", "sleep", "1"]),
    ("bsub", ["sleep", "1\x00; rm -rf /"]),
    ("bkill", ["1\x00"]),
    ("bjobs", ["-u", "user1\x00"]),
], ids=["bsub-name", "bsub-command", "bkill-id", "bjobs-user"])
def test_nul_in_argv_is_refused_by_the_daemon(good_cluster, cmd, argv):
    """Past the OS (straight to the socket), lsfemu refuses a NUL itself."""
    c = good_cluster
    before = snapshot(c)
    out, err, rc = socket_call(c, cmd, argv, "user1")
    assert (out, err, rc) == ("", f"{cmd}: Bad argument\n", 255)
    assert snapshot(c) == before


def test_nul_in_script_never_reaches_the_output(good_cluster):
    """A NUL can arrive on stdin. Refusing the script or dropping the NUL are both fine;
    storing it and printing it back is not."""
    c = good_cluster
    p = run_bytes(c, ["bsub"], "user1", stdin=b"#BSUB -J nul\x00name\nsleep 1\n")
    assert b"Traceback" not in p.stderr and b"internal error" not in p.stderr, p.stderr
    if p.returncode != 0:
        assert p.stderr.endswith(b"Job not submitted.\n"), p.stderr
        return
    jid = re.search(rb"<(\d+)>", p.stdout).group(1).decode()
    out = run_bytes(c, ["bjobs", "-noheader", "-o", "job_name", jid], "user1").stdout
    assert b"\x00" not in out, out


# -- bytes that are not UTF-8 -------------------------------------------------------------------------------

@pytest.mark.parametrize("argv,stdin", [
    (["bsub", "-J", "caf\udce9", "sleep", "1"], None),     # b"caf\xe9": Latin-1
    (["bsub", "echo", "\udcff\udcfe"], None),
    (["bsub", "-o", "/tmp/out\udce9", "sleep", "1"], None),
    (["bsub"], b"#BSUB -J caf\xe9\nsleep 1\n"),
], ids=["job-name", "command", "output-file", "script-on-stdin"])
def test_non_utf8_bytes_do_not_crash_bsub(good_cluster, argv, stdin):
    """LSF takes bytes as they come. Accepting them, or refusing them with a
    clean 'Job not submitted.', are both fine; an internal error is not."""
    c = good_cluster
    before = snapshot(c)
    p = run_bytes(c, argv, "user1", stdin=stdin)
    assert b"internal error" not in p.stderr and b"Traceback" not in p.stderr, p.stderr
    if p.returncode != 0:
        assert p.stderr.endswith(b"Job not submitted.\n"), p.stderr
        assert snapshot(c) == before


@pytest.mark.xfail(strict=True, reason="Known gap: arguments that are not UTF-8 are stored and echoed with "
                                       "U+FFFD in place of the bad bytes, not as typed")
def test_non_utf8_bytes_are_echoed_as_typed(good_cluster):
    c = good_cluster
    p = run_bytes(c, ["bjobs", "\udcff"], "user1")
    assert (p.stderr, p.returncode) == (b"\xff: Illegal job ID.\n", 255)
