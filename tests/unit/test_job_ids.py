"""Job IDs after the count rolls over at MAX_JOBID: IDs still in use are
skipped (LSF's "Job ID limit"), the next free one found by one query each way
round (it was one query per ID: minutes near a million jobs)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import insert

pytestmark = pytest.mark.slow(27)  # seconds, quiet machine: scheduled early (tests/conftest.py)

MAX_ID = 999999  # LSF's default MAX_JOBID, the smallest it allows


def _cluster(root: Path):
    from lsfemu.config.sample import write_cluster
    from lsfemu.engine.cluster import Cluster

    envdir = write_cluster(str(root / "conf"), force=True)
    os.environ["LSFEMU_CLOCK_START"] = "1767603600"
    return Cluster(str(envdir), str(root / "home"))


def _occupy(cl, ids: list[int]) -> None:
    """Jobs with these IDs in the store (finished: they only hold their IDs)."""
    from lsfemu.store.models import Job

    rows = [dict(id=i, array_index=0, user="user1", status="DONE", queue="normal", from_host="h0", command="true",
                 num_processors=1, priority=None, priority_base_time=0.0, pend_since=0.0, submit_time=0.0,
                 finish_time=0.0, position=float(i), exec_hosts="", pend_reasons="", sim_runtime=1.0,
                 sim_cputime=1.0, env_json="{}") for i in ids]
    cl.session.execute(insert(Job), rows)
    cl.session.commit()


def _next(cl, counter: int, taken: list[int]) -> list[int]:
    _occupy(cl, taken)
    cl.takes.set("next_job_id", counter)
    got = [cl.next_job_id() for _ in range(3)]
    cl.session.commit()
    return got


@pytest.mark.parametrize(("counter", "taken", "expected"), [
    # the counter's ID is free: taken in sequence, used ones skipped
    (10, [11, 13], [10, 12, 14]),
    # a run of used IDs after the counter: the first free ID after the run
    (500, list(range(500, 900)), [900, 901, 902]),
    # rolling over at MAX_JOBID onto low IDs still in use
    (MAX_ID - 1, [MAX_ID - 1, MAX_ID, 1, 2, 3, 5], [4, 6, 7]),
    # at MAX_JOBID itself, then 1 is free
    (MAX_ID, [MAX_ID - 2], [MAX_ID, 1, 2]),
    # everything from the counter to MAX_JOBID used: found again from 1
    (MAX_ID - 3, list(range(MAX_ID - 3, MAX_ID + 1)) + [1], [2, 3, 4]),
])
def test_job_ids_skip_the_ones_in_use(tmp_path, counter, taken, expected):
    cl = _cluster(tmp_path)
    assert _next(cl, counter, taken) == expected


def test_one_query_finds_the_free_id_after_a_long_run(tmp_path):
    """100,000 used IDs after the counter cost a handful of statements, not one each."""
    from sqlalchemy import event

    cl = _cluster(tmp_path)
    _occupy(cl, list(range(1000, 101000)))
    cl.takes.set("next_job_id", 1000)
    statements = []
    event.listen(cl.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    assert cl.next_job_id() == 101000
    assert len(statements) <= 6, statements


def test_every_id_in_use_refuses_the_submission_and_changes_nothing(lsf_cluster):
    """With every ID up to MAX_JOBID held, bsub says LSF's LSBE_NO_JOBID
    text and nothing changes (the counter stays where it was)."""
    c = lsf_cluster
    text = c.path_of("lsb.params").read_text().replace("End Parameters", "MAX_JOBID = 3\nEnd Parameters")
    c.write("lsb.params", text)
    for n in (1, 2, 3):  # (pending: no host runs them before the clock moves)
        r = c.run(["bsub", "sleep", "100"])
        assert r.rc == 0 and f"Job <{n}> is submitted" in r.out, r.text
    before = c.store_rows("SELECT name, value FROM counters ORDER BY name")
    r = c.run(["bsub", "sleep", "100"])
    assert (r.out, r.err, r.rc) == ("", "No job Id can be used now. Job not submitted.\n", 255)
    assert c.store_rows("SELECT name, value FROM counters ORDER BY name") == before
    assert [row[0] for row in c.store_rows("SELECT id FROM jobs ORDER BY id")] == [1, 2, 3]
