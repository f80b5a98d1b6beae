"""The cluster's safety (issue 16): commands that must not lose jobs, the daemon
or the order of time.

Times: the fixture's virtual clock starts Mon Jan 5 09:00:00 2026 UTC.
"""


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
