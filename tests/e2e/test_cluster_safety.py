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
