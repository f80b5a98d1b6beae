"""Who may do what: (owner, other user, queue administrator, cluster
administrator) x job and cluster commands, allowed or `User permission
denied` as LSF decides.

The job belongs to user1 and sits in queue `priority`, whose ADMINISTRATORS
is user3 (the `lsfemu init` cluster); lsfadmin is the cluster administrator.
`lsfemu clock` is lsfemu's own and open to everyone (docs/semantics.md).
"""

import pytest

from lsfemu.testing import LsfCluster

pytestmark = pytest.mark.slow(33)  # seconds, quiet machine: scheduled early (tests/conftest.py)

ROLES = {"owner": "user1", "other": "user2", "queue_admin": "user3", "cluster_admin": "lsfadmin"}
ALL = {"owner", "other", "queue_admin", "cluster_admin"}
ADMINS = {"queue_admin", "cluster_admin"}

# command (argv with {job}), the job's state, the roles allowed
MATRIX = [
    ("bmod -sp 60 {job}", "PEND", {"owner"} | ADMINS),
    ("bmod -aps system=5 {job}", "PEND", ADMINS),
    ("btop {job}", "PEND", {"owner"} | ADMINS),
    ("bbot {job}", "PEND", {"owner"} | ADMINS),
    ("bkill {job}", "PEND", {"owner"} | ADMINS),
    ("bstop {job}", "PEND", {"owner"} | ADMINS),
    ("bresume {job}", "PSUSP", {"owner"} | ADMINS),
    ("brequeue {job}", "RUN", {"owner"} | ADMINS),
    ("bswitch normal {job}", "PEND", {"owner"} | ADMINS),
    ("bmig {job}", "RUN", {"owner"} | ADMINS),
    ("badmin reconfig", None, {"cluster_admin"}),
    ("badmin qclose normal", None, {"cluster_admin"}),
    ("lsfemu clock advance 1s", None, ALL),
]
DENIED = "User permission denied"


@pytest.fixture(scope="module")
def clusters(tmp_path_factory):
    """`full`: no free slot (jobs stay pending); `free`: jobs start at the next pass."""
    made = {}
    full_hosts = "Begin Host\nHOST_NAME MXJ\nhostA 1\nhostB 0\nhostC 0\nEnd Host\n"
    for name, files in (("full", {"lsb.hosts": full_hosts}), ("free", {})):
        c = LsfCluster(tmp_path_factory.mktemp(name), files=files)
        made[name] = c
    made["full"].run("bsub -q normal sleep 1000000", user="lsfadmin")  # takes the only slot
    made["full"].advance("10s")
    yield made
    for c in made.values():
        c.stop()


def _job_in_state(clusters, state):
    c = clusters["full" if state in ("PEND", "PSUSP") else "free"]
    r = c.run("bsub -r -q priority sleep 100000", user="user1")
    job = r.out.split("<")[1].split(">")[0]
    if state == "PSUSP":
        c.run(f"bstop {job}", user="user1")
    if state == "RUN":
        c.advance("10s")
    assert state in c.run(f"bjobs -noheader -o stat {job}").out
    return c, job


@pytest.mark.parametrize("role", sorted(ROLES))
@pytest.mark.parametrize("cmd,state,allowed", MATRIX, ids=[m[0].split(" {")[0] for m in MATRIX])
def test_permission(clusters, cmd, state, allowed, role):
    if state is None:
        c, job = clusters["free"], ""
    else:
        c, job = _job_in_state(clusters, state)
    r = c.run(cmd.format(job=job), user=ROLES[role])
    if role in allowed:
        assert r.rc == 0 and DENIED not in r.err, (role, cmd, r.text)
    else:
        assert r.rc == 255 and DENIED in r.err and "Traceback" not in r.err, (role, cmd, r.text)
        if job:  # nothing changed
            assert state in c.run(f"bjobs -noheader -o stat {job}").out
    if cmd.startswith("badmin qclose") and role in allowed:
        c.run("badmin qopen normal", user="lsfadmin")
