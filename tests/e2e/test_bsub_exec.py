"""bsub's plain options that change what really runs (wall clock mode; issue 18,
part 3): -env (the job's environment), -i / -is (its standard input; -is a copy
made at submission), -L (a login shell), -outdir (the output directory made at
the start). Each test runs real jobs and reads what they wrote. Readings:
docs/semantics.md, "bsub's plain options"."""

from __future__ import annotations

import pytest

from tests.e2e.test_execution import shared, sub, wait_file, wait_stat  # noqa: F401 (shared: a fixture)

pytestmark = pytest.mark.slow(7)  # seconds, quiet machine: scheduled early (tests/conftest.py)


@pytest.fixture(scope="module")
def wall(shared):
    """test_execution's wall clock cluster (one for this module too)."""
    return shared


def _ran(c, jid: int, out: str) -> str:
    """The job's own output in its -o file (after LSF's report)."""
    wait_stat(c, jid, ("DONE", "EXIT"))
    return _output(wait_file(c.root / "work" / out, "The output (if any) follows:"))


def _output(text: str) -> str:
    return text.split("The output (if any) follows:\n\n", 1)[1].removesuffix("\n")  # (the report ends with a blank line)


def test_env_lists_none_and_all_make_the_jobs_environment(wall):
    c = wall
    env = {"FOO": "1", "BAR": "2"}
    show = 'echo "F=$FOO B=$BAR Z=$BAZ J=$LSB_JOBID"'
    j1 = sub(c, ["-env", "FOO, BAZ=three", "-o", "e1", show], env=env)
    j2 = sub(c, ["-env", "all, ~BAR, BAZ='a, b'", "-o", "e2", show], env=env)
    j3 = sub(c, ["-env", "none", "-o", "e3", show], env=env)
    j4 = sub(c, ["-o", "e4", show], env=env)  # no -env: all (LSF's default)
    assert _ran(c, j1, "e1") == f"F=1 B= Z=three J={j1}\n"
    assert _ran(c, j2, "e2") == f"F=1 B= Z=a, b J={j2}\n"
    assert _ran(c, j3, "e3") == f"F= B= Z= J={j3}\n"  # LSF's own job variables still set
    assert _ran(c, j4, "e4") == f"F=1 B=2 Z= J={j4}\n"
    assert c.store_rows("SELECT env_spec FROM jobs WHERE id = :i", i=j2) == [("all, ~BAR, BAZ='a, b'",)]


def test_input_file_is_the_jobs_stdin_and_is_keeps_a_copy(wall):
    c = wall
    work = c.root / "work"
    (work / "in.txt").write_text("hello\n")
    j1 = sub(c, ["-i", "in.txt", "-o", "i1", "tr a-z A-Z"])
    assert _ran(c, j1, "i1") == "HELLO\n"
    # -is: the file as it was at submission, whatever it holds when the job starts
    (work / "spooled.txt").write_text("first\n")
    j2 = sub(c, ["-H", "-is", "spooled.txt", "-o", "i2", "cat"])
    (work / "spooled.txt").write_text("changed\n")
    assert c.run(f"bresume {j2}", user="user1").rc == 0
    assert _ran(c, j2, "i2") == "first\n"
    long = c.run(f"bjobs -UF {j1} {j2}").out
    assert ", Input File <in.txt>, Output File <i1>" in long
    assert ", Input File(Spooled) <spooled.txt>, Output File <i2>" in long
    assert ", Input File <in.txt>, Output File <i1>" in c.run(f"bhist -l {j1}").out.replace(
        "\n                     ", "")
    r = c.run(["bsub", "-is", "missing.txt", "cat"], user="user1", cwd=str(work))
    assert (r.rc, r.out, r.err) == (255, "", "missing.txt: No such file or directory. Job not submitted.\n")
    r = c.run(["bsub", "-i", "a", "-is", "b", "cat"], user="user1", cwd=str(work))
    assert (r.rc, r.err) == (255, "isn|is|in|i options are exclusive. Job not submitted.\n")


def test_login_shell_runs_the_job_as_a_login_shell(wall):
    c = wall
    show = "shopt -q login_shell && echo login || echo plain"
    j1 = sub(c, ["-L", "/bin/bash", "-o", "l1", show])
    j2 = sub(c, ["-o", "l2", "bash -c " + repr(show)])
    assert _ran(c, j1, "l1") == "login\n"
    assert _ran(c, j2, "l2") == "plain\n"
    assert ", Login Shell </bin/bash>" in c.run(f"bjobs -UF {j1}").out


def test_outdir_is_made_at_the_start_and_holds_relative_output(wall):
    c = wall
    jid = sub(c, ["-outdir", "%U/%J_%I", "-o", "out.txt", 'echo "dir=$LSB_OUTDIR"'])
    made = c.root / "work" / "user1" / f"{jid}_0"
    wait_stat(c, jid, ("DONE", "EXIT"))
    text = wait_file(made / "out.txt", "The output (if any) follows:")
    assert _output(text) == f"dir={made}\n"
    assert (made.stat().st_mode & 0o777) == 0o700
