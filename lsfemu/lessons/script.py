"""`lsfemu lesson init DIR TOPIC`: a topic's cluster and its steps, as files a
teacher edits: DIR/conf (LSF_ENVDIR; other configuration folders the topic
uses beside it) and DIR/lesson.sh, a plain shell script of the steps
(narration as `say` lines, commands as `run` lines, configuration changes as
`edit` here-documents) that prints the same transcript as `lsfemu demo TOPIC`.
Each run of the script starts the cluster afresh (DIR/home is removed).
The tour writes its cluster with the same function (write_confs); this module
stays light (no store, no daemon): `lsfemu lesson init` needs neither."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lsfemu.config.sample import init_files
from lsfemu.lessons import Edit, Run, Say, Topic
from lsfemu.protocol import key_path, read_key, write_key

_HEAD = """#!/bin/sh
# lsfemu lesson: {name} ({summary}).
# Written by 'lsfemu lesson init'; the same steps as 'lsfemu demo {name}'.
# Change the cluster in conf/ (and the steps below), then run: sh lesson.sh
#   say 'text' ...      narration, one argument a line
#   run 'command'       print '$ command', run it (LSFEMU_USER=user: as that LSF user)
#   edit FILE <<'EOF'   rewrite a configuration file (then 'badmin reconfig')
# The clock is virtual and set to a fixed date by the first step, the time
# zone is UTC: every number comes out the same each time the lesson runs.
set -u
cd "$(dirname "$0")" || exit 1
LESSON=$(pwd)
export LESSON LSF_ENVDIR="$LESSON/conf" LSFEMU_HOME="$LESSON/home" TZ=UTC
unset LSFEMU_USER LSFEMU_DAEMON
lsfemu daemon stop >/dev/null 2>&1
rm -rf "$LSFEMU_HOME"    # a fresh cluster: no jobs, no history
trap 'lsfemu daemon stop >/dev/null 2>&1' EXIT

say() { echo; for line in "$@"; do echo "# $line"; done; }
run() { echo "\\$ $1"; eval "$1" 2>&1; }
edit() { echo "\\$ cat > $1 <<'EOF'"; cat > "$1"; cat "$1"; echo EOF; }

echo "lsfemu demo {name}: a fresh cluster in $LESSON"
"""


def conf_path(name: str) -> str:
    """A topic's file name as a path under a configuration folder ("lsb.x" short names
    go to the cluster's configdir)."""
    return f"lsbatch/cluster1/configdir/{name}" if name.startswith("lsb.") else name


def write_confs(root: Path, topic: Topic) -> None:
    """The topic's configuration folders under `root`: the `lsfemu init` cluster
    (virtual clock) with the topic's files over it."""
    for folder, files in topic.confs.items():
        d = root / folder
        texts = init_files(clock="virtual", confdir=str(d))
        texts.update({conf_path(k): v for k, v in files.items()})
        for rel, text in texts.items():
            p = d / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        write_key(str(d))
        read_key(key_path(str(d)))  # a key file it cannot use is an error here (as lsfemu init's)


def _quote(text: str) -> str:
    """One shell word for `text`: single quotes unless it has one, else double quotes."""
    if "'" not in text:
        return f"'{text}'"
    return '"' + "".join("\\" + c if c in '"$`\\' else c for c in text) + '"'


def script(topic: Topic) -> str:
    """The text of lesson.sh for `topic`."""
    lines = [_HEAD.replace("{name}", topic.name).replace("{summary}", topic.summary)]
    for step in topic.steps:
        if isinstance(step, Say):
            wrapped = textwrap.wrap(step.text, 76)
            lines.append("say " + " \\\n    ".join(_quote(w) for w in wrapped))
        elif isinstance(step, Run):
            lines.append(f"run {_quote(step.shown())}")
        elif isinstance(step, Edit):
            lines.append(f"edit {step.path} <<'EOF'\n{step.text}EOF")
    return "\n".join(lines) + "\n"


def init_lesson(directory: str, topic: Topic, force: bool = False) -> Path:
    """Write the lesson into `directory` (FileExistsError: a lesson is there and not `force`)."""
    d = Path(directory).expanduser().resolve()
    if (d / "lesson.sh").exists() and not force:
        raise FileExistsError(f"{d}/lesson.sh exists; use --force to overwrite")
    d.mkdir(parents=True, exist_ok=True)
    write_confs(d, topic)
    p = d / "lesson.sh"
    p.write_text(script(topic))
    p.chmod(0o755)
    return d
