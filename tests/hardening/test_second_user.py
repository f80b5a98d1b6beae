"""A second OS user against a cluster it does not own (root's, here).

lsfemu's clusters are per OS user (docs/semantics.md, "The state folder and
other OS users"): the state folder and the socket are the owner's only
(0700), so another user can neither read nor write the store nor reach the
daemon, and gets one clear line instead of a traceback. Behind the file
modes, identity is the socket's peer credentials (SO_PEERCRED): even through
a socket opened to everyone by hand, another user is itself, whatever
LSFEMU_USER says.

Needs root (to create the user `lsfemu_t2` with useradd; removed at the end)
and an interpreter that user may run. The client is standard library only, so
any python3 that can read the package will do: sys.executable first, then
python3 on PATH and /usr/bin/python3 (a venv under /root is not readable by
others). Skipped, with the reason, when there is none.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from store_snapshot import snapshot

import lsfemu

pytestmark = pytest.mark.slow(13)  # seconds, quiet machine: scheduled early (tests/conftest.py)

USER = "lsfemu_t2"
PKG_ROOT = str(Path(lsfemu.__file__).resolve().parent.parent)
CLIENT = ("import sys; sys.path.insert(0, sys.argv[1]); from lsfemu.client import run; "
          "sys.exit(run(sys.argv[2], sys.argv[3:]))")
PROBE = """
import os, sqlite3, sys
home = sys.argv[1]
def attempt(name, fn):
    try:
        fn()
        print(name, "allowed")
    except Exception as e:
        print(name, type(e).__name__)
attempt("list", lambda: os.listdir(home))
attempt("read-db", lambda: open(os.path.join(home, "lsfemu.db"), "rb").read(16))
attempt("read-events", lambda: open(os.path.join(home, "logdir", "lsb.events"), "rb").read(16))
attempt("create", lambda: open(os.path.join(home, "intruder"), "w").close())
attempt("sqlite", lambda: sqlite3.connect("file:" + os.path.join(home, "lsfemu.db") + "?mode=ro", uri=True)
        .execute("SELECT count(*) FROM jobs").fetchall())
attempt("connect", lambda: __import__("socket").socket(1).connect(os.path.join(home, "mbatchd.sock")))
"""


def _run(argv, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, **kw)


@pytest.fixture(scope="module")
def other():
    """(passwd entry, interpreter) of a second OS user, created for these tests."""
    if os.geteuid() != 0:
        pytest.skip("needs root to create a second OS user")
    if shutil.which("useradd") is None or shutil.which("userdel") is None:
        pytest.skip("needs useradd and userdel")
    created = False
    try:
        pw = pwd.getpwnam(USER)
    except KeyError:
        r = _run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER])
        if r.returncode != 0:
            pytest.skip(f"useradd {USER} failed: {r.stderr.strip()}")
        created = True
        pw = pwd.getpwnam(USER)
    try:
        python = None
        candidates = [sys.executable, shutil.which("python3"), "/usr/bin/python3", "/usr/local/bin/python3"]
        for py in dict.fromkeys(c for c in candidates if c):
            try:
                r = _run([py, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import lsfemu.client", PKG_ROOT],
                         user=pw.pw_uid, group=pw.pw_gid, extra_groups=[], cwd="/", env={"PATH": "/usr/bin:/bin"})
            except OSError:
                continue
            if r.returncode == 0:
                python = py
                break
        if python is None:
            pytest.skip(f"{USER} can run no python3 that reads {PKG_ROOT} (tried {', '.join(filter(None, candidates))})")
        yield pw, python
    finally:
        if created:
            _run(["userdel", USER])


def _as_other(other, c, argv: list[str], user: str | None = "user1", code: str = CLIENT):
    """Run the lsfemu client (or `code`) as the second OS user, LSFEMU_USER=`user`."""
    pw, python = other
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "TZ": "UTC",
           "LSF_ENVDIR": str(c.envdir), "LSFEMU_HOME": str(c.home)}
    if user:
        env["LSFEMU_USER"] = user
    head = [python, "-c", code, PKG_ROOT] if code is CLIENT else [python, "-c", code]
    return _run(head + argv, user=pw.pw_uid, group=pw.pw_gid, extra_groups=[], cwd="/", env=env)


@pytest.fixture
def cluster(lsf_cluster):
    """root's cluster with one job of user1; the folders around LSFEMU_HOME open to
    all, so that only LSFEMU_HOME's own mode stands between the other user and it."""
    c = lsf_cluster
    os.chmod(c.root, 0o755)
    r = c.run("bsub -J owned sleep 1000", user="user1")
    assert r.out == "Job <1> is submitted to default queue <normal>.\n", r.text
    return c


