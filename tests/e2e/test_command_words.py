"""The job's command as LSF keeps it (issue 18, part 2; lsfemu.render.command,
reference lsf-breadth 6.4): bsub's later words re-quoted as OpenLava's
CopyCommand does, so that what runs in wall mode, `Command <...>` in bjobs -l
and bhist -l, and JOB_NEW's command in lsb.events are LSF's text; a script
read from stdin shown and logged with its lines joined by `;` while the
script itself runs. The real jobs here compare what ran with what the shell
makes of LSF's command text."""

import re
import subprocess
from pathlib import Path

import pytest

from lsfemu.render.command import join_words, script_command
from tests.e2e.test_execution import shared  # noqa: F401 - the module's wall-clock cluster (a fixture)
from tests.hardening.test_shell_quoting import _wait_done

pytestmark = pytest.mark.slow(6)  # seconds, quiet machine: scheduled early (tests/conftest.py)

# -- the text (CopyCommand) ---------------------------------------------------------------------
@pytest.mark.parametrize("words, text", [
    (["echo", "a b", 'x"y', "$HOME"], "echo \"a b\" x\\\"y '$HOME'"),  # the reference's example
    (["sleep 10; echo hi"], "sleep 10; echo hi"),  # one word: verbatim
    (["echo a", "b"], "echo a b"),  # the first word: verbatim
    (["python3", "-c", "import sys; print(1)"], 'python3 -c "import sys; print(1)"'),
    (["bash", "-c", "cd /tmp && prog"], 'bash -c "cd /tmp && prog"'),
    (["sh", "-c", "echo $X"], "sh -c 'echo $X'"),  # blank and $: single quotes
    (["sh", "-c", 'say "hi" now'], "sh -c 'say \"hi\" now'"),  # blank and ": single quotes
    (["echo", "it's", "a\\b", "f(x)"], "echo it\\'s a\\\\b f\\(x\\)"),
    (["echo", '$a""b'], "echo '$a'\\\"''\\\"'b'"),  # each run of a $ word quoted, empty ones too
    (["echo", "a;b", "x&&y", "*"], "echo a;b x&&y *"),  # no blank: shell characters stay as typed
    (["echo", ""], "echo "),  # an empty word adds only its blank
])
def test_words_are_joined_as_lsf_bsub_does(words, text):
    assert join_words(words) == text


def test_lsf_conf_switches_of_the_quoting():
    assert join_words(["echo", "f(x)"], paren_escape=False) == "echo f(x)"  # LSB_32_PAREN_ESC
    assert join_words(["my prog", "a b"], quote_first=True) == '"my prog" "a b"'  # LSB_API_QUOTE_CMD=y
    assert join_words(["prog"], quote_first=True) == "prog"


def test_a_script_is_shown_with_its_lines_joined_by_semicolons():
    assert script_command("#!/bin/bash\n#BSUB -J t\ndate\n  sleep 1\n") == "#!/bin/bash;#BSUB -J t;date;  sleep 1"


# -- real jobs -------------------------------------------------------------------------------------
def _sub(c, args: list[str], stdin: str | None = None, env: dict | None = None) -> int:
    r = c.run(["bsub"] + args, user="user1", cwd=str(c.root / "work"), stdin=stdin, env=env)
    assert r.rc == 0, r.text
    return int(re.match(r"Job <(\d+)>", r.out).group(1))


def _long_command(c, cmd: str, jid: int) -> str:
    """The Command <...> of bjobs -l or bhist -l, unwrapped."""
    out = re.sub(r"\n {21}", "", c.run(f"{cmd} -l {jid}").out)
    return re.search(r"Command <(.*?)>(?:, |\n|$)", out, re.S).group(1)


def _job_new_command(c, jid: int) -> str:
    for line in (c.home / "logdir" / "lsb.events").read_text().splitlines():
        if line.startswith('"JOB_NEW"') and line.split(" ")[3] == str(jid):
            return line
    raise AssertionError(f"no JOB_NEW for {jid}")


def _ran(c, name: str) -> str:
    """The job's own output: the lines after the report's `follows:` line."""
    text = (c.root / "work" / name).read_text()
    return text.split("The output (if any) follows:\n\n", 1)[1].split("\nPS:\n", 1)[0].rstrip("\n")


def _shell(text: str, cwd: Path, env: dict | None = None) -> str:
    """What /bin/sh makes of a command text (what LSF's job file runs)."""
    return subprocess.run(["/bin/sh", "-c", text], capture_output=True, text=True, cwd=cwd,
                          env=env).stdout.rstrip("\n")


def test_quoted_words_run_as_lsf_runs_them(shared):
    c = shared
    work = c.root / "work"
    target = c.root / "target dir"
    target.mkdir()
    cases = [
        (["python3", "-c", "import sys; print(1)"], 'python3 -c "import sys; print(1)"'),
        (["bash", "-c", f"cd '{target}' && pwd"], f"bash -c \"cd '{target}' && pwd\""),
        (["sh", "-c", "echo $MYVAR"], "sh -c 'echo $MYVAR'"),
        (["echo", "a  b", 'x"y', "$HOME", "it's"], "echo \"a  b\" x\\\"y '$HOME' it\\'s"),
    ]
    env = {"MYVAR": "forty two"}
    jobs = [(_sub(c, ["-o", f"q{i}.out"] + words, env=env), i, text) for i, (words, text) in enumerate(cases)]
    for jid, i, text in jobs:
        assert _wait_done(c, jid) == "DONE", (text, (work / f"q{i}.out").read_text())
        assert _long_command(c, "bjobs", jid) == text
        assert _long_command(c, "bhist", jid) == text
        assert '"' + text.replace('"', '""') + '"' in _job_new_command(c, jid)
        ran = _ran(c, f"q{i}.out")
        assert ran == _shell(text, work, {"MYVAR": "forty two", "HOME": "/nowhere", "PATH": "/usr/bin:/bin"}), text
    assert [_ran(c, f"q{i}.out") for i in range(4)] == ["1", str(target), "forty two", "a  b x\"y $HOME it's"]


def test_a_script_on_stdin_runs_as_written_and_shows_joined(shared):
    c = shared
    script = "#!/bin/sh\n#BSUB -o s.out\nif true\nthen\n  echo yes\nfi\n"
    jid = _sub(c, [], stdin=script)
    assert _wait_done(c, jid) == "DONE"
    assert _ran(c, "s.out") == "yes"  # joined with ';' (`then;`) it would be a syntax error
    joined = "#!/bin/sh;#BSUB -o s.out;if true;then;  echo yes;fi"
    assert _long_command(c, "bjobs", jid) == joined
    assert _long_command(c, "bhist", jid) == joined
    assert f'"{joined}"' in _job_new_command(c, jid)
    assert "\u240a" not in _job_new_command(c, jid)  # no newline left to escape


def test_a_script_keeps_its_simulated_run_time(lsf_cluster):
    c = lsf_cluster
    r = c.run(["bsub"], user="user1", stdin="#!/bin/sh\n#BSUB -J sim\nsleep 600\n")
    assert r.rc == 0, r.text
    jid = re.match(r"Job <(\d+)>", r.out).group(1)
    c.advance("5m")
    assert c.run(f"bjobs -noheader -o stat {jid}").out.strip() == "RUN"
    assert c.run(f"bjobs -noheader -o cmd {jid}").out.strip() == "#!/bin/sh;#BSUB -J sim;sleep 600"
    c.advance("10m")
    assert c.run(f"bjobs -a -noheader -o stat {jid}").out.strip() == "DONE"
