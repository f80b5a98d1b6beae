"""bsub -K and -I/-Ip/-Is (lsfemu.bsubwait, lsfemu/cli/watch.py, jobwrap's
Relay): the thin client waits for its job with LSF's messages on stderr (the
golden transcripts of tests/e2e/golden/, from lsf-breadth.md 6.5), echoes the
pending reasons, exits with the job's exit code; -K waits while a virtual
clock is moved; -I streams the job's output as it runs, passes the caller's
input, runs -Ip on a pseudo-terminal; -I is refused with a virtual clock.
bjobs -l shows `Synchronous Execution` for -K, lsb.events the submission's
option bits."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path

import pytest

from lsfemu.events import lsbatch
from lsfemu.events.log import read_events
from lsfemu.testing import _command_path
from tests.hardening.test_bad_input import snapshot, socket_call

pytestmark = pytest.mark.slow(33)  # seconds, quiet machine: scheduled early (tests/conftest.py)

GOLDEN = Path(__file__).parent / "golden"
WATCH_USAGE = "Usage: lsfemu watch JOB_ID TOKEN OUT_OFFSET ERR_OFFSET [in=HEX] [eof] [size=ROWSxCOLS]\n"
PARAMS = ("Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 1\nJOB_TERMINATE_INTERVAL = 1\n"
          "End Parameters\n")


def golden(name: str) -> bytes:
    return (GOLDEN / name).read_bytes()


def start_bsub(c, args: list[str], env: dict | None = None, **kw) -> subprocess.Popen:
    full = dict(c.env, LSFEMU_USER="user1", **(env or {}))
    kw.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.Popen(_command_path("bsub") + args, env=full, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(c.root), **kw)


def read_until(stream, want: bytes, timeout: float = 20.0) -> bytes:
    """What the stream gave until `want` was in it (raw reads, a deadline)."""
    got = b""
    deadline = time.monotonic() + timeout
    while want not in got:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"never got {want!r}; got {got!r}")
        if select.select([stream], [], [], left)[0]:
            chunk = os.read(stream.fileno(), 4096)
            if not chunk:
                raise AssertionError(f"stream ended before {want!r}; got {got!r}")
            got += chunk
    return got


def finish(p: subprocess.Popen, before_out: bytes = b"", before_err: bytes = b"") -> tuple[bytes, bytes]:
    out, err = p.communicate(timeout=60)
    return before_out + out, before_err + err


def job_new(c, jid: int):
    for _, rec in read_events(c.home / "logdir" / "lsb.events"):
        if type(rec).__name__ == "JobNew" and rec.job_id == jid:
            return rec
    raise AssertionError(f"no JOB_NEW for job {jid}")


def test_K_waits_while_the_virtual_clock_runs_and_exits_with_the_jobs_code(lsf_cluster):
    c = lsf_cluster
    with open(c.path_of("lsf.conf"), "a") as f:
        f.write("LSB_SUBK_SHOW_EXEC_HOST=Y\n")  # <<Starting on host>> for -K too, as in the reference's transcript
    p = start_bsub(c, ["-K", "sleep 60"], env={"LSFEMU_EXIT_CODE": "3"})
    err = read_until(p.stderr, b"New job is waiting for scheduling >>\r\n")  # the first look echoed it
    assert p.poll() is None  # still waiting: nothing moves a virtual clock but the clock command
    assert ", Synchronous Execution;" in c.run("bjobs -l -UF 1", user="user1").out
    c.advance("2m")
    out, err = finish(p, before_err=err)
    assert p.returncode == 3
    assert out + err == golden("bsub_K_virtual.txt")
    long = c.run("bjobs -a -l -UF 1", user="user1").out
    assert f"Submitted from host <hostA>, CWD <{c.root}>, Synchronous Execution;" in long
    assert "Exited with exit code 3." in long
    rec = job_new(c, 1)
    assert rec.options2 & lsbatch.SUB2_BSUB_BLOCK
    assert not rec.options & lsbatch.SUB_INTERACTIVE


def test_K_job_killed_while_pending(lsf_cluster):
    c = lsf_cluster
    p = start_bsub(c, ["-K", "sleep 60"])
    err = read_until(p.stderr, b"New job is waiting for scheduling >>\r\n")
    # the daemon's side of the waiting (lsfemu watch) refuses bad requests and changes nothing
    before = snapshot(c)
    for argv, user, want in ((["watch", "1", "-", "0", "0"], "user2", "User permission denied\n"),
                             (["watch", "99", "-", "0", "0"], "user1", "Job <99> is not found\n"),
                             (["watch", "1", "-", "x", "0"], "user1", WATCH_USAGE),
                             (["watch", "1", "-", "0", "0", "in=zz"], "user1", WATCH_USAGE),
                             (["watch", "1", "-", "0", "0", "size=0x80"], "user1", WATCH_USAGE),
                             (["watch", "1", "-", "99999999999999999999", "0"], "user1", WATCH_USAGE),
                             (["watch", "１", "-", "0", "0"], "user1", WATCH_USAGE),
                             (["watch", "1"], "user1", WATCH_USAGE)):
        assert socket_call(c, "lsfemu", argv, user, started=True) == ("", want, 255), argv
    assert snapshot(c) == before
    assert c.run("bkill 1", user="user1").rc == 0
    out, err = finish(p, before_err=err)
    assert out + err == golden("bsub_K_killed_pending.txt")
    assert p.returncode == 126  # LSF 10.1's bsub -K: "exits with value 126 if the job was terminated while pending"
    # with -b, bsub says when the job may start between the submission line and <<Waiting ...>> (lsb.sub.c)
    p = start_bsub(c, ["-K", "-b", "23:59", "sleep 1"])
    err = read_until(p.stderr, b"<<Waiting for dispatch ...>>\n")
    # (one read may already bring the first state line after it: what comes up to the marker counts)
    head = err[:err.index(b"<<Waiting for dispatch ...>>\n")]
    assert head.startswith(b"Job will be scheduled after ") and head.count(b"\n") == 1 and head.endswith(b"\n"), err
    assert c.run("bkill 2", user="user1").rc == 0
    finish(p)
    assert p.returncode == 126


def test_K_echoes_each_change_and_waits_through_a_requeue(lsf_cluster):
    c = lsf_cluster
    with open(c.path_of("lsf.conf"), "a") as f:
        f.write("LSB_SUBK_SHOW_EXEC_HOST=Y\n")
    p = start_bsub(c, ["-K", "sleep 600"])
    err = read_until(p.stderr, b"<< New job is waiting for scheduling >>\r\n")
    steps = (
        (["bstop", "1"], b"\r\n<< The job was suspended by the user while pending >>\r\n"),
        (["bresume", "1"], b"\r\n<< Waiting for scheduling after resumed by user >>\r\n"),
        (["lsfemu", "clock", "advance", "1m"], b"<<Starting on hostA>>\r\n"),
        (["bstop", "1"], b"\r\n<< The job was suspended by user >>\r\n"),
        (["brequeue", "-a", "1"], b"<<Job has been requeued, waiting for dispatch......>>\n"),
        (["lsfemu", "clock", "advance", "20m"], b"<<Job is finished>>\r\n"),
    )
    for argv, shown in steps:
        assert c.run(argv, user="user1").rc == 0, argv
        err += read_until(p.stderr, shown)
    out, err = finish(p, before_err=err)
    assert p.returncode == 0  # the job's second run ended DONE: bsub waited through the requeue
    assert err == (b"<<Waiting for dispatch ...>>\n"
                   b"\r\n<< New job is waiting for scheduling >>\r\n"
                   b"\r\n<< The job was suspended by the user while pending >>\r\n"
                   b"\r\n<< Waiting for scheduling after resumed by user >>\r\n"
                   b"<<Starting on hostA>>\r\n"
                   b"\r\n<< The job was suspended by user >>\r\n"
                   b"<<Job has been requeued, waiting for dispatch......>>\n"
                   b"<<Starting on hostA>>\r\n"  # lsfemu dispatched the requeued job at once
                   b"<<Job is finished>>\r\n")


def test_K_quiet_and_the_echo_switched_off(lsf_cluster_factory):
    c = lsf_cluster_factory()
    with open(c.path_of("lsf.conf"), "a") as f:
        f.write("LSB_INTERACT_MSG_ENH=N\n")
    p = start_bsub(c, ["-K", "sleep 10"], env={"BSUB_QUIET2": "1"})
    err = read_until(p.stderr, b"<<Waiting for dispatch ...>>\n")
    assert c.run("bjobs -noheader -o stat 1", user="user1").out.strip() == "PEND"  # looked at meanwhile
    c.advance("1m")
    out, err = finish(p, before_err=err)
    assert err == b"<<Waiting for dispatch ...>>\n"  # no echo, no <<Job is finished>>, no host (-K's default)
    assert p.returncode == 0


def test_I_refused_with_a_virtual_clock_and_bad_combinations(lsf_cluster):
    c = lsf_cluster
    for opt in ("-I", "-Ip", "-Is"):
        r = c.run(["bsub", opt, "echo hi"], user="user1")
        assert r.rc == 255 and r.out == ""
        assert r.err == ("Interactive job not supported with LSFEMU_CLOCK=virtual: jobs are simulated there, "
                         "no process runs to talk to; use LSFEMU_CLOCK=wall, or bsub -K. Job not submitted.\n")
    r = c.run(["bsub"], user="user1", stdin="#!/bin/sh\n#BSUB -Is\nhostname\n")  # #BSUB lines too
    assert r.rc == 255 and r.err.startswith("Interactive job not supported with LSFEMU_CLOCK=virtual")
    r = c.run(["bsub", "-K", "-J", "a[1-3]", "sleep 1"], user="user1")
    assert (r.rc, r.err) == (255, "Job array doesn't support -K option. Job not submitted.\n")
    r = c.run(["bsub", "-I", "-J", "a[1-3]", "sleep 1"], user="user1")
    assert (r.rc, r.err) == (255, "Interactive job not supported for job arrays. Job not submitted.\n")
    r = c.run(["bsub", "-K", "-I", "sleep 1"], user="user1")
    assert r.rc == 255 and r.err.startswith("Usage: bsub ") and "[-I | -Ip | -Is | -K]" in r.err
    assert c.run("bjobs -a -u all").err == "No job found\n"


@pytest.fixture
def wall(lsf_cluster_factory):
    c = lsf_cluster_factory(clock="wall", files={"lsb.params": PARAMS})
    return c


def test_I_streams_output_as_the_job_runs_and_exits_with_its_code(wall):
    c = wall
    with open(c.path_of("lsf.conf"), "a") as f:
        f.write("LSB_INTERACT_MSG_ENH=N\n")
    r = c.run(["bsub", "-I", "echo out; echo err >&2; exit 4"], user="user1")
    assert r.rc == 4
    assert (r.out + r.err).encode() == golden("bsub_I_wall.txt").replace(b"\r\n", b"\n")  # text mode
    # the output comes while the job runs, not at its end
    p = start_bsub(c, ["-I", "echo first; while [ ! -e go ]; do sleep 0.1; done; echo second"])
    out = read_until(p.stdout, b"first\n")
    assert c.run("bjobs -noheader -o stat 2", user="user1").out.strip() == "RUN"
    (c.root / "go").touch()
    out, err = finish(p, before_out=out)
    assert out.endswith(b"first\nsecond\n") and p.returncode == 0
    assert b"<<Job is finished>>" not in err  # -K's alone
    long = c.run("bjobs -a -l -UF 2", user="user1").out
    assert ", Queue <normal>, Interactive mode, " in long
    rec = job_new(c, 2)
    assert rec.options & lsbatch.SUB_INTERACTIVE and not rec.options & lsbatch.SUB_PTY
    assert not (c.home / "interactive" / "2").exists()  # bsub has read all: the folder is gone
    # -K in wall mode: the real job's exit code
    r = c.run(["bsub", "-K", "exit 5"], user="user1")
    assert r.rc == 5
    assert r.err == "<<Waiting for dispatch ...>>\n<<Job is finished>>\n"  # text mode; no host without LSB_SUBK_SHOW_EXEC_HOST
    # Ctrl-C in bsub -I goes to the job (SIGINT), which ends; bsub exits with its code
    p = start_bsub(c, ["-I", "echo started; sleep 30"])
    read_until(p.stdout, b"started\n")
    p.send_signal(signal.SIGINT)
    finish(p)
    assert p.returncode == 130
    assert c.run("bjobs -a -noheader -o 'stat exit_code' 4", user="user1").out.split() == ["EXIT", "130"]
    # the reader of bsub's output goes away (`bsub -I ... | head -1`): bsub ends as a writer does, quietly
    p = start_bsub(c, ["-I", "while :; do echo line; sleep 0.05; done"])
    read_until(p.stdout, b"line\n")
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=30) == 141 and b"Traceback" not in err and b"lsfemu:" not in err, err
    assert c.run("bkill 5", user="user1").rc == 0


def test_I_passes_Ctrl_C_on_even_when_started_with_SIGINT_ignored(wall):
    # a background command of a shell without job control (or a CI runner) inherits SIGINT
    # ignored; nios takes SIGINT whatever it inherited, so Ctrl-C still reaches the job
    c = wall
    p = start_bsub(c, ["-I", "echo started; sleep 30"], preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    read_until(p.stdout, b"started\n")
    p.send_signal(signal.SIGINT)
    finish(p)
    assert p.returncode == 130
    assert c.run("bjobs -a -noheader -o 'stat exit_code' 1", user="user1").out.split() == ["EXIT", "130"]


def test_I_passes_input_and_Ip_runs_on_a_terminal(wall):
    c = wall
    r = c.run(["bsub", "-I", "tr a-z A-Z; exit 2"], user="user1", stdin="hello\nworld\n")
    assert r.rc == 2
    assert r.out.endswith("HELLO\nWORLD\n")
    # -Ip on the caller's terminal: the job has one too, and gets what is typed
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 111, 0, 0))  # the caller's terminal size
    p = start_bsub(c, ["-Ip", "tty; read x; echo got $x; stty size; exit 7"], stdin=slave)
    os.close(slave)
    out = read_until(p.stdout, b"/dev/pts/")
    os.write(master, b"abc\r")
    out, err = finish(p, before_out=out)
    os.close(master)
    assert p.returncode == 7
    assert b"got abc\r\n" in out  # the pty's line discipline: CR LF
    assert b"33 111\r\n" in out  # the job's terminal has the caller's size
    assert b"<<Starting on hostA>>\r\n" in err
    assert ", Interactive pseudo-terminal mode, " in c.run("bjobs -a -l -UF 2", user="user1").out
    assert job_new(c, 2).options & lsbatch.SUB_PTY
    # -Is: the same on a terminal, in shell mode
    master, slave = pty.openpty()
    p = start_bsub(c, ["-Is", "tty"], stdin=slave)
    os.close(slave)
    out, err = finish(p)
    os.close(master)
    assert p.returncode == 0 and b"/dev/pts/" in out
    assert ", Interactive pseudo-terminal shell mode, " in c.run("bjobs -a -l -UF 3", user="user1").out
    assert job_new(c, 3).options & lsbatch.SUB_PTY_SHELL
    # without a terminal on either side there is no pty (as LSF's bsub): -Is runs as -I
    r = c.run(["bsub", "-Is", "tty"], user="user1", stdin="")
    assert r.rc == 1 and "not a tty" in r.out  # tty(1) exits 1 without a terminal
    assert ", Interactive mode, " in c.run("bjobs -a -l -UF 4", user="user1").out
    # bsub -I -i FILE: the job reads the file, not the caller (its output still comes to bsub)
    (c.root / "in.txt").write_text("from the file\n")
    r = c.run(["bsub", "-I", "-i", str(c.root / "in.txt"), "tr a-z A-Z"], user="user1", stdin="not this\n")
    assert r.rc == 0 and r.out.endswith("FROM THE FILE\n")

