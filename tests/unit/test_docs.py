"""Every command has usage text and is mentioned in the documentation (as
sqlite-utils tests its docs): each command the daemon serves
(`lsfemu.cli.registry.COMMANDS`) answers `-h` with text naming it, each
`lsfemu` subcommand answers `--help`, and each is named in README.md or
docs/*.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from lsfemu.cli.base import Ctx
from lsfemu.command import app as lsfemu_app
from lsfemu.cli.registry import COMMANDS, command

ROOT = Path(__file__).resolve().parents[2]
DOCS = "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])


def _subcommands(group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for name, cmd in sorted(group.commands.items()):
        out.append(prefix + (name,))
        if hasattr(cmd, "commands"):  # a group (typer may carry its own copy of click)
            out.extend(_subcommands(cmd, prefix + (name,)))
    return out


LSFEMU_SUBCOMMANDS = _subcommands(typer.main.get_command(lsfemu_app))


@pytest.mark.parametrize("cmd", sorted(COMMANDS))
def test_command_has_usage_text(cmd):
    c = Ctx(cluster=None, cmd=cmd, argv=["-h"], user="alice", uid=1000, cwd="/", env={})
    r = command(cmd)(c)
    text = r.out + r.err
    assert text.strip() and re.search(rf"\b{cmd}\b", text), f"{cmd} -h: {text!r}"


@pytest.mark.parametrize("words", LSFEMU_SUBCOMMANDS, ids=" ".join)
def test_lsfemu_subcommand_has_usage_text(words):
    r = CliRunner().invoke(lsfemu_app, [*words, "--help"], prog_name="lsfemu")
    assert r.exit_code == 0 and f"lsfemu {' '.join(words)}" in r.output, r.output


@pytest.mark.parametrize("cmd", sorted(COMMANDS))
def test_command_is_documented(cmd):
    assert re.search(rf"`{cmd}[` ]", DOCS), f"{cmd} is not mentioned in README.md or docs/*.md"


@pytest.mark.parametrize("words", LSFEMU_SUBCOMMANDS, ids=" ".join)
def test_lsfemu_subcommand_is_documented(words):
    assert re.search(rf"lsfemu {' '.join(words)}\b", DOCS), \
        f"lsfemu {' '.join(words)} is not mentioned in README.md or docs/*.md"


def test_the_subcommands_the_daemon_carries_out_are_declared_and_served():
    from lsfemu.cli.admin import REMOTE
    from lsfemu.client import DAEMON_SUBCOMMANDS

    assert set(DAEMON_SUBCOMMANDS) | {"daemon"} == set(REMOTE)
    assert set(DAEMON_SUBCOMMANDS) <= {words[0] for words in LSFEMU_SUBCOMMANDS}
