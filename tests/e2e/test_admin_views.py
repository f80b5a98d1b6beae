"""badmin showstatus, showconf mbd, hist, mbdhist, qhist, hhist and the
subcommands refused by name, on lsfemu init's cluster (issue 21, part 4):
what each shows of the running cluster and of lsb.events' daemon records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow(20)  # seconds, quiet machine


def _status(c) -> dict[str, str]:
    """showstatus read as tools read it: each label's last word."""
    out = c.run("badmin showstatus").out
    return {ln.split(":")[0].strip(): ln.split()[-1] for ln in out.splitlines() if ":" in ln}


def test_showstatus_follows_hosts_jobs_and_users(lsf_cluster):
    c = lsf_cluster
    r = c.run("badmin showstatus", user="user1")  # anyone may ask
    assert (r.err, r.rc) == ("", 0) and r.out.startswith("LSF runtime mbatchd information\n")
    s = _status(c)
    assert (s["Servers"], s["CPUs"], s["Slots"], s["Number of servers"], s["Ok"]) == ("3/3", "12/12", "12/12", "3", "3")
    assert (s["Number of jobs"], s["Latest job id"], s["Number of active users"]) == ("0", "0", "0")
    assert "    Latest mbatchd start:          Mon Jan  5 09:00:00 2026\n" in r.out
    assert "    Latest mbatchd reconfig:       Mon Jan  5 09:00:00 2026\n" in r.out
    c.run("bsub -n 4 -m hostA sleep 60", user="user1")
    c.run("bsub -n 4 -m hostA sleep 60", user="user2")
    c.run("bsub sleep 600", user="user1")
    c.advance("2m")  # the first ends, the second starts on hostA after it
    c.run("bstop 3", user="user1")
    c.run("badmin hclose hostB", user="lsfadmin")
    c.run("lsfemu host fail hostC", user="lsfadmin")
    s = _status(c)
    assert (s["Servers"], s["CPUs"], s["Number of servers"], s["Ok"], s["Closed"], s["Unavailable"]) == \
        ("2/3", "8/12", "3", "0", "2", "1")
    assert (s["Number of jobs"], s["Running"], s["Suspended"], s["Pending"], s["Finished"]) == ("3", "1", "1", "0", "1")
    assert (s["Latest job id"], s["Number of active users"]) == ("3", "2")
    assert "    Latest mbatchd reconfig:       Mon Jan  5 09:00:00 2026\n" in c.run("badmin showstatus").out
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    assert "    Latest mbatchd reconfig:       Mon Jan  5 09:02:00 2026\n" in c.run("badmin showstatus").out


