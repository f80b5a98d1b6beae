"""The hosts' virtual load (sched/hostres.virtual_load) and the engine's view
of it (engine/hostload.py): slots and reservations of the started jobs,
per slot / per host / per job, decay over time (issue 19, part 1)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lsfemu.config import machine, parser, sample
from lsfemu.engine import hostload
from lsfemu.engine.requirements import Requirements
from lsfemu.sched import hostres

pytestmark = pytest.mark.slow(1)

HOST = hostres.HostResources("h", ncpus=4, maxmem=16384.0, maxswp=4096.0, maxtmp=102400.0,
                             values={"gpus": 2.0, "rack": "r1"})


def test_virtual_load_of_an_idle_host():
    assert hostres.virtual_load(HOST, 0, {}) == {
        "r15s": 0.0, "r1m": 0.0, "r15m": 0.0, "ut": 0.0, "pg": 0.0, "io": 0.0, "ls": 0.0, "it": 0.0,
        "tmp": 102400.0, "swp": 4096.0, "mem": 16384.0}


def test_virtual_load_follows_slots_and_reservations():
    load = hostres.virtual_load(HOST, 3, {"mem": 1000.0, "swp": 5000.0, "gpus": 1.0, "rack": 1.0, "nosuch": 2.0})
    assert (load["r15s"], load["r1m"], load["r15m"], load["ut"]) == (3.0, 3.0, 3.0, 0.75)
    assert (load["mem"], load["swp"], load["tmp"]) == (15384.0, 0.0, 102400.0)  # never below 0
    assert load["gpus"] == 1.0 and "rack" not in load and "nosuch" not in load
    assert hostres.virtual_load(HOST, 9, {})["ut"] == 1.0  # capped
    # what select[] reads: the load wins over the static value
    assert hostres.namespace(HOST, load)["gpus"] == 1.0


def _cluster(tmp_path, jobs, now=1000.0, params="", mode="virtual", cluster_file=None):
    sample.write_cluster(str(tmp_path), force=True)
    if cluster_file:
        (tmp_path / "lsf.cluster.cluster1").write_text(cluster_file)
    if params:
        p = tmp_path / "lsbatch/cluster1/configdir/lsb.params"
        p.write_text(p.read_text().replace("End Parameters", params + "\nEnd Parameters"))
    cfg = parser.load(str(tmp_path))
    cl = SimpleNamespace(config=cfg, jobs={i: j for i, j in enumerate(jobs)}, now=lambda: now,
                         clock=SimpleNamespace(mode=mode))
    cl.requirements = Requirements(cl)
    cl.requirements.configure(cfg)
    return cl


_ids = iter(range(1, 10**6))


def _job(status, hosts, res_req=None, start=1000.0):
    return SimpleNamespace(id=next(_ids), array_index=0, from_host="hostA", queue="normal", app_profile=None,
                           status=status, exec_hosts=hosts,
                           res_req=res_req, start_time=start)


def test_host_loads_count_started_jobs(tmp_path):
    cl = _cluster(tmp_path, [
        _job("RUN", "hostA hostA hostB", "rusage[mem=1000]"),  # per host (RESOURCE_RESERVE_PER_SLOT=N)
        _job("USUSP", "hostA", "rusage[mem=2G:swp=100]"),  # holds, does not run
        _job("PEND", "", "rusage[mem=5000]"),
        _job("DONE", "hostC", "rusage[mem=5000]"),
        _job("RUN", "hostC", "rusage[mem=100/job] span[hosts=1]"),
    ])
    loads = hostload.host_loads(cl)
    assert list(loads) == ["hostA", "hostB", "hostC"]
    a, b, c = loads["hostA"], loads["hostB"], loads["hostC"]
    assert (a.held, a.running, b.held, b.running, c.held, c.running) == (3, 2, 1, 1, 1, 1)
    assert a.reserved == {"mem": 3048.0, "swp": 100.0} and b.reserved == {"mem": 1000.0}
    assert (a.load["mem"], a.load["swp"], a.load["r1m"], a.load["ut"]) == (16384.0 - 3048.0, 3996.0, 2.0, 0.5)
    assert c.reserved == {"mem": 100.0}
    assert list(hostload.host_loads(cl, ["hostC", "nosuch"])) == ["hostC"]


def test_per_slot_and_decay(tmp_path):
    cl = _cluster(tmp_path, [_job("RUN", "hostA hostA", "rusage[mem=1000:duration=10:decay=1]", start=400.0)],
                  now=700.0, params="RESOURCE_RESERVE_PER_SLOT = Y")
    # 2 slots x 1000 MB, half-way through 10 minutes of linear decay
    assert hostload.host_loads(cl)["hostA"].reserved == {"mem": 1000.0}
    cl.now = lambda: 1100.0
    assert hostload.host_loads(cl)["hostA"].reserved == {}


def test_wall_mode_reads_the_local_machines_load(tmp_path, monkeypatch):
    me = sorted(machine.local_names())[0]
    hosts = (f"Begin ClusterAdmins\nAdministrators = lsfadmin\nEnd ClusterAdmins\n"
             f"Begin Host\nHOSTNAME model type server ncpus maxmem maxswp maxtmp RESOURCES\n"
             f"{me} ! ! 1 4 16G 4G 100G ()\nhostB ! ! 1 4 16G 4G 100G ()\nEnd Host\n")
    monkeypatch.setattr(machine, "current_load",
                        lambda: {"r1m": 2.0, "r15m": 1.5, "mem": 8000.0, "swp": 1000.0, "tmp": 50000.0})
    jobs = [_job("RUN", f"{me} hostB", "rusage[mem=500]")]
    loads = hostload.host_loads(_cluster(tmp_path, jobs, mode="wall", cluster_file=hosts))
    real, other = loads[me].load, loads["hostB"].load
    assert (real["r15s"], real["r1m"], real["r15m"], real["ut"]) == (2.0, 2.0, 1.5, 0.5)
    assert (real["mem"], real["swp"], real["tmp"]) == (7500.0, 1000.0, 50000.0)
    assert (other["r1m"], other["mem"]) == (1.0, 16384.0 - 500.0)  # a virtual host: the model
    virtual = hostload.host_loads(_cluster(tmp_path, jobs, mode="virtual", cluster_file=hosts))
    assert virtual[me].load["mem"] == 16384.0 - 500.0  # virtual clock: the model for every host


def test_busy_indices():
    load = hostres.virtual_load(HOST, 3, {"mem": 2000.0})
    assert hostres.busy(load, {"r1m": 2.5, "mem": 15000.0, "ut": 0.9, "tmp": 10.0}) == {"r1m", "mem"}
    assert hostres.busy(load, {"r1m": 3.0}) == frozenset()  # at the threshold: not beyond it


@pytest.mark.parametrize("raw,ncpus,normalized,effective", [
    (0.0, 4, 1 / 60, 0.0), (3.0, 4, 1.1875 / 60, 0.1875), (8.0, 4, 3 / 60, 2.0), (1.0, 1, 2 / 60, 1.0),
])
def test_normalized_and_effective_run_queues(raw, ncpus, normalized, effective):
    # OpenLava's normalizeRq and effectiveRq with a CPU factor of 60
    assert hostres.normalized_rq(raw, 60.0, ncpus) == pytest.approx(normalized)
    assert hostres.effective_rq(raw, 60.0, ncpus) == pytest.approx(effective)
