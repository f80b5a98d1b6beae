"""lshosts, lsload, lsinfo and bhosts -l on lsfemu init's cluster (issue 19,
part 1 and the host views of part 3): the hosts' static resources, their load
following the jobs that run on them and what their rusage[] reserves, -R's
select[] and order[], LIM's refusals."""

from __future__ import annotations

import re

import pytest

from lsfemu.testing import temporary_cluster

pytestmark = pytest.mark.slow(9)  # seconds, quiet machine; one daemon start of six fewer

LSLOAD_HEAD = "HOST_NAME       status  r15s   r1m  r15m   ut    pg  ls    it   tmp   swp   mem\n"
IDLE = "    ok   0.0   0.0   0.0   0%   0.0   0     0  100G    4G   16G\n"


def jid(r) -> str:
    assert r.rc == 0, r.text
    return re.search(r"<(\d+)>", r.out).group(1)


def test_lshosts_shows_the_configured_hosts(lsf_cluster):
    c = lsf_cluster
    r = c.run("lshosts")
    assert (r.out, r.err, r.rc) == (
        "HOST_NAME      type    model  cpuf ncpus maxmem maxswp server RESOURCES\n"
        "hostA        X86_64 Intel_EM  60.0     4    16G     4G    Yes (fs)\n"
        "hostB        X86_64 Intel_EM  60.0     4    16G     4G    Yes (cs ssd)\n"
        "hostC        X86_64 Intel_EM  60.0     4    16G     4G    Yes (cs)\n", "", 0)
    assert c.run("lshosts -w hostC").out == (
        "HOST_NAME                       type       model  cpuf ncpus maxmem maxswp server RESOURCES\n"
        "hostC                         X86_64 Intel_EM64T  60.0     4    16G     4G    Yes (cs)\n")
    assert c.run("lshosts -l hostB").out == (
        "\nHOST_NAME:  hostB\n"
        "type             model  cpuf ncpus ndisks maxmem maxswp maxtmp rexpri server\n"
        "X86_64     Intel_EM64T  60.0     4      -    16G     4G   100G      0    Yes\n\n"
        "RESOURCES: (cs ssd)\nRUN_WINDOWS:  (always open)\n\nLOAD_THRESHOLDS:\n"
        "  r15s   r1m  r15m   ut    pg    io  ls    it   tmp   swp   mem\n"
        "     -     -     -    -     -     -   -     -     -     -     -\n")
    # -R selects on the hosts' resources: a Boolean by name, static values
    assert [ln.split()[0] for ln in c.run("lshosts -R cs").out.splitlines()[1:]] == ["hostB", "hostC"]
    assert [ln.split()[0] for ln in c.run("lshosts -R 'select[ssd && maxmem >= 16G]'").out.splitlines()[1:]] == ["hostB"]
    r = c.run("lshosts -R 'select[maxmem > 16G]'")
    assert (r.out, r.err, r.rc) == ("", "ls_gethostinfo(): Not enough host(s) currently eligible\n", 255)
    r = c.run("lshosts hostA nosuch")
    assert (r.out, r.err, r.rc) == ("", "ls_gethostinfo: Host name not recognizable by LIM\n", 255)
    # a client host (server 0): lshosts lists it, without values; it has no load
    text = c.path_of("lsf.cluster.cluster1").read_text()
    c.write("lsf.cluster.cluster1", text.replace("End Host", "client1   !        !        0       -      -       -       -       ()\nEnd Host")
            .replace("hostC     !        !", "hostC     POWER9   LINUXPPC64LE"))
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    # hostC of another type: a selection naming no type means the caller's type (type == local)
    assert "hostC       LINUXPP   POWER9  25.0     4" in c.run("lshosts").out
    assert [ln.split()[0] for ln in c.run("lshosts -R 'maxmem > 1'").out.splitlines()[1:]] == ["hostA", "hostB"]
    assert [ln.split()[0] for ln in c.run("lsload -R 'select[type == any && mem > 1]'").out.splitlines()[1:]] == \
        ["hostA", "hostB", "hostC"]
    assert [ln.split()[0] for ln in c.run("lsload -R 'type == LINUXPPC64LE'").out.splitlines()[1:]] == ["hostC"]
    assert c.run("lshosts").out.endswith("client1      X86_64 Intel_EM  60.0     -      -      -     No ()\n")
    assert c.run("lshosts -l client1").out.endswith("RUN_WINDOWS: Not applicable for client-only host\n\n")
    assert "client1" not in c.run("lsload").out
    assert c.run("lsload client1").err == "lsload: Host name not recognizable by LIM\n"


