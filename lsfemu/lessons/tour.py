"""Play a lesson's steps on a fresh cluster: `lsfemu demo [TOPIC]`.

The topic's cluster is written to a folder (a temporary one unless given), a
daemon started for it, and each step carried out: narration printed, each
command run (through the same client the LSF commands use; `lsfemu`'s own
local subcommands, such as replay, in a child process as a user would run
them) with its command line and exact output, configuration files rewritten.
Time zone UTC and a fixed first instant (`lsfemu clock set`, the first step
of every topic) make every number of the transcript the same on every run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from lsfemu import lessons
from lsfemu.client import DAEMON_SUBCOMMANDS, call, stop_daemon
from lsfemu.lessons import Edit, Run, Say, Topic
from lsfemu.lessons.script import write_confs
from lsfemu.store.db import holds_jobs, storage_failure

#: what the tour sets for its commands (put back when it ends)
_ENV = ("LSF_ENVDIR", "LSFEMU_HOME", "LSFEMU_USER", "LSFEMU_DAEMON", "TZ", "LESSON")
_ASSIGN = re.compile(r"^[A-Z_][A-Z0-9_]*=")
#: variables naming folders: a relative one is taken from the lesson's folder (the commands' cwd,
#: as in the shell; made absolute because the daemon's cwd is another)
_PATHS = ("LSF_ENVDIR", "LSFEMU_HOME")
#: the package's folder: a child `lsfemu` (replay) imports this lsfemu, also from a checkout
_SOURCE = str(Path(__file__).resolve().parents[2])


def say(text: str) -> None:
    print()
    for line in textwrap.wrap(text, 76):
        print(f"# {line}")


def _lsfemu_local(argv: list[str], root: Path) -> tuple[str, str, int]:
    """`lsfemu SUB ...` for a subcommand the daemon does not serve (replay, plot):
    run as a user runs it, in its own process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (_SOURCE, os.environ.get("PYTHONPATH")) if p))
    p = subprocess.run([sys.executable, "-c", "from lsfemu.client import main_lsfemu; main_lsfemu()", *argv],
                       capture_output=True, text=True, env=env, cwd=root)
    return p.stdout, p.stderr, p.returncode


def run(step: Run, root: Path) -> int:
    print(f"$ {step.shown()}")
    argv = shlex.split(step.cmd.replace(lessons.DIR, str(root)))
    # VAR=value words before the command, as the shell takes them: for this command only
    assigned = {}
    while argv and _ASSIGN.match(argv[0]):
        name, value = argv.pop(0).split("=", 1)
        assigned[name] = str(root / value) if name in _PATHS and not os.path.isabs(value) else value
    saved = {k: os.environ.get(k) for k in assigned}
    os.environ.update(assigned)
    if step.user:
        os.environ["LSFEMU_USER"] = step.user
    else:
        os.environ.pop("LSFEMU_USER", None)
    try:
        if argv[0] == "lsfemu" and argv[1:2] and argv[1] not in DAEMON_SUBCOMMANDS:
            out, err, rc = _lsfemu_local(argv[1:], root)
        else:
            out, err, rc = call(argv[0], argv[1:])
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    sys.stdout.write(out + err)
    sys.stdout.flush()
    return rc


def edit(step: Edit, root: Path) -> None:
    print(f"$ cat > {step.path} <<'EOF'")
    print(step.text, end="")
    print("EOF")
    (root / step.path).write_text(step.text)


def _shared_store_in_use() -> str | None:
    """With LSFEMU_DB (a PostgreSQL store, say) the tour's cluster is not in its
    folder: the tour's job IDs need that store empty. Why not, or None."""
    url = os.environ.get("LSFEMU_DB")
    if not url:
        return None
    try:
        if holds_jobs(url):
            return "the store LSFEMU_DB names already holds jobs; the demo needs an empty store"
        return None
    except Exception as e:
        why = storage_failure(e)
        if why is None:
            raise
        return why


def play(topic: Topic, root: Path, pause: bool) -> int:
    """Carry out the topic's steps in `root` (its cluster written there); the number of
    commands that failed unexpectedly."""
    failures = 0
    for n, step in enumerate(topic.steps):
        if isinstance(step, Say):
            if pause and n:
                input("[Enter] ")
            say(step.text)
        elif isinstance(step, Edit):
            edit(step, root)
        elif run(step, root) != 0 and not step.fails:
            failures += 1
    return failures


def run_demo(name: str = "basics", keep: bool = False, pause: bool = False, root: str | None = None) -> int:
    """`lsfemu demo [TOPIC]`: the exit status."""
    why = _shared_store_in_use()
    if why is not None:
        print(f"lsfemu demo: {why}", file=sys.stderr)
        return 1
    topic = lessons.topic(name)
    where = Path(root or tempfile.mkdtemp(prefix=f"lsfemu-demo-{name}-")).resolve()
    saved = {k: os.environ.get(k) for k in _ENV}
    cwd = os.getcwd()
    failures = 0
    try:
        where.mkdir(parents=True, exist_ok=True)
        write_confs(where, topic)
        os.environ.update(LSF_ENVDIR=str(where / "conf"), LSFEMU_HOME=str(where / "home"), TZ="UTC",
                          LESSON=str(where))
        time.tzset()
        os.environ.pop("LSFEMU_DAEMON", None)
        os.chdir(where)  # the commands' working directory, as the lesson script's
        print(f"lsfemu demo {name}: a fresh cluster in {where}")
        failures = play(topic, where, pause)
    except (KeyboardInterrupt, EOFError):
        print()
    finally:
        os.chdir(cwd)
        try:
            stop_daemon()
        except Exception as e:  # the tour is over either way
            print(f"lsfemu demo: could not stop the daemon: {e}", file=sys.stderr)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        time.tzset()
        if keep or root:
            print(f"The demo cluster is kept in {where}", file=sys.stderr)
        else:
            shutil.rmtree(where, ignore_errors=True)
    return 1 if failures else 0
