"""The cluster's safety (issue 16): commands that must not lose jobs, the daemon
or the order of time.

Times: the fixture's virtual clock starts Mon Jan 5 09:00:00 2026 UTC.
"""

import pytest

pytestmark = pytest.mark.slow(19)  # seconds, quiet machine: scheduled early (tests/conftest.py)


def _stat(c, jid: int) -> str:
    return c.run(f"bjobs -noheader -o stat {jid}").out.strip()


def test_bkill_s_on_a_pending_job_kills_suspends_resumes_or_is_refused(lsf_cluster):
    """LSF: "You cannot send arbitrary signals to a pending job ... LSF does allow you
    to kill, suspend, and resume pending jobs"; mbatchd answers LSBE_NOT_STARTED."""
    c = lsf_cluster
    for _ in range(4):
        c.run("bsub sleep 1000", user="user1")  # no pass yet: all four pend
    log = c.home / "logdir" / "lsb.events"
    before = log.read_text()
    for sig in ("USR1", "SIGUSR2", "HUP", "QUIT", "TSTP", "CHLD", "WINCH", "10"):
        r = c.run(f"bkill -s {sig} 1", user="user1")
        assert (r.out, r.err, r.rc) == ("", "Job <1>: Job has not started yet\n", 255), sig
        assert _stat(c, 1) == "PEND", sig
    assert log.read_text() == before  # nothing was recorded for a refused signal

    assert c.run("bkill -s STOP 1", user="user1").out == "Job <1> is being signaled\n"
    assert _stat(c, 1) == "PSUSP"
    r = c.run("bkill -s USR1 1", user="user1")
    assert (r.err, r.rc) == ("Job <1>: Job has not started yet\n", 255)
    assert _stat(c, 1) == "PSUSP"
    assert c.run("bkill -s CONT 1", user="user1").out == "Job <1> is being signaled\n"
    assert _stat(c, 1) == "PEND"

    # CONT to a job that is not suspended, STOP to one already suspended: accepted, nothing to do.
    before = log.read_text()
    assert c.run("bkill -s CONT 1", user="user1").rc == 0
    assert _stat(c, 1) == "PEND" and log.read_text() == before

    # INT, TERM and KILL kill a pending job (bkill's own sequence).
    for jid, sig, code in ((1, "TERM", 143), (2, "KILL", 137), (3, "INT", 130)):
        r = c.run(f"bkill -s {sig} {jid}", user="user1")
        assert (r.out, r.rc) == (f"Job <{jid}> is being signaled\n", 0), sig
        assert c.run(f"bjobs -noheader -o 'stat exit_code' {jid}").out.split() == ["EXIT", str(code)], sig

    # Several jobs at once: the refused one answers on stderr, the others are acted on.
    c.run("bsub sleep 1000", user="user1")
    c.advance("10s")  # jobs 4 and 5 start
    c.run("bsub sleep 1000", user="user1")  # job 6 pends
    r = c.run("bkill -s USR1 5 6", user="user1")
    assert (r.out, r.err, r.rc) == ("Job <5> is being signaled\n", "Job <6>: Job has not started yet\n", 255)
    assert _stat(c, 6) == "PEND"


def _daemon_pid(c) -> int:
    return int((c.home / "mbatchd.lock").read_text().split()[0])


def test_daemon_restart_with_a_broken_configuration_keeps_the_running_daemon(lsf_cluster):
    c = lsf_cluster
    assert c.run("bsub sleep 100", user="user1").rc == 0
    pid = _daemon_pid(c)
    queues = c.path_of("lsb.queues")
    lines = queues.read_text().splitlines(keepends=True)
    line = next(i for i, s in enumerate(lines, 1) if s.strip() == "Begin Queue")
    lines.insert(line, "PRIORITY = lots\n")  # line + 1: not a number
    queues.write_text("".join(lines))
    r = c.run("lsfemu daemon restart")
    assert r.rc != 0
    assert f"lsb.queues({line + 1}): " in r.err, r.err
    assert "the running daemon is kept" in r.err, r.err
    assert r.err.count("\n") == len(r.err.splitlines())  # no traceback, plain lines
    assert "Traceback" not in r.err
    # The same daemon still answers, with the job it had.
    r = c.run("bjobs -noheader -o 'jobid stat' 1", env={"LSFEMU_AUTOSTART": "0"})
    assert (r.out, r.rc) == ("1 PEND\n", 0)
    assert _daemon_pid(c) == pid
    # Repaired, the restart goes through: a new daemon with the same jobs.
    del lines[line]
    queues.write_text("".join(lines))
    r = c.run("lsfemu daemon restart")
    assert r.rc == 0, r.text
    assert _daemon_pid(c) != pid
    assert c.run("bjobs -noheader -o 'jobid stat' 1", env={"LSFEMU_AUTOSTART": "0"}).out == "1 PEND\n"