def test_lsload_and_bhosts_l_follow_the_jobs_and_their_reservations(lsf_cluster):
    c = lsf_cluster
    assert c.run("lsload").out == LSLOAD_HEAD + "".join(f"{h:<15} {IDLE}" for h in ("hostA", "hostB", "hostC"))
    big = jid(c.run("bsub -m hostA -n 3 -R 'rusage[mem=2000:swp=1G]' sleep 600", user="user1"))
    jid(c.run("bsub -m hostB -n 2 -R 'rusage[mem=700/job]' sleep 600", user="user1"))
    stopped = jid(c.run("bsub -m hostB -R 'rusage[mem=100]' sleep 600", user="user1"))
    c.advance("1m")
    assert c.run("bjobs -u all -noheader -o 'stat exec_host'").out == "RUN hostA:hostA:hostA\nRUN hostB:hostB\nRUN hostB\n"
    assert c.run(f"bstop {stopped}", user="user1").rc == 0
    # hosts by load (LIM's order r15s:pg): hostC idle, hostB runs 2 slots (the stopped job runs nothing)
    assert c.run("lsload").out == LSLOAD_HEAD + (
        "hostC               ok   0.0   0.0   0.0   0%   0.0   0     0  100G    4G   16G\n"
        "hostB               ok   2.0   2.0   2.0  50%   0.0   0     0  100G    4G 15.2G\n"
        "hostA               ok   3.0   3.0   3.0  75%   0.0   0     0  100G    3G   14G\n")
    assert c.run("lsload -l hostA").out == (
        "HOST_NAME               status  r15s   r1m  r15m   ut    pg    io  ls    it   tmp   swp   mem\n"
        "hostA                       ok   3.0   3.0   3.0  75%   0.0     0   0     0  100G    3G   14G\n")
    assert c.run("lsload -w -R 'select[mem > 15000] order[mem]'").out == (
        "HOST_NAME               status  r15s   r1m  r15m   ut    pg  ls    it   tmp   swp   mem\n"
        "hostC                       ok   0.0   0.0   0.0   0%   0.0   0     0  100G    4G   16G\n"
        "hostB                       ok   2.0   2.0   2.0  50%   0.0   0     0  100G    4G 15.2G\n")
    # slots: the unused job slots (MXJ 4 less the started jobs' slots)
    assert [ln.split()[0] for ln in c.run("lsload -R 'select[slots == 1 && maxslots == 4]'").out.splitlines()[1:]] \
        == ["hostB", "hostA"]
    # -E / -N: LIM's effective and normalized run queues (3 running on 4 CPUs of CPU factor 60)
    assert c.run("lsload -E hostA").out.splitlines()[1].startswith("hostA               ok   0.2   0.2   0.2  75%")
    assert c.run("lsload -N hostA").out.splitlines()[1].startswith("hostA               ok   0.0   0.0   0.0  75%")
    # -I: those indices, in that order (io too)
    assert c.run("lsload -I mem:r1m:io hostA").out == (
        "HOST_NAME       status   mem   r1m    io\n"
        "hostA               ok   14G   3.0     0\n")
    assert c.run("lsload -n 1 -R 'order[-r1m]'").out == LSLOAD_HEAD + (
        "hostA               ok   3.0   3.0   3.0  75%   0.0   0     0  100G    3G   14G\n")
    r = c.run("bhosts -l hostA")
    assert (r.err, r.rc) == ("", 0)
    assert r.out == (
        "HOST  hostA\n"
        "STATUS           CPUF  JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV DISPATCH_WINDOW\n"
        "ok              60.00     -      4      3      3      0      0      0      -\n\n"
        " CURRENT LOAD USED FOR SCHEDULING:\n"
        "                r15s   r1m  r15m    ut    pg    io   ls    it   tmp   swp   mem  slots\n"
        " Total           3.0   3.0   3.0   75%   0.0     0    0     0  100G    3G   14G      1\n"
        " Reserved        0.0   0.0   0.0    0%   0.0     0    0     0    0M    1G    2G      -\n\n"
        " LOAD THRESHOLD USED FOR SCHEDULING:\n"
        "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n"
        " loadSched   -     -     -     -       -     -    -     -     -      -      -\n"
        " loadStop    -     -     -     -       -     -    -     -     -      -      -\n\n")
    assert " Reserved        0.0   0.0   0.0    0%   0.0     0    0     0    0M    0M  800M      -\n" in \
        c.run("bhosts -l hostB").out
    # the job ends: its slots and reservation go
    c.run(f"bkill {big}", user="user1")
    c.advance("1m")
    assert c.run("lsload hostA").out == LSLOAD_HEAD + f"{'hostA':<15} {IDLE}"


