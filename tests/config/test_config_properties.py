"""Property tests: whatever the text of any one file, `check` returns issues and
`load` either returns a configuration or raises ConfigError, nothing else."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsfemu.config import parser
from lsfemu.config.lexer import Reporter, logical_lines, tokenize_row
from lsfemu.config.model import ClusterConfig, ConfigError, ConfigIssue

pytestmark = pytest.mark.slow(19)  # seconds, quiet machine: scheduled early (tests/conftest.py)

FILES = ["lsf.conf", "lsf.cluster.mycluster", "lsb.params", "lsb.queues", "lsb.users", "lsb.hosts"]

# Lines that mean something in one file or another, plus syntax characters, so
# that generated files reach deep into the parsers, not only the lexer.
FRAGMENTS = [
    "Begin Queue", "End Queue", "Begin Parameters", "End Parameters", "Begin UserGroup", "End UserGroup",
    "Begin User", "End User", "Begin Host", "End Host", "Begin HostGroup", "End HostGroup",
    "Begin HostPartition", "End HostPartition", "Begin ClusterAdmins", "End ClusterAdmins", "begin", "end",
    "QUEUE_NAME = normal", "QUEUE_NAME = short", "QUEUE_NAME=", "PRIORITY = 30", "PRIORITY = x", "NICE = -3",
    "RUNLIMIT = 10 12:00", "RUNLIMIT = 1:99", "QUEUE_GROUP = short normal", "USERS = all", "HOSTS = hostA hg1",
    "DESCRIPTION = a \\", "FAIRSHARE = USER_SHARES[[default, 1]]", "CPU_TIME_FACTOR = 0.5",
    "DEFAULT_QUEUE = normal", "DEFAULT_QUEUE = nosuch", "MBD_SLEEP_TIME = 0", "JOB_PRIORITY_OVER_TIME = 1/10",
    "MAX_USER_PRIORITY = 10", "HIST_HOURS = 2.5", "ENABLE_HIST_RUN_TIME = Y",
    "GROUP_NAME GROUP_MEMBER USER_SHARES", "g1 (u1 g2) ()", "g2 (g1) ([u1, 1])", "g3 (all) -",
    "USER_NAME MAX_JOBS JL/P MAX_PEND_JOBS", "default 6 1 10", "g1@ 1 - -", "u1 -3 x ()",
    "HOST_NAME MXJ JL/U r1m", "hostA ! - ()", "default 2 1 0.6/1.6", "hostB x",
    "HOSTNAME model type server RESOURCES", "hostA ! ! 1 (linux)", "hostB ! ! 0 ()", "hostC ! ! 7 (",
    "Administrators = lsfadmin", "HPART_NAME = p1", "GROUP_NAME GROUP_MEMBER", "hg1 (hostA hostB)",
    "LSB_CONFDIR = lsbatch", "LSF_CONFDIR=.", "LSF_CLUSTER_NAME=mycluster", "LSF_CLUSTER_NAME=other",
    "LSB_JOBID_DISP_LENGTH=x", 'LSB_BJOBS_FORMAT="a # b"', "#INCLUDE \"x\"", "#if time(1:00-2:00)", "#endif",
    "", "# comment", "\\", '"', "(", ")", "[", "]", "=", "A = \"b\\", "KEY", "X = (a [b, 1])",
]
_junk = st.text(alphabet="()[]\"#\\= \t\r,!@/-+:.0129aAbBeEgGnN_", max_size=24)
_configish = st.lists(st.one_of(st.sampled_from(FRAGMENTS), _junk), max_size=30).map("\n".join)
CONTENT = st.one_of(st.text(max_size=400), _configish)

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _assert_well_formed(cfg, issues, envdir):
    assert isinstance(issues, list)
    for i in issues:
        assert isinstance(i, ConfigIssue)
        assert isinstance(i.file, str) and i.file
        assert isinstance(i.line, int) and i.line >= 0
        assert isinstance(i.message, str) and i.message
        assert i.fatal in (True, False)
    if any(i.fatal for i in issues):
        assert cfg is None
    else:
        assert isinstance(cfg, ClusterConfig)
        assert cfg.queues and cfg.cluster_hosts
        assert cfg.warnings == issues
        for q in cfg.params.default_queues:
            assert cfg.queue(q) is not None


def _check_and_load(envdir):
    cfg, issues = parser.check(envdir)
    _assert_well_formed(cfg, issues, envdir)
    try:
        loaded = parser.load(envdir)
    except ConfigError as e:
        assert cfg is None and e.issues == issues
    else:
        assert cfg is not None and loaded.warnings == cfg.warnings
    found = parser.find_files(envdir)
    assert isinstance(found, dict) and isinstance(found["issues"], list)
    return issues


@pytest.mark.parametrize("fname", FILES)
def test_any_text_in_one_file(fname, tmp_path_factory, make_env):
    envdir = make_env(tmp_path_factory.mktemp("prop"))
    path = os.path.join(envdir, fname)

    @FAST
    @given(text=CONTENT)
    def run(text):
        with open(path, "wb") as fh:
            fh.write(text.encode("utf-8", "surrogatepass"))
        issues = _check_and_load(envdir)
        nlines = text.count("\n") + 1
        for i in issues:
            if os.path.basename(i.file) == fname:
                assert i.line <= nlines

    run()


@FAST
@given(text=st.text(max_size=300))
def test_logical_lines_numbering(text):
    rep = Reporter("f")
    lines = logical_lines(text, rep)
    nos = [ln.no for ln in lines]
    assert nos == sorted(set(nos))
    assert all(1 <= n <= text.count("\n") + 1 for n in nos)
    assert all(ln.text == ln.text.strip() and ln.text for ln in lines)
    assert all("\n" not in ln.text for ln in lines)


_word = st.text(alphabet="abcXYZ019_-.!@/:", min_size=1, max_size=8)
_group = st.lists(_word, max_size=4).map(lambda ws: "(" + " ".join(ws) + ")")
_share = st.lists(st.tuples(_word, st.integers(0, 99)), max_size=3).map(
    lambda ps: "(" + " ".join(f"[{n}, {v}]" for n, v in ps) + ")")


@FAST
@given(values=st.lists(st.one_of(_word, _group, _share), min_size=1, max_size=8),
       seps=st.sampled_from([" ", "  ", "\t", " \t "]))
def test_tokenize_row_round_trip(values, seps):
    toks, err = tokenize_row(seps.join(values))
    assert err is None and toks == values
