"""bhosts and lsb.hosts' host groups (issue 21): a host group named is its
hosts; a CONDENSE=Y group is one row (its members' counts summed, the overall
status, and with -w how many members are ok/unavail/unreach/busy); -X, -l
and -o show the hosts; -a (no resource connector: the same hosts); -x, the
hosts where jobs exit too often."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow(4)  # seconds, quiet machine

GROUPS = """
Begin HostGroup
GROUP_NAME  GROUP_MEMBER     CONDENSE
ab          (hostA hostB)    Y
bc          (hostB hostC)    N
End HostGroup
"""
HEAD = "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n"
WIDE = "HOST_NAME          STATUS          JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n"


def test_host_exceptions_condensed_groups_and_X(lsf_cluster):
    c = lsf_cluster
    # -x: lsb.hosts EXIT_RATE (the `default` row here) and JOB_EXIT_RATE_DURATION: more jobs than the threshold
    # exited on a host over the last duration minutes; jobs a person or LSF ended do not count
    c.write("lsb.hosts", (c.path_of("lsb.hosts").read_text() + GROUPS).replace("HOST_NAME  MXJ   JL/U", "HOST_NAME  MXJ   JL/U  EXIT_RATE")
            .replace("hostA      4     ()", "hostA      4     ()    -").replace("hostB      4     ()", "hostB      4     ()    -")
            .replace("hostC      4     ()", "hostC      4     ()    -").replace("default    2     ()", "default    2     ()    1"))
    c.write("lsb.params", c.path_of("lsb.params").read_text().replace("End Parameters", "JOB_EXIT_RATE_DURATION = 10\nEnd Parameters"))
    r = c.run("bhosts -x")
    assert (r.out, r.err, r.rc) == ("", "There is no exceptional host found\n", 255)
    fail = {"LSFEMU_EXIT_CODE": "3", "LSFEMU_RUNTIME": "30"}
    for _ in range(2):
        assert c.run("bsub -m hostB sleep 30", user="user1", env=fail).rc == 0
    killed = c.run("bsub -m hostC sleep 600", user="user1")
    assert c.run("bsub -m hostC sleep 30", user="user1", env=fail).rc == 0
    c.advance("1m")
    assert c.run(f"bkill {killed.out.split('<')[1].split('>')[0]}", user="user1").rc == 0
    c.advance("1m")
    assert c.run("bjobs -a -noheader -o 'stat exec_host'", user="user1").out.split() == \
        ["EXIT", "hostB", "EXIT", "hostB", "EXIT", "hostC", "EXIT", "hostC"]
    # hostB: 2 exits > 1; hostC: 1 exit (the killed job does not count)
    assert c.run("bhosts -x -X").out == HEAD + "hostB              ok              -      4      0      0      0      0      0\n"
    # condensed: the group's row counts its exceptional members only
    assert c.run("bhosts -x").out == HEAD + "ab                 ok              -      4      0      0      0      0      0\n"
    assert c.run("bhosts -x hostA hostC").rc == 255
    c.advance("10m")  # out of the window
    assert c.run("bhosts -x").err == "There is no exceptional host found\n"
    assert "EXIT_RATE: lsfemu lists the hosts past it" in c.run("badmin ckconfig", user="lsfadmin").err
    # CONDENSE: the jobs above have ended; these run
    assert c.run("bsub -m hostB -n 4 sleep 600", user="user1").rc == 0
    assert c.run("bsub -m hostA sleep 600", user="user1").rc == 0
    c.advance("1m")
    assert c.run("bhosts").out == HEAD + (
        "ab                 ok              -      8      5      5      0      0      0\n"
        "hostC              ok              -      4      0      0      0      0      0\n")
    assert c.run("bhosts -w").out == WIDE + (
        "ab                 ok 1/0/0/0      -      8      5      5      0      0      0\n"
        "hostC              ok              -      4      0      0      0      0      0\n")
    plain = HEAD + (
        "hostA              ok              -      4      1      1      0      0      0\n"
        "hostB              closed          -      4      4      4      0      0      0\n"
        "hostC              ok              -      4      0      0      0      0      0\n")
    assert c.run("bhosts -X").out == plain
    # a group named: its row when condensed (-X: its hosts), its hosts when not
    assert c.run("bhosts ab").out == HEAD + "ab                 ok              -      8      5      5      0      0      0\n"
    assert c.run("bhosts -X ab").out == HEAD + plain.splitlines(keepends=True)[1] + plain.splitlines(keepends=True)[2]
    assert c.run("bhosts bc").out == HEAD + "".join(plain.splitlines(keepends=True)[2:])
    assert c.run("bhosts -noheader -o 'host_name njobs'").out == "hostA 1\nhostB 4\nhostC 0\n"
    assert c.run("badmin hclose hostA", user="lsfadmin").rc == 0
    assert c.run("bhosts -w ab").out == WIDE + \
        "ab                 closed 0/0/0/0     -      8      5      5      0      0      0\n"
    # -a: every host, those a resource connector relinquished too (lsfemu has none): the same rows, closed ones too
    assert c.run("bhosts -a -w").out == c.run("bhosts -w").out and "closed" in c.run("bhosts -a -X").out
    r = c.run("bhosts nosuch")
    assert (r.out, r.err, r.rc) == ("", "nosuch: Bad host name, host group name or cluster name\n", 255)