def test_an_unavailable_host(lsf_cluster):
    c = lsf_cluster
    assert c.run("lsfemu host fail hostC", user="lsfadmin").rc == 0
    assert c.run("lsload hostC").out == LSLOAD_HEAD + "hostC           unavail\n"
    assert c.run("bhosts -l hostC").out == (
        "HOST  hostC\n"
        "STATUS           CPUF  JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV DISPATCH_WINDOW\n"
        "unavail         60.00     -      4      0      0      0      0      0      -\n\n"
        " LOAD THRESHOLD USED FOR SCHEDULING:\n"
        "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n"
        " loadSched   -     -     -     -       -     -    -     -     -      -      -\n"
        " loadStop    -     -     -     -       -     -    -     -     -      -      -\n\n")


@pytest.fixture(scope="module")
def as_configured():
    """One cluster for the tests that only read (no job, no reconfiguration, no host failed)."""
    with temporary_cluster() as c:
        yield c


def test_lsload_refusals(as_configured):
    c = as_configured
    for cmd, err in (("lsload nosuch", "lsload: Host name not recognizable by LIM\n"),
                     ("lsload -R 'select[mem > 99999]'", "lsload: Not enough host(s) currently eligible\n"),
                     ("lsload -R 'select[mem >'", "lsload: Bad resource requirement syntax\n"),
                     ("lsload -R 'select[nosuch > 1]'", "lsload: Unknown resource name\n"),
                     ("lsload -R 'order[nosuch]'", "lsload: Unknown resource name\n"),
                     ("lsload -I r1m:nosuch", "lsload: Bad index name list\n"),
                     ("lsload -I ''", "lsload: Bad index name list\n")):
        r = c.run(cmd)
        assert (r.out, r.err, r.rc) == ("", err, 246), cmd


def test_lsinfo(as_configured):
    c = as_configured
    out = c.run("lsinfo").out
    assert out.startswith("RESOURCE_NAME   TYPE   ORDER  DESCRIPTION\n"
                          "r15s          Numeric   Inc   15-second CPU run queue length\n")
    assert ("ssd           Boolean   N/A   Local SSD scratch\n\nTYPE_NAME\nX86_64\nLINUXPPC64LE\n\n"
            "MODEL_NAME      CPU_FACTOR      ARCHITECTURE\nIntel_EM64T          60.00      x86_64\n") in out
    assert c.run("lsinfo -t").out == "TYPE_NAME\nX86_64\nLINUXPPC64LE\n"
    assert c.run("lsinfo -m").out == "MODEL_NAME      CPU_FACTOR      ARCHITECTURE\nIntel_EM64T          60.00      x86_64\n"
    assert c.run("lsinfo -M").out.endswith("POWER9               25.00      ppc64le\n")
    assert c.run("lsinfo -r").out.endswith("ssd           Boolean   N/A   Local SSD scratch\n")
    assert c.run("lsinfo fs nosuch mem").out == (
        "RESOURCE_NAME   TYPE   ORDER  DESCRIPTION\n"
        "mem           Numeric   Dec   Available memory (Mbytes)\n"
        "fs            Boolean   N/A   File server\n"
        "nosuch: Resource name not found\n")
    assert c.run("lsinfo -l ut").out == (
        "RESOURCE_NAME:  ut\nDESCRIPTION: 1-minute CPU utilization (0.0 to 1.0)\n"
        "TYPE    ORDER   INTERVAL  BUILTIN  DYNAMIC  RELEASE\n"
        "Numeric   Inc         15      Yes      Yes       No\n")


def test_a_load_beyond_lsf_cluster_thresholds_makes_the_host_busy(lsf_cluster):
    c = lsf_cluster
    text = c.path_of("lsf.cluster.cluster1").read_text()
    c.write("lsf.cluster.cluster1", text.replace("RESOURCES", "r1m  mem    RESOURCES")
            .replace("100G    (fs)", "100G    2.5  15000  (fs)").replace("100G    (cs ssd)", "100G    -    -      (cs ssd)")
            .replace("100G    (cs)", "100G    ()   ()     (cs)"))
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    assert c.run("lshosts -l hostA").out.endswith(
        "LOAD_THRESHOLDS:\n"
        "  r15s   r1m  r15m   ut    pg    io  ls    it   tmp   swp   mem\n"
        "     -   2.5     -    -     -     -   -     -     -     - 14.6G\n")
    assert c.run("lsload hostA").out == LSLOAD_HEAD + f"{'hostA':<15} {IDLE}"
    jid(c.run("bsub -m hostA -n 3 -R 'rusage[mem=2000]' sleep 600", user="user1"))
    c.advance("1m")
    # r1m 3.0 > 2.5 and mem 14G < 15000M: LIM's busy, the indices marked
    assert c.run("lsload hostA hostB").out == LSLOAD_HEAD + (
        f"{'hostB':<15} {IDLE}"
        "hostA             busy   3.0  *3.0   3.0  75%   0.0   0     0  100G    4G  *14G\n")
    assert c.run("lsload -R 'select[r1m > 2]'").out.splitlines()[1].startswith("hostA             busy")
