"""bsub's options are listed once (lsfemu.bsubflags): the typer signature
declares exactly those flags, and each names a field of the request."""

from __future__ import annotations

import dataclasses

import typer

from lsfemu.bsubflags import OTHER_VALUES, SWITCHES, VALUES
from lsfemu.cli import bsub
from lsfemu.ops.submit import SubmitRequest


def test_the_typer_signature_declares_the_table():
    cmd = typer.main.get_command(bsub.app)
    flags = {o for p in cmd.params for o in p.opts if o.startswith("-")}
    assert flags == set(VALUES) | set(SWITCHES)


def test_each_option_names_a_request_field():
    fields = {f.name for f in dataclasses.fields(SubmitRequest)}
    assert set(VALUES.values()) | set(SWITCHES.values()) <= fields
    assert not OTHER_VALUES & (set(VALUES) | set(SWITCHES))
