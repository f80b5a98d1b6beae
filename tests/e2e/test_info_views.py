"""The cluster views of issue 21, part 2 on one cluster in virtual time:
bqueues -o/-json/-noheader/-u/-m/-alloc and LSB_BQUEUES_FORMAT; bhosts
-o/-json/-noheader/-alloc and LSB_BHOSTS_FORMAT; bparams -a; bqueues -l after
badmin qinact; busers -o/-json/-alloc and LSB_BUSERS_FORMAT; bugroup -r
(tests/e2e/test_option_table.py::EFFECTS points here).

The cluster is lsfemu init's (hostA, hostB, hostC with 4 slots; queues normal
and priority) with one more queue, `night`, for user2 on hostA only, and one
more user group, `everyone`, made of the group `research` and two users.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from lsfemu.testing import LsfCluster

pytestmark = pytest.mark.slow(8)  # seconds, quiet machine

NIGHT = """
Begin Queue
QUEUE_NAME = night
PRIORITY = 5
USERS = user2
HOSTS = hostA
DESCRIPTION = Night jobs.
End Queue
"""


@pytest.fixture(scope="module")
def c():
    root = Path(tempfile.mkdtemp(prefix="lsfinfo-"))
    cl = LsfCluster(root)
    queues = cl.path_of("lsb.queues")
    queues.write_text(queues.read_text() + NIGHT)
    users = cl.path_of("lsb.users")  # a group of a group, for bugroup -r
    users.write_text(users.read_text().replace("End UserGroup", "everyone     (research user3 user1)  ()\nEnd UserGroup", 1))
    assert cl.run("bsub -n 2 -q normal sleep 1000", user="user1").rc == 0
    assert cl.run("bsub -n 6 -q priority sleep 1000", user="user1").rc == 0
    assert cl.run("bsub -n 5 -q normal sleep 1000", user="user2").rc == 0  # 4 slots left: pends
    cl.advance("1m")
    yield cl
    cl.stop()
    shutil.rmtree(root, ignore_errors=True)


def ok(c, cmd, user="user1", env=None):
    r = c.run(cmd, user=user, env=env)
    assert r.rc == 0, f"{cmd}\n{r.text}"
    return r.out


def fails(c, cmd, err, user="user1"):
    r = c.run(cmd, user=user)
    assert (r.out, r.err, r.rc) == ("", err, 255), f"{cmd}\n{r.text}"


# -- bqueues ------------------------------------------------------------------------------------

def test_bqueues_o_fields_aliases_widths_and_delimiter(c):
    out = ok(c, "bqueues -o 'qname prio STATUS max jlu njobs pend run susp'")
    assert out.splitlines() == [
        "QUEUE_NAME PRIORITY STATUS MAX JL_U NJOBS PEND RUN SUSP",
        "priority 43 Open:Active - - 6 0 6 0",
        "normal 30 Open:Active - - 7 5 2 0",
        "night 5 Open:Active - - 0 0 0 0",
    ]
    out = ok(c, "bqueues -o 'queue_name:10 njobs:-6 res_req delimiter=\"|\"' normal")
    assert out == "QUEUE_NAME| NJOBS|RES_REQ\nnormal    |     7|-\n"
    assert ok(c, "bqueues -noheader -o 'queue_name hosts' night") == "night hostA\n"
    assert ok(c, "bqueues -noheader night") == "night             5  Open:Active       -    -    -    -     0     0     0     0\n"


def test_bqueues_o_all_lists_every_field(c):
    header = ok(c, "bqueues -o all night").splitlines()[0].split()
    assert header[:4] == ["QUEUE_NAME", "DESCRIPTION", "PRIORITY", "STATUS"] and header[-1] == "HOSTS"
    assert len(header) == 37


def test_bqueues_json_is_lsf_document(c):
    out = ok(c, "bqueues -json -o 'queue_name max njobs status description'")
    doc = json.loads(out)
    assert doc["COMMAND"] == "bqueues" and doc["QUEUES"] == 3
    assert doc["RECORDS"][2] == {"QUEUE_NAME": "night", "MAX": "-", "NJOBS": "0", "STATUS": "Open:Active",
                                 "DESCRIPTION": "Night jobs."}
    assert out.startswith('{\n  "COMMAND":"bqueues",\n  "QUEUES":3,\n  "RECORDS":[\n    {\n      "QUEUE_NAME":"priority",\n')
    assert ok(c, "bqueues -json night") == ok(c, "bqueues night")  # no format: no effect


def test_lsb_bqueues_format_option_over_environment_over_lsf_conf(c):
    conf = c.path_of("lsf.conf")
    before = conf.read_text()
    conf.write_text(before + 'LSB_BQUEUES_FORMAT="queue_name njobs"\n')
    try:
        # lsf.conf's display settings are read as the file is now (no badmin reconfig)
        assert ok(c, "bqueues normal") == "QUEUE_NAME NJOBS\nnormal 7\n"
        env = {"LSB_BQUEUES_FORMAT": "queue_name pend"}
        assert ok(c, "bqueues normal", env=env) == "QUEUE_NAME PEND\nnormal 5\n"
        assert ok(c, "bqueues -o 'queue_name run' normal", env=env) == "QUEUE_NAME RUN\nnormal 2\n"
        assert ok(c, "bqueues -json normal", env=env) == (
            '{\n  "COMMAND":"bqueues",\n  "QUEUES":1,\n  "RECORDS":[\n    {\n      "QUEUE_NAME":"normal",\n'
            '      "PEND":"5"\n    }\n  ]\n}\n')
        assert ok(c, "bqueues -l normal", env=env).startswith("\nQUEUE: normal\n")  # -l is not customised
    finally:
        conf.write_text(before)


def test_bqueues_u_and_m_select_the_queues(c):
    def names(cmd, user="user1"):
        return [line.split()[0] for line in ok(c, cmd, user).splitlines()[1:]]

    assert names("bqueues -u user2") == ["priority", "normal", "night"]
    assert names("bqueues -u user1") == ["priority", "normal"]
    assert names("bqueues -u all") == ["priority", "normal", "night"]
    assert names("bqueues -m hostB") == ["priority", "normal"]
    assert names("bqueues -m hostA -u user2") == ["priority", "normal", "night"]
    assert names("bqueues -m all") == ["priority", "normal", "night"]
    fails(c, "bqueues -u user1 night", "user1: User cannot use the queue\n")
    fails(c, "bqueues -m hostB night", "hostB: Host or host group is not used by the queue\n")
    fails(c, "bqueues -m nohost", "nohost: Bad host name, host group name or cluster name\n")


def test_bqueues_alloc_counts_slots(c):
    assert ok(c, "bqueues -alloc normal").splitlines()[1].split()[-4:] == ["7", "5", "2", "0"]


def test_bqueues_l_says_inact_adm_after_qinact(c):
    assert ok(c, "badmin qinact night", "lsfadmin") == "Queue <night> is inactivated\n"
    try:
        assert ok(c, "bqueues night").splitlines()[1].split()[2] == "Open:Inact"
        stats = ok(c, "bqueues -l night").splitlines()[6]
        assert stats.split()[2] == "Open:Inact_Adm"
    finally:
        ok(c, "badmin qact night", "lsfadmin")


# -- bhosts -------------------------------------------------------------------------------------

def test_bhosts_o_fields_and_noheader(c):
    # user1's 2 + 6 slots fill hostA and half of hostB (the order the pass fills hosts in)
    out = ok(c, "bhosts -o 'hname stat max njobs run rsv'")
    assert out.splitlines() == [
        "HOST_NAME STATUS MAX NJOBS RUN RSV",
        "hostA closed_Full 4 4 4 0",
        "hostB closed_Full 4 4 4 0",
        "hostC ok 4 0 0 0",
    ]
    assert ok(c, "bhosts -noheader -o 'host_name:6 cpuf total_mem' hostC") == "hostC  60.00 16G\n"
    assert ok(c, "bhosts -noheader hostC") == "hostC              ok              -      4      0      0      0      0      0\n"
    assert ok(c, "bhosts -o 'host_name ngpus dispatch_window' hostC").splitlines()[1] == "hostC - -"


def test_bhosts_json_is_lsf_document(c):
    out = ok(c, "bhosts -json -o 'HOST_NAME STATUS MAX NJOBS RUN SSUSP USUSP RSV' hostA")
    assert out == ('{\n  "COMMAND":"bhosts",\n  "HOSTS":1,\n  "RECORDS":[\n    {\n      "HOST_NAME":"hostA",\n'
                   '      "STATUS":"closed_Full",\n      "MAX":"4",\n      "NJOBS":"4",\n      "RUN":"4",\n'
                   '      "SSUSP":"0",\n      "USUSP":"0",\n      "RSV":"0"\n    }\n  ]\n}\n')
    doc = json.loads(ok(c, "bhosts -json -o all"))
    assert doc["HOSTS"] == 3 and list(doc["RECORDS"][2])[:3] == ["HOST_NAME", "STATUS", "CPUF"]
    assert doc["RECORDS"][2]["AVAILABLE_MEM"] == "16G"


def test_lsb_bhosts_format_from_the_environment(c):
    env = {"LSB_BHOSTS_FORMAT": "host_name run delimiter=','"}
    assert ok(c, "bhosts hostB", env=env) == "HOST_NAME,RUN\nhostB,4\n"
    assert ok(c, "bhosts -o 'host_name njobs' hostB", env=env) == "HOST_NAME NJOBS\nhostB 4\n"
    assert ok(c, "bhosts -w hostB", env=env).startswith("HOST_NAME          STATUS          JL/U")


def test_bhosts_alloc_counts_slots(c):
    assert ok(c, "bhosts -alloc hostB").splitlines()[1].split()[3:5] == ["4", "4"]


# -- bparams -a ---------------------------------------------------------------------------------

def test_bparams_a_lists_every_parameter_in_force(c):
    lines = ok(c, "bparams -a").splitlines()
    assert lines[0].startswith("lsb.params configuration at ")
    values = dict(line.strip().split(" = ", 1) for line in lines[1:])
    assert list(values) == sorted(values) and all(line.startswith("    ") for line in lines[1:])
    # lsfemu init's lsb.params sets these; the others are LSF 10.1's defaults
    assert values["DEFAULT_QUEUE"] == "normal" and values["JOB_ACCEPT_INTERVAL"] == "0"
    assert values["CLEAN_PERIOD"] == "3600" and values["RUN_JOB_FACTOR"] == "3" and values["RUN_TIME_DECAY"] == "N"
    assert "MAX_JOB_PREEMPT" not in values  # unset, no default: not in force
    assert values["MBD_SLEEP_TIME"] == ok(c, "bparams -l").split("MBD_SLEEP_TIME = ")[1].split()[0]


# -- busers -------------------------------------------------------------------------------------

def test_busers_o_json_and_alloc(c):
    assert ok(c, "busers -o 'user max njobs pend run' user1 user2") == (
        "USER MAX NJOBS PEND RUN\nuser1 8 8 0 8\nuser2 12 5 5 0\n")
    doc = json.loads(ok(c, "busers -json -o 'user jl/p njobs priority' user2"))
    assert doc == {"COMMAND": "busers", "USERS": 1,
                   "RECORDS": [{"USER": "user2", "JL/P": "-", "NJOBS": "5", "PRIORITY": "0"}]}
    env = {"LSB_BUSERS_FORMAT": "user pend delimiter=';'"}
    assert ok(c, "busers user2", env=env) == "USER;PEND\nuser2;5\n"
    assert ok(c, "busers -alloc user2").splitlines()[1].split()[3:5] == ["0", "0"]  # NJOBS, PEND: no slot held
    assert ok(c, "busers user2").splitlines()[1].split()[3:5] == ["5", "5"]


# -- bugroup -r ---------------------------------------------------------------------------------

def test_bugroup_r_expands_subgroups(c):
    assert ok(c, "bugroup everyone") == "GROUP_NAME    USERS\neveryone      research user3 user1\n"
    assert ok(c, "bugroup -r everyone") == "GROUP_NAME    USERS\neveryone      user1 user2 user3\n"
    assert ok(c, "bugroup -r -l everyone").startswith("GROUP_NAME:  everyone\nUSERS:  user1 user2 user3 \n")


# -- bhosts -l: lsb.hosts loadSched thresholds, closed_Busy -------------------------------------

BUSY_HOSTS = """Begin Host
HOST_NAME  MXJ   JL/U   r1m       mem
hostA      4     ()     1.5/2.5   -
hostB      4     ()     -         ()
hostC      4     ()     -         ()
End Host
"""


def test_load_sched_threshold_closes_a_busy_host(lsf_cluster_factory):
    c = lsf_cluster_factory(files={"lsb.hosts": BUSY_HOSTS})
    r = c.run("badmin ckconfig", user="lsfadmin")
    assert "lsb.hosts(3): r1m: the loadStop threshold <2.5> is not supported by lsfemu" in r.err, r.text
    ok(c, "bsub -n 2 -m hostA sleep 1000")
    c.advance("1m")
    # two running slots: r1m 2 is beyond hostA's loadSched 1.5
    assert ok(c, "bhosts -w hostA").splitlines()[1].split()[1] == "closed_Busy"
    assert ok(c, "bhosts hostA").splitlines()[1].split()[1] == "closed"
    long = ok(c, "bhosts -l hostA").splitlines()
    i = long.index(" LOAD THRESHOLD USED FOR SCHEDULING:")
    assert long[i + 2] == " loadSched   -    1.5    -     -       -     -    -     -     -      -      -"
    assert long[i + 3].split() == ["loadStop"] + ["-"] * 11
    jid = ok(c, "bsub -m hostA sleep 10").split("<")[1].split(">")[0]
    c.advance("1m")
    assert ok(c, f"bjobs -noheader -o stat {jid}") == "PEND\n"
    assert "The 1 min effective CPU queue length (r1m) is beyond threshold" in ok(c, f"bjobs -p {jid}")
    ok(c, "bsub -m hostB sleep 10")  # no threshold there: runs
    c.advance("1m")
    assert ok(c, "bhosts -w hostB").splitlines()[1].split()[1] == "ok"


def test_bhosts_R_selects_the_hosts_a_requirement_takes(c):
    # lsfemu init's hosts: hostA (fs), hostB (cs ssd), hostC (cs); hostA and hostB are full here
    def names(cmd):
        return [line.split()[0] for line in ok(c, cmd).splitlines()[1:]]

    assert names("bhosts -R cs") == ["hostB", "hostC"]
    assert names("bhosts -R 'select[cs && !ssd]'") == ["hostC"]
    assert names("bhosts -w -R 'select[slots > 0]'") == ["hostC"]
    assert names("bhosts -R cs hostA hostB") == ["hostB"]
    fails(c, "bhosts -R 'select[maxmem > 1T]'", "Not enough host(s) currently eligible\n")
    fails(c, "bhosts -R 'select[nosuch > 1]'", "Bad resource requirement syntax\n")
    fails(c, "bhosts -R 'select[mem >'", "Bad resource requirement syntax\n")
