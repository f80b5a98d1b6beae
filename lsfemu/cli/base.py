"""What every command shares: the request context, the result, argv parsing
with the command's grammar (`lsfemu.options`), job ID parsing; the caller (its permissions are
`ops.permissions`).

Commands never print: they return a `Result` (stdout, stderr, exit code).
The one exception is output too large to hold: a command run locally (not in
the daemon) may be given the caller's stdout (`Ctx.stdout`) and write it there.
"""

from __future__ import annotations

import contextvars
import gc
import re
from dataclasses import dataclass, field
from typing import Any

from lsfemu import options
from lsfemu.cli.display import lsf_conf_now
from lsfemu.ops import permissions
from lsfemu.ops.permissions import Caller
from lsfemu.render import messages
from lsfemu.sched.arrayspec import ArraySpecError, parse_index_list


@dataclass
class Result:
    out: str = ""
    err: str = ""
    rc: int = 0


@dataclass
class Ctx:
    cluster: Any  # lsfemu.engine.cluster.Cluster (None for commands that need no cluster)
    cmd: str
    argv: list[str]
    user: str
    uid: int
    cwd: str
    env: dict[str, str]
    stdin: str | None = None
    #: the caller's stdout when the command runs in the caller's process (bhist -f), else None
    stdout: Any = None
    #: the daemon serving the command (daemon.server.Daemon: badmin mbdrestart, lsfemu daemon
    #: status|stop act on it), None in-process; handed in so that commands never import the daemon
    daemon: Any = None
    #: the caller has a terminal (its stdin or stdout is one): bsub -Ip/-Is get a pty only then, as in LSF
    tty: bool = False
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    rc: int = 0

    def print(self, text: str = "") -> None:
        self.out.append(text + "\n")

    def error(self, text: str, rc: int = 255) -> None:
        self.err.append(text + "\n")
        self.rc = rc

    def result(self) -> Result:
        return Result("".join(self.out), "".join(self.err), self.rc)

    @property
    def local_host(self) -> str:
        """The host the command runs on: a TCP client's host as the daemon named it,
        else the master host (virtual hosts all map to this machine)."""
        return self.env.get("LSFEMU_SUBMIT_HOST") or self.cluster.master_name or self.cluster.config.master_host

    def setting(self, name: str, option: str | None = None) -> str | None:
        """A display setting as LSF's commands read it: the command's option
        when given, else the caller's environment, else lsf.conf
        (LSB_BJOBS_FORMAT, LSB_BQUEUES_FORMAT, LSB_BHOSTS_FORMAT, ...) as the
        file is now, without badmin reconfig (`display.lsf_conf_now`). An empty
        value counts as unset."""
        if option:
            return option
        conf = lsf_conf_now(self.cluster.config) if self.cluster is not None else {}  # bhist/bacct -f: no cluster
        return self.env.get(name) or conf.get(name) or None

    def yes(self, name: str) -> bool:
        """A Y/N display setting (LSB_DISPLAY_YEAR=Y, LSB_HMS_TIME_FORMAT=y...): only Y or y is yes."""
        return (self.setting(name) or "").strip().upper() == "Y"

    @property
    def caller(self) -> Caller:
        return Caller(self.user, self.uid)

    def allows(self, action: str, *, job=None, queue: str | None = None) -> bool:
        """permissions.allows for this caller (the rules: `ops.permissions.RULES`)."""
        return permissions.allows(self.cluster.config, self.caller, action, job=job, queue=queue)


_current: contextvars.ContextVar[Ctx] = contextvars.ContextVar("lsfemu_ctx")


def ctx() -> Ctx:
    return _current.get()


class UsageExit(Exception):
    """Raised inside a command body to print LSF's usage text and exit 255."""

    def __init__(self, message: str | None = None):
        self.message = message


