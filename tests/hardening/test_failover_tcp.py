"""A shared cluster over TCP: two master candidates on one PostgreSQL database
("hosts" 127.0.0.1 and 127.0.0.2 on this machine: LSFEMU_HOSTNAME and
LSFEMU_MBD_ADDRESS, one LSB_MBD_PORT), and clients that find the master through
LSF_MASTER_LIST (lsfemu.client): from a host with no daemon, and from the
standby's host (its Unix socket answers NOT_MASTER_RC). When the master is
killed, a client's next command reaches the new master."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lsfemu.config.sample import write_cluster
from lsfemu.client import _connect, socket_path
from lsfemu.testing_pg import free_port

CANDIDATES = ("127.0.0.1", "127.0.0.2")


class TcpSharedCluster:
    def __init__(self, root: Path, db_url: str):
        self.root = root
        self.envdir = root / "conf"
        write_cluster(str(self.envdir), clock="virtual")
        self.port = free_port()
        conf = self.envdir / "lsf.conf"
        text = re.sub(r"^LSF_MASTER_LIST=.*$", f'LSF_MASTER_LIST="{" ".join(CANDIDATES)}"', conf.read_text(), flags=re.M)
        conf.write_text(text + f"LSB_SHAREDIR={root / 'share'}\nLSB_MBD_PORT={self.port}\nLSB_API_CONNTIMEOUT=2\n")
        hosts = self.envdir / "lsf.cluster.cluster1"
        rows = "".join(f"{h:<15} !        !        0       -      -       -       -       ()\n" for h in CANDIDATES)
        hosts.write_text(hosts.read_text().replace("End Host", rows + "End Host", 1))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
        self.env.update({"LSF_ENVDIR": str(self.envdir), "LSFEMU_DB": db_url, "LSFEMU_AUTOSTART": "0",
                         "TZ": "UTC", "LSFEMU_CLOCK_START": "1767603600"})
        self.procs: dict[str, subprocess.Popen] = {}

    def home(self, host: str) -> Path:
        return self.root / f"home-{host}"

    def start(self, host: str) -> None:
        self.home(host).mkdir(exist_ok=True)
        env = dict(self.env, LSFEMU_HOME=str(self.home(host)), LSFEMU_HOSTNAME=host, LSFEMU_MBD_ADDRESS=host)
        with open(self.home(host) / "daemon.log", "a") as log:
            p = subprocess.Popen([sys.executable, "-m", "lsfemu.daemon"], env=env, stdin=subprocess.DEVNULL,
                                 stdout=log, stderr=log, start_new_session=True)
        self.procs[host] = p
        deadline = time.monotonic() + 30
        while _connect(socket_path(str(self.home(host)))) is None:
            assert p.poll() is None, (self.home(host) / "daemon.log").read_text()
            assert time.monotonic() < deadline, f"{host} did not start"
            time.sleep(0.05)

    def command(self, argv: list[str], home: Path, user: str = "user1", **env) -> subprocess.CompletedProcess:
        code = "import sys; from lsfemu.client import run; sys.exit(run(sys.argv[1], sys.argv[2:]))"
        return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120,
                              env=dict(self.env, LSFEMU_HOME=str(home), LSFEMU_USER=user, **env))

    def stop(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()


@pytest.fixture
def tcp_shared(lsfemu_postgres):
    with lsfemu_postgres.scratch("lsfemu-fotcp-") as (root, url):
        sc = TcpSharedCluster(root, url)
        try:
            yield sc
        finally:
            sc.stop()


def test_clients_find_the_master_over_tcp_before_and_after_a_failover(tcp_shared, record_property):
    sc = tcp_shared
    elsewhere = sc.root / "clienthost"  # a host with no daemon: every command goes over TCP
    sc.start("127.0.0.1")
    deadline = time.monotonic() + 20
    while True:
        r = sc.command(["lsid"], elsewhere, LSB_NTRIES="1")
        if r.returncode == 0:
            break
        assert time.monotonic() < deadline, r.stderr
        time.sleep(0.2)
    assert "My master name is 127.0.0.1\n" in r.stdout
    sc.start("127.0.0.2")

    r = sc.command(["bsub", "-J", "before", "sleep", "100"], elsewhere)
    assert (r.stdout, r.stderr, r.returncode) == ("Job <1> is submitted to default queue <normal>.\n", "", 0)
    # From the standby's own host: its Unix socket answers NOT_MASTER_RC, the client goes to the master.
    r = sc.command(["bsub", "-J", "onstandby", "sleep", "100"], sc.home("127.0.0.2"), user="user2")
    assert (r.stdout, r.stderr, r.returncode) == ("Job <2> is submitted to default queue <normal>.\n", "", 0)

    sc.procs["127.0.0.1"].send_signal(signal.SIGKILL)
    sc.procs["127.0.0.1"].wait()
    t0 = time.monotonic()
    # 127.0.0.1 now refuses connections; 127.0.0.2 answers NOT_MASTER_RC until it has taken
    # over, and the client's next round (2 s later) reaches it.
    r = sc.command(["bsub", "-J", "after", "sleep", "100"], elsewhere)
    took = time.monotonic() - t0
    record_property("tcp_client_through_failover_s", round(took, 2))
    assert (r.stdout, r.returncode) == ("Job <3> is submitted to default queue <normal>.\n", 0), r.stderr
    assert set(r.stderr.splitlines()) <= {"batch system daemon not responding ... still trying"}
    assert took < 15, took
    r = sc.command(["lsid"], elsewhere)
    assert "My master name is 127.0.0.2\n" in r.stdout
    r = sc.command(["bjobs", "-u", "all", "-noheader", "-o", "jobid user job_name from_host"], elsewhere)
    # Loopback connections leave from 127.0.0.1 whatever address they go to: every
    # submission host is 127.0.0.1 here (on real hosts, the client's own address).
    assert r.stdout.splitlines() == ["1 user1 before 127.0.0.1", "2 user2 onstandby 127.0.0.1",
                                     "3 user1 after 127.0.0.1"], r.stdout + r.stderr
    print(f"a client's command through the failover took {took:.2f} s")
