"""What each option lsfemu had before issue 18 does, shown on one cluster in
virtual time (tests/e2e/test_option_table.py::EFFECTS points here, and to
the feature tests that show the rest).

The cluster (lsfemu init's): hostA, hostB, hostC with 4 slots each; queues
normal (default, priority 30) and priority (43, RUNLIMIT 60). The clock
stands still between commands (LSFEMU_CLOCK=virtual).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from lsfemu.testing import LsfCluster

pytestmark = pytest.mark.slow(14)  # seconds, quiet machine: scheduled early (tests/conftest.py)


@pytest.fixture(scope="module")
def c():
    root = Path(tempfile.mkdtemp(prefix="lsfopt-"))
    cl = LsfCluster(root)
    yield cl
    cl.stop()
    shutil.rmtree(root, ignore_errors=True)


def ok(c, cmd, user="user1"):
    r = c.run(cmd, user=user)
    assert r.rc == 0, f"{cmd}\n{r.text}"
    return r.out


def ids(out: str) -> list[str]:
    """The job IDs of a listing without its header."""
    return [w[0] for w in (line.split() for line in out.splitlines()) if w and w[0].isdigit()]


def test_bsub_options_are_what_bjobs_shows(c):
    out = ok(c, 'bsub -q priority -n 2 -J nm -o out.txt -e err.txt -W 10 -sp 70 -R "rusage[mem=100]" '
                '-P proj -G research -cwd /tmp -M 500 sleep 100')
    jid = re.search(r"Job <(\d+)>", out).group(1)
    out2 = ok(c, f'bsub -oo o2 -eo e2 -w "done({jid})" sleep 5')
    jid2 = re.search(r"Job <(\d+)>", out2).group(1)
    c.advance("20s")
    long = ok(c, f"bjobs -UF {jid}")
    for shown in ("Job Name <nm>", "Project <proj>", "User Group <research>", "Queue <priority>",
                  "Job Priority <70>", "Specified CWD </tmp>", "Output File <out.txt>", "Error File <err.txt>",
                  "2 Task(s)", "Requested Resources <rusage[mem=100]>", "Allocated 2 Slot(s)",
                  "Execution CWD </tmp>"):
        assert shown in long, shown
    assert re.search(r"RUNLIMIT\s*\n\s*10\.0 min", long) and re.search(r"MEMLIMIT\n\s*500 M", long)
    long2 = ok(c, f"bjobs -UF {jid2}")
    assert "Output File (overwrite) <o2>" in long2 and "Error File (overwrite) <e2>" in long2
    assert f"Dependency Condition <done({jid})>" in long2 and "Job dependency condition not satisfied" in long2
    ok(c, f"bkill {jid} {jid2}")


def test_bsub_W_ends_the_job_at_its_run_limit(c):
    jid = re.search(r"<(\d+)>", ok(c, "bsub -W 1 sleep 600")).group(1)
    c.advance("3m")
    assert ok(c, f"bjobs -noheader -o 'stat exit_reason' {jid}") == (
        "EXIT TERM_RUNLIMIT: job killed after reaching LSF run time limit\n")
    assert "Exited with exit code 140" in ok(c, f"bhist -l {jid}")


@pytest.fixture(scope="module")
def states(c):
    """One job in each state: user1's RUN, PEND (-n 12 cannot start while alpha runs),
    DONE, PSUSP (bstop while pending), EXIT (bkill); user2's RUN in queue priority; an array."""
    def sub(cmd, user="user1"):
        return re.search(r"<(\d+)>", ok(c, cmd, user)).group(1)
    j = {
        "run": sub("bsub -J alpha sleep 1000"),
        "pend": sub("bsub -n 12 -J beta sleep 10"),
        "done": sub("bsub -J gamma sleep 5"),
        "psusp": sub("bsub -n 12 -J delta sleep 10"),
        "exit": sub("bsub -J eps sleep 1000"),
        "other": sub("bsub -q priority -J zeta sleep 1000", "user2"),
        "array": sub('bsub -J "arr[1-3]" sleep 1000'),
    }
    c.advance("30s")
    ok(c, f"bstop {j['psusp']}")
    ok(c, f"bkill {j['exit']}")
    c.advance("10s")
    return j


def test_bjobs_state_filters(c, states):
    s = states
    assert set(ids(ok(c, "bjobs -r"))) >= {s["run"], s["array"]} and s["pend"] not in ids(ok(c, "bjobs -r"))
    assert set(ids(ok(c, "bjobs -p"))) >= {s["pend"], s["psusp"]}
    assert set(ids(ok(c, "bjobs -s"))) == {s["psusp"]}
    assert set(ids(ok(c, "bjobs -d"))) >= {s["done"], s["exit"]} and s["run"] not in ids(ok(c, "bjobs -d"))
    everything = ids(ok(c, "bjobs -a"))
    assert {s["done"], s["exit"], s["run"], s["pend"]} <= set(everything)
    assert s["done"] not in ids(ok(c, "bjobs"))