def run_collector_paused(c: Ctx, fn) -> Result:
    """run_command(c, fn) with the cyclic collector paused, and back on once
    the command's objects are gone: for a command that holds what it makes
    until it returns and leaves no cyclic garbage (a listing: a few objects per
    listed job, all freed when it ends), where the collector would only walk
    the cluster's objects again and again (bjobs -u all -aps, bhist -u all at
    10,000 jobs)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return run_command(c, fn)
    finally:
        if collecting:
            gc.enable()


def run_command(c: Ctx, fn) -> Result:
    """Read c.argv with the command's grammar (`lsfemu.options`: LSF's option
    list, declared once) and call fn with the values by parameter name.

    LSF's answers to bad options: `cmd: illegal option -- x` (an option LSF
    does not have), `cmd: option requires an argument -- x`, `cmd: option
    cannot have an argument -- x`, each with the usage; an option LSF has that
    lsfemu has not built is refused naming it. All exit 255, nothing done.
    `-h` prints the usage, `-V` the version banner.
    """
    g = options.grammar(c.cmd)
    try:
        values, words = options.parse(g, list(c.argv))
    except options.HelpAsked:
        return Result("", messages.usage(c.cmd), 0)
    except options.VersionAsked:
        return Result("", banner_version(), 0)
    except options.OptionError as e:
        return Result("", messages.option_error(c.cmd, e.kind, e.flag) + messages.usage(c.cmd), 255)
    if words and g.args_dest is None:
        return Result("", messages.usage(c.cmd), 255)  # LSF prints only the usage
    token = _current.set(c)
    try:
        fn(**values)
    except UsageExit as e:
        if e.message:
            c.err.append(e.message + "\n")
        c.err.append(messages.usage(c.cmd))
        c.rc = 255
    finally:
        _current.reset(token)
    return c.result()


def parse_subcommand(cmd: str, table: dict, argv: list[str]):
    """badmin's and lsadmin's argv: (subcommand, its options, its words) with
    the grammar *table* gives the subcommand (None: not in the table), or the
    Result of -h, no subcommand, or a refused option (the usage, exit 255)."""
    if not argv or argv[0] in ("-h", "--help"):
        return Result("", messages.usage(cmd), 0 if argv else 255)
    g = table.get(argv[0])
    if g is None:
        return argv[0], None, argv[1:]
    try:
        opts, args = options.parse(g, argv[1:])
    except (options.HelpAsked, options.VersionAsked):
        return Result("", messages.usage(cmd), 0)
    except options.OptionError as e:
        return Result("", messages.option_error(cmd, e.kind, e.flag) + messages.usage(cmd), 255)
    return argv[0], opts, args


def banner_version() -> str:
    return "IBM Spectrum LSF Standard 10.1.0.13, Jan 04 2023\nCopyright International Business Machines Corp. 1992, 2016.\nUS Government Users Restricted Rights - Use, duplication or disclosure restricted by GSA ADP Schedule Contract with IBM Corp.\n"


# -- job IDs -----------------------------------------------------------------
_JOBID = re.compile(r"^([0-9]{1,10})(?:\[([0-9]{1,10})\])?$")


def parse_job_ids(args: list[str]) -> tuple[list[tuple[int, int, str]], list[str]]:
    """Split arguments (also comma lists, as parsl sends) into (id, index, as typed) and bad ones."""
    good: list[tuple[int, int, str]] = []
    bad: list[str] = []
    for arg in args:
        for part in (arg.split(",") if "," in arg and "[" not in arg else [arg]):
            part = part.strip()
            m = _JOBID.match(part)
            if not m:
                bad.append(part)
                continue
            jid = int(m.group(1))
            idx = int(m.group(2)) if m.group(2) else 0
            if m.group(2) is not None and (jid == 0 or idx == 0):
                bad.append(part)  # no job 0 element, and indices start at 1
                continue
            if jid > 2147483647 or idx > 2147483647:
                bad.append(part)
                continue
            good.append((jid, idx, part))
    return good, bad


_JOBREF = re.compile(r"^([0-9]{1,10})\[([^\]]*)\]$")


def parse_job_refs(args: list[str]) -> tuple[list[tuple[int, tuple | None, str]], list[str]]:
    """Like parse_job_ids, with index lists: (job ID, index ranges or None for
    the whole job or array, as typed). `123` -> (123, None, "123"); `123[4]` ->
    (123, ((4, 4, 1),), "123[4]"); `123[1-5:2,9]` -> its ranges."""
    good: list[tuple[int, tuple | None, str]] = []
    bad: list[str] = []
    for arg in args:
        for part in (arg.split(",") if "," in arg and "[" not in arg else [arg]):
            part = part.strip()
            m = _JOBREF.match(part)
            if m and not _JOBID.match(part):
                try:
                    ranges = parse_index_list(m.group(2))
                except ArraySpecError:
                    bad.append(part)
                    continue
                jid = int(m.group(1))
                if jid == 0 or jid > 2147483647 or max(e for _, e, _ in ranges) > 2147483647:
                    bad.append(part)
                    continue
                good.append((jid, ranges, part))
                continue
            ids, wrong = parse_job_ids([part])
            bad.extend(wrong)
            good.extend((jid, ((idx, idx, 1),) if idx else None, typed) for jid, idx, typed in ids)
    return good, bad


def bad_id_message(arg: str) -> str:
    """LSF's complaint about a job ID that parse_job_ids refused."""
    m = _JOBID.match(arg)
    if m and m.group(2) is not None:
        return messages.JOB_ID_OUT_OF_RANGE
    return messages.ILLEGAL_JOB_ID
