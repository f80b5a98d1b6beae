"""lsclusters, lsload -o / -json, lshosts -o / -json, lsinfo -w and lsadmin
showconf lim on lsfemu init's cluster (issue 21, part 3): what each shows of
the running cluster, the format's precedence (-o, LSF_LSLOAD_FORMAT in the
caller's environment, then lsf.conf as it is now), and their refusals."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow(14)  # seconds, quiet machine


def test_lsclusters_shows_the_cluster_its_master_admin_and_hosts(lsf_cluster):
    c = lsf_cluster
    head = "CLUSTER_NAME   STATUS   MASTER_HOST               ADMIN    HOSTS  SERVERS\n"
    r = c.run("lsclusters")
    assert (r.out, r.err, r.rc) == (head + "cluster1       ok       hostA                  lsfadmin        3        3\n",
                                    "", 0)
    # snakemake's LSF plugin: the cluster name is the first word of the second line
    assert r.out.splitlines()[1].split()[0] == "cluster1"
    assert c.run("lsclusters cluster1").out == r.out
    r = c.run("lsclusters nosuch")
    assert (r.out, r.err, r.rc) == ("", "ls_clusterinfo(): Invalid cluster name\n", 255)
    r = c.run("lsclusters -l")
    assert (r.rc, r.err.splitlines()[0]) == (255, "lsclusters: option -l is not supported by lsfemu yet")
    # a client host counts in HOSTS, not in SERVERS; a master name longer than 18 is cut, -w keeps it
    text = c.path_of("lsf.cluster.cluster1").read_text()
    c.write("lsf.cluster.cluster1", text.replace(
        "End Host", "client1   !        !        0       -      -       -       -       ()\nEnd Host").replace(
        "hostA ", "hostA-with-a-long-name ").replace('"hostA"', '"hostA-with-a-long-name"'))
    c.write("lsf.conf", c.path_of("lsf.conf").read_text().replace('"hostA"', '"hostA-with-a-long-name"'))
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    assert c.run("lsclusters").out == head + (
        "cluster1       ok       hostA-with-a-long-     lsfadmin        4        3\n")
    assert c.run("lsclusters -w").out == (
        "CLUSTER_NAME   STATUS   MASTER_HOST                   ADMIN    HOSTS  SERVERS\n"
        "cluster1       ok       hostA-with-a-long-name     lsfadmin        4        3\n")


def test_lsload_o_and_json_follow_the_jobs(lsf_cluster):
    c = lsf_cluster
    assert c.run("bsub -m hostA -n 2 -R 'rusage[mem=2000]' sleep 600", user="user1").rc == 0
    c.advance("1m")
    r = c.run("lsload -o \"HOST_NAME status r1m ut mem delimiter='|'\" hostA hostB")
    assert (r.out, r.err, r.rc) == ("HOST_NAME|status|r1m|ut|mem\n"
                                    "hostB|ok|0.0|0%|16384.0M\n"
                                    "hostA|ok|2.0|50%|14384.0M\n", "", 0)
    assert c.run("lsload -o 'HOST_NAME:8 mem:-9 ut:' hostA").out == (
        "HOST_NAM       mem ut   \n"
        "hostA     14384.0M 50%  \n")
    data = json.loads(c.run("lsload -o 'HOST_NAME r15s mem' -json").out)
    assert data["COMMAND"] == "lsload" and data["HOSTS"] == 3
    assert data["RECORDS"][-1] == {"HOST_NAME": "hostA", "r15s": "2.0", "mem": "14384.0M"}
    # -json alone: the default table's columns
    data = json.loads(c.run("lsload -json hostA").out)
    assert list(data["RECORDS"][0]) == ["HOST_NAME", "status", "r15s", "r1m", "r15m", "ut", "pg", "ls", "it",
                                        "tmp", "swp", "mem"]
    r = c.run("lsload -o 'HOST_NAME nosuch'")
    assert (r.out, r.err, r.rc) == ("", "<nosuch> in the format string is not a valid field name.\n", 255)
    r = c.run("lsload -o r1m -l")
    assert (r.out, r.rc) == ("", 255) and r.err.startswith("Usage: lsload")


def test_lsload_format_precedence_option_environment_lsf_conf(lsf_cluster):
    c = lsf_cluster
    c.write("lsf.conf", c.path_of("lsf.conf").read_text() + "LSF_LSLOAD_FORMAT=\"HOST_NAME status\"\n")
    # no badmin reconfig: LSF's commands read lsf.conf each time; no width: as long as the value
    assert c.run("lsload hostA").out == "HOST_NAME status\nhostA ok\n"
    env = {"LSF_LSLOAD_FORMAT": "HOST_NAME mem"}
    assert c.run("lsload hostA", env=env).out == "HOST_NAME mem\nhostA 16384.0M\n"
    assert c.run("lsload -o it hostA", env=env).out == "it\n0\n"
    # -l and -w keep their tables
    assert c.run("lsload -w hostA", env=env).out.startswith("HOST_NAME               status  r15s")


def test_lsadmin_showconf_lim_and_refusals(lsf_cluster):
    c = lsf_cluster
    r = c.run("lsadmin showconf lim")
    lines = r.out.splitlines()
    assert (r.err, r.rc, lines[0]) == ("", 0, "LSF Configuration for LIM Mon Jan  5 09:00:00 2026")
    conf = dict(ln.strip().split(" = ", 1) for ln in lines[1:])
    assert conf["LSF_ENVDIR"] == conf["LSF_CONFDIR"] == str(c.envdir)
    assert (conf["LSF_CLUSTER_NAME"], conf["LSF_UNIT_FOR_LIMITS"]) == ("cluster1", "MB")
    assert [ln.split(" = ")[0].strip() for ln in lines[1:]] == sorted(conf)
    assert c.run("lsadmin showconf lim hostB all").out == r.out
    for cmd, err in (("lsadmin showconf lim nosuch", "nosuch: Host name not recognizable by LIM\n"),
                     ("lsadmin limrestart", "lsadmin: subcommand limrestart is not supported by lsfemu yet\n")):
        assert (c.run(cmd).out, c.run(cmd).err, c.run(cmd).rc) == ("", err, 255)
    r = c.run("lsadmin nosuch")
    assert (r.rc, r.err.splitlines()[0]) == (255, "Invalid command <nosuch> ")
    r = c.run("lsadmin showconf mbd")
    assert (r.rc, r.err.splitlines()[0]) == (255, "lsadmin: [-h] [-V] [command] [command_options] [command_args]")


def test_lshosts_o_and_json_and_lsinfo_w(lsf_cluster):
    c = lsf_cluster
    # the fields a monitoring client reads (Datadog's lshosts -o), memory whole MB
    r = c.run("lshosts -o \"HOST_NAME type model cpuf ncpus maxmem maxswp server nprocs ncores nthreads maxtmp "
              "delimiter='|'\" hostA")
    assert (r.out, r.err, r.rc) == (
        "HOST_NAME|type|model|cpuf|ncpus|maxmem|maxswp|server|nprocs|ncores|nthreads|maxtmp\n"
        "hostA|X86_64|Intel_EM64T|60.0|4|16384M|4096M|Yes|1|4|1|102400M\n", "", 0)
    assert c.run("lshosts -o 'hname:6 res maxmem::GB' hostB").out == "HOST_N RESOURCES maxmem\nhostB  (cs ssd) 16.0 G\n"
    data = json.loads(c.run("lshosts -json").out)
    assert (data["COMMAND"], data["HOSTS"]) == ("lshosts", 3)
    assert data["RECORDS"][1] == {"HOST_NAME": "hostB", "type": "X86_64", "model": "Intel_EM64T", "cpuf": "60.0",
                                  "ncpus": "4", "maxmem": "16384M", "maxswp": "4096M", "server": "Yes",
                                  "RESOURCES": "(cs ssd)"}
    # LSF_LSHOSTS_FORMAT: the caller's environment; a client host has no values
    text = c.path_of("lsf.cluster.cluster1").read_text()
    c.write("lsf.cluster.cluster1", text.replace(
        "End Host", "client1   !        !        0       -      -       -       -       ()\nEnd Host"))
    c.write("lsf.shared", c.path_of("lsf.shared").read_text().replace(
        "End Resource", "scratch_fast_ssd Boolean ()  ()  (Fast scratch)\nEnd Resource"))
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    env = {"LSF_LSHOSTS_FORMAT": "HOST_NAME server ncpus maxmem"}
    assert c.run("lshosts client1", env=env).out == "HOST_NAME server ncpus maxmem\nclient1 No - -\n"
    assert c.run("lshosts -w client1", env=env).out.startswith("HOST_NAME                       type")
    r = c.run("lshosts -o 'HOST_NAME nosuch'")
    assert (r.out, r.err, r.rc) == ("", "<nosuch> in the format string is not a valid field name.\n", 255)
    r = c.run("lshosts -o HOST_NAME -l")
    assert (r.out, r.rc) == ("", 255) and r.err.startswith("Usage: lshosts")
    # lsinfo -w: a resource name longer than 13 kept whole, its column widened
    rows = ("Boolean   N/A   File server", "Boolean   N/A   Fast scratch")
    for opt, width, names in (("", 13, ("fs", "scratch_fast_")), ("-w", 16, ("fs", "scratch_fast_ssd"))):
        assert c.run(f"lsinfo {opt} scratch_fast_ssd fs").out.splitlines() == [
            f"{'RESOURCE_NAME':<{width}}   TYPE   ORDER  DESCRIPTION"] + [f"{n:<{width}} {r}" for n, r in zip(names, rows)]
    r = c.run("lsinfo -l -w")
    assert (r.out, r.rc) == ("", 255) and r.err.startswith("Usage: lsinfo")

