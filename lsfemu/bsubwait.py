"""bsub -K, -I, -Ip, -Is: the thin client waits for the job it submitted, as
LSF's bsub hands over to nios.

Standard library only, like lsfemu.client: the waiting happens here, never in
the daemon. After the submission (`Job <N> is submitted ...` and the daemon's
`<<Waiting for dispatch ...>>`), the client looks at the job again and again
with a light request (`lsfemu watch`, lsfemu/cli/watch.py) and prints what
the answer carries: LSF's messages on stderr and, for -I/-Ip/-Is, the job's
output and error output as it comes; the caller's input goes to the job
(raw, a key at a time, when -Ip/-Is run on the caller's terminal). It ends
with the job's exit code. With a virtual clock the client simply keeps
looking while the clock is moved (`lsfemu clock advance`).
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import sys
import termios
import time
import tty

from lsfemu.options import BSUB_WAITING, GRAMMARS, HelpAsked, OptionError, VersionAsked, parse

FIRST_DELAY = 0.05  # seconds between looks, at first and after anything happened ...
MAX_DELAY = 0.5  # ... growing to this while nothing does (an interactive job's output comes soon) ...
MAX_DELAY_K = 1.0  # ... or this for -K: many waiting bsubs (a workflow tool's) must not crowd the daemon


def waiting_mode(argv: list[str], script: str | None) -> str | None:
    """-K, -I, -Ip or -Is from bsub's options, or from the `#BSUB` lines of a
    job script (when the command line has none of them): the job may make
    bsub wait (the daemon's first answer says whether it does)."""
    try:
        values = parse(GRAMMARS["bsub"], argv)[0]
    except (OptionError, HelpAsked, VersionAsked):
        return None
    for dest, mode in BSUB_WAITING:
        if values.get(dest):
            return mode
    if script:
        flags = {o.flag: mode for o in GRAMMARS["bsub"].opts for dest, mode in BSUB_WAITING if o.dest == dest}
        for line in script.splitlines():
            words = line.split()
            if words and words[0] == "#BSUB":
                for w in words[1:]:
                    if w in flags:
                        return flags[w]
    return None


def job_id(out: str) -> int | None:
    """N of bsub's `Job <N> is submitted to ...`."""
    head, sep, rest = out.partition("Job <")
    num = rest.split(">", 1)[0]
    return int(num) if sep and num.isdigit() else None


class _Input:
    """The caller's input for an interactive job: read as it comes; on a
    terminal in raw mode for -Ip/-Is (keys, Ctrl-C included, go to the job's
    pseudo-terminal, which echoes them), restored at the end."""

    def __init__(self, raw: bool):
        self.fd = 0
        self.ended = False
        self.eof_sent = False
        self.saved = None
        self.size_sent = None
        if raw and os.isatty(self.fd):
            self.saved = termios.tcgetattr(self.fd)
            tty.setraw(self.fd)

    def read(self) -> bytes:
        data = b""
        while not self.ended and select.select([self.fd], [], [], 0)[0] and len(data) < (1 << 15):
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                self.ended = True
            data += chunk
        return data

    def size(self) -> str | None:
        """`ROWSxCOLS` of the caller's terminal when it changed since last sent (pty jobs)."""
        if self.saved is None:
            return None
        try:
            rows, cols = struct.unpack("HHHH", fcntl.ioctl(self.fd, termios.TIOCGWINSZ, b"\0" * 8))[:2]
        except OSError:
            return None
        text = f"{rows}x{cols}"
        if not rows or not cols or text == self.size_sent:
            return None
        self.size_sent = text
        return text

    def wait(self, delay: float) -> None:
        """Sleep for delay, or less when input comes."""
        if self.ended:
            time.sleep(delay)
            return
        select.select([self.fd], [], [], delay)

    def restore(self) -> None:
        if self.saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)


def _write(stream, text: str) -> None:
    if text:
        stream.buffer.write(text.encode("utf-8", "surrogateescape"))
        stream.buffer.flush()