def test_bjobs_selection_and_forms(c, states):
    s = states
    assert ids(ok(c, "bjobs -J alpha")) == [s["run"]]
    assert ids(ok(c, "bjobs -u user2")) == [s["other"]]
    assert s["other"] in ids(ok(c, "bjobs -u all")) and s["other"] not in ids(ok(c, "bjobs"))
    assert ids(ok(c, "bjobs -u all -q priority")) == [s["other"]]
    assert ok(c, "bjobs -noheader -J alpha").split()[0] == s["run"]
    assert ok(c, "bjobs -J alpha").startswith("JOBID")
    wide = ok(c, f"bjobs -w {s['run']}")
    assert wide.splitlines()[0].split() == ["JOBID", "USER", "STAT", "QUEUE", "FROM_HOST", "EXEC_HOST", "JOB_NAME",
                                            "SUBMIT_TIME"]
    assert f"Job <{s['run']}>, Job Name <alpha>" in ok(c, f"bjobs -l {s['run']}")
    assert "\n" not in ok(c, f"bjobs -UF {s['run']}").split("Command <")[1].split(">")[0]
    assert ok(c, f"bjobs -noheader -o 'jobid stat job_name' {s['run']}") == f"{s['run']} RUN alpha\n"
    record = json.loads(ok(c, f"bjobs -json -o 'jobid stat' {s['run']}"))
    assert record["RECORDS"][0] == {"JOBID": s["run"], "STAT": "RUN"}
    assert re.fullmatch(r"\d\d:\d\d:\d\d\n", ok(c, f"bjobs -noheader -hms -o run_time {s['run']}"))
    arrays = ok(c, "bjobs -A")
    assert arrays.splitlines()[0].split()[:3] == ["JOBID", "ARRAY_SPEC", "OWNER"]
    assert f"{s['array']} arr[1-3]" in " ".join(arrays.split())


def test_control_commands_select_by_name_queue_and_user(c):
    def sub(cmd, user="user1"):
        return re.search(r"<(\d+)>", ok(c, cmd, user)).group(1)
    a = sub("bsub -J ctl_a -q priority sleep 1000")
    b = sub("bsub -J ctl_b sleep 1000", "user5")
    c.advance("20s")
    assert ok(c, "bstop -J ctl_a") == f"Job <{a}> is being stopped\n"
    assert ok(c, "bresume -J ctl_a") == f"Job <{a}> is being resumed\n"
    assert ok(c, "bstop -q priority -u user1") == f"Job <{a}> is being stopped\n"
    assert ok(c, "bresume -q priority -u user1") == f"Job <{a}> is being resumed\n"
    assert ok(c, "bstop -u user5", "user5") == f"Job <{b}> is being stopped\n"
    assert ok(c, "bresume -u user5", "user5") == f"Job <{b}> is being resumed\n"
    assert ok(c, "bkill -s CONT -J ctl_a") == f"Job <{a}> is being signaled\n"
    assert ok(c, "bswitch -J ctl_b normal", "user5") == f"Job <{b}> is switched to queue <normal>\n"
    assert ok(c, "bswitch -q normal -u user5 priority", "user5") == f"Job <{b}> is switched to queue <priority>\n"
    assert ok(c, "bswitch -u user5 normal", "user5") == f"Job <{b}> is switched to queue <normal>\n"
    assert ok(c, "bkill -q priority -u user1") == f"Job <{a}> is being terminated\n"
    assert ok(c, "bkill -u user5", "user5") == f"Job <{b}> is being terminated\n"


def test_bmig_and_brequeue_select_jobs(c):
    def sub(cmd, user="user1"):
        return re.search(r"<(\d+)>", ok(c, cmd, user)).group(1)
    r = sub("bsub -r sleep 1000", "user4")
    c.advance("20s")
    assert ok(c, "bmig -u user4", "user4") == f"Job <{r}> is being migrated\n"
    c.advance("20s")
    done = sub("bsub sleep 5", "user4")
    c.advance("20s")
    ok(c, f"bkill {r}", "user4")
    c.advance("5s")
    assert ok(c, f"brequeue -d {done}", "user4") == f"Job <{done}> is being requeued \n"  # (sic: OpenLava's text ends with a blank)
    assert ok(c, f"brequeue -e {r}", "user4") == f"Job <{r}> is being requeued \n"  # (sic: OpenLava's text ends with a blank)
    c.advance("20s")
    assert ok(c, f"brequeue -r {r}", "user4") == f"Job <{r}> is being requeued \n"  # (sic: OpenLava's text ends with a blank)
    c.advance("20s")
    assert ok(c, f"brequeue -a -u user4 {r}", "user4") == f"Job <{r}> is being requeued \n"  # (sic: OpenLava's text ends with a blank)


def test_wide_and_long_info_views(c):
    queues = c.path_of("lsb.queues")
    queues.write_text(queues.read_text() + "\nBegin Queue\nQUEUE_NAME = a_queue_name_of_24_chars\n"
                      "PRIORITY = 5\nDESCRIPTION = A long name.\nEnd Queue\n")
    ok(c, "badmin reconfig", "lsfadmin")
    short = ok(c, "bqueues a_queue_name_of_24_chars").splitlines()[1]
    wide = ok(c, "bqueues -w a_queue_name_of_24_chars").splitlines()[1]
    assert wide.startswith("a_queue_name_of_24_chars ") and not short.startswith("a_queue_name_of_24_chars")
    assert ok(c, "bqueues -r a_queue_name_of_24_chars").startswith("\nQUEUE: a_queue_name_of_24_chars\n  -- A long name.")
    assert ok(c, "bhosts").splitlines()[0].split() == ok(c, "bhosts -w").splitlines()[0].split()
    assert ok(c, "bhosts").splitlines()[0].index("JL/U") < ok(c, "bhosts -w").splitlines()[0].index("JL/U")
    assert ok(c, "busers -w user1").split()[9:13] == ["MPEND", "PJOBS", "MPJOBS", "PRIO"]
    assert "MPEND" not in ok(c, "busers user1")
    assert ok(c, "bugroup -w").splitlines()[0] == "GROUP_NAME  USERS"
    assert ok(c, "bugroup").splitlines()[0] == "GROUP_NAME    USERS"
