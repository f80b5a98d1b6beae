"""lsf.shared (resources, host types, host models), the Host section's
RESOURCES checked against it, lsfemu's ncpus/maxmem/maxswp/maxtmp columns,
and `hostres.from_config` (issue 19, part 1)."""

from __future__ import annotations

import os

import pytest

from lsfemu.config import machine, parser, sample
from lsfemu.config.lsf_shared import BUILTIN_RESOURCES
from lsfemu.sched import hostres

pytestmark = pytest.mark.slow(1)

SHARED = """\
Begin Cluster
ClusterName
mycluster
End Cluster

Begin HostType
TYPENAME
X86_64
LINUXPPC64LE
End HostType

Begin HostModel
MODELNAME   CPUFACTOR  ARCHITECTURE
Intel_EM64T 60         (x86_64)
POWER9      25.5       (ppc64le)
End HostModel

Begin Resource
RESOURCENAME  TYPE     INTERVAL INCREASING  DESCRIPTION
mg            Boolean  ()       ()          (Management hosts)
bigmem        Boolean  ()       ()          ()
rack          String   ()       ()          (Rack of the host)
gpus          Numeric  ()       N           (GPUs of the host)
nio           Numeric  60       Y           (Network I/O in Kbytes/second)
End Resource
"""

CLUSTER = """\
Begin ClusterAdmins
Administrators = lsfadmin
End ClusterAdmins

Begin Host
HOSTNAME  model   type          server  ncpus  maxmem  maxswp  maxtmp  RESOURCES
hostA     !       !             1       8      16G     2048    1.5T    (mg rack=r12 gpus=2)
hostB     POWER9  LINUXPPC64LE  1       -      512MB   -       -       (bigmem)
client1   !       !             0       -      -       -       -       ()
End Host
"""


def _load(tmp_path, make_env, **files):
    over = {"lsf.shared": SHARED, "lsf.cluster.mycluster": CLUSTER}
    over.update({k.replace("_", "."): v for k, v in files.items()})
    return parser.check(make_env(tmp_path, over))


def test_resources_types_and_models(tmp_path, make_env):
    cfg, issues = _load(tmp_path, make_env)
    assert cfg is not None, issues
    sh = cfg.shared
    assert sh.present and sh.host_types == ["X86_64", "LINUXPPC64LE"]
    assert sh.host_models == {"Intel_EM64T": (60.0, "x86_64"), "POWER9": (25.5, "ppc64le")}
    # built-ins first, in lsinfo's order, then the file's rows
    assert list(sh.resources)[:len(BUILTIN_RESOURCES)] == [r.name for r in BUILTIN_RESOURCES]
    assert list(sh.resources)[len(BUILTIN_RESOURCES):] == ["mg", "bigmem", "rack", "gpus", "nio"]
    assert (sh.resources["nio"].type, sh.resources["nio"].interval, sh.resources["nio"].order) == ("Numeric", 60, "Inc")
    assert (sh.resources["gpus"].order, sh.resources["rack"].order, sh.resources["mg"].description) == \
        ("Dec", "N/A", "Management hosts")
    assert sh.resources["it"].order == "Dec" and sh.resources["r15s"].builtin
    assert cfg.files["lsf.shared"] == str(tmp_path / "lsf.shared")


def test_host_columns_and_from_config(tmp_path, make_env):
    cfg, issues = _load(tmp_path, make_env)
    assert cfg is not None, issues
    a, b = cfg.cluster_hosts[0], cfg.cluster_hosts[1]
    assert (a.ncpus, a.maxmem, a.maxswp, a.maxtmp) == (8, 16384.0, 2048.0, 1.5 * 1024 * 1024)
    assert (a.booleans, a.values) == (["mg"], {"rack": "r12", "gpus": 2.0})
    assert b.maxmem == 512.0 and b.ncpus is None
    res = hostres.from_config(cfg)
    assert list(res) == ["hostA", "hostB"]  # server hosts, cluster order
    ra, rb = res["hostA"], res["hostB"]
    assert (ra.type, ra.model, ra.cpuf, ra.ncpus, ra.maxmem) == ("X86_64", "Intel_EM64T", 60.0, 8, 16384.0)
    assert ra.booleans == {"mg"} and ra.values == {"rack": "r12", "gpus": 2.0}
    # columns left `-`: the local machine's hardware
    hw = machine.hardware()
    assert (rb.type, rb.model, rb.cpuf) == ("LINUXPPC64LE", "POWER9", 25.5)
    assert (rb.ncpus, rb.maxswp, rb.maxtmp) == (int(hw["ncpus"]), hw["maxswp"], hw["maxtmp"])
    ns = hostres.namespace(ra, {"mem": 100.0})
    assert (ns["mg"], ns["rack"], ns["gpus"], ns["mem"], ns["hname"]) == (1, "r12", 2.0, 100.0, "hostA")


def test_load_index_columns_are_lims_thresholds(tmp_path, make_env):
    cluster = CLUSTER.replace("RESOURCES", "r1m  swap  ut   RESOURCES").replace("(mg rack", "3.5  100   0.9  (mg rack") \
        .replace("(bigmem)", "-    ()    -    (bigmem)").replace("-       ()\n", "-       -    -     -    ()\n")
    cfg, issues = _load(tmp_path, make_env, lsf_cluster_mycluster=cluster)
    assert cfg is not None, issues
    assert [h.thresholds for h in cfg.cluster_hosts] == [{"r1m": 3.5, "swp": 100.0, "ut": 0.9}, {}, {}]
    cfg, issues = _load(tmp_path, make_env, lsf_cluster_mycluster=cluster.replace("3.5", "fast"))
    assert cfg is None and _issue(issues, "r1m: expected a non-negative number, got <fast>").line == 7


