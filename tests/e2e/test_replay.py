"""`lsfemu replay`: a cluster's lsb.events loaded into a fresh cluster shows
what the live cluster showed at that instant; --what-if schedules the same
jobs under another configuration and reports what changed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lsfemu.testing import FIXED_START, temporary_cluster

pytestmark = pytest.mark.slow(34)  # seconds, quiet machine; history made once for four tests: CPU 43.2 -> 40.0 s (A/B, load 5.5)

T0 = FIXED_START


def _cols(text: str, first: int, cols: slice) -> list[list[str]]:
    """Whitespace-split rows of a table, keeping the key column and *cols*."""
    rows = [line.split() for line in text.splitlines() if line.strip()]
    return [[r[first]] + r[cols] for r in rows]


def _env(into: Path) -> dict[str, str]:
    return {"LSF_ENVDIR": str(into), "LSFEMU_HOME": str(into / "state")}


def _views(c, env=None) -> dict[str, str]:
    run = (lambda cmd: c.run(cmd, env=env).text)
    return {
        "bjobs": run("bjobs -a -u all"),
        "bjobs_w": run("bjobs -a -u all -w"),
        "bjobs_l1": run("bjobs -l 1"),
        "bjobs_l4": run("bjobs -l 4"),
        "bhist_l": run("bhist -l -a -u all"),
        "bhist": run("bhist -a -u all"),
        "bqueues": run("bqueues"),
        "bqueues_l": run("bqueues -l"),
        "busers": run("busers all"),
    }


def _same(live: dict[str, str], rep: dict[str, str], *, own_config: bool) -> None:
    for k in ("bjobs_l1", "bjobs_l4", "bhist", "bhist_l"):
        assert rep[k] == live[k], k
    if own_config:
        for k in ("bjobs", "bjobs_w", "bqueues", "bqueues_l", "busers"):
            assert rep[k] == live[k], k
        return
    # A configuration made from the log: queue priorities, user groups and
    # limits are not in lsb.events. bjobs lists the same jobs (in the order
    # of the queues' priorities, all 30 here); bqueues and busers count the
    # same jobs.
    for k in ("bjobs", "bjobs_w"):
        assert sorted(rep[k].splitlines()) == sorted(live[k].splitlines()), k
    assert sorted(_cols(rep["bqueues"], 0, slice(7, 11))) == sorted(_cols(live["bqueues"], 0, slice(7, 11)))
    users = (lambda text: [r for r in _cols(text, 0, slice(3, 8)) if not r[0].endswith("/")])
    assert users(rep["busers"]) == users(live["busers"])


@pytest.fixture(scope="module")
def history():
    """A scripted history with every kind of change, and what the live
    cluster showed at two instants; made once for the module's tests, which
    only read the live cluster (and replay its log elsewhere)."""
    with temporary_cluster() as c:
        yield _scripted(c)


def _scripted(c):
    seen = {}
    for user, args in [("user1", "-n 2 -J a sleep 600"), ("user2", "-q priority -sp 70 sleep 300"),
                       ("user1", "sleep 1200"), ("user3", "-n 4 -W 10 sleep 900"),
                       ("user2", "-n 4 sleep 100"), ("user1", "-n 6 sleep 50"),
                       ("user3", "-n 4 -J waiter sleep 400"), ("user2", "-n 4 -J late sleep 200")]:
        r = c.run(f"bsub {args}", user=user)
        assert r.rc == 0, r.text
    c.advance("2m")
    for cmd, user in [("bstop 1", "user1"), ("bmod -sp 90 8", "user2"), ("btop 8", "user2"),
                      ("bswitch priority 7", "user3"), ("bkill 3", "user1")]:
        r = c.run(cmd, user=user)
        assert r.rc == 0, (cmd, r.text)
    c.advance("1m")
    seen["t1"] = T0 + 180
    seen["v1"] = _views(c)
    c.advance("4m")
    assert c.run("bresume 1", user="user1").rc == 0
    c.advance("8m")
    seen["t2"] = T0 + 900
    seen["v2"] = _views(c)
    seen["lsb"] = c.home / "logdir" / "lsb.events"
    return c, seen


def _replay(c, lsb: Path, into: Path, *extra: str):
    r = c.run(["lsfemu", "replay", str(lsb), "--into", str(into), *extra])
    assert r.rc == 0, r.text
    return r


@pytest.mark.parametrize("own_config", [True, False], ids=["with-conf", "made-from-log"])
def test_replay_shows_the_cluster_at_the_end_and_midway(history, tmp_path, own_config):
    c, seen = history
    extra = ["--conf", str(c.envdir)] if own_config else []
    for label, until, views in (("end", seen["t2"], seen["v2"]), ("mid", seen["t1"], seen["v1"])):
        into = tmp_path / label
        r = _replay(c, seen["lsb"], into, "--until", str(until), *extra)
        assert f"export LSF_ENVDIR={into} LSFEMU_HOME={into / 'state'}" in r.out
        assert re.match(r"Replayed \d+ events of 8 jobs into cluster <cluster1>", r.out)
        try:
            rep = _views(c, _env(into))
            _same(views, rep, own_config=own_config)
        finally:
            c.run("lsfemu daemon stop", env=_env(into))
    assert "USUSP" in seen["v1"]["bjobs"] and "EXIT" in seen["v1"]["bjobs"] and "PEND" in seen["v1"]["bjobs"]


def test_replay_then_advance_follows_the_known_history(history, tmp_path):
    """Jobs alive at --until run as long as the log says they ran."""
    c, seen = history
    mid = tmp_path / "mid"
    _replay(c, seen["lsb"], mid, "--until", str(seen["t1"]))
    env = _env(mid)
    try:
        live_end = seen["v2"]["bjobs_l4"]  # job 4: RUN at t1, ended by its run limit later
        assert "TERM_RUNLIMIT" in live_end
        before = c.run("bjobs -l 4", env=env).text
        assert "Status <RUN>" in before
        r = c.run(["lsfemu", "clock", "advance", "12m"], env=env)
        assert r.rc == 0, r.text
        after = c.run("bjobs -l 4", env=env).text
        finished = [line for line in live_end.splitlines() if "Exited" in line or "TERM_" in line]
        assert finished and all(line in after for line in finished)
    finally:
        c.run("lsfemu daemon stop", env=env)


def test_replay_refuses_bad_requests_and_changes_nothing(history, tmp_path):
    c, seen = history
    lsb = str(seen["lsb"])
    into = tmp_path / "x"
    cases = [
        (["lsfemu", "replay", lsb], "give exactly one of --into DIR and --what-if CONFDIR"),
        (["lsfemu", "replay", lsb, "--into", str(into), "--what-if", str(c.envdir)], "give exactly one"),
        (["lsfemu", "replay", str(tmp_path / "nope"), "--into", str(into)], "No such file"),
        (["lsfemu", "replay", lsb, "--into", str(into), "--until", "yesterday"], "bad time <yesterday>"),
        (["lsfemu", "replay", lsb, "--into", str(into), "--until", str(T0 - 3600)], "no event records to replay"),
        (["lsfemu", "replay", lsb, "--what-if", str(tmp_path)], "lsf.conf: No such file"),
        (["lsfemu", "replay", lsb, "--what-if", str(c.envdir), "--bucket", "0"], "must be more than 0"),
        (["lsfemu", "replay", lsb, "--into", str(into), "--html", str(tmp_path / "r.html")],
         "--json, --html and --bucket go with --what-if"),
        (["lsfemu", "replay", lsb, "--what-if", str(c.envdir), "--html", str(tmp_path / "no" / "r.html")],
         "No such file or directory"),
    ]
    for argv, msg in cases:
        r = c.run(argv)
        assert r.rc != 0 and msg in r.err and "Traceback" not in r.text, (argv, r.text)
        assert not (into / "lsf.conf").exists()
    _replay(c, seen["lsb"], into)
    r = c.run(["lsfemu", "replay", lsb, "--into", str(into)])
    assert r.rc == 1 and "lsf.conf exists; use --force" in r.err
    env = _env(into)
    try:
        assert c.run("bjobs -a -u all", env=env).rc == 0  # starts a daemon on the replayed state
        r = c.run(["lsfemu", "replay", lsb, "--into", str(into), "--force"])
        assert r.rc == 1 and "a daemon runs for" in r.err
    finally:
        c.run("lsfemu daemon stop", env=env)
    # a what-if configuration with an error names file and line
    bad = c.path_of("lsb.queues")
    good = bad.read_text()
    bad.write_text(good + "\nBegin Queue\nQUEUE_NAME = broken\nPRIORITY = high\nEnd Queue\n")
    try:
        r = c.run(["lsfemu", "replay", lsb, "--what-if", str(c.envdir)])
        assert r.rc == 1 and re.search(r"lsb\.queues\(\d+\)", r.err), r.text
    finally:
        bad.write_text(good)  # the module's other tests replay with this configuration


# Real LSF 9.1.3 lines (a site's lsb.events, quoted in a public Java parser's comments), with
# records of our own, an unknown event, newer fields and a corrupt line around them.
REAL = [
    '"JOB_NEW" "9.13" 1495678422 101 506 33554435 1 1495678422 0 0 -65535 0 0 "userA" -1 -1 -1 -1 -1'
    ' -1 -1 -1 -1 -1 -1 "" 116.10 18 "normal" "" "hpcm" "/Repository/userA/generic_1495678421600zcs1B"'
    ' "" "" "" "" "/home/userA" "1495678422.101" 0 "" "" "generic_1495678421600" "touch aaa; sleep 30;'
    ' touch bbb" 0 "" "default" 1 "X86_64" "" "" "" "" 5136 0 "" "" "" -1 -1 -1 64 "" "" -1 "" 0 -1 ""'
    ' 0 0 0 "" -1 "" -1 "" "/Repository/userA/generic_1495678421600zcs1B" "" "" "" 0 -1 0 "" "" 0 ""',
    '"JOB_START" "9.13" 1495678422 101 4 15694 15694 1.0 1 "hpcm" "" "" 0 "" 0 "" 0 0 ""',
    '"JOB_NOVELTY" "9.13" 1495678423 101 0 "whatever"',
    '"JOB_EXECUTE" "9.13" 1495678422 101 506 15694 "/Repository/userA/generic_1495678421600zcs1B"'
    ' "/home/userA" "userA" 15694 0 "" -1 "" 0 2147483647 "" -1 "" -1 "" -1',
    '"JOB_NEW" "9.13" 1495678430 102 507 0 2 1495678430 0 0 0 0 0 "userB" -1 -1 -1 -1 -1'
    ' -1 -1 -1 -1 -1 -1 "" 1.00 18 "short" "" "hpcm" "/home/userB" "" "" "" "" "/home/userB" "" 0 "" ""'
    ' "" "sleep 999" 0 "" "default" 2 "" "" "" "" "" 0 0 "" "" "" -1',
    '"JOB_STATUS" "9.13" this is not a record',
    '"JOB_STATUS" "9.13" 1495678453 101 64 0 0 1.5 1495678453 0 0 0 0 0 "newer" "fields"',
]


def test_replay_of_a_file_in_real_lsf_format(lsf_cluster, tmp_path):
    c = lsf_cluster
    lsb = tmp_path / "lsb.events"
    lsb.write_text("#0\n" + "\n".join(REAL) + "\n")
    into = tmp_path / "real"
    r = c.run(["lsfemu", "replay", str(lsb), "--into", str(into)])
    assert r.rc == 0, r.text
    assert "lsb.events:4: unknown event type JOB_NOVELTY; record skipped" in r.err
    assert "lsb.events:7: corrupt record skipped" in r.err
    assert "Replayed 5 events of 2 jobs" in r.out
    env = _env(into)
    try:
        out = c.run("bjobs -a -u all -w", env=env).out.splitlines()
        assert out[1].split()[:7] == ["102", "userB", "PEND", "short", "hpcm", "-", "sleep"]
        assert out[2].split()[:6] == ["101", "userA", "DONE", "normal", "hpcm", "hpcm"]
        assert "generic_1495678421600" in out[2]
        hist = c.run("bhist -l 101", env=env).out
        assert "Job <101>, Job Name <generic_1495678421600>, User <userA>" in hist
        assert "Done successfully" in hist
        q = c.run("bqueues", env=env).out
        assert re.search(r"^short\s+30\s+Open:Active\s+-\s+-\s+-\s+-\s+2\s+2\s+0\s+0", q, re.M), q
        assert "hpcm" in c.run("bhosts", env=env).out
    finally:
        c.run("lsfemu daemon stop", env=env)


@pytest.fixture
def submissions(lsf_cluster):
    """Submissions only, over time, from three users into two queues (the
    what-if mode replays submissions, not later user actions)."""
    c = lsf_cluster
    rows = [("user1", "-n 2 sleep 600"), ("user2", "-q priority sleep 300"), ("user3", "-n 4 sleep 900"),
            ("user1", "-sp 80 -n 4 sleep 120"), ("user2", "-n 4 sleep 100"), ("user3", "-n 6 sleep 50"),
            ("user1", "sleep 400"), ("user2", "-q priority -n 2 sleep 200"), ("user3", "-sp 10 sleep 30"),
            ("user1", "-n 3 sleep 700")]
    for i, (user, args) in enumerate(rows):
        r = c.run(f"bsub {args}", user=user)
        assert r.rc == 0, r.text
        if i % 3 == 2:
            c.advance("1m")
    c.advance("3h")
    return c, c.home / "logdir" / "lsb.events"


def test_what_if_under_the_same_configuration_reproduces_the_log(submissions, tmp_path):
    """The log was written by our scheduler: under the same configuration
    the what-if run must dispatch every job at the same instant."""
    c, lsb = submissions
    out = tmp_path / "r.json"
    r = c.run(["lsfemu", "replay", str(lsb), "--what-if", str(c.envdir), "--json", str(out)])
    assert r.rc == 0, r.text
    rep = json.loads(out.read_text())
    assert rep["jobs"] == 10 and rep["never_ran"] == 0 and rep["unstarted"] == 0
    assert rep["order_rho"] == 1.0
    waits = [row["mean_wait_log"] for row in rep["per_user"]]
    assert max(waits) > 60  # somebody waited: the test means something
    for row in rep["per_user"] + rep["per_queue"]:
        assert row["mean_wait_log"] == pytest.approx(row["mean_wait_whatif"])
        assert row["max_wait_log"] == pytest.approx(row["max_wait_whatif"])
        assert row["order_shift"] == 0
    for s in rep["shares"]:
        assert s["share_log"] == pytest.approx(s["share_whatif"])
    assert "Dispatch order: Spearman rank correlation 1.000 over 10 jobs" in r.out


def test_what_if_with_fewer_slots_and_a_missing_queue(submissions, tmp_path):
    c, lsb = submissions
    c.write("lsb.hosts", "Begin Host\nHOST_NAME MXJ JL/U\nhostA 2 ()\nhostB 2 ()\nhostC 2 ()\nEnd Host\n")
    c.write("lsb.queues", "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n")
    out = tmp_path / "r.json"
    r = c.run(["lsfemu", "replay", str(lsb), "--what-if", str(c.envdir), "--json", str(out),
               "--bucket", "5m"])
    assert r.rc == 0, r.text
    assert "Queue <priority> is not in the new configuration: its 2 jobs went to <normal>." in r.out
    rep = json.loads(out.read_text())
    assert rep["bucket"] == 300
    assert rep["unstarted"] == 0
    assert rep["order_rho"] < 1.0
    waits = {row["user"]: row for row in rep["per_user"]}
    # 6 slots instead of 12: somebody waits longer on average, and the last job starts later
    assert any(w["mean_wait_whatif"] > w["mean_wait_log"] + 60 for w in waits.values())
    assert max(w["max_wait_whatif"] for w in waits.values()) > max(w["max_wait_log"] for w in waits.values())
    by_bucket: dict[float, list[float]] = {}
    for s in rep["shares"]:
        by_bucket.setdefault(s["start"], [0.0, 0.0])
        by_bucket[s["start"]][0] += s["share_log"]
        by_bucket[s["start"]][1] += s["share_whatif"]
    for total_log, total_wi in by_bucket.values():
        assert total_log in (0.0, pytest.approx(1.0)) and total_wi in (0.0, pytest.approx(1.0))
    assert "USER    JOBS    MEAN_WAIT_LOG    MEAN_WAIT_WHATIF    CHANGE" in r.out
    assert "INTERVAL_START    USER    SHARE_LOG    SHARE_WHATIF" in r.out
