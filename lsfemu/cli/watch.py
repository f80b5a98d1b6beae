"""The daemon's side of a waiting bsub (-K, -I, -Ip, -Is):

    lsfemu watch JOB_ID TOKEN OUT_OFFSET ERR_OFFSET [in=HEX] [eof] [size=ROWSxCOLS]

sent by the thin client (lsfemu.bsubwait), not typed by people. TOKEN is what
the previous answer gave (`-` at first): the state the caller has shown, so
that each message is printed once while the daemon keeps nothing per caller.
`in=` carries the caller's new input (hex: any bytes), `eof` says it ended,
`size=` the caller's terminal's size when it changed (-Ip, -Is).

The answer (stdout, exit 0) is one header line

    TOKEN <TAB> EXIT <TAB> OUT_OFFSET <TAB> ERR_OFFSET <TAB> MESSAGE_LENGTH <TAB> OUTPUT_LENGTH <TAB> MODE

(MODE: the job's K, I, Ip or Is; `-` for a job that does not make bsub wait)
and then the messages for bsub's stderr, the job's output for its stdout and
the job's error output for its stderr, one after the other (lengths in
characters; output bytes travel as surrogate escapes). EXIT is `-` while the
job runs, else the exit code bsub ends with (the job's). Errors are LSF's,
with exit 255.

The messages are LSF's (render.messages, reference lsf-breadth.md 6.5):
`<<Starting on host>>` (-K: with LSB_SUBK_SHOW_EXEC_HOST=Y in lsf.conf),
`<<Job is finished>>` (-K), `<<Terminated while pending>>` (exit 126), `<<Job has been requeued, ...>>`, and the pending and suspending
reasons as nios echoes them when they change (unless lsf.conf sets
LSB_INTERACT_MSG_ENH to something else than y). BSUB_QUIET in the caller's
environment keeps the starting line and the echoes quiet, BSUB_QUIET2 the
closing lines, as OpenLava's nios does.
"""

from __future__ import annotations

import zlib

from lsfemu.cli.base import Ctx, Result
from lsfemu.errors import LsfError
from lsfemu.jobstate import PENDING, SUSPENDED
from lsfemu.ops import watch as ops
from lsfemu.render import messages as M

USAGE = "Usage: lsfemu watch JOB_ID TOKEN OUT_OFFSET ERR_OFFSET [in=HEX] [eof] [size=ROWSxCOLS]\n"


def run(c: Ctx, args: list[str]) -> Result:
    req = _request(args)
    if req is None:
        return Result("", USAGE, 255)
    job_id, token, out_off, err_off, data, eof, size = req
    _, seen_start, seen_echo = _token(token)
    try:
        look = ops.look(c.cluster, c.caller, job_id, out_off, err_off, seen_start, data, eof, size)
    except LsfError as e:
        return Result("", M.error_text(e) + "\n", 255)
    job = look.job
    echo = _echo(job)
    msg = "".join(_messages(c, look, seen_start, seen_echo, echo))
    code = "-"
    if look.ended:
        code = str(_exit_code(job, look.started))
    new_token = f"{job.status}/{look.start_ms}/{zlib.crc32(echo.encode()) if echo else 0}"
    out = look.out.decode("utf-8", "surrogateescape")
    err = look.err.decode("utf-8", "surrogateescape")
    if job.interactive is None:  # not a job that makes bsub wait (a `#BSUB -K` bsub did not read)
        msg, code = "", "0"
    head = f"{new_token}\t{code}\t{look.out_off}\t{look.err_off}\t{len(msg)}\t{len(out)}\t{job.interactive or '-'}\n"
    return Result(head + msg + out + err, "", 0)


MAX_NUMBER = 2 ** 62  # job IDs and offsets: past this no file and no job (a seek would overflow)


def _request(args: list[str]):
    if len(args) < 4 or not all(a.isascii() and a.isdigit() and int(a) < MAX_NUMBER for a in (args[0], args[2], args[3])):
        return None
    data, eof, size = b"", False, None
    for a in args[4:]:
        if a == "eof":
            eof = True
        elif a.startswith("size="):
            rows, x, cols = a[5:].partition("x")
            if not (x and rows.isascii() and rows.isdigit() and cols.isascii() and cols.isdigit()
                    and 0 < int(rows) < 65536 and 0 < int(cols) < 65536):
                return None
            size = (int(rows), int(cols))
        elif a.startswith("in="):
            try:
                data = bytes.fromhex(a[3:])
            except ValueError:
                return None
        else:
            return None
    return int(args[0]), args[1], int(args[2]), int(args[3]), data, eof, size


def _token(token: str) -> tuple[str, int, int]:
    """(status, start in ms, the echo's checksum) the caller has shown; nothing at first."""
    parts = token.split("/")
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return "", 0, 0
    return parts[0], int(parts[1]), int(parts[2])


def _echo(job) -> str:
    """nios's echo of why the job waits or is suspended (empty when it runs)."""
    if job.status in PENDING:
        reasons = [r for r in (job.pend_reasons or "").split("\n") if r]
    elif job.status in SUSPENDED:
        reasons = [job.susp_reason] if job.susp_reason else []
    else:
        return ""
    return M.interact_message([M.interact_reason(r) for r in reasons]) if reasons else ""


#: bsub -K's exit code for a job that ended before it ran (bsub -K in LSF 10.1's reference)
TERMINATED_PENDING_EXIT = 126


def _exit_code(job, started: bool) -> int:
    if not started:
        return TERMINATED_PENDING_EXIT
    if job.status == "DONE":
        return 0
    return job.exit_code if job.exit_code is not None else 1


def _messages(c: Ctx, look: ops.Look, seen_start: int, seen_echo: int, echo: str):
    job = look.job
    conf = c.cluster.config.lsf_conf
    quiet, quiet2 = "BSUB_QUIET" in c.env, "BSUB_QUIET2" in c.env
    echoes = conf.get("LSB_INTERACT_MSG_ENH", "y").strip().lower() == "y" and not quiet
    # -K says where the job starts only with LSB_SUBK_SHOW_EXEC_HOST (LSF 10.1's bsub -K); -I always
    show_host = job.interactive != "K" or conf.get("LSB_SUBK_SHOW_EXEC_HOST", "N").strip().upper() in ("Y", "YES")
    if seen_start and look.start_ms != seen_start:  # back to pending, or already started again
        yield M.REQUEUED_WAITING
    if echo and echoes and zlib.crc32(echo.encode()) != seen_echo:
        yield echo
    if look.started and look.start_ms != seen_start and not quiet and show_host:
        yield M.starting_on(job.exec_hosts.split()[0])
    if look.ended:
        if not look.started:
            if echoes:
                yield M.interact_message([M.terminated_by_user(job.id)])
            if not (quiet2 if job.interactive == "K" else quiet):
                yield M.TERMINATED_WHILE_PENDING
        elif job.interactive == "K" and not quiet2:
            yield M.JOB_IS_FINISHED
