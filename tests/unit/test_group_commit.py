"""Group commit of submissions (issue 23): bsub requests that wait for the
daemon run together and are committed once -- one transaction, one
lsb.events append -- and each is answered only after that commit; a request
that fails takes none of the others with it; a commit that fails fails them
all and stores nothing. In-process: a Daemon object on a Cluster, no socket.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import text

pytestmark = pytest.mark.slow(6)


@pytest.fixture
def daemon(tmp_path, monkeypatch):
    from lsfemu.config.sample import write_cluster
    from lsfemu.daemon.server import Daemon
    from lsfemu.engine.cluster import Cluster

    monkeypatch.setenv("LSFEMU_CLOCK_START", "1767603600")
    envdir = str(write_cluster(str(tmp_path / "conf"), clock="virtual", force=True))
    d = Daemon(str(tmp_path / "home"), envdir)
    d.cluster = Cluster(envdir, d.home)
    yield d
    d.cluster.close()


def _req(d, *argv: str) -> dict:
    return {"cmd": "bsub", "argv": list(argv), "cwd": "/tmp", "stdin": None,
            "env": {"LSF_ENVDIR": d.envdir, "LSFEMU_USER": "user1", "HOME": "/tmp"}}


def _job_news(d) -> list[str]:
    text = (Path(d.cluster.logdir) / "lsb.events").read_text()
    return [line for line in text.splitlines() if line.startswith('"JOB_NEW"')]


def _commits(d, monkeypatch) -> list[int]:
    """Each commit of the cluster, as the number of records it appended to lsb.events."""
    cl, seen = d.cluster, []
    commit, append = cl.commit, cl.events._append
    monkeypatch.setattr(cl.events, "_append", lambda records: (seen.append(len(records)), append(records)))
    monkeypatch.setattr(cl, "commit", lambda: (seen.append(0), commit()))
    return seen


def test_waiting_submissions_run_as_one_group_one_commit_one_append(daemon, monkeypatch):
    d = daemon
    seen = _commits(d, monkeypatch)
    answers: dict[str, dict] = {}

    def submit(name: str) -> None:
        answers[name] = d.serve(_req(d, "-J", name, "sleep", "100"), os.getuid())

    # The daemon busy with another request: three submissions arrive and wait.
    with d.lock:
        threads = [threading.Thread(target=submit, args=(n,)) for n in ("a", "b", "c")]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while len(d.waiting) < 3:
            assert time.monotonic() < deadline, "the submissions did not arrive"
            time.sleep(0.01)
        assert not answers  # nobody answered before the commit
    for t in threads:
        t.join(30)
    assert seen == [0, 3]  # one commit, one append of the three JOB_NEW records
    ids = sorted(int(a["out"].split("<")[1].split(">")[0]) for a in answers.values())
    assert ids == [1, 2, 3] and all(a["rc"] == 0 for a in answers.values())
    names = {j.name: j.id for j in d.cluster.jobs.values()}
    assert {n: f"Job <{names[n]}> is submitted" in answers[n]["out"] for n in "abc"} == dict.fromkeys("abc", True)
    assert len(_job_news(d)) == 3
    # the counters were written back: the next submission, alone, gets the next ID
    assert "Job <4> is submitted" in d.serve(_req(d, "sleep", "1"), os.getuid())["out"]
    assert d.cluster.session.execute(text("SELECT value FROM counters WHERE name = 'next_job_id'")).scalar() == 5


def test_a_failing_request_takes_no_other_with_it(daemon, monkeypatch):
    from lsfemu.daemon import dispatch
    from lsfemu.ops import submit as ops_submit

    d = daemon
    real = ops_submit.submit

    def submit(cl, caller, r):
        if r.job_name == "boom":
            real(cl, caller, r)  # stored, then a bug: the request's rollback undoes it
            raise RuntimeError("a bug")
        return real(cl, caller, r)

    monkeypatch.setattr(ops_submit, "submit", submit)
    reqs = [(_req(d, "-J", n, "sleep", "100"), os.getuid(), None) for n in ("a", "b", "boom", "c")]
    results = dispatch.handle_group(d.cluster, reqs)
    assert [r.rc for r in results] == [0, 0, 255, 0]
    assert "internal error in lsfemu" in results[2].err
    # a and b ran again after the rollback, each committed; c after them: no ID lost
    assert [r.out.split(">")[0] for r in results if r.rc == 0] == ["Job <1", "Job <2", "Job <3"]
    assert sorted((j.id, j.name) for j in d.cluster.jobs.values()) == [(1, "a"), (2, "b"), (3, "c")]
    assert len(_job_news(d)) == 3


def test_a_failed_commit_fails_the_group_and_stores_nothing(daemon, monkeypatch):
    from lsfemu.daemon import dispatch

    d = daemon
    cl = d.cluster

    def full(records):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cl.events, "_append", full)
    reqs = [(_req(d, "-J", n, "sleep", "100"), os.getuid(), None) for n in ("a", "b")]
    results = dispatch.handle_group(cl, reqs)
    assert [r.rc for r in results] == [255, 255]
    assert all(r.err.endswith(". Job not submitted.\n") and "No space left" in r.err for r in results)
    assert cl.jobs == {} and _job_news(d) == []
    monkeypatch.undo()
    assert "Job <1> is submitted" in dispatch.handle(cl, reqs[0][0], os.getuid()).out


def test_connection_threads_are_a_pool_and_a_long_request_holds_up_no_other(tmp_path):
    """The Unix server's connections go to idle workers (no thread started per
    request, issue 23), and a connection that takes long (bsub -K's wait) gets
    a worker of its own: the others are still served meanwhile."""
    import socket
    import socketserver

    from lsfemu.daemon.server import _Server

    release = threading.Event()
    served: list[str] = []

    class Echo(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            word = self.request.recv(16).decode()
            if word == "wait":
                release.wait(30)
            served.append(word)
            self.request.sendall(threading.current_thread().name.encode())

    path = str(tmp_path / "s.sock")
    server = _Server(path, Echo)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def ask(word: str) -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(30)
            s.connect(path)
            s.sendall(word.encode())
            return s.recv(64).decode()

    try:
        waiting = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        waiting.settimeout(30)
        waiting.connect(path)
        waiting.sendall(b"wait")
        names = []
        for i in range(5):  # served while "wait" holds its worker
            names.append(ask(f"q{i}"))
            deadline = time.monotonic() + 30
            while server._idle < 1 and time.monotonic() < deadline:  # its worker back in the pool
                time.sleep(0.001)
        assert served == [f"q{i}" for i in range(5)]
        assert len(set(names)) == 1  # one worker, taken again for each request in turn
        release.set()
        assert waiting.recv(64).decode() not in names  # the long one had a worker of its own
        waiting.close()
    finally:
        release.set()
        server.shutdown()
        server.server_close()
