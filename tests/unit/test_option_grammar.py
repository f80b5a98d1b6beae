"""Every command's options come from one table (lsfemu.options): the command
function takes exactly the table's implemented options, the parser reads argv
as LSF's commands do, multi-letter options are never read as bundles, an
option LSF has that lsfemu has not built is refused by name, and the usage
texts list only what works."""

from __future__ import annotations

import inspect
import re

import pytest

from lsfemu import options
from lsfemu.cli import registry

pytestmark = pytest.mark.slow(2)


def _function(cmd: str):
    """The command function run_command calls for cmd (the parameter names it declares)."""
    import lsfemu.cli as cli
    for name in registry.COMMANDS:  # every command module imported (the registry imports each on first use)
        registry.command(name)
    for mod in vars(cli).values():
        fn = getattr(mod, cmd, None)
        if inspect.isfunction(fn) and getattr(mod, "__name__", "").startswith("lsfemu.cli."):
            return fn
    raise AssertionError(f"no command function {cmd}")


@pytest.mark.parametrize("cmd", sorted(options.GRAMMARS))
def test_the_function_takes_exactly_the_implemented_options(cmd):
    g = options.grammar(cmd)
    assert cmd in registry.COMMANDS
    want = {o.dest for o in g.implemented()} | ({g.args_dest} if g.args_dest else set())
    assert set(inspect.signature(_function(cmd)).parameters) == want


@pytest.mark.parametrize("cmd", sorted(options.GRAMMARS))
def test_a_table_names_each_option_once(cmd):
    flags = [o.flag for o in options.grammar(cmd).opts]
    assert len(flags) == len(set(flags))
    assert all(re.fullmatch(r"-[A-Za-z][A-Za-z0-9_]*", f) for f in flags)
    assert "-h" not in flags and "-V" not in flags


def parse(cmd, *argv):
    return options.parse(options.grammar(cmd), list(argv))


def refused(cmd, *argv):
    with pytest.raises(options.OptionError) as e:
        parse(cmd, *argv)
    return e.value.kind, e.value.flag


def test_exact_names_win_over_bundles_and_attached_values():
    # the misreads: each is LSF's own option (refused until built), never letters
    values, _words = parse("bjobs", "-sum")  # not -s -u m (built in issue 21)
    assert values["sum_"] and not values["susp"] and values["user"] is None
    assert refused("bjobs", "-ss") == ("not_implemented", "-ss")  # not -s -s
    assert refused("bhist", "-aff") == ("not_implemented", "-aff")  # not -a -f f
    values, words = parse("bsub", "-env", "all", "cmd")  # not -e nv
    assert (values["env_spec"], values["err"], words) == ("all", None, ["cmd"])
    values, words = parse("bsub", "-Jd", "desc", "cmd")  # not -J d
    assert (values["description"], values["job_name"], words) == ("desc", None, ["cmd"])
    values, words = parse("bsub", "-rn", "5", "cmd")  # not -r n
    assert (values["rerun_never"], values["rerun"], words) == (True, False, ["5", "cmd"])
    assert parse("bsub", "-outdir", "5", "cmd")[0]["outdir"] == "5"  # not -o utdir
    assert parse("bsub", "-We", "5", "cmd")[0]["est_runtime"] == "5"  # not -W e
    assert refused("bsub", "-ext", "5", "cmd") == ("not_implemented", "-ext")
    values, words = parse("bsub", "-eptl", "5", "cmd")  # not -e ptl
    assert (values["epend_limit"], values["err"], words) == ("5", None, ["cmd"])


def test_attached_values_take_the_longest_name():
    values, words = parse("bsub", "-n4", "-qnormal", "-Rselect[mem>1]", "sleep", "1")
    assert (values["nproc"], values["queue"], values["res_req"], words) == ("4", "normal", ["select[mem>1]"], ["sleep", "1"])
    assert parse("bjobs", "-uall")[0]["user"] == "all"
    assert parse("bsub", "-sp5", "x")[0]["sp"] == "5"  # -sp, not -s p5


def test_bundles_of_single_letter_switches():
    values, _ = parse("bjobs", "-aw")
    assert values["all_"] and values["wide"]
    values, _ = parse("bsub", "-rx", "cmd")  # each letter is read as what it is
    assert values["rerun"] and values["exclusive"]
    values, _ = parse("bjobs", "-xX")
    assert values["exception"] and values["noncondensed"]
    assert refused("bhosts", "-ew") == ("not_implemented", "-e")
    values, _ = parse("bhosts", "-xw")
    assert values["exceptions"] and values["wide"]
    values, words = parse("bhist", "-aJ", "sleep 20?", "7")
    assert values["all_"] and values["name"] == "sleep 20?" and words == ["7"]
    assert refused("bhist", "-aJ") == ("requires", "-J")


def test_errors_name_the_option():
    assert refused("bjobs", "-zz") == ("illegal", "-zz")
    assert refused("bsub", "-q") == ("requires", "-q")
    assert refused("bjobs", "-q") == ("requires", "-q")
    assert refused("bstop", "-ax") == ("not_implemented", "-a")  # a switch given a value: LSF's, unbuilt
    assert refused("bkill", "-lx") == ("no_argument", "-l")  # ... and built
    assert refused("bjobs", "-wz") == ("no_argument", "-w")


def test_bsub_options_end_at_the_command():
    values, words = parse("bsub", "-q", "normal", "python3", "-c", "print(1)", "-q", "x")
    assert values["queue"] == "normal" and words == ["python3", "-c", "print(1)", "-q", "x"]
    assert parse("bsub", "--", "-x")[1] == ["-x"]


def test_repeated_options():
    values, _ = parse("bsub", "-R", "a", "-R", "b", "x")
    assert values["res_req"] == ["a", "b"]
    assert parse("bsub", "x")[0]["res_req"] is None
    assert parse("bsub", "-q", "a", "-q", "b", "x")[0]["queue"] == "b"  # the last one, as getopt


def test_help_and_version():
    with pytest.raises(options.HelpAsked):
        parse("bjobs", "-w", "-h")
    with pytest.raises(options.VersionAsked):
        parse("bkill", "-V")


_FLAG = re.compile(r"(?<![\w-])-[A-Za-z]\w*")


@pytest.mark.parametrize("cmd", sorted(options.GRAMMARS))
def test_usage_lists_what_works_and_nothing_else(cmd):
    g = options.grammar(cmd)
    text = options.usage(g)
    shown = set(_FLAG.findall(text)) - {"-h", "-V"}
    assert shown == {o.flag for o in g.implemented()}
    assert text.startswith(f"Usage: {cmd} [-h] [-V]") and text.endswith("\n")
    assert all(len(line) <= 79 or line.count("[") == 1 for line in text.splitlines())


def test_command_words_for_the_thin_client():
    assert options.command_words(["-q", "normal", "sleep", "1"]) == ["sleep", "1"]
    assert options.command_words(["-q", "normal"]) == []
    assert options.command_words(["-ext", "all", "x"]) is None  # the daemon answers