def test_mxj_bang_is_the_hosts_ncpus(tmp_path, make_env):
    hosts = "Begin Host\nHOST_NAME MXJ JL/U\nhostA ! ()\nhostB ! ()\nEnd Host\n"
    cfg, issues = _load(tmp_path, make_env, lsb_hosts=hosts)
    assert cfg is not None, issues
    assert cfg.host_mxj("hostA") == 8
    assert cfg.host_mxj("hostB") == (os.cpu_count() or 1)  # no ncpus: this machine's


def test_model_without_hostmodel_row_gets_default_cpuf(tmp_path, make_env):
    shared = SHARED.replace("Intel_EM64T 60         (x86_64)\n", "")
    cfg, issues = _load(tmp_path, make_env, lsf_shared=shared)
    assert cfg is not None, issues
    assert hostres.from_config(cfg)["hostA"].cpuf == hostres.DEFAULT_CPUF == 60.0


def test_without_lsf_shared_resources_are_taken_as_written(tmp_path, make_env):
    cfg, issues = _load(tmp_path, make_env, lsf_shared=None)
    assert cfg is not None and not cfg.shared.present, issues
    assert not [i for i in issues if "resource" in i.message]
    a = cfg.cluster_hosts[0]
    assert (a.booleans, a.values) == (["mg"], {"rack": "r12", "gpus": 2.0})
    assert list(cfg.shared.resources) == [r.name for r in BUILTIN_RESOURCES]


def _issue(issues, phrase):
    found = [i for i in issues if phrase in i.message]
    assert found, "\n".join(map(str, issues))
    return found[0]


@pytest.mark.parametrize("file,text,line,fatal,phrase", [
    ("lsf.cluster.mycluster", CLUSTER.replace("(bigmem)", "(bigmem nosuch)"), 8, False,
     "invalid resource name nosuch for host hostB in section Host"),
    ("lsf.cluster.mycluster", CLUSTER.replace("(bigmem)", "(bigmem=3)"), 8, False, "is Boolean and takes no value"),
    ("lsf.cluster.mycluster", CLUSTER.replace("gpus=2", "gpus=two"), 7, False, "is Numeric, got <two>"),
    ("lsf.cluster.mycluster", CLUSTER.replace("rack=r12", "rack"), 7, False, "needs a value (rack=value)"),
    ("lsf.cluster.mycluster", CLUSTER.replace("POWER9 ", "POWER8 "), 8, True, "unknown host model POWER8 for host hostB"),
    ("lsf.cluster.mycluster", CLUSTER.replace("LINUXPPC64LE", "SPARC"), 8, True, "unknown host type SPARC for host hostB"),
    ("lsf.cluster.mycluster", CLUSTER.replace("16G", "16Q"), 7, True, "maxmem: expected a size in MB or with a unit"),
    ("lsf.cluster.mycluster", CLUSTER.replace("  8  ", "  0  "), 7, True, "ncpus: expected a positive integer"),
    ("lsf.shared", SHARED.replace("nio           Numeric  60", "nio           Numeric  -6"), 24, False,
     "INTERVAL <-6> for resource nio should be an integer greater than 0"),
    ("lsf.shared", SHARED.replace("rack          String", "rack          Text  "), 22, False,
     "resource type <Text> for resource rack is not valid"),
    ("lsf.shared", SHARED.replace("gpus          Numeric  ()       N", "gpus          Numeric  ()       X"), 23, False,
     "INCREASING <X> for resource gpus is not valid"),
    ("lsf.shared", SHARED.replace("bigmem        Boolean", "mem           Boolean"), 21, False,
     "mem is a reserved name"),
    ("lsf.shared", SHARED.replace("bigmem        Boolean", "2big          Boolean"), 21, False,
     "<2big> is not a valid resource name"),
    ("lsf.shared", SHARED.replace("bigmem        Boolean", "mg            Boolean"), 21, False,
     "resource mg is defined twice (first at line 20)"),
    ("lsf.shared", SHARED.replace("25.5 ", "fast "), 15, True, "CPUFACTOR of host model POWER9: expected a positive number"),
    ("lsf.shared", SHARED + "Begin Foo\nA\nb\nEnd Foo\n", 26, False, "section Foo is not supported by lsfemu"),
])
def test_bad_lines_are_named(tmp_path, make_env, file, text, line, fatal, phrase):
    cfg, issues = _load(tmp_path, make_env, **{file.replace(".", "_"): text})
    issue = _issue(issues, phrase)
    assert (os.path.basename(issue.file), issue.line, issue.fatal) == (file, line, fatal), str(issue)
    assert (cfg is None) is fatal


def test_a_resource_lsf_shared_drops_is_then_unknown_to_hosts(tmp_path, make_env):
    shared = SHARED.replace("rack          String", "rack          Text  ")
    cfg, issues = _load(tmp_path, make_env, lsf_shared=shared)
    assert cfg is not None
    _issue(issues, "invalid resource name rack for host hostA")
    assert cfg.cluster_hosts[0].values == {"gpus": 2.0}


def test_lsfemu_init_cluster(tmp_path):
    sample.write_cluster(str(tmp_path))
    cfg, issues = parser.check(str(tmp_path))
    assert cfg is not None and issues == [], issues
    res = hostres.from_config(cfg)
    assert list(res) == ["hostA", "hostB", "hostC"]
    for h in res.values():
        assert (h.ncpus, h.maxmem, h.maxswp, h.maxtmp, h.cpuf) == (4, 16384.0, 4096.0, 102400.0, 60.0)
        assert cfg.host_mxj(h.name) == 4
    assert [sorted(h.booleans) for h in res.values()] == [["fs"], ["cs", "ssd"], ["cs"]]
