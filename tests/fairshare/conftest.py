"""Helpers for the fairshare tests: parse real configuration texts with lsfemu's own parsers."""

from __future__ import annotations

import pytest

from lsfemu.config.lexer import Reporter
from lsfemu.config.lsb_params import parse_params
from lsfemu.config.lsb_queues import parse_queues
from lsfemu.config.lsb_users import parse_users


def _params(text: str):
    rep = Reporter("lsb.params")
    p = parse_params("Begin Parameters\n" + text + "\nEnd Parameters\n", rep)
    assert not rep.has_fatal, rep.issues
    return p


def _queues(text: str):
    rep = Reporter("lsb.queues")
    qs = parse_queues(text, rep)
    assert not rep.has_fatal, rep.issues
    return {q.name: q for q in qs}


def _users(text: str):
    rep = Reporter("lsb.users")
    groups, _limits = parse_users(text, rep)
    assert not rep.has_fatal, rep.issues
    return groups


@pytest.fixture
def lsb_params():
    return _params


@pytest.fixture
def lsb_queues():
    return _queues


@pytest.fixture
def lsb_users():
    return _users
