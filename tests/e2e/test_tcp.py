"""Commands from other hosts: the daemon on TCP (LSB_MBD_PORT), signed requests,
the client finding the master through LSF_MASTER_LIST, and a command from a
separate network namespace (as root)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from lsfemu import protocol
from lsfemu.daemon.tcp import TcpGate

pytestmark = pytest.mark.slow(38)  # seconds, quiet machine: scheduled early (tests/conftest.py)



def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_shared(factory, masters: str = "127.0.0.1", clients: tuple[str, ...] = ("127.0.0.1",), port: int | None = None):
    """A cluster whose lsf.conf sets LSB_MBD_PORT and LSF_MASTER_LIST; `clients`
    are added to lsf.cluster as client hosts (SERVER 0), named by address."""
    c = factory()
    c.port = port or free_port()
    conf = c.path_of("lsf.conf")
    conf.write_text(conf.read_text().replace('LSF_MASTER_LIST="hostA"', f'LSF_MASTER_LIST="{masters}"')
                    + f"LSB_MBD_PORT={c.port}\nLSB_API_CONNTIMEOUT=2\n")
    hosts = c.path_of("lsf.cluster.cluster1")
    rows = "".join(f"{h:<15} !        !        0       -      -       -       -       ()\n" for h in clients)
    hosts.write_text(hosts.read_text().replace("End Host", rows + "End Host", 1))
    r = c.run("lsfemu daemon start")
    assert r.rc == 0, r.text
    c.remote_env = {"LSFEMU_HOME": str(c.root / "elsewhere"), "LSFEMU_AUTOSTART": "0"}
    return c


def remote(c, cmdline: str, user: str | None = None, stdin: str | None = None, **env):
    """A command from 'another host': a state folder with no daemon, so the client goes by TCP."""
    return c.run(cmdline, user=user, stdin=stdin, env={**c.remote_env, **env})


def jobs_and_events(c) -> tuple[str, int]:
    out = c.run("bjobs -a -u all -noheader -o 'jobid user stat'").text
    events = (c.home / "logdir" / "lsb.events").read_text()
    return out, events.count('"JOB_NEW"')


def send_raw(port: int, frame: bytes, source: str | None = None) -> tuple[str, str, int, str]:
    with socket.create_connection(("127.0.0.1", port), timeout=10,
                                  source_address=(source, 0) if source else None) as s:
        s.sendall(frame)
        f = protocol.decode_fields(protocol.recv_frame(s))
    return f[1], f[2], int(f[0]), f[3]


def signed_bsub(c, key: bytes | None = None, user: str = "user1", argv=("-J", "raw", "sleep", "10"), **kw) -> bytes:
    key = key or protocol.read_key(protocol.key_path(str(c.envdir)))
    req = {"cmd": "bsub", "argv": list(argv), "cwd": "/tmp", "env": {"LSF_ENVDIR": "/elsewhere"}, "stdin": None, "tty": False}
    frame, _nonce = protocol.sign_request(key, user, protocol.encode_request(req)[4:], **kw)
    return frame


def test_a_command_over_tcp_on_loopback_end_to_end(lsf_cluster_factory):
    c = make_shared(lsf_cluster_factory)
    r = remote(c, "bsub -J overtcp sleep 100", user="user1")
    assert (r.out, r.err, r.rc) == ("Job <1> is submitted to default queue <normal>.\n", "", 0)
    # The job is the cluster's: the local client (Unix socket) sees it, from host 127.0.0.1.
    assert c.run("bjobs -noheader -o 'jobid user stat from_host job_name' 1").out == "1 user1 PEND 127.0.0.1 overtcp\n"
    r = remote(c, "bjobs -noheader -o 'jobid user stat from_host' 1")
    assert (r.out, r.rc) == ("1 user1 PEND 127.0.0.1\n", 0)
    # Identity is the signed user: user2 may not kill user1's job, user1 may.
    r = remote(c, "bkill 1", user="user2")
    assert (r.err, r.rc) == ("Job <1>: User permission denied\n", 255)
    r = remote(c, "bkill 1", user="user1")
    assert (r.out, r.rc) == ("Job <1> is being terminated\n", 0)
    # stdin (bsub < script) travels too.
    r = remote(c, "bsub", user="user2", stdin="#BSUB -J fromstdin\nsleep 5\n")
    assert r.rc == 0, r.text
    assert c.run("bjobs -noheader -o 'user job_name' 2").out == "user2 fromstdin\n"
    # Managing a daemon is for its own host.
    r = remote(c, "lsfemu clock show")
    assert r.rc == 0, r.text
    req = {"cmd": "lsfemu", "argv": ["daemon", "stop"], "cwd": "/", "env": {}, "stdin": None, "tty": False}
    key = protocol.read_key(protocol.key_path(str(c.envdir)))
    frame, _nonce = protocol.sign_request(key, "lsfadmin", protocol.encode_request(req)[4:])
    _out, err, rc, _mac = send_raw(c.port, frame)
    assert rc == 255 and "acts on the daemon of this host only" in err
    assert c.run("lsfemu daemon status").rc == 0
    # badmin mbdrestart from the other host: the new image keeps the TCP port (handed over).
    pid = (c.home / "mbatchd.lock").read_text().split()[0]
    r = remote(c, "badmin mbdrestart", user="lsfadmin")
    assert r.rc == 0 and "MBD restart initiated" in r.out, r.text
    deadline = time.monotonic() + 30
    while (c.home / "daemon.log").read_text().count("listening on TCP port") < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    r = remote(c, "bjobs -noheader -o 'jobid user' 2")
    assert (r.out, r.rc) == ("2 user2\n", 0)
    assert (c.home / "mbatchd.lock").read_text().split()[0] == pid  # re-executed in place


def test_refused_requests_change_nothing(lsf_cluster_factory):
    c = make_shared(lsf_cluster_factory)
    before = jobs_and_events(c)
    assert before == ("No job found\n", 0)
    good = signed_bsub(c)
    payload = good[4:]
    tampered = good[:4] + payload.replace(b"sleep", b"sleeq")
    now = time.time()
    cases = {
        "bad key": (signed_bsub(c, key=os.urandom(32).hex().encode()), "the request is not signed with this cluster's key"),
        "tampered body": (tampered, "the request is not signed with this cluster's key"),
        "another user under the same signature": (good[:4] + payload.replace(b"user1", b"user2"),
                                                  "the request is not signed with this cluster's key"),
        "stale timestamp": (signed_bsub(c, ts=str(int((now - 3600) * 1000))), "away from the master's clock"),
        "timestamp in the future": (signed_bsub(c, ts=str(int((now + 3600) * 1000))), "away from the master's clock"),
        "signed before the daemon started": (signed_bsub(c, ts=str(int((now - 120) * 1000))),
                                             "signed before this daemon started serving"),
    }
    for name, (frame, why) in cases.items():
        out, err, rc, mac = send_raw(c.port, frame)
        assert (out, rc, mac) == ("", 255, ""), name
        assert err.startswith("User permission denied: ") and why in err and err.count("\n") == 1, (name, err)
    # A host that is not in lsf.cluster: 127.0.0.2 is this machine, but not listed.
    out, err, rc, mac = send_raw(c.port, good, source="127.0.0.2")
    assert (out, err, rc, mac) == ("", "Request from non-LSF host rejected\n", 255, "")
    assert jobs_and_events(c) == before
    log = (c.home / "daemon.log").read_text()
    assert "refused a TCP connection from 127.0.0.2: no host of" in log
    assert "refused a request from host 127.0.0.1 (127.0.0.1): the request is not signed" in log
    # The good request goes through once; its replay is refused and changes nothing.
    out, err, rc, mac = send_raw(c.port, good)
    assert (out, rc) == ("Job <1> is submitted to default queue <normal>.\n", 0) and mac
    after = jobs_and_events(c)
    assert after == ("1 user1 PEND\n", 1)
    out, err, rc, mac = send_raw(c.port, good)
    assert (out, err, rc) == ("", "User permission denied: the request was already received (a replay); nothing was changed\n", 255)
    assert jobs_and_events(c) == after


def test_client_key_problems_are_one_line(lsf_cluster_factory):
    c = make_shared(lsf_cluster_factory)
    other = c.root / "clientconf"
    shutil.copytree(c.envdir, other)
    keyfile = other / protocol.KEY_FILE
    # A key copied with the wrong mode is refused by the client before anything is sent.
    os.chmod(keyfile, 0o644)
    r = remote(c, "bjobs", LSF_ENVDIR=str(other))
    assert r.rc == 255 and r.err == f"lsfemu: the cluster key {keyfile} is readable by others (mode 644); run 'chmod 600 {keyfile}'\n"
    # Another cluster's key: the daemon refuses, the client prints its line.
    os.chmod(keyfile, 0o600)
    keyfile.write_text(os.urandom(32).hex() + "\n")
    r = remote(c, "bsub sleep 1", user="user1", LSF_ENVDIR=str(other))
    assert (r.out, r.err, r.rc) == ("", "User permission denied: the request is not signed with this cluster's key; nothing was changed\n", 255)
    keyfile.unlink()
    r = remote(c, "bjobs", LSF_ENVDIR=str(other))
    assert r.rc == 255 and r.err.startswith(f"lsfemu: cannot read the cluster key {keyfile}: No such file")
    assert jobs_and_events(c) == ("No job found\n", 0)


def test_daemon_does_not_start_with_an_open_key_or_a_taken_port(lsf_cluster_factory):
    c = make_shared(lsf_cluster_factory)
    c.run("lsfemu daemon stop")
    keyfile = c.envdir / protocol.KEY_FILE
    os.chmod(keyfile, 0o644)
    r = c.run("lsfemu daemon start")
    assert r.rc == 1 and "LSB_MBD_PORT is set but the cluster key cannot be used: the cluster key" in r.err
    assert "Traceback" not in r.text
    os.chmod(keyfile, 0o600)
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", c.port))
        s.listen()
        r = c.run("lsfemu daemon start")
        assert r.rc == 1 and f"cannot listen on TCP port {c.port} (LSB_MBD_PORT): Address already in use" in r.err, r.text
    assert c.run("lsfemu daemon start").rc == 0
    # A missing key is made on the first start (0600).
    c.run("lsfemu daemon stop")
    keyfile.unlink()
    assert c.run("lsfemu daemon start").rc == 0
    assert os.stat(keyfile).st_mode & 0o777 == 0o600


class FakeCandidate(threading.Thread):
    """A master candidate on one loopback address: a standby answers NOT_MASTER_RC."""

    def __init__(self, key: bytes, addr: str, port: int, answer: str | None):
        super().__init__(daemon=True)
        self.gate, self.answer = TcpGate(key, accept_since=0), answer
        self.sock = socket.create_server((addr, port))
        self.seen: list[list[str]] = []

    def stop(self) -> None:
        self.sock.shutdown(socket.SHUT_RDWR)  # wakes accept(); close alone would not
        self.sock.close()
        self.join(10)

    def run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                raw = protocol.recv_frame(conn)
                user, nonce, req = self.gate.verify(raw)
                self.seen.append([user] + req["argv"])
                if self.answer is None:
                    conn.sendall(self.gate.answer(nonce, "", "", protocol.NOT_MASTER_RC))
                else:
                    conn.sendall(self.gate.answer(nonce, self.answer, "", 0))


def test_client_skips_refusing_hosts_and_standbys_in_master_list_order(lsf_cluster_factory, tmp_path):
    port = free_port()
    envdir = tmp_path / "conf"
    envdir.mkdir()
    (envdir / "lsf.conf").write_text(f'LSF_MASTER_LIST="127.0.0.2 127.0.0.3 127.0.0.4"\nLSB_MBD_PORT={port}\n')
    from lsfemu.daemon.tcp import ensure_key

    key = ensure_key(str(envdir))
    standby = FakeCandidate(key, "127.0.0.3", port, None)
    master = FakeCandidate(key, "127.0.0.4", port, "from the master\n")
    standby.start()
    master.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
    env.update(LSF_ENVDIR=str(envdir), LSFEMU_HOME=str(tmp_path / "home"), LSFEMU_USER="user3")
    p = subprocess.run([sys.executable, "-c", "import sys; from lsfemu.client import run; sys.exit(run('bjobs', ['-u', 'all']))"],
                       env=env, capture_output=True, text=True, timeout=60)
    # 127.0.0.2 refuses the connection (nothing listens), 127.0.0.3 is a standby.
    assert (p.stdout, p.stderr, p.returncode) == ("from the master\n", "", 0)
    assert standby.seen == [["user3", "-u", "all"]] and master.seen == [["user3", "-u", "all"]]
    standby.stop()
    master.stop()
    # Nobody answers: LSF's words, after LSB_NTRIES rounds.
    env["LSB_NTRIES"] = "2"
    p = subprocess.run([sys.executable, "-c", "import sys; from lsfemu.client import run; sys.exit(run('bjobs', []))"],
                       env=env, capture_output=True, text=True, timeout=60)
    assert (p.stdout, p.stderr, p.returncode) == (
        "", "batch system daemon not responding ... still trying\nLSF is down. Please wait ...\n", 255)


def test_two_candidates_share_a_machine_with_lsfemu_mbd_address(lsf_cluster_factory):
    # The daemon listens on 127.0.0.1 only (LSFEMU_MBD_ADDRESS), so a standby can hold
    # 127.0.0.2 on the same port; the client skips the standby and reaches the master.
    port = free_port()
    c = lsf_cluster_factory()
    c.port = port
    conf = c.path_of("lsf.conf")
    conf.write_text(conf.read_text().replace('LSF_MASTER_LIST="hostA"', 'LSF_MASTER_LIST="127.0.0.3 127.0.0.2 127.0.0.1"')
                    + f"LSB_MBD_PORT={port}\n")
    hosts = c.path_of("lsf.cluster.cluster1")
    hosts.write_text(hosts.read_text().replace("End Host", "127.0.0.1       !        !        0       -      -       -       -       ()\nEnd Host", 1))
    assert c.run("lsfemu daemon start", env={"LSFEMU_MBD_ADDRESS": "127.0.0.1"}).rc == 0
    assert "listening on 127.0.0.1 port" in (c.home / "daemon.log").read_text()
    standby = FakeCandidate(protocol.read_key(protocol.key_path(str(c.envdir))), "127.0.0.2", port, None)
    standby.start()
    try:
        r = c.run("bsub -J viamaster sleep 10", user="user2",
                  env={"LSFEMU_HOME": str(c.root / "elsewhere"), "LSFEMU_AUTOSTART": "0"})
        assert (r.out, r.err, r.rc) == ("Job <1> is submitted to default queue <normal>.\n", "", 0)
        assert standby.seen == [["user2", "-J", "viamaster", "sleep", "10"]]
    finally:
        standby.stop()
    assert c.run("bjobs -noheader -o 'jobid user job_name' 1").out == "1 user2 viamaster\n"
    c.run("lsfemu daemon stop")
    r = c.run("lsfemu daemon start", env={"LSFEMU_MBD_ADDRESS": "no-such-host.invalid"})
    assert r.rc == 1 and "cannot listen on no-such-host.invalid port" in r.err, r.text


# --------------------------------------------------------------------------------
# From a separate network namespace (the test): root only.
# --------------------------------------------------------------------------------

def _netns_unavailable() -> str | None:
    if os.geteuid() != 0:
        return "needs root to create a network namespace (ip netns add)"
    if shutil.which("ip") is None:
        return "the ip command (iproute2) is not installed"
    probe = f"lsfemu-probe-{uuid.uuid4().hex[:8]}"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if r.returncode != 0:
        return f"ip netns add does not work here: {r.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


class NetNs:
    """A namespace joined to this one by a veth pair, with 10.x.y.1 here and 10.x.y.2 there.
    Names are unique per run (parallel test workers); `close` removes everything."""

    def __init__(self):
        tag = uuid.uuid4().hex[:8]
        self.name = f"lsfemu-{tag}"
        self.outer, self.inner = f"le{tag}o", f"le{tag}i"  # interface names: at most 15 bytes
        n = int(tag[:4], 16)
        net = f"10.{200 + n % 50}.{n // 50 % 250}"
        self.host_addr, self.ns_addr = f"{net}.1", f"{net}.2"
        self.made: list[list[str]] = []

    def _ip(self, *args: str) -> None:
        subprocess.run(["ip", *args], check=True, capture_output=True, text=True)

    def open(self) -> "NetNs":
        self._ip("netns", "add", self.name)
        self.made.append(["netns", "del", self.name])
        self._ip("link", "add", self.outer, "type", "veth", "peer", "name", self.inner)
        self.made.append(["link", "del", self.outer])  # deletes its peer too
        self._ip("link", "set", self.inner, "netns", self.name)
        self._ip("addr", "add", f"{self.host_addr}/24", "dev", self.outer)
        self._ip("link", "set", self.outer, "up")
        self._ip("-n", self.name, "addr", "add", f"{self.ns_addr}/24", "dev", self.inner)
        self._ip("-n", self.name, "link", "set", self.inner, "up")
        self._ip("-n", self.name, "link", "set", "lo", "up")
        return self

    def close(self) -> None:
        for args in reversed(self.made):
            subprocess.run(["ip", *args], capture_output=True)

    def run(self, argv: list[str], env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", self.name, *argv], env=env, capture_output=True,
                              text=True, timeout=timeout)


@pytest.fixture
def netns():
    why = _netns_unavailable()
    if why:
        pytest.skip(why)
    ns = NetNs()
    try:
        yield ns.open()
    finally:
        ns.close()


def test_commands_over_tcp_from_another_network_namespace(lsf_cluster_factory, netns):
    # The namespace is "another host": it reaches the daemon only through the veth pair,
    # at host_addr; the cluster lists it by address as a client host (SERVER 0).
    c = make_shared(lsf_cluster_factory, masters=f"{netns.host_addr}", clients=(netns.ns_addr,))
    clientconf = c.root / "clienthost"
    clientconf.mkdir()
    # What the admin copies to a client host: lsf.conf and the key (0600).
    shutil.copy2(c.envdir / "lsf.conf", clientconf / "lsf.conf")
    shutil.copy2(c.envdir / protocol.KEY_FILE, clientconf / protocol.KEY_FILE)
    env = {k: v for k, v in c.env.items()}
    env.update(LSF_ENVDIR=str(clientconf), LSFEMU_HOME=str(c.root / "clientstate"), LSFEMU_AUTOSTART="0",
               PYTHONPATH=str(Path(protocol.__file__).resolve().parent.parent))
    cmd = [sys.executable, "-c", "import sys; from lsfemu.client import run; sys.exit(run(sys.argv[1], sys.argv[2:]))"]

    r = netns.run(cmd + ["bsub", "-J", "fromns", "sleep", "100"], dict(env, LSFEMU_USER="user1"))
    assert (r.stdout, r.stderr, r.returncode) == ("Job <1> is submitted to default queue <normal>.\n", "", 0)
    r = netns.run(cmd + ["bjobs", "-noheader", "-o", "jobid user stat from_host job_name", "1"], env)
    assert (r.stdout, r.returncode) == (f"1 user1 PEND {netns.ns_addr} fromns\n", 0)
    assert c.run("bjobs -noheader -o 'jobid from_host' 1").out == f"1 {netns.ns_addr}\n"

    # A wrong key from that host: refused, nothing changed.
    (clientconf / protocol.KEY_FILE).write_text(os.urandom(32).hex() + "\n")
    r = netns.run(cmd + ["bsub", "sleep", "1"], dict(env, LSFEMU_USER="user1"))
    assert (r.stdout, r.returncode) == ("", 255)
    assert r.stderr == "User permission denied: the request is not signed with this cluster's key; nothing was changed\n"
    shutil.copy2(c.envdir / protocol.KEY_FILE, clientconf / protocol.KEY_FILE)

    # The same host dropped from lsf.cluster (badmin reconfig): refused as a non-LSF host.
    hosts = c.path_of("lsf.cluster.cluster1")
    hosts.write_text("".join(l for l in hosts.read_text().splitlines(True) if not l.startswith(netns.ns_addr)))
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    r = netns.run(cmd + ["bsub", "sleep", "1"], dict(env, LSFEMU_USER="user1"))
    assert (r.stdout, r.stderr, r.returncode) == ("", "Request from non-LSF host rejected\n", 255)
    assert c.run("bjobs -a -u all -noheader -o jobid").out == "1\n"
    assert f"refused a TCP connection from {netns.ns_addr}" in (c.home / "daemon.log").read_text()
