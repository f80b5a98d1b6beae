"""Issue 22: the tours are tests. `lsfemu demo basics|fairshare|priority` from a
fresh environment, each transcript against its golden file (a changed number
fails loudly); `lsfemu demo --list` and the refusals. aps, history and the
lesson script's round trip: test_lessons_more.py."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from lesson_helpers import check_tour
from typer.testing import CliRunner

from lsfemu.command import app

pytestmark = pytest.mark.slow(35)  # seconds, quiet machine; alone: 32 -> 25 s at load ~8 (forked daemons)


def _lsfemu(*args: str):
    """`lsfemu ARGS` in this process (typer's runner: stdout, stderr and the exit code apart)."""
    r = CliRunner().invoke(app, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return SimpleNamespace(returncode=r.exit_code, stdout=r.stdout, stderr=r.stderr)


def test_basics_tour_is_the_first_hour():
    text = check_tour("basics")
    assert "Job <1> is submitted to default queue <normal>." in text
    assert "Job <2>: User permission denied" in text


def test_fairshare_tour_shows_the_seed_story():
    text = check_tour("fairshare")
    # Without ENABLE_HIST_RUN_TIME user1 runs its four jobs first; with it the users alternate.
    first, second = text.split("$ cat > conf/lsbatch/cluster1/configdir/lsb.params")

    def users(part):  # the users of the last bjobs -a -o listing, in the order the jobs started
        rows = part.rsplit("$ bjobs -a -u all -o", 1)[1].split("\n\n")[0].splitlines()[2:]
        return [r.split()[1] for r in rows]

    assert users(first) == ["user1"] * 4 + ["user2"] * 4
    assert users(second)[8:] == ["user1", "user2"] * 4
    assert "Entitlement (product of the fractions): 0.100" in second


def test_priority_tour_escalates_past_max_user_priority():
    text = check_tour("priority")
    assert "3 user2 PEND urgent 120" in text  # 80 + 4 x 10 after 90 minutes, above MAX_USER_PRIORITY 100
    assert "Bad user priority. Job not modified." in text


def test_demo_list_and_unknown_topic():
    r = _lsfemu("demo", "--list")
    assert r.returncode == 0, r.stderr
    assert [line.split()[0] for line in r.stdout.splitlines()] == ["basics", "fairshare", "priority", "aps", "history"]
    r = _lsfemu("demo", "nosuch")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "lsfemu demo: no topic <nosuch>; the topics: basics, fairshare, priority, aps, history\n"


def test_demo_dir_must_be_new_and_lesson_init_keeps_a_lesson(tmp_path):
    (tmp_path / "x").write_text("mine")
    r = _lsfemu("demo", "--dir", str(tmp_path))
    assert r.returncode == 1 and "the folder is not empty" in r.stderr, r.stderr
    assert (tmp_path / "x").read_text() == "mine"
    r = _lsfemu("lesson", "init", str(tmp_path / "l"), "priority")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "l" / "conf" / "lsf.conf").exists()
    script = (tmp_path / "l" / "lesson.sh").read_text()
    assert "run 'LSFEMU_USER=user2 bsub -J urgent -sp 80 sleep 600'" in script
    assert "run \"bjobs -u all -o 'jobid user stat job_name priority'\"" in script
    r = _lsfemu("lesson", "init", str(tmp_path / "l"), "priority")
    assert r.returncode == 1 and "lesson.sh exists; use --force" in r.stderr
    r = _lsfemu("lesson", "init", str(tmp_path / "m"), "nosuch")
    assert r.returncode == 2 and "no topic <nosuch>" in r.stderr
    assert not (tmp_path / "m").exists()