def test_showconf_mbd_names_where_lsb_events_is_and_refusals(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 1", user="user1")
    r = c.run("badmin showconf mbd")
    lines = r.out.splitlines()
    assert (r.err, r.rc, lines[0]) == ("", 0, "MBD configuration at Mon Jan  5 09:00:00 2026")
    # the snakemake plugin and lsfMonitor: skip the title, strip, split on " = "
    conf = dict(ln.strip().split(" = ", 1) for ln in lines[1:])
    assert (conf["LSF_UNIT_FOR_LIMITS"], conf["LSF_ENVDIR"]) == ("MB", str(c.envdir))
    logdir = Path(conf["LSB_SHAREDIR"]) / "cluster1" / "logdir"
    assert (logdir / "lsb.events").read_text() == (c.home / "logdir" / "lsb.events").read_text()
    assert '"JOB_NEW"' in (logdir / "lsb.events").read_text()
    c.advance("1m")  # the job ends: its JOB_FINISH is in lsb.acct, found the same way (bacct's helper)
    assert '"JOB_FINISH"' in (logdir / "lsb.acct").read_text()
    assert c.run("badmin showconf mbd all").out.splitlines()[1:] == lines[1:]
    r = c.run("badmin showconf sbd")
    assert (r.rc, r.err.splitlines()[0]) == (255, "badmin: showconf: only 'mbd' is supported")
    # the subcommands refused, bad arguments
    for cmd, err in (
            ("badmin rc view", "badmin: rc: the LSF resource connector is not enabled in this cluster\n"),
            ("badmin rc error", "badmin: rc: the LSF resource connector is not enabled in this cluster\n"),
            ("badmin hrestart hostA", "badmin: subcommand hrestart is not supported by lsfemu yet\n"),
            ("badmin hist -t nosuch", "nosuch: Bad time specification\n"),
            ("badmin hist -f nosuch", "nosuch: No such file or directory\n")):
        r = c.run(cmd, user="lsfadmin")
        assert (r.out, r.err, r.rc) == ("", err, 255), cmd
    r = c.run("badmin nosuch")
    assert (r.rc, r.err.splitlines()[:2]) == (255, ["Invalid command <nosuch> ", "badmin: [-h] [-V] [command] [command_options] [command_args]"])
    for cmd in ("badmin mbdhist hostA", "badmin showstatus extra"):
        r = c.run(cmd)
        assert (r.rc, r.err.splitlines()[0]) == (255, "badmin: [-h] [-V] [command] [command_options] [command_args]")
    r = c.run("badmin hist -f /")  # a folder is no log file
    assert (r.out, r.err, r.rc) == ("", "/: No such file or directory\n", 255)


def test_hist_lists_the_daemon_records_of_lsb_events(lsf_cluster):
    c = lsf_cluster
    start = ("Mon Jan  5 09:00:00: mbatchd started on host <hostA>; cluster name <cluster1>, 3\n"
             "                     server hosts, 2 queues.\n")
    assert c.run("badmin mbdhist").out == start
    c.run("bsub sleep 1", user="user1")  # job records are not listed
    c.advance("1m")
    c.run(["badmin", "qclose", "-C", "disk full", "normal"], user="lsfadmin")
    c.advance("1m")
    c.run("badmin hclose hostB", user="lsfadmin")
    c.run("badmin mbdrestart", user="lsfadmin")
    r = c.run("badmin hist")
    assert (r.err, r.rc) == ("", 0)
    assert r.out == start + (
        "Mon Jan  5 09:01:00: Queue <normal> closed by user or administrator <lsfadmin>.\n"
        "                     disk full.\n"
        "Mon Jan  5 09:02:00: Host <hostB> closed by administrator <lsfadmin>.\n"
        "Mon Jan  5 09:02:00: mbatchd on host <hostA> died: reconfiguration initiated. \n"
        # (prtLine: only the output's first line holds 80 characters, the others 79)
        "Mon Jan  5 09:02:00: mbatchd started on host <hostA>; cluster name <cluster1>, \n"
        "                     3 server hosts, 2 queues.\n")
    assert c.run("badmin mbdhist").out.count("mbatchd") == 3
    # qhist and hhist: those queues and hosts; -t: a time window
    assert c.run("badmin qhist normal").out.startswith("Mon Jan  5 09:01:00: Queue <normal> closed by user")
    r = c.run("badmin qhist short")
    assert (r.out, r.err, r.rc) == ("", "No matching event found\n", 0)
    assert c.run("badmin hhist").out == "Mon Jan  5 09:02:00: Host <hostB> closed by administrator <lsfadmin>.\n"
    assert c.run("badmin hist -t 2026/01/05/09:01,2026/01/05/09:01").out.startswith(
        "Mon Jan  5 09:01:00: Queue <normal> closed")
    assert len(c.run("badmin hist -t 2026/01/05/09:01,2026/01/05/09:01").out.splitlines()) == 2
    # -f: another file (a copy of the log, relative to the caller's folder)
    copy = c.root / "userhome" / "old.events"
    copy.write_text((c.home / "logdir" / "lsb.events").read_text())
    assert c.run("badmin mbdhist -f old.events").out == c.run("badmin mbdhist").out
    # a daemon stop is a kill by SIGTERM
    c.stop()
    assert "mbatchd on host <hostA> died: killed by signal <15>." in c.run("badmin mbdhist").out


def test_perfmon_counts_what_the_daemon_serves_per_period(lsf_cluster):
    c = lsf_cluster
    r = c.run("badmin perfmon view")
    assert (r.out, r.err, r.rc) == ("Performance metric sampling has not been started\n", "", 0)
    c.run("bjobs", user="user1")  # not counted: sampling is not started
    assert c.run("badmin perfmon start", user="lsfadmin").out == "Performance metric sampling has been started\n"
    assert c.run("badmin perfmon view -json").out == (
        "No performance metric data available. Please wait until first sample period ends.\n")
    c.run("bsub -J 'a[1-5]' sleep 30", user="user1")
    c.run("bjobs", user="user1")
    c.run("bqueues")
    c.run("lsload")  # LIM's: not a request of mbatchd
    c.advance("1m")  # the array runs and ends within the first period
    c.run("bhosts")
    c.advance("1m")
    data = json.loads(c.run("badmin perfmon view -json").out)
    assert (data["num"], data["period"], data["end"] - data["start"]) == (16, 60, 120)
    rec = {r["name"]: r for r in data["record"]}
    # the first period: view -json, bsub, bjobs, bqueues; the second: bhosts
    assert rec["Processed requests: mbatchd"] == {"name": "Processed requests: mbatchd", "current": 1, "max": 4,
                                                  "min": 1, "avg": 2, "total": 5}
    assert [rec[m]["total"] for m in ("Job information queries", "Host information queries",
                                      "Queue information queries", "Job submission requests", "Jobs submitted",
                                      "Jobs dispatched", "Jobs completed")] == [1, 1, 1, 1, 5, 5, 5]
    assert rec["Slot utilization"] == {"name": "Slot utilization", "current": "-", "total": "0.00%"}
    assert data["fd"]["used"] > 0 and data["fd"]["free"] + data["fd"]["used"] == data["fd"]["total"]
    text = c.run("badmin perfmon view").out
    assert text.startswith("Performance monitor start time:  Mon Jan  5 09:00:00\n"
                           "End time of last sample period:  Mon Jan  5 09:02:00\n"
                           "Sample period :                  60 Seconds\n")
    assert "\nJobs submitted                            0     5     0     2       5\n" in text
    # a running job's slots count in the slot utilization
    c.run("bsub -n 6 sleep 600", user="user1")
    c.advance("1m")
    assert json.loads(c.run("badmin perfmon view -json").out)["record"][-2]["total"] == "50.00%"
    # setperiod starts again; stop ends it
    assert c.run("badmin perfmon setperiod 30", user="lsfadmin").rc == 0
    assert c.run("badmin perfmon view").out.startswith("No performance metric data available.")
    c.advance("30s")
    assert "Sample period :                  30 Seconds\n" in c.run("badmin perfmon view").out
    assert c.run("badmin perfmon stop", user="lsfadmin").out == "Performance metric sampling has been stopped\n"
    assert c.run("badmin perfmon view").out == "Performance metric sampling has not been started\n"


def test_perfmon_from_lsb_params_and_refusals(lsf_cluster):
    c = lsf_cluster
    params = c.path_of("lsb.params")
    c.write("lsb.params", params.read_text().replace(
        "Begin Parameters", "Begin Parameters\nSCHED_METRIC_ENABLE=Y\nSCHED_METRIC_SAMPLE_PERIOD=120"))
    assert c.run("badmin mbdrestart", user="lsfadmin").rc == 0  # a started daemon samples at once
    c.advance("2m")
    assert "Sample period :                  120 Seconds\n" in c.run("badmin perfmon view").out
    for cmd, user, err in (("badmin perfmon start", "user1", "User permission denied\n"),
                           ("badmin perfmon start 0", "lsfadmin",
                            "The sample period must be a whole number of seconds from 1 to 3600\n"),
                           ("badmin perfmon setperiod x", "lsfadmin",
                            "The sample period must be a whole number of seconds from 1 to 3600\n")):
        r = c.run(cmd, user=user)
        assert (r.out, r.err, r.rc) == ("", err, 255), cmd
    assert "Sample period :                  120 Seconds\n" in c.run("badmin perfmon view").out  # unchanged
    assert c.run("badmin perfmon stop", user="lsfadmin").rc == 0
    r = c.run("badmin perfmon stop", user="lsfadmin")
    assert (r.out, r.err, r.rc) == ("", "Performance metric sampling has not been started\n", 255)
    for cmd in ("badmin perfmon", "badmin perfmon view extra", "badmin perfmon start -json"):
        r = c.run(cmd, user="lsfadmin")
        assert (r.rc, r.err.splitlines()[0]) == (255, "badmin: [-h] [-V] [command] [command_options] [command_args]")
