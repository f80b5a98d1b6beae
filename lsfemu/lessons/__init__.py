"""Lessons: `lsfemu demo [TOPIC]` tours and `lsfemu lesson init DIR TOPIC`.

A topic is data: the cluster it runs on (files over the `lsfemu init`
cluster's, per configuration folder) and a list of steps: narration (`Say`),
a command run as a user (`Run`; the virtual clock moves with `lsfemu clock`
commands like any other), a configuration file rewritten (`Edit`). The same
steps are played by the tour (lessons/tour.py) and written as a shell script
a teacher can change (lessons/script.py), so both give the same transcript.

Commands name the lesson's folder as `$LESSON` (the tour substitutes it, the
script sets it): `$LESSON/conf` is LSF_ENVDIR, `$LESSON/home` LSFEMU_HOME.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

#: the topics, in `lsfemu demo --list` order; each a module of this package with a TOPIC
NAMES = ("basics", "fairshare", "priority", "aps", "history")
#: every tour's first instant (UTC; the tour and the script run with TZ=UTC)
START = "2026-01-05T09:00"
#: the folder placeholder in commands and edited paths
DIR = "$LESSON"


@dataclass(frozen=True)
class Say:
    """Narration, shown as `# ` lines (wrapped to 76 columns)."""

    text: str


@dataclass(frozen=True)
class Run:
    """A command line, run as `user` (LSFEMU_USER; None: the caller); `fails`:
    the command is expected to be refused (the tour does not count it as a failure)."""

    cmd: str
    user: str | None = None
    fails: bool = False

    def shown(self) -> str:
        return (f"LSFEMU_USER={self.user} " if self.user else "") + self.cmd


@dataclass(frozen=True)
class Edit:
    """Rewrite a configuration file of the lesson (`path` under $LESSON) with `text`."""

    path: str
    text: str


@dataclass(frozen=True)
class Topic:
    """A lesson: its name, one line for --list, its cluster and its steps.

    `confs`: configuration folder (under $LESSON) -> {file: text} written over
    the `lsfemu init` cluster's files ("lsb.x" short names go to
    lsbatch/cluster1/configdir/); `conf` is the lesson's cluster, others
    (e.g. a what-if configuration) are written the same way."""

    name: str
    summary: str
    steps: list = field(default_factory=list)
    confs: dict = field(default_factory=lambda: {"conf": {}})


def topic(name: str) -> Topic:
    """The topic called `name` (KeyError when there is none)."""
    if name not in NAMES:
        raise KeyError(name)
    return importlib.import_module(f"lsfemu.lessons.{name}").TOPIC
