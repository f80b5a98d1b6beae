"""Job control commands: bkill, bstop, bresume, bswitch, bmig, brun (and the
rendering brequeue shares): argv -> `ops.select.Selection` -> `ops.control` -> LSF's
success line per job on stdout, `Job <N>: <reason>` on stderr (exit 255 when
any job failed).
"""

from __future__ import annotations

import signal as _signal
from typing import Optional


from lsfemu.cli.base import Ctx, Result, UsageExit, bad_id_message, ctx, parse_job_ids, parse_job_refs, run_command
from lsfemu.errors import LsfError
from lsfemu.ops import control as ops
from lsfemu.ops.force import ForceRequest, force_run
from lsfemu.ops.jobgroups import group_path
from lsfemu.ops.select import STAT_STATES, Selection
from lsfemu.render import messages

#: the success line of each thing ops.control says happened (bswitch's names its queue)
_SAID = {
    ops.TERMINATED: messages.being_terminated,
    ops.SIGNALED: messages.being_signaled,
    ops.STOPPED: messages.being_stopped,
    ops.RESUMED: messages.being_resumed,
    ops.MIGRATED: messages.being_migrated,
    ops.REQUEUED: messages.being_requeued,
}


def selection(job_ids: list[str] | None, user: str | None = None, queue: str | None = None,
              name: str | None = None, job_group: str | None = None, host: str | None = None,
              stat: str | None = None, app: str | None = None) -> Selection:
    """The Selection of a control command's arguments (`job_group`: -g as
    typed, its path checked here: LsfError for a bad name)."""
    refs, bad = parse_job_refs(job_ids or [])
    group = group_path(job_group) if job_group is not None else None
    return Selection(tuple(refs), tuple((b, bad_id_message(b)) for b in bad), user, queue, name, group, host, stat,
                     app)


def answer(c: Ctx, run, dest: str | None = None) -> None:
    """Run an ops.control operation (`run()`) and print its outcomes, or its error."""
    try:
        outcomes = run()
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    for o in outcomes:
        if o.said is not None:
            c.print(messages.switched(o.typed, dest) if o.said == ops.SWITCHED else _SAID[o.said](o.typed))
    for line in messages.job_errors([(o.job, o.typed, o.reason) for o in outcomes if o.reason is not None]):
        c.error(line)


def _need_selection(job_ids, user, queue, name, job_group=None, host=None, app=None) -> None:
    if not job_ids and all(v is None for v in (user, queue, name, job_group, host, app)):
        raise UsageExit(messages.NEED_JOB_SELECTION)


def _signal_number(spec: str) -> tuple[str, int] | None:
    s = spec.upper().removeprefix("SIG")
    if s.isdigit():
        try:
            return _signal.Signals(int(s)).name.removeprefix("SIG"), int(s)
        except ValueError:
            return None
    try:
        return s, int(_signal.Signals["SIG" + s])
    except KeyError:
        return None


def bkill(
    list_signals: bool = False,
    bucket: bool = False,
    kill_reason: Optional[str] = None,
    as_done: bool = False,
    sig: Optional[str] = None,
    remove: bool = False,
    stat: Optional[str] = None,
    host: Optional[str] = None,
    user: Optional[str] = None,
    queue: Optional[str] = None,
    name: Optional[str] = None,
    job_group: Optional[str] = None,
    app: Optional[str] = None,
    job_ids: Optional[list[str]] = None,
) -> None:
    c = ctx()
    if list_signals:
        c.print(messages.SIGNAL_NAMES)
        return
    if remove and sig is not None:
        raise UsageExit()  # OpenLava's bkill: -r and -s exclude each other
    if stat is not None and stat not in STAT_STATES:
        raise UsageExit()
    signal = None
    if sig is not None:
        signal = _signal_number(sig)
        if signal is None:
            c.error(messages.object_error(sig, messages.ILLEGAL_SIGNAL))
            return
    if stat is None:  # -stat alone names the caller's jobs in that state, as `0` would
        _need_selection(job_ids, user, queue, name, job_group, host, app)
    answer(c, lambda: ops.kill(c.cluster, c.caller, selection(job_ids, user, queue, name, job_group, host, stat, app),
                               signal, remove=remove, as_done=as_done, why=_reason(kill_reason), bucket=bucket))


