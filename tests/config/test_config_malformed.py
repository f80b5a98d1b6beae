"""A corpus of malformed configurations: each is the valid sample with one file
replaced (or removed), and must give one precisely located issue."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pytest

from lsfemu.config import parser
from lsfemu.config.model import ConfigError


@dataclass
class Case:
    id: str
    files: dict[str, str | None]  # basename -> content (None = remove the file)
    fatal: bool
    file: str  # basename of ConfigIssue.file
    line: int
    phrase: str  # must appear in the issue's message
    also: list[str] = field(default_factory=list)  # more phrases of the same message


def L(*lines: str) -> str:
    """A file from its lines (line N of the file = argument N)."""
    return "\n".join(lines) + "\n"


def Q(*body: str) -> str:
    """lsb.queues holding queue `normal` (what lsb.params' DEFAULT_QUEUE names) with `body` lines 3..."""
    return L("Begin Queue", "QUEUE_NAME = normal", *body, "End Queue")


def P(*body: str) -> str:
    """lsb.params with `body` from line 2."""
    return L("Begin Parameters", *body, "End Parameters")


UG_HEAD = ("Begin UserGroup", "GROUP_NAME GROUP_MEMBER USER_SHARES")
HOST_HEAD = ("Begin Host", "HOSTNAME model type server r1m mem swp RESOURCES")

CASES = [
    # ---- sections ---------------------------------------------------------------
    Case("unclosed-begin", {"lsb.queues": L("Begin Queue", "QUEUE_NAME = normal", "PRIORITY = 3")},
         True, "lsb.queues", 1, "Begin Queue at line 1 is never closed", ["expected End Queue"]),
    Case("begin-inside-begin", {"lsb.queues": L("Begin Queue", "QUEUE_NAME = a", "Begin Queue", "QUEUE_NAME = normal",
                                                "End Queue")},
         True, "lsb.queues", 1, "is never closed", ["before the Begin at line 3"]),
    Case("end-without-begin", {"lsb.params": L("MBD_SLEEP_TIME = 10", "End Parameters")},
         True, "lsb.params", 2, "Unexpected End Parameters: no section is open"),
    Case("end-twice", {"lsb.queues": Q("PRIORITY = 3") + "End Queue\n"},
         True, "lsb.queues", 5, "Unexpected End Queue"),
    Case("mismatched-end", {"lsb.queues": L("Begin Queue", "QUEUE_NAME = normal", "End Host")},
         True, "lsb.queues", 3, "End Host does not match Begin Queue at line 1", ["expected End Queue"]),
    Case("end-without-name", {"lsb.hosts": L("Begin Host", "HOST_NAME MXJ", "hostA 2", "End")},
         True, "lsb.hosts", 4, "End without a section name", ["expected End Host"]),
    Case("begin-without-name", {"lsb.hosts": L("Begin", "HOST_NAME MXJ", "End Host")},
         True, "lsb.hosts", 1, "Begin without a section name"),
    Case("key-outside-section", {"lsb.queues": L("# comment", "PRIORITY = 3", *Q().splitlines())},
         True, "lsb.queues", 2, "outside any Begin/End section"),
    Case("text-outside-section", {"lsb.users": L("hello world", *UG_HEAD, "g (a) ()", "End UserGroup")},
         True, "lsb.users", 1, "unexpected text outside any Begin/End section"),
    Case("keyword-line-without-equals", {"lsb.queues": Q("PRIORITY 30")},
         True, "lsb.queues", 3, "expected KEY = value in Queue", ["<PRIORITY 30>"]),
    Case("unsupported-section", {"lsb.hosts": L("Begin ComputeUnit", "NAME MEMBER", "cu1 (hostA)", "End ComputeUnit")},
         False, "lsb.hosts", 1, "section ComputeUnit is not supported by lsfemu"),
    # ---- lsb.queues -------------------------------------------------------------
    Case("unknown-queue-key", {"lsb.queues": Q("PRIORITY = 3", "FOO_BAR = 1")},
         False, "lsb.queues", 4, "bad keyword FOO_BAR in section Queue, ignoring the line"),
    Case("slot-reserve-not-max-reserve-time", {"lsb.queues": Q("SLOT_RESERVE = 5")},
         False, "lsb.queues", 3, "SLOT_RESERVE: value <5> is not MAX_RESERVE_TIME[integer]"),
    Case("resource-reserve-zero", {"lsb.queues": Q("RESOURCE_RESERVE = MAX_RESERVE_TIME[0]")},
         False, "lsb.queues", 3, "RESOURCE_RESERVE: value <MAX_RESERVE_TIME[0]> is not MAX_RESERVE_TIME[integer]"),
    Case("backfill-maybe", {"lsb.queues": Q("BACKFILL = maybe")},
         False, "lsb.queues", 3, "BACKFILL: value <maybe> is not Y or N; ignored"),
    Case("priority-abc", {"lsb.queues": Q("NICE = 1", "PRIORITY = abc")},
         True, "lsb.queues", 4, "PRIORITY: expected a non-negative integer, got <abc>"),
    Case("priority-negative", {"lsb.queues": Q("PRIORITY = -1")},
         True, "lsb.queues", 3, "PRIORITY: expected a non-negative integer, got <-1>"),
    Case("nice-float", {"lsb.queues": Q("NICE = 1.5")},
         True, "lsb.queues", 3, "NICE: expected an integer, got <1.5>"),
    Case("ujob-limit-huge", {"lsb.queues": Q("UJOB_LIMIT = 99999999999")},
         True, "lsb.queues", 3, "UJOB_LIMIT: expected an integer up to 2147483647"),
    Case("duplicate-queue", {"lsb.queues": Q() + "\n" + Q()},
         True, "lsb.queues", 6, "queue normal is defined twice (first at line 1)"),
    Case("missing-queue-name", {"lsb.queues": Q() + L("", "Begin Queue", "PRIORITY = 3", "End Queue")},
         True, "lsb.queues", 5, "QUEUE_NAME is missing"),
    Case("queue-name-two-words", {"lsb.queues": Q() + L("Begin Queue", "QUEUE_NAME = a b", "End Queue")},
         True, "lsb.queues", 5, "QUEUE_NAME: expected one queue name"),
    Case("unknown-queue-group-member", {"lsb.queues": Q("QUEUE_GROUP = normal nosuch")},
         True, "lsb.queues", 3, "QUEUE_GROUP of queue normal: queue nosuch is not defined"),
    Case("no-queues", {"lsb.queues": L("# nothing here", "")},
         True, "lsb.queues", 0, "no queues defined"),
    Case("duplicate-key-last-wins", {"lsb.queues": Q("PRIORITY = 3", "PRIORITY = 4")},
         False, "lsb.queues", 4, "PRIORITY is set twice (also at line 3)"),
    Case("runlimit-bad-minutes", {"lsb.queues": Q("RUNLIMIT = 12:75")},
         True, "lsb.queues", 3, "RUNLIMIT: expected minutes below 60", ["<12:75>"]),
    Case("runlimit-word", {"lsb.queues": Q("RUNLIMIT = forever")},
         True, "lsb.queues", 3, "RUNLIMIT: expected [hour:]minute", ["<forever>"]),
    Case("runlimit-three-values", {"lsb.queues": Q("RUNLIMIT = 1 2 3")},
         True, "lsb.queues", 3, "RUNLIMIT: expected [default_limit] maximum_limit"),
    Case("runlimit-default-above-maximum", {"lsb.queues": Q("RUNLIMIT = 2:00 90")},
         True, "lsb.queues", 3, "RUNLIMIT: the default limit (<2:00>) cannot exceed the maximum limit (<90>)"),
    Case("queue-factor-negative", {"lsb.queues": Q("CPU_TIME_FACTOR = -0.5")},
         True, "lsb.queues", 3, "CPU_TIME_FACTOR: expected a non-negative number, got <-0.5>"),
    Case("queue-unknown-host", {"lsb.queues": Q("HOSTS = hostA nohost")},
         False, "lsb.queues", 3, "nohost is not a host of lsf.cluster"),
    Case("empty-value", {"lsb.queues": Q("PRIORITY =")},
         False, "lsb.queues", 3, "PRIORITY has no value"),
    # ---- continuation lines, quotes --------------------------------------------------
    Case("continuation-swallows-end", {"lsb.queues": L("Begin Queue", "QUEUE_NAME = normal", "DESCRIPTION = x \\",
                                                       "End Queue")},
         True, "lsb.queues", 1, "Begin Queue at line 1 is never closed"),
    Case("continuation-joins-two-keys", {"lsb.queues": Q("PRIORITY = 30 \\", "NICE = 20")},
         True, "lsb.queues", 3, "PRIORITY: expected a non-negative integer, got <30 NICE = 20>"),
    Case("continuation-ends-at-blank-line", {"lsb.queues": Q("DESCRIPTION = one \\", "", "two words")},
         True, "lsb.queues", 5, "expected KEY = value in Queue, got <two words>"),
    Case("continuation-error-reports-first-line", {"lsb.params": P("MBD_SLEEP_TIME = \\", "  1 \\", "  0")},
         True, "lsb.params", 2, "MBD_SLEEP_TIME: expected a positive integer, got <1 0>"),
    Case("continuation-at-eof", {"lsb.queues": Q().rstrip("\n") + " \\"},
         False, "lsb.queues", 3, "the last line ends with '\\'"),
    Case("unterminated-quote", {"lsb.queues": Q('DESCRIPTION = "never closed')},
         True, "lsb.queues", 3, "unterminated double quote"),
    # ---- lsb.params --------------------------------------------------------------------
    Case("mbd-sleep-zero", {"lsb.params": P("DEFAULT_QUEUE = normal", "MBD_SLEEP_TIME=0")},
         True, "lsb.params", 3, "MBD_SLEEP_TIME: expected a positive integer, got <0>"),
    Case("acct-archive-time-not-a-time", {"lsb.params": P("DEFAULT_QUEUE = normal", "ACCT_ARCHIVE_TIME = 25:00")},
         True, "lsb.params", 3, "ACCT_ARCHIVE_TIME: expected a time of day hh:mm (e.g. 02:30), got <25:00>"),
    Case("acct-archive-size-zero", {"lsb.params": P("DEFAULT_QUEUE = normal", "ACCT_ARCHIVE_SIZE = 0")},
         True, "lsb.params", 3, "ACCT_ARCHIVE_SIZE: expected a positive integer, got <0>"),
    Case("job-priority-over-time-dash", {"lsb.params": P("MAX_USER_PRIORITY = 10", "JOB_PRIORITY_OVER_TIME = 1-10")},
         True, "lsb.params", 3, "JOB_PRIORITY_OVER_TIME: expected increment/interval", ["<1-10>"]),
    Case("job-priority-over-time-zero", {"lsb.params": P("MAX_USER_PRIORITY = 10", "JOB_PRIORITY_OVER_TIME = 0/10")},
         True, "lsb.params", 3, "both positive integers"),
    Case("job-priority-over-time-alone", {"lsb.params": P("JOB_PRIORITY_OVER_TIME = 2/10")},
         False, "lsb.params", 2, "has no effect without MAX_USER_PRIORITY"),
    Case("unknown-parameter", {"lsb.params": P("DEFAULT_QUEUE = normal", "NO_SUCH_KEY = 4")},
         False, "lsb.params", 3, "bad keyword NO_SUCH_KEY in section parameters, ignoring the line"),
    Case("unknown-default-queue", {"lsb.params": P("MBD_SLEEP_TIME = 5", "DEFAULT_QUEUE = normal nosuch")},
         True, "lsb.params", 3, "DEFAULT_QUEUE: queue nosuch is not defined in lsb.queues"),
    Case("bad-y-n", {"lsb.params": P("ENABLE_HIST_RUN_TIME = maybe")},
         True, "lsb.params", 2, "ENABLE_HIST_RUN_TIME: expected Y or N, got <maybe>"),
    Case("hist-hours-negative", {"lsb.params": P("HIST_HOURS = -1")},
         True, "lsb.params", 2, "HIST_HOURS: expected a non-negative number, got <-1>"),
    Case("factor-nan", {"lsb.params": P("RUN_TIME_FACTOR = nan")},
         True, "lsb.params", 2, "RUN_TIME_FACTOR: expected a non-negative number, got <nan>"),
    Case("max-user-priority-zero", {"lsb.params": P("MAX_USER_PRIORITY = 0")},
         True, "lsb.params", 2, "MAX_USER_PRIORITY: expected a positive integer"),
    Case("max-jobid-small", {"lsb.params": P("MAX_JOBID = 100")},
         False, "lsb.params", 2, "MAX_JOBID: LSF requires at least 999999"),
    Case("two-parameters-sections", {"lsb.params": P("MBD_SLEEP_TIME = 5") + P("SBD_SLEEP_TIME = 5")},
         False, "lsb.params", 4, "a second Begin Parameters section"),
    # ---- lsb.users -----------------------------------------------------------------------
    Case("group-cycle", {"lsb.users": L(*UG_HEAD, "groupA (u1 groupB) ()", "groupB (groupA u2) ()",
                                        "End UserGroup")},
         True, "lsb.users", 3, "user group cycle: groupA -> groupB -> groupA"),
    Case("group-self-cycle", {"lsb.users": L(*UG_HEAD, "ok (u1) ()", "selfish (u1 selfish) ()", "End UserGroup")},
         True, "lsb.users", 4, "user group cycle: selfish -> selfish"),
    Case("group-long-cycle", {"lsb.users": L(*UG_HEAD, "c (a) ()", "a (b) ()", "b (c x) ()", "End UserGroup")},
         True, "lsb.users", 3, "user group cycle: c -> a -> b -> c"),
    Case("group-row-too-few-values", {"lsb.users": L(*UG_HEAD, "groupA (u1 u2)", "End UserGroup")},
         True, "lsb.users", 3, "expected 3 values (one per column: GROUP_NAME GROUP_MEMBER USER_SHARES), got 2"),
    Case("user-row-too-many-values", {"lsb.users": L("Begin User", "USER_NAME MAX_JOBS", "u1 1 2", "End User")},
         True, "lsb.users", 3, "expected 2 values", ["got 3"]),
    Case("unbalanced-open-paren", {"lsb.users": L(*UG_HEAD, "groupA (u1 u2 ()", "End UserGroup")},
         True, "lsb.users", 3, "unbalanced parentheses: expected ')' before the end of the row"),
    Case("unbalanced-close-paren", {"lsb.users": L(*UG_HEAD, "groupA u1) ()", "End UserGroup")},
         True, "lsb.users", 3, "unbalanced parentheses: unexpected ')'"),
    Case("max-jobs-negative", {"lsb.users": L("Begin User", "USER_NAME MAX_JOBS JL/P MAX_PEND_JOBS",
                                              "u1 -3 - -", "End User")},
         True, "lsb.users", 3, "MAX_JOBS: expected a non-negative integer, got <-3>"),
    Case("jl-p-word", {"lsb.users": L("Begin User", "USER_NAME MAX_JOBS JL/P", "u1 1 lots", "End User")},
         True, "lsb.users", 3, "JL/P: expected a non-negative number, got <lots>"),
    Case("duplicate-group", {"lsb.users": L(*UG_HEAD, "g (u1) ()", "g (u2) ()", "End UserGroup")},
         True, "lsb.users", 4, "user group g is defined twice (first at line 3)"),
    Case("duplicate-user-row", {"lsb.users": L("Begin User", "USER_NAME MAX_JOBS", "u1 1", "u1 2", "End User")},
         True, "lsb.users", 4, "user u1 is listed twice"),
    Case("missing-group-member-column", {"lsb.users": L("Begin UserGroup", "GROUP_NAME USER_SHARES", "g ()",
                                                        "End UserGroup")},
         True, "lsb.users", 2, "UserGroup header lacks column GROUP_MEMBER"),
    Case("duplicate-column", {"lsb.users": L("Begin User", "USER_NAME MAX_JOBS max_jobs", "u1 1 1", "End User")},
         True, "lsb.users", 2, "column MAX_JOBS appears twice"),
    Case("group-admin-column-unused", {"lsb.users": L("Begin UserGroup", "GROUP_NAME GROUP_MEMBER GROUP_ADMIN",
                                                      "g1 (u1) ()", "g2 (u2) (u1)", "End UserGroup")},
         False, "lsb.users", 4, "column GROUP_ADMIN is not supported by lsfemu"),
    Case("unknown-users-column", {"lsb.users": L("Begin User", "USER_NAME MAX_JOBZ", "u1 1", "End User")},
         False, "lsb.users", 2, "unknown column MAX_JOBZ in User"),
    Case("limit-for-unknown-group", {"lsb.users": L("Begin User", "USER_NAME MAX_JOBS", "nogroup@ 1", "End User")},
         False, "lsb.users", 3, "nogroup is not a user group"),
    # ---- lsb.hosts -----------------------------------------------------------------------
    Case("condense-not-y-or-n", {"lsb.hosts": L("Begin HostGroup", "GROUP_NAME GROUP_MEMBER CONDENSE",
                                                "g1 (hostA) yes", "End HostGroup")},
         True, "lsb.hosts", 3, "CONDENSE of host group g1: expected Y or N, got <yes>"),
    Case("mxj-x", {"lsb.hosts": L("Begin Host", "HOST_NAME MXJ JL/U", "hostA x -", "End Host")},
         True, "lsb.hosts", 3, "MXJ: expected a non-negative integer, ! or -, got <x>"),
    Case("jl-u-negative", {"lsb.hosts": L("Begin Host", "HOST_NAME MXJ JL/U", "hostA 1 -2", "End Host")},
         True, "lsb.hosts", 3, "JL/U: expected a non-negative integer, got <-2>"),
    Case("hosts-unknown-column", {"lsb.hosts": L("Begin Host", "HOST_NAME MJX", "hostA 1", "End Host")},
         False, "lsb.hosts", 2, "unknown column MJX in Host"),
    Case("hosts-row-unbalanced", {"lsb.hosts": L("Begin Host", "HOST_NAME MXJ DISPATCH_WINDOW",
                                                 "hostA 1 (5:19:00-1:8:30 20:00-8:30", "End Host")},
         True, "lsb.hosts", 3, "unbalanced parentheses"),
    Case("hosts-duplicate-row", {"lsb.hosts": L("Begin Host", "HOST_NAME MXJ", "hostA 1", "hostA 2", "End Host")},
         True, "lsb.hosts", 4, "host hostA is listed twice"),
    Case("hosts-unknown-host", {"lsb.hosts": L("Begin Host", "HOST_NAME MXJ", "hostZ 1", "End Host")},
         False, "lsb.hosts", 3, "host hostZ is not a host of lsf.cluster"),
    Case("header-looks-like-keyword", {"lsb.hosts": L("Begin Host", "HOST_NAME = hostA", "End Host")},
         True, "lsb.hosts", 2, "expected a line of column names for Host"),
    # ---- lsf.cluster -------------------------------------------------------------------
    Case("no-hosts", {"lsf.cluster.mycluster": L("Begin ClusterAdmins", "Administrators = lsfadmin",
                                                 "End ClusterAdmins")},
         True, "lsf.cluster.mycluster", 0, "no hosts defined"),
    Case("empty-host-section", {"lsf.cluster.mycluster": L(*HOST_HEAD, "End Host")},
         True, "lsf.cluster.mycluster", 1, "no hosts defined"),
    Case("server-two", {"lsf.cluster.mycluster": L(*HOST_HEAD, "hostA ! ! 2 - - - ()", "End Host")},
         True, "lsf.cluster.mycluster", 3, "server: expected 1 or 0, got <2>"),
    Case("cluster-duplicate-host", {"lsf.cluster.mycluster": L(*HOST_HEAD, "hostA ! ! 1 - - - ()",
                                                               "hostA ! ! 1 - - - ()", "End Host")},
         True, "lsf.cluster.mycluster", 4, "host hostA is listed twice (first at line 3)"),
    Case("no-cluster-admins", {"lsf.cluster.mycluster": L(*HOST_HEAD, "hostA ! ! 1 - - - ()", "End Host")},
         False, "lsf.cluster.mycluster", 0, "no cluster administrators"),
    Case("cluster-row-columns", {"lsf.cluster.mycluster": L(*HOST_HEAD, "hostA ! ! 1 - - -", "End Host")},
         True, "lsf.cluster.mycluster", 3, "expected 8 values"),
    # ---- lsf.conf ----------------------------------------------------------------------
    Case("conf-line-without-equals", {"lsf.conf": L("LSF_UNIT_FOR_LIMITS=MB", "", "LSB_DISPLAY_YEAR Y")},
         True, "lsf.conf", 3, "expected KEY=value, got <LSB_DISPLAY_YEAR Y>"),
    Case("conf-section-marker", {"lsf.conf": L("Begin Parameters", "A=1", "End Parameters")},
         True, "lsf.conf", 1, "expected KEY=value"),
    Case("conf-bad-jobid-length", {"lsf.conf": L("LSB_JOBID_DISP_LENGTH=wide")},
         True, "lsf.conf", 1, "LSB_JOBID_DISP_LENGTH: expected an integer between 1 and 64, got <wide>"),
    Case("conf-bad-unit", {"lsf.conf": L("# x", "LSF_UNIT_FOR_LIMITS=MiB")},
         True, "lsf.conf", 2, "LSF_UNIT_FOR_LIMITS: expected one of KB MB GB TB PB EB"),
    Case("conf-bad-cluster-name", {"lsf.conf": L("LSF_CLUSTER_NAME=../etc")},
         True, "lsf.conf", 1, "LSF_CLUSTER_NAME: expected a cluster name"),
    # ---- missing files -------------------------------------------------------------------
    Case("missing-lsf-conf", {"lsf.conf": None}, True, "lsf.conf", 0, "file not found"),
    Case("missing-lsb-params", {"lsb.params": None}, True, "lsb.params", 0, "file not found"),
    Case("missing-lsb-queues", {"lsb.queues": None}, True, "lsb.queues", 0, "file not found"),
    # ---- lsb.applications ---------------------------------------------------------
    Case("app-no-name", {"lsb.applications": L("Begin Application", "RUNLIMIT = 10", "End Application")},
         True, "lsb.applications", 1, "NAME is missing in this Begin Application section"),
    Case("app-bad-runlimit", {"lsb.applications": L("Begin Application", "NAME = a", "RUNLIMIT = abc",
                                                    "End Application")},
         True, "lsb.applications", 3, "RUNLIMIT: expected [hour:]minute"),
    Case("app-two-runlimits", {"lsb.applications": L("Begin Application", "NAME = a", "RUNLIMIT = 10 20",
                                                     "End Application")},
         True, "lsb.applications", 3, "RUNLIMIT: expected one [hour:]minute limit"),
    Case("app-two-pend-time-limits", {"lsb.applications": L("Begin Application", "NAME = a", "PEND_TIME_LIMIT = 10 20",
                                                            "End Application")},
         True, "lsb.applications", 3, "PEND_TIME_LIMIT: expected one [hour:]minute limit"),
    Case("queue-bad-eligible-pend-time-limit", {"lsb.queues": Q("ELIGIBLE_PEND_TIME_LIMIT = 1:75")},
         True, "lsb.queues", 3, "ELIGIBLE_PEND_TIME_LIMIT: expected minutes below 60", ["<1:75>"]),
    Case("params-zero-pend-time-limit", {"lsb.params": P("DEFAULT_QUEUE = normal", "PEND_TIME_LIMIT = 0")},
         True, "lsb.params", 3, "PEND_TIME_LIMIT: expected a positive [hour:]minute limit"),
    Case("app-bad-memlimit", {"lsb.applications": L("Begin Application", "NAME = a", "MEMLIMIT = 0",
                                                    "End Application")},
         True, "lsb.applications", 3, "MEMLIMIT: expected"),
    Case("app-twice", {"lsb.applications": L("Begin Application", "NAME = a", "End Application",
                                             "Begin Application", "NAME = a", "End Application")},
         True, "lsb.applications", 5, "application a is defined twice (first at line 1)"),
    Case("app-bad-name", {"lsb.applications": L("Begin Application", "NAME = a b", "End Application")},
         True, "lsb.applications", 2, "NAME: expected one application name"),
    Case("app-not-built-parameter", {"lsb.applications": L("Begin Application", "NAME = a", "CPULIMIT = 10",
                                                           "End Application")},
         False, "lsb.applications", 3, "parameter CPULIMIT is not supported by lsfemu; ignored"),
    Case("app-unknown-parameter", {"lsb.applications": L("Begin Application", "NAME = a", "COLOUR = blue",
                                                         "End Application")},
         False, "lsb.applications", 3, "bad keyword COLOUR in section Application, ignoring the line"),
    Case("app-other-section", {"lsb.applications": L("Begin Queue", "QUEUE_NAME = x", "End Queue")},
         False, "lsb.applications", 1, "section Queue is not supported by lsfemu in lsb.applications"),
]


def test_corpus_is_large_and_ids_unique():
    assert len(CASES) >= 30
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_malformed(case: Case, tmp_path, make_env):
    env = make_env(tmp_path, case.files)
    cfg, issues = parser.check(env)
    matching = [i for i in issues if case.phrase in i.message]
    assert matching, f"no issue contains {case.phrase!r}; got:\n" + "\n".join(map(str, issues))
    issue = matching[0]
    assert os.path.basename(issue.file) == case.file, str(issue)
    assert issue.line == case.line, str(issue)
    assert issue.fatal is case.fatal, str(issue)
    for phrase in case.also:
        assert phrase in issue.message, str(issue)
    if case.fatal:
        assert cfg is None
        with pytest.raises(ConfigError) as ei:
            parser.load(env)
        assert issue in ei.value.issues
    else:
        # A warning alone never blocks the configuration.
        assert cfg is not None, "\n".join(str(i) for i in issues if i.fatal)
        assert issue in cfg.warnings
        assert parser.load(env).warnings == cfg.warnings


def test_missing_optional_files_give_no_issue(tmp_path, make_env):
    cfg, issues = parser.check(make_env(tmp_path, {"lsb.users": None, "lsb.hosts": None}))
    assert cfg is not None
    assert [os.path.basename(i.file) for i in issues] == []


def test_lsb_file_that_is_a_folder(tmp_path, make_env):
    env = make_env(tmp_path, {"lsb.hosts": None})
    os.mkdir(os.path.join(env, "lsb.hosts"))
    cfg, issues = parser.check(env)
    assert cfg is None
    assert [(os.path.basename(i.file), i.line, i.fatal) for i in issues if "directory" in i.message] == [
        ("lsb.hosts", 0, True)]


def test_non_utf8_file_is_a_warning(tmp_path, make_env):
    env = make_env(tmp_path)
    with open(os.path.join(env, "lsb.users"), "ab") as fh:
        fh.write(b"# caf\xe9 \xff\n")
    cfg, issues = parser.check(env)
    assert cfg is not None
    assert [(os.path.basename(i.file), i.line) for i in issues if "UTF-8" in i.message] == [("lsb.users", 0)]


def test_issues_are_grouped_by_file_in_line_order(tmp_path, make_env):
    env = make_env(tmp_path, {
        "lsb.params": P("FOO = 1", "MBD_SLEEP_TIME = x", "BAR = 2"),
        "lsb.queues": Q("PRIORITY = y", "ZED = 1"),
    })
    _, issues = parser.check(env)
    got = [(os.path.basename(i.file), i.line) for i in issues if "lsb.hosts" not in i.file and "lsb.users" not in i.file]
    assert got == [("lsb.params", 2), ("lsb.params", 3), ("lsb.params", 4), ("lsb.queues", 3), ("lsb.queues", 4)]