def _event_times(c) -> list[int]:
    from lsfemu.events.log import read_events

    return [r.event_time for _, r in read_events(c.home / "logdir" / "lsb.events")]


def _set_clock_mode(c, mode: str) -> None:
    conf = c.path_of("lsf.conf")
    text = conf.read_text()
    old = "virtual" if mode == "wall" else "wall"
    assert f"LSFEMU_CLOCK={old}" in text
    conf.write_text(text.replace(f"LSFEMU_CLOCK={old}", f"LSFEMU_CLOCK={mode}"))


def test_a_wall_clock_behind_the_cluster_is_refused(lsf_cluster):
    """A virtual cluster ahead of real time, switched to LSFEMU_CLOCK=wall: its time
    would run backwards (lsb.events out of order, pending times 0), so the switch is
    refused by every door: a daemon start, badmin reconfig and mbdrestart, lsfemu daemon
    restart; the cluster keeps its time."""
    c = lsf_cluster
    c.run("bsub sleep 100", user="user1")
    assert c.run(["lsfemu", "clock", "set", "2036-01-07T09:00"]).rc == 0
    c.run("bsub -sp 10 sleep 100", user="user1")
    c.advance("10m")
    times = _event_times(c)
    assert times == sorted(times) and times[-1] >= 2083309200  # 2036-01-07 09:00 UTC
    # The clock never goes back in virtual mode either (kept: clock set refuses it).
    r = c.run(["lsfemu", "clock", "set", "2036-01-01T00:00"])
    assert r.rc != 0 and "cannot go back" in r.err

    line = "LSFEMU_CLOCK=wall: the cluster's clock is at Mon Jan  7 09:10:00 2036, ahead of this machine's"
    # badmin reconfig / mbdrestart on the running daemon: refused, nothing changes.
    pid = _daemon_pid(c)
    _set_clock_mode(c, "wall")
    for sub in ("reconfig", "mbdrestart", "ckconfig"):
        r = c.run(f"badmin {sub}", user="lsfadmin")
        assert r.rc == 255 and line in r.err, (sub, r.err)
    r = c.run("lsfemu daemon restart")
    assert r.rc != 0 and line in r.err and "the running daemon is kept" in r.err, r.err
    assert _daemon_pid(c) == pid
    assert c.run("lsfemu clock show").out.startswith("virtual clock: Mon Jan  7 09:10:00 2036")
    # A new daemon with the wall clock: refused with the line; nothing written.
    assert c.run("lsfemu daemon stop").rc == 0
    before = (c.home / "logdir" / "lsb.events").read_text()
    r = c.run("bjobs -noheader -o 'jobid stat' 2")
    assert r.rc != 0 and line in r.err, r.err
    assert "Traceback" not in r.err
    assert (c.home / "logdir" / "lsb.events").read_text() == before
    # Back to virtual: the cluster goes on from its own time.
    _set_clock_mode(c, "virtual")
    assert c.run("lsfemu clock show").out.startswith("virtual clock: Mon Jan  7 09:10:00 2036")
    c.advance("1m")
    times = _event_times(c)
    assert times == sorted(times)


def test_a_wall_cluster_switched_to_virtual_goes_on_from_its_last_instant(lsf_cluster_factory):
    """The store keeps the cluster's time in both modes: a wall cluster switched to the
    virtual clock starts from where it was, not from the instant the cluster was made."""
    import time

    c = lsf_cluster_factory(clock="wall")  # made on Jan 5 2026 (LSFEMU_CLOCK_START), long ago
    assert c.run("badmin qclose normal", user="lsfadmin").rc == 0
    t0 = time.time()
    assert c.run("lsfemu daemon stop").rc == 0
    _set_clock_mode(c, "virtual")
    r = c.run("lsfemu clock show")
    now = float(r.out.split("(")[1].split(")")[0])
    assert t0 - 5 <= now <= time.time() + 0.5, r.out  # (shown to the nearest second: up to half a second on)
    assert c.run("badmin qopen normal", user="lsfadmin").rc == 0
    times = _event_times(c)
    assert times == sorted(times), times