#: the longest reason bkill/bstop/bresume -C keep (LSF 10.1: "maximum length is 4095 characters")
REASON_MAX = 4095


def _reason(text: str | None) -> str | None:
    """-C's reason as kept: at most REASON_MAX characters (longer ones cut, as
    LSF's fixed-size buffers do); an empty one is no reason."""
    return text[:REASON_MAX] if text else None


def _selected(op, job_ids, user, queue, name, job_group, host, app, why) -> None:
    """bstop's and bresume's body: the jobs their options select, the operation on them."""
    c = ctx()
    _need_selection(job_ids, user, queue, name, job_group, host, app)
    answer(c, lambda: op(c.cluster, c.caller, selection(job_ids, user, queue, name, job_group, host, app=app),
                         _reason(why)))


def bstop(
    suspend_reason: Optional[str] = None,
    host: Optional[str] = None,
    user: Optional[str] = None,
    queue: Optional[str] = None,
    name: Optional[str] = None,
    job_group: Optional[str] = None,
    app: Optional[str] = None,
    job_ids: Optional[list[str]] = None,
) -> None:
    _selected(ops.stop, job_ids, user, queue, name, job_group, host, app, suspend_reason)


def bresume(
    resume_reason: Optional[str] = None,
    host: Optional[str] = None,
    user: Optional[str] = None,
    queue: Optional[str] = None,
    name: Optional[str] = None,
    job_group: Optional[str] = None,
    app: Optional[str] = None,
    job_ids: Optional[list[str]] = None,
) -> None:
    _selected(ops.resume, job_ids, user, queue, name, job_group, host, app, resume_reason)


def bswitch(
    host: Optional[str] = None,
    user: Optional[str] = None,
    queue: Optional[str] = None,
    name: Optional[str] = None,
    args: Optional[list[str]] = None,
) -> None:
    c = ctx()
    args = list(args or [])
    if not args:
        raise UsageExit(messages.NEED_DEST_QUEUE)
    dest = args.pop(0)
    _need_selection(args, user, queue, name, host=host)
    sel = selection(args, user, queue, name, host=host)
    answer(c, lambda: ops.switch(c.cluster, c.caller, sel, dest), dest)


def bmig(
    name: Optional[str] = None,
    user: Optional[str] = None,
    job_ids: Optional[list[str]] = None,
) -> None:
    """Migrate running rerunnable jobs: they pend again, first in line, keeping their priority."""
    c = ctx()
    if not job_ids and user is None and name is None:
        raise UsageExit(messages.NEED_JOB_SELECTION)
    sel = selection(job_ids, user, name=name)
    answer(c, lambda: ops.migrate(c.cluster, c.caller, sel))


def brun(
    hosts: Optional[str] = None,
    args: Optional[list[str]] = None,
) -> None:
    """Force a pending job to run on the hosts named (administrators)."""
    c = ctx()
    args = list(args or [])
    ids, bad = parse_job_ids(args[-1:])  # OpenLava's brun reads the last word as the job
    if hosts is None or not hosts.split() or len(args) != 1 or bad:
        raise UsageExit()
    jid, idx, typed = ids[0]
    try:
        force_run(c.cluster, c.caller, ForceRequest(jid, idx, tuple(hosts.split())))
    except LsfError as e:
        c.error(messages.object_error(messages.FORCE_FAILED, e.reason))
        return
    c.print(messages.being_forced(typed))


def run_brun(c: Ctx) -> Result:
    return run_command(c, brun)


def run_bmig(c: Ctx) -> Result:
    return run_command(c, bmig)


def run_bkill(c: Ctx) -> Result:
    return run_command(c, bkill)


def run_bstop(c: Ctx) -> Result:
    return run_command(c, bstop)


def run_bresume(c: Ctx) -> Result:
    return run_command(c, bresume)


def run_bswitch(c: Ctx) -> Result:
    return run_command(c, bswitch)
