"""What a newcomer meets in the first hour (issue 16, items 9-12): `lsfemu`'s help,
the pytest extra, busers of an unknown user, badmin queue and host control with
no name."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from lsfemu.testing import temporary_cluster

pytestmark = pytest.mark.slow(20)  # seconds, quiet machine; CPU 44.3 -> 35.6 s with its daemons, A/B at load 13-18

ROOT = Path(__file__).resolve().parents[2]
SUBCOMMANDS = ("init", "demo", "lesson", "plot", "replay", "daemon", "clock", "explain", "host")


@pytest.fixture(scope="module")
def shared():
    """One cluster for the tests of lsfemu's help and of init's refusals (no
    daemon, nothing written) and of busers (they only add newbie's jobs): one
    folder, one daemon start."""
    with temporary_cluster() as c:
        yield c


# -- item 9: lsfemu --help lists every subcommand, each has its help ------------

def test_lsfemu_help_lists_every_subcommand(shared):
    r = shared.run("lsfemu --help")
    assert r.rc == 0, r.text
    listed = {line.strip("│ ").split()[0] for line in r.out.splitlines() if line.startswith("│ ") and line.strip("│ ")}
    assert set(SUBCOMMANDS) <= listed, r.out


@pytest.mark.parametrize("argv", [
    "clock --help", "clock show --help", "clock set --help", "clock advance --help",
    "explain --help", "explain aps --help", "explain priority --help",
    "host --help", "host fail --help", "host recover --help",
    "daemon --help", "daemon status --help", "init --help", "replay --help", "demo --help", "lesson init --help", "plot priority --help", "plot slots --help",
])
def test_every_subcommand_prints_its_help_and_exits_0(shared, argv):
    r = shared.run(f"lsfemu {argv}")
    assert r.rc == 0, r.text
    assert f"Usage: lsfemu {argv.removesuffix(' --help')}" in " ".join(r.out.split()), r.out
    assert r.err == ""


def test_help_changes_nothing_and_the_daemon_subcommands_still_work(lsf_cluster):
    c = lsf_cluster
    assert c.run("lsfemu clock set --help").rc == 0
    r = c.run("lsfemu clock")
    assert r.rc == 0 and r.out.startswith("virtual clock: Mon Jan  5 09:00:00 2026"), r.text
    r = c.run("lsfemu clock advance 90s")
    assert r.rc == 0 and "09:01:30" in r.out, r.text
    r = c.run("lsfemu host fail hostC", user="lsfadmin")
    assert r.rc == 0 and r.out == "Host <hostC> failed\n", r.text
    r = c.run("lsfemu nosuch")
    assert r.rc == 2 and "No such command 'nosuch'" in r.err, r.text


# -- item 11: the pytest plugin of an installed lsfemu --------------------------

def test_pytest_extra_and_readme_say_how_to_get_the_fixture():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(d.startswith("pytest") for d in extras["pytest"]), extras
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Testing your own tools against lsfemu"):]
    assert "pip install 'lsfemu[pytest]'" in section.split("```python")[0]


def test_the_installed_entry_point_loads_the_plugin(pytester, monkeypatch):
    from importlib.metadata import entry_points

    eps = [ep for ep in entry_points(group="pytest11") if ep.name == "lsfemu"]
    assert eps, "lsfemu is not installed: the pytest11 entry point is missing (pip install .)"
    assert eps[0].value == "lsfemu.testing"
    plugin = eps[0].load()
    assert callable(getattr(plugin, "lsf_cluster", None))
    # A project that only installed lsfemu: no -p option, no conftest.
    pytester.makepyfile("""
        def test_mine(lsf_cluster):
            assert lsf_cluster.run("bsub -J x sleep 60", user="user1").rc == 0
    """)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=1)


# -- item 12: busers of nobody; badmin with no queue or host --------------------

def test_busers_of_an_unknown_user_is_refused(shared):
    c = shared
    r = c.run("busers nosuch", user="user1")
    assert (r.out, r.err, r.rc) == ("", "nosuch: Unknown user\n", 255)
    r = c.run("busers user1 nosuch", user="user1")
    assert (r.out, r.err, r.rc) == ("", "nosuch: Unknown user\n", 255)


@pytest.mark.parametrize("name", ["user1", "lsfadmin", "user3", "research/", "newbie"])
def test_busers_of_known_users_and_groups(shared, name):
    c = shared
    assert c.run("bsub sleep 60", user="newbie").rc == 0  # a user known from its jobs
    r = c.run(f"busers {name.rstrip('/')}", user="user1")
    assert r.rc == 0, r.text
    assert r.out.splitlines()[1].split()[0] == name


def _queue_status(c) -> dict[str, str]:
    return {line.split()[0]: line.split()[2] for line in c.run("bqueues").out.splitlines()[1:]}


def test_badmin_qclose_without_a_queue_closes_the_default_queue(lsf_cluster):
    c = lsf_cluster
    r = c.run("badmin qclose", user="lsfadmin")
    assert (r.out, r.rc) == ("Queue <normal> is closed\n", 0), r.text
    assert _queue_status(c) == {"priority": "Open:Active", "normal": "Closed:Active"}
    r = c.run("badmin qinact all", user="lsfadmin")
    assert r.rc == 0 and r.out.count("inactivated") == 2, r.text
    r = c.run("badmin qopen", user="lsfadmin")
    assert _queue_status(c) == {"priority": "Open:Inact", "normal": "Open:Inact"}


def test_badmin_queue_control_without_a_default_queue_asks_for_a_name(lsf_cluster_factory):
    c = lsf_cluster_factory(files={"lsb.params": "Begin Parameters\nMBD_SLEEP_TIME = 10\nEnd Parameters\n"})
    r = c.run("badmin qclose", user="lsfadmin")
    assert (r.out, r.err, r.rc) == ("", "Queue name must be specified\n", 255)
    assert _queue_status(c) == {"priority": "Open:Active", "normal": "Open:Active"}


def test_badmin_hclose_without_a_host_closes_the_local_host(lsf_cluster):
    c = lsf_cluster
    r = c.run("badmin hclose", user="lsfadmin")
    assert (r.err, r.rc) == ("Close <hostA> ...... done\n", 0), r.text
    status = {line.split()[0]: line.split()[1] for line in c.run("bhosts").out.splitlines()[1:]}
    assert status == {"hostA": "closed", "hostB": "ok", "hostC": "ok"}
    r = c.run("badmin hopen all", user="lsfadmin")
    assert r.rc == 0 and r.err.count("done") == 3


# -- item 10: the lesson's date --------------------------------------------------

def _records(c) -> list[tuple[str, int]]:
    from lsfemu.events.log import read_events

    return [(type(r).__name__, r.event_time) for _, r in read_events(c.home / "logdir" / "lsb.events")]


def test_init_start_is_the_first_commands_time(lsf_cluster):
    c = lsf_cluster
    conf = c.root / "lesson"
    r = c.run(["lsfemu", "init", str(conf), "--start", "2026-03-02 08:30"])
    assert r.rc == 0, r.text
    assert "\nLSFEMU_CLOCK_START=1772440200\n" in (conf / "lsf.conf").read_text()  # TZ=UTC
    c.env.pop("LSFEMU_CLOCK_START")  # the fixture's; the lesson's own comes from lsf.conf
    c.env.update(LSF_ENVDIR=str(conf), LSFEMU_HOME=str(c.root / "lesson-state"))
    try:
        r = c.run("bsub sleep 60", user="user1")  # the very first command starts the daemon
        assert r.rc == 0, r.text
        assert c.run("lsfemu clock").out.startswith("virtual clock: Mon Mar  2 08:30:00 2026 (1772440200)")
        assert c.run("bjobs -noheader -o submit_time 1", user="user1").out == "Mar  2 08:30\n"
    finally:
        c.run("lsfemu daemon stop")


@pytest.mark.parametrize("args, message", [
    (["--start", "soon"], "lsfemu: --start: bad time <soon>"),
    (["--start", "+1h"], "lsfemu: --start: bad time <+1h>"),
    (["--start", "2026-01-05", "--clock", "wall"], "lsfemu: --start goes with --clock virtual"),
])
def test_init_start_refuses_what_it_cannot_use(shared, args, message):
    c = shared
    r = c.run(["lsfemu", "init", str(c.root / "lesson")] + args)
    assert r.rc == 2 and r.err.startswith(message), r.text
    assert not (c.root / "lesson").exists()


def test_a_bad_start_in_lsf_conf_is_a_config_error(lsf_cluster):
    c = lsf_cluster
    with open(c.path_of("lsf.conf"), "a") as f:
        f.write("LSFEMU_CLOCK_START=yesterday\n")
    r = c.run("badmin ckconfig")
    assert r.rc == 255
    line = len(c.path_of("lsf.conf").read_text().splitlines())
    assert f"lsf.conf({line}): LSFEMU_CLOCK_START: bad time <yesterday>" in r.err, r.err


def test_clock_set_back_on_a_cluster_that_never_had_a_job(lsf_cluster):
    c = lsf_cluster
    assert c.run("badmin qclose priority", user="lsfadmin").rc == 0  # a record dated Jan 5 09:00
    r = c.run("lsfemu clock set 2025-12-01T08:00")
    assert r.rc == 0 and r.out.startswith("virtual clock: Mon Dec  1 08:00:00 2025 (1764576000)"), r.text
    assert _records(c) == [("MbdStart", 1764576000), ("QueueCtrl", 1764576000)]
    assert c.run("bsub sleep 10", user="user1").rc == 0
    c.advance("1m")
    assert c.run("bjobs -a -noheader -o 'submit_time finish_time stat' 1", user="user1").out == \
        "Dec  1 08:00 Dec  1 08:00 DONE\n"
    times = [t for _, t in _records(c)]
    assert times == sorted(times) and times[0] == 1764576000
    # Now the cluster has had a job: its time never goes back.
    before = (c.home / "logdir" / "lsb.events").read_bytes()
    r = c.run("lsfemu clock set 2025-11-01")
    assert r.rc == 255 and "the clock cannot go back" in r.err, r.text
    assert c.run("lsfemu clock").out.startswith("virtual clock: Mon Dec  1 08:01:00 2025")
    assert (c.home / "logdir" / "lsb.events").read_bytes() == before
