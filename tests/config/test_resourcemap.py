"""lsf.cluster's ResourceMap section (issue 21; lsfemu/config/resourcemap.py):
instances and their hosts (all, ~host, others, default), LIM's refusals naming
file and line, the Host section's RESOURCES winning over the map, select[]'s
values, and the RES_REQ refusal of a shared resource's rusage[]."""

from __future__ import annotations

import pytest

from lsfemu.config import parser, resourcemap, semantic

pytestmark = pytest.mark.slow(1)

SHARED = """\
Begin Resource
RESOURCENAME  TYPE     INTERVAL INCREASING  DESCRIPTION
tot_lic       Numeric  ()       N           (Licenses)
verilog       Numeric  ()       N           ()
scratch       Numeric  ()       N           ()
site          String   ()       ()          ()
fs            Boolean  ()       ()          ()
nio           Numeric  60       Y           ()
End Resource
"""

CLUSTER = """\
Begin ClusterAdmins
Administrators = lsfadmin
End ClusterAdmins

Begin Host
HOSTNAME  model   type   server  ncpus  maxmem  maxswp  maxtmp  RESOURCES
hostA     !       !      1       4      16G     4G      100G    (fs)
hostB     !       !      1       4      16G     4G      100G    (scratch=7)
hostC     !       !      1       4      16G     4G      100G    ()
client1   !       !      0       -      -       -       -       ()
End Host

Begin ResourceMap
RESOURCENAME  LOCATION
tot_lic       (5@[all])
verilog       (3@[all ~hostA] )
scratch       (100@[default])
site          (north@[hostA hostB] south@[others])
fs            ([hostA])
nio           ([all])
nosuch        (1@[all])
r1m           (1@[all])
End ResourceMap
"""


def _check(tmp_path, make_env, cluster=CLUSTER, **files):
    over = {"lsf.shared": SHARED, "lsf.cluster.mycluster": cluster}
    over.update({k.replace("_", "."): v for k, v in files.items()})
    return parser.check(make_env(tmp_path, over))


def test_instances_hosts_and_refusals(tmp_path, make_env):
    cfg, issues = _check(tmp_path, make_env)
    assert cfg is not None, issues
    inst = {n: [(i.value, i.hosts) for i in r.instances] for n, r in cfg.resource_map.items()}
    assert inst == {
        "tot_lic": [("5", ("hostA", "hostB", "hostC"))],
        "verilog": [("3", ("hostB", "hostC"))],
        # default: one instance per server host; hostB's RESOURCES (scratch=7) wins and leaves the map
        "scratch": [("100", ("hostA",)), ("100", ("hostC",))],
        "site": [("north", ("hostA", "hostB")), ("south", ("hostC",))],
    }
    vals = {h.name: h.values for h in cfg.cluster_hosts}
    assert vals["hostA"] == {"tot_lic": 5.0, "scratch": 100.0, "site": "north"}
    assert vals["hostB"] == {"scratch": 7.0, "tot_lic": 5.0, "verilog": 3.0, "site": "north"}
    assert vals["client1"] == {}
    assert resourcemap.shared_names(cfg.resource_map) == {"tot_lic", "verilog", "site"}
    msgs = {(i.line, i.message) for i in issues if i.file.endswith("lsf.cluster.mycluster")}
    assert {(19, "resource fs is Boolean: lsfemu gives Boolean resources to hosts through the Host section's "
                 "RESOURCES column; ignoring line"),
            (20, "resource nio is dynamic: lsfemu has no ELIM to report its value; ignoring line"),
            (21, "resource name <nosuch> is not defined; ignoring line"),
            (22, "built-in resource r1m can't be redefined as shared resource here; ignoring line")} <= msgs
    assert not any(i.fatal for i in issues)


@pytest.mark.parametrize("location, message", [
    ("(5@hostA)", "bad format for the LOCATION <(5@hostA)> of resource <tot_lic>; ignoring line"),
    ("(five@[all])", "invalid characters (five) used as NUMERIC resource value; ignoring line"),
    ("([all])", "value must be defined for static resource; ignoring resource <tot_lic>, instance <[all]>"),
    ("(5@[hostA nosuch])", "host nosuch is not a server host of the cluster; ignoring the host"),
    ("(5@[client1])", "host client1 is not a server host of the cluster; ignoring the host"),
])
def test_bad_locations_name_file_and_line(tmp_path, make_env, location, message):
    text = CLUSTER.split("Begin ResourceMap")[0] + f"Begin ResourceMap\nRESOURCENAME LOCATION\ntot_lic {location}\nEnd ResourceMap\n"
    cfg, issues = _check(tmp_path, make_env, cluster=text)
    assert cfg is not None
    assert [(i.line, i.message, i.fatal) for i in issues if i.file.endswith("mycluster")] == [(15, message, False)]


def test_res_req_reserving_a_shared_resource_is_refused(tmp_path, make_env):
    queues = ("Begin Queue\nQUEUE_NAME = normal\nEnd Queue\n\nBegin Queue\nQUEUE_NAME = lic\n"
              "RES_REQ = select[tot_lic>0] rusage[mem=10:tot_lic=1]\nEnd Queue\n")
    env = make_env(tmp_path, {"lsf.shared": SHARED, "lsf.cluster.mycluster": CLUSTER, "lsb.queues": queues})
    cfg, issues = semantic.check_all(env)
    assert cfg is None
    assert [(i.line, i.message) for i in issues if i.fatal] == [
        (7, "RES_REQ of queue lic: rusage[] of shared resource tot_lic is not supported by lsfemu yet (placement "
            "reserves per host, not from the ResourceMap's shared pool)")]
    # a resource each host holds alone (default) reserves per host: accepted
    cfg, issues = semantic.check_all(make_env(tmp_path, {"lsb.queues": queues.replace("tot_lic=1", "scratch=1")}))
    assert cfg is not None, [str(i) for i in issues if i.fatal]
