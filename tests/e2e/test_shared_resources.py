"""Shared resources on a running cluster (issue 21): lsf.cluster's ResourceMap
read at reconfig, bhosts -s (TOTAL left after what running jobs reserve),
lshosts -s, lsload -s, select[] on a shared value, and bsub refusing a
rusage[] of a resource several hosts share (placement has no shared pool)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.slow(4)  # seconds, quiet machine

RESOURCES = """\
tot_lic       Numeric  ()        N           (Licenses)
scratch       Numeric  ()        N           (Scratch GB)
site          String   ()        ()          (Site)
End Resource
"""

MAP = """
Begin ResourceMap
RESOURCENAME  LOCATION
tot_lic       (5@[all])
scratch       (100@[default])
site          (north@[hostA hostB] south@[others])
End ResourceMap
"""


def test_shared_resources_are_read_shown_and_acted_on(lsf_cluster):
    c = lsf_cluster
    # before any ResourceMap: LIM and mbatchd have no shared resource
    r = c.run("bhosts -s")
    assert (r.out, r.err, r.rc) == ("", "lsb_sharedresourceinfo: No resource defined\n", 255)
    r = c.run("lshosts -s")
    assert (r.out, r.err, r.rc) == ("", "ls_sharedresourceinfo: No shared resources\n", 255)
    c.write("lsf.shared", c.path_of("lsf.shared").read_text().replace("End Resource\n", RESOURCES))
    c.write("lsf.cluster.cluster1", c.path_of("lsf.cluster.cluster1").read_text() + MAP)
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    head = "RESOURCE                 TOTAL       RESERVED       LOCATION\n"
    lic = "tot_lic                      5            0.0       hostA hostB hostC \n"
    assert c.run("bhosts -s").out == head + lic + "".join(
        f"scratch                    100            0.0       {h} \n" for h in ("hostA", "hostB", "hostC"))
    # a resource each host holds alone is reserved per host, as RESOURCES values are
    job = c.run("bsub -m hostB -R 'select[tot_lic>=5 && site==north] rusage[scratch=30]' sleep 600", user="user1")
    assert job.rc == 0, job.text
    c.advance("1m")
    assert c.run("bjobs -noheader -o 'stat exec_host'", user="user1").out == "RUN hostB\n"
    assert c.run("bhosts -s scratch tot_lic").out == head + (
        "scratch                    100            0.0       hostA \n"
        "scratch                     70           30.0       hostB \n"
        "scratch                    100            0.0       hostC \n") + lic
    assert c.run("bhosts -s -noheader tot_lic").out == lic
    # bhosts -l: the host's instances under its load (OpenLava's makeShareFields)
    assert ("    0M    0M    0M      -\n\n"
            "             tot_lic scratch\n"
            " Total             5      70\n"
            " Reserved        0.0    30.0\n\n"
            " LOAD THRESHOLD USED FOR SCHEDULING:\n") in c.run("bhosts -l hostB").out
    r = c.run("bhosts -s tot_lic nosuch")
    assert (r.out, r.err, r.rc) == ("", "Bad resource name\n", 255)
    assert c.run("bhosts -s -l").rc == 255 and "Usage" in c.run("bhosts -s -w").err
    # LIM's view: static values as configured, host-based or shared
    assert c.run("lshosts -s site tot_lic").out == (
        "RESOURCE                                VALUE       LOCATION\n"
        "site                                    north       hostA hostB \n"
        "site                                    south       hostC \n"
        "tot_lic                                     5       hostA hostB hostC \n")
    # lshosts -l: the host's static shared values under its own (OpenLava's print_long)
    assert ("   0    Yes\n"
            "  tot_lic  scratch  site\n"
            "        5      100 south\n\n"
            "RESOURCES: (cs)\n") in c.run("lshosts -l hostC").out
    r = c.run("lshosts -s nosuch")
    assert (r.out, r.err, r.rc) == ("", "ls_sharedresourceinfo: Unknown resource name\n", 255)
    # -a: every host, those a resource connector relinquished too (lsfemu has none): the same hosts
    assert c.run("lshosts -a").out == c.run("lshosts").out and c.run("lsload -a").out == c.run("lsload").out
    # lsfemu has no ELIM: no dynamic shared resource
    assert (c.run("lsload -s").out, c.run("lsload -s").rc) == ("No dynamic shared resources defined \n", 0)
    # select[] reads the shared value; rusage[] of a pool several hosts share is refused by name
    r = c.run("bsub -R 'rusage[tot_lic=1]' sleep 1", user="user1")
    assert (r.out, r.rc) == ("", 255) and "rusage[] of shared resource tot_lic" in r.err
    assert "Not supported by lsfemu yet" in r.err
    r = c.run("bsub -R 'select[tot_lic>5]' sleep 1", user="user1")
    assert r.rc == 0
    c.advance("1m")
    jid = re.search(r"<(\d+)>", r.out).group(1)
    assert c.run(f"bjobs -noheader -o stat {jid}", user="user1").out == "PEND\n"
