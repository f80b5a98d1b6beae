"""The option tables walked against a running daemon: every option LSF 10.1
documents for a command either works (EFFECTS names the test that shows its
effect) or is refused naming it, exit 255, nothing changed in the store.

The tables: lsfemu/options.py. How argv is read: docs/semantics.md,
"Options: one grammar per command".
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from lsfemu import options
from tests.hardening.test_bad_input import _drop, _new_cluster, snapshot, socket_call

pytestmark = pytest.mark.slow(20)

ROOT = Path(__file__).resolve().parents[2]

#: what follows the option so that, were it read, the command would act on something
_TAIL = {"bsub": ["sleep", "1"], "bswitch": ["normal", "1"]}


@pytest.fixture(scope="module")
def cluster():
    c = _new_cluster()
    yield c
    _drop(c)


def _argv(cmd: str, opt: options.Opt) -> list[str]:
    value = [] if opt.value is None else ["1"]
    return [opt.flag] + value + _TAIL.get(cmd, ["1"] if options.grammar(cmd).args_dest else [])


@pytest.mark.parametrize("cmd", sorted(options.GRAMMARS))
def test_every_unbuilt_option_is_refused_by_name(cluster, cmd):
    g = options.grammar(cmd)
    before = snapshot(cluster)
    for opt in g.refused():
        for argv in (_argv(cmd, opt), [opt.flag]):  # with its value, and alone as the last word
            out, err, rc = socket_call(cluster, cmd, argv, "user1", started=True)
            said = f"{cmd}: option {opt.flag} is not supported by lsfemu yet\n"
            assert (out, rc) == ("", 255) and err == said + options.usage(g), (argv, err)
    assert snapshot(cluster) == before


def test_unbuilt_options_in_bsub_script_lines_are_refused(cluster):
    before = snapshot(cluster)
    for opt in options.grammar("bsub").refused():
        line = f"#BSUB {opt.flag}" + ("" if opt.value is None else " 1")
        r = cluster.run(["bsub"], user="user1", stdin=f"#!/bin/sh\n{line}\nsleep 1\n")
        assert (r.out, r.rc) == ("", 255), line
        assert r.err == f"bsub: option {opt.flag} is not supported by lsfemu yet. Job not submitted.\n", line
        break  # one through a real process; the parser is the same for every option
    assert snapshot(cluster) == before


@pytest.mark.parametrize("cmd", sorted(options.GRAMMARS))
def test_options_lsf_does_not_have_get_the_illegal_option_usage(cluster, cmd):
    before = snapshot(cluster)
    out, err, rc = socket_call(cluster, cmd, ["-zq"], "user1", started=True)
    assert (out, err, rc) == ("", f"{cmd}: illegal option -- zq\n" + options.usage(options.grammar(cmd)), 255)
    assert snapshot(cluster) == before


def test_the_misreads_of_the_issue_are_gone(cluster):
    """Each of these was read as something else and submitted a wrong job (or
    listed the wrong jobs) with exit 0."""
    for cmd, argv in (("bsub", ["-env", "all", "sleep", "1"]), ("bsub", ["-Jd", "desc", "sleep", "1"]),
                      ("bsub", ["-outdir", "/tmp/x", "sleep", "1"]), ("bsub", ["-ext", "x", "sleep", "1"]),
                      ("bsub", ["-eptl", "10", "sleep", "1"]), ("bsub", ["-We", "10", "sleep", "1"]),
                      ("bsub", ["-rn", "sleep", "1"]), ("bjobs", ["-sum"]), ("bhist", ["-aff"])):
        flag = argv[0]
        if options.grammar(cmd).by_flag[flag].dest is not None:
            assert f"{cmd} {flag}" in EFFECTS  # built since: the test named there shows what it does
            continue
        before = snapshot(cluster)
        out, err, rc = socket_call(cluster, cmd, argv, "user1", started=True)
        assert rc == 255 and err.startswith(f"{cmd}: option {flag} is not supported"), (argv, err)
        assert snapshot(cluster) == before


# -- the options that work, and the test that shows what each does ------------------------------
#
# "cmd -flag" -> "tests/<file>.py::<test function>" (the test asserts the effect, not only rc 0).
# Kept sorted. tests/unit/test_option_grammar.py holds the tables; this holds them to the tests.

EFFECTS: dict[str, str] = {
}


def _implemented() -> list[str]:
    return sorted(f"{cmd} {o.flag}" for cmd, g in options.GRAMMARS.items() for o in g.implemented())


@pytest.mark.xfail(reason="issue 18: EFFECTS is being filled in", strict=False)
def test_every_implemented_option_names_the_test_of_its_effect():
    missing = [k for k in _implemented() if k not in EFFECTS]
    assert not missing, f"no test named for: {missing}"


def test_the_named_tests_exist():
    assert list(EFFECTS) == sorted(EFFECTS)
    assert set(EFFECTS) <= set(_implemented()), set(EFFECTS) - set(_implemented())
    for key, where in EFFECTS.items():
        path, _, name = where.partition("::")
        tree = ast.parse((ROOT / path).read_text())
        names = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        assert re.fullmatch(r"test_\w+", name) and name in names, f"{key}: {where} not found"