class _Watch:
    """What the caller has been shown of job jid: the daemon's token, the output
    offsets, the job's mode (once the daemon has said it) and its input."""

    def __init__(self, call, jid: int, stdin_free: bool):
        self.call, self.jid, self.stdin_free = call, jid, stdin_free
        self.token, self.out_off, self.err_off, self.mode = "-", "0", "0", "-"
        self.inp: _Input | None = None
        self.saved_int: list = []  # SIGINT's handler before bsub took it for the job (once taken)

    def look(self) -> tuple[int | None, bool]:
        """One look: what it brought printed; (the exit code once the job has
        ended, else None; whether anything happened)."""
        argv = ["watch", str(self.jid), self.token, self.out_off, self.err_off]
        data = b""
        inp = self.inp
        if inp is not None and self.token.split("/")[1:2] not in ([], ["0"]):
            data = inp.read()  # only once the job runs: it is there to take it
            if data:
                argv.append("in=" + data.hex())
            if inp.ended and not inp.eof_sent:
                argv.append("eof")
                inp.eof_sent = True
            size = inp.size()
            if size:
                argv.append("size=" + size)
        out, err, rc = self.call("lsfemu", argv)
        if rc != 0:
            _write(sys.stderr, err)
            return rc, True
        head, _, rest = out.partition("\n")
        fields = head.split("\t")
        if len(fields) != 7:
            _write(sys.stderr, f"lsfemu: unexpected answer from the daemon: {head!r}\n")
            return 255, True
        self.token, code, self.out_off, self.err_off = fields[:4]
        nmsg, nout, self.mode = int(fields[4]), int(fields[5]), fields[6]
        if self.mode in TALKING and not self.saved_int:
            self.saved_int.append(_take_sigint())  # before the job's output shows: Ctrl-C may follow it
        if inp is None and self.mode in TALKING and self.stdin_free:
            self.inp = _Input(raw=self.mode != "I")
        msg, text, errtext = rest[:nmsg], rest[nmsg:nmsg + nout], rest[nmsg + nout:]
        _write(sys.stderr, msg)
        _write(sys.stdout, text)
        _write(sys.stderr, errtext)
        if code != "-":
            return (int(code) if 0 <= int(code) <= 255 else 255), True
        return None, bool(msg or text or errtext or data)


TALKING = ("I", "Ip", "Is")


def wait(call, jid: int, stdin_free: bool) -> int:
    """Look at job jid until it has ended; its exit code. `call(cmd, argv)`
    is lsfemu.client.call; `stdin_free`: the caller's stdin was not the job
    script (it may go to an interactive job). The daemon says how the job
    waits (-K, -I, -Ip, -Is; a job that does not wait ends the waiting).
    Ctrl-C in an interactive bsub goes to the job (SIGINT, as nios passes it
    on; a pty job gets it from its terminal); a second one, or one in -K,
    ends bsub and leaves the job."""
    w = _Watch(call, jid, stdin_free)
    delay = FIRST_DELAY
    interrupted = False
    try:
        while True:
            try:
                code, moved = w.look()
                if code is not None:
                    return code
                delay = FIRST_DELAY if moved else min(delay * 1.5, MAX_DELAY if w.mode in TALKING else MAX_DELAY_K)
                if w.inp is not None:
                    w.inp.wait(delay)
                else:
                    time.sleep(delay)
            except KeyboardInterrupt:
                if w.mode not in TALKING or interrupted:
                    raise
                interrupted = True
                call("bkill", ["-s", "INT", str(jid)])
            except BrokenPipeError:  # the reader of bsub's output is gone: end as a writer does then
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush there
                return 128 + signal.SIGPIPE
    finally:
        if w.inp is not None:
            w.inp.restore()
        if w.saved_int:
            _give_sigint(w.saved_int[0])


def _take_sigint():
    """Ctrl-C reaches an interactive bsub's job even when bsub was started with
    SIGINT ignored (a background command of a shell without job control, a CI
    runner, nohup): Python then installs no KeyboardInterrupt handler, and
    Ctrl-C was lost while the job ran on to its end. nios sets its handler
    whatever it inherited (OpenLava's nios: Signal_(SIGINT, PassSig)); so does
    bsub -I, -Ip, -Is. The handler it replaced, to be restored."""
    try:
        return signal.signal(signal.SIGINT, signal.default_int_handler)
    except (ValueError, OSError):  # not the main thread (bsub run in-process): left as it is
        return None


def _give_sigint(handler) -> None:
    if handler is not None:
        try:
            signal.signal(signal.SIGINT, handler)
        except (ValueError, OSError, TypeError):
            pass