def test_the_state_folder_is_closed_to_other_users(other, cluster):
    c = cluster
    assert stat.S_IMODE(c.home.stat().st_mode) == 0o700
    assert stat.S_IMODE((c.home / "mbatchd.sock").stat().st_mode) == 0o700
    before = sorted(os.listdir(c.home))
    p = _as_other(other, c, [str(c.home)], code=PROBE)
    assert p.returncode == 0, p.stderr
    seen = dict(line.split(" ", 1) for line in p.stdout.splitlines())
    assert seen == {"list": "PermissionError", "read-db": "PermissionError", "read-events": "PermissionError",
                    "create": "PermissionError", "sqlite": "OperationalError", "connect": "PermissionError"}, p.stdout
    assert sorted(os.listdir(c.home)) == before


def test_other_user_gets_one_clear_line_and_changes_nothing(other, cluster):
    c = cluster
    before = snapshot(c)
    files = sorted(os.listdir(c.home))
    refused = (f"Cannot connect to LSF: {c.home / 'mbatchd.sock'}: Permission denied; the cluster in {c.home} "
               f"belongs to user root; each OS user has a cluster of its own\n")
    for argv in (["bjobs", "-u", "all"], ["bsub", "-J", "intruder", "sleep", "1"], ["bkill", "1"],
                 ["badmin", "qclose", "normal"], ["lsfemu", "clock", "advance", "1h"]):
        p = _as_other(other, c, argv)
        assert (p.returncode, p.stdout, p.stderr) == (255, "", refused), (argv, p.stdout, p.stderr)
    # A folder one may pass through does not help: the socket itself is the owner's only.
    os.chmod(c.home, 0o711)
    try:
        p = _as_other(other, c, ["bsub", "-J", "intruder", "sleep", "1"])
        assert (p.returncode, p.stdout, p.stderr) == (255, "", refused), p.stderr
    finally:
        os.chmod(c.home, 0o700)
    assert snapshot(c) == before
    assert sorted(os.listdir(c.home)) == files  # no second daemon, no lock, no log of the other user
    assert c.run("bjobs -u all -noheader -o 'jobid user job_name stat'").out == "1 user1 owned PEND\n"


def test_identity_is_the_peer_not_lsfemu_user(other, cluster):
    """Opened by hand (unsupported: see docs/semantics.md), the socket still knows
    who calls: the peer's uid. LSFEMU_USER is honoured only for the daemon's own uid."""
    c = cluster
    os.chmod(c.home, 0o711)
    os.chmod(c.home / "mbatchd.sock", 0o777)
    try:
        p = _as_other(other, c, ["bkill", "1"], user="user1")
        assert (p.returncode, p.stdout, p.stderr) == (255, "", "Job <1>: User permission denied\n")
        p = _as_other(other, c, ["badmin", "qclose", "normal"], user="lsfadmin")
        assert p.returncode == 255 and "User permission denied" in p.stderr, p.stderr
        p = _as_other(other, c, ["bsub", "-J", "theirs", "sleep", "10"], user="user1")
        assert (p.returncode, p.stdout) == (0, "Job <2> is submitted to default queue <normal>.\n"), p.stderr
    finally:
        os.chmod(c.home, 0o700)
        os.chmod(c.home / "mbatchd.sock", 0o700)
    r = c.run("bjobs -u all -noheader -o 'jobid user job_name stat'")
    assert r.out == f"1 user1 owned PEND\n2 {USER} theirs PEND\n", r.text
    r = c.run("bqueues normal")
    assert r.out.splitlines()[1].split()[2] == "Open:Active", r.text  # the qclose did not take effect
    # The owner's uid may still act as any LSF user.
    assert c.run("bkill 1", user="user1").rc == 0
