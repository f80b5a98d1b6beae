"""A bug met while building the bad-input corpus (not itself about bad input).

After an idle stretch of virtual time the next scheduling pass is dated at the
first grid point after the last pass that ran, not at the present: a job
submitted at 09:01:00 is started "at 09:00:10", 50 seconds before it existed.
"""

from __future__ import annotations

import sqlite3



def test_a_job_never_starts_before_it_was_submitted(lsf_cluster):
    c = lsf_cluster
    c.advance("1m")  # 09:01:00; no pass had anything to do since 09:00:00
    r = c.run("bsub sleep 100", user="user1")
    assert r.rc == 0, r.text
    c.advance("10s")
    con = sqlite3.connect(f"file:{c.home / 'lsfemu.db'}?mode=ro", uri=True)
    try:
        submit, start = con.execute("SELECT submit_time, start_time FROM jobs WHERE id = 1").fetchone()
    finally:
        con.close()
    assert start is not None
    assert start >= submit, f"submitted at {submit}, started at {start} ({submit - start:.0f} s earlier)"
