"""bsub -R through the one parser of resource requirements (lsfemu.sched.resreq):
what it takes and refuses, and the amounts APS reads from what it took (issue 16,
item 4)."""

from __future__ import annotations

import pytest

from lsfemu.testing import temporary_cluster

pytestmark = pytest.mark.slow(13)  # seconds, quiet machine; CPU 22.3 -> 11.2 s with its daemons (A/B, load 6-9)

QUEUES = """Begin Queue
QUEUE_NAME   = normal
PRIORITY     = 30
APS_PRIORITY = WEIGHT[[MEM, 1]]
End Queue

Begin Queue
QUEUE_NAME   = busy
PRIORITY     = 40
End Queue
"""
ONE_SLOT = "Begin Host\nHOST_NAME MXJ\nhostA 1\nhostB 0\nhostC 0\nEnd Host\n"


FILES = {"lsb.queues": QUEUES, "lsb.hosts": ONE_SLOT}


def _filled(c):
    c.run("bsub -q busy sleep 100000", user="filler")  # job 1 holds the only slot: the others pend
    c.advance("10s")
    return c


@pytest.fixture
def c(lsf_cluster_factory):
    return _filled(lsf_cluster_factory(files=FILES))


@pytest.fixture(scope="module")
def refusing():
    """One cluster for the refused submissions: each leaves the filler's job alone in the store."""
    with temporary_cluster(files=FILES) as c:
        yield _filled(c)


def _aps(c, job: int) -> str:
    return c.run(f"bjobs -aps -noheader {job}").out.split()[-1]


def test_bsub_takes_lsf_s_own_spellings_and_aps_reads_their_amounts(c):
    cases = [
        ("rusage[mem=(500 200):duration=(10 20)]", "500.00"),  # seed 001: the first phase counts
        ("rusage[mem=16G]", "16384.00"),
        ("rusage[mem=500MB]", "500.00"),
        ("select[mem>4G] order[-mem] rusage[mem=100:duration=1h] span[hosts=1] same[model]", "100.00"),
        ("2*{rusage[mem=100]} + {rusage[mem=7]}", "107.00"),
    ]
    for n, (text, value) in enumerate(cases, start=2):
        r = c.run(["bsub", "-R", text, "sleep", "1"], user="user1")
        assert r.out == f"Job <{n}> is submitted to default queue <normal>.\n", (text, r.text)
    c.advance("10s")
    assert [_aps(c, n) for n in range(2, len(cases) + 2)] == [v for _, v in cases]


def test_bare_amounts_are_in_lsf_unit_for_limits(c):
    c.write("lsf.conf", c.path_of("lsf.conf").read_text() + "LSF_UNIT_FOR_LIMITS=GB\n")
    assert c.run("lsfemu daemon restart").rc == 0  # lsf.conf is read when mbatchd starts
    c.run("bsub -R rusage[mem=2] sleep 1", user="user1")
    c.run("bsub -R rusage[mem=512MB] sleep 1", user="user1")
    c.advance("10s")
    assert (_aps(c, 2), _aps(c, 3)) == ("2048.00", "512.00")


@pytest.mark.parametrize("text", [
    "rusage[mem=(200 500):duration=(10 20)]", "rusage[mem=(500 200)]", "rusage[mem=1:mem=2]", "select[mem=100]",
    "foo[bar]", "span[hosts=0]", "rusage[mem=4XB]", "{rusage[mem=1]} || rusage[mem=2]",
])
def test_bsub_refuses_what_lsf_refuses_and_stores_nothing(refusing, text):
    c = refusing
    r = c.run(["bsub", "-R", text, "sleep", "1"], user="user1")
    assert (r.out, r.err, r.rc) == ("", f"{text}: Bad resource requirement syntax. Job not submitted.\n", 255)
    assert c.store_rows("SELECT count(*) FROM jobs") == [(1,)]
