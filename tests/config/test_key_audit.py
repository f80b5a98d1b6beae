"""No configuration key accepted and silently ignored (issue 21): in every
file, a real LSF key lsfemu does not act on is warned about with its file and
line (values.not_built: `parameter KEY is not supported by lsfemu; ignored`,
or for a table column `column C is not supported by lsfemu; its values are
ignored`), a key LSF does not know gets mbatchd's `bad keyword KEY in section
S, ignoring the line` (OpenLava lsb.conf.c, catgets 5416), and a key that
acts reaches the configuration without a word. docs/semantics.md,
"Configuration keys: acted on, warned about, or refused"."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import CLUSTER_FILE, LSB_QUEUES, LSF_CLUSTER
from lsfemu.config import parser
from lsfemu.sched.fairshare.factors import effective_factors


def L(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def P(*body: str) -> str:
    return L("Begin Parameters", *body, "End Parameters")


def APP(*body: str) -> str:
    return L("Begin Application", "NAME = a", *body, "End Application")


def LIMIT(*body: str) -> str:
    return L("Begin Limit", "NAME = lim", "SLOTS = 4", *body, "End Limit")


SHORT = "PRIORITY = 40"  # the sample's second queue: keys go after this line (line 17)
QUEUE_LINE = LSB_QUEUES.splitlines().index(SHORT) + 2
CLUSTER_PARAMS = LSF_CLUSTER + L("", "Begin Parameters", "EXINTERVAL = 15", "End Parameters")

NOT_ACTING = "is not supported by lsfemu"
WARNED = [  # (id, file, text, line, message)
    ("lsb.params", "lsb.params", P("MBD_SLEEP_TIME = 5", "CHUNK_JOB_DURATION = 10"), 3,
     f"parameter CHUNK_JOB_DURATION {NOT_ACTING}; ignored"),
    ("lsb.queues", "lsb.queues", LSB_QUEUES.replace(SHORT, f"{SHORT}\nMEMLIMIT = 100"), QUEUE_LINE,
     f"parameter MEMLIMIT {NOT_ACTING}; ignored"),
    ("lsb.queues-terminate-when", "lsb.queues", LSB_QUEUES.replace(SHORT, f"{SHORT}\nTERMINATE_WHEN = WINDOW PREEMPT"),
     QUEUE_LINE, f"TERMINATE_WHEN: WINDOW {NOT_ACTING} (only PREEMPT acts); ignored"),
    ("lsb.queues-proclimit", "lsb.queues", LSB_QUEUES.replace(SHORT, f"{SHORT}\nPROCLIMIT = 1 2 4"), QUEUE_LINE,
     "PROCLIMIT: only APS's PROC value of a job without -n reads it; job sizes are not limited by it "
     "(not supported by lsfemu)"),
    ("lsb.applications", "lsb.applications", APP("CPULIMIT = 10"), 3, f"parameter CPULIMIT {NOT_ACTING}; ignored"),
    ("lsb.users", "lsb.users", L("Begin User", "USER_NAME MAX_JOBS MAX_PEND_SLOTS", "user1 4 10", "End User"), 3,
     f"column MAX_PEND_SLOTS {NOT_ACTING}; its values are ignored"),
    ("lsb.hosts", "lsb.hosts", L("Begin Host", "HOST_NAME MXJ MIG", "hostA 2 1", "End Host"), 3,
     f"column MIG {NOT_ACTING}; its values are ignored"),
    ("lsb.resources", "lsb.resources", LIMIT("LIC_PROJECTS = p1"), 4, f"parameter LIC_PROJECTS {NOT_ACTING}; ignored"),
    ("lsf.cluster-parameters", CLUSTER_FILE, CLUSTER_PARAMS, len(CLUSTER_PARAMS.splitlines()) - 1,
     f"parameter EXINTERVAL {NOT_ACTING}; ignored"),
    ("lsf.cluster-column", CLUSTER_FILE, LSF_CLUSTER.replace("RESOURCES", "RESOURCES RUNWINDOW")
     .replace("(linux bigmem)", "(linux bigmem) (8:00-18:00)").replace("()\n", "() ()\n"), 8,
     f"column RUNWINDOW {NOT_ACTING}; its values are ignored"),
]
UNKNOWN = [  # (file, text, line, section as LSF names it)
    ("lsb.params", P("MBD_SLEEP_TIME = 5", "COLOUR = blue"), 3, "parameters"),
    ("lsb.queues", LSB_QUEUES.replace(SHORT, f"{SHORT}\nCOLOUR = blue"), QUEUE_LINE, "Queue"),
    ("lsb.applications", APP("COLOUR = blue"), 3, "Application"),
    ("lsb.resources", LIMIT("COLOUR = blue"), 4, "Limit"),
    (CLUSTER_FILE, LSF_CLUSTER.replace("lsfadmin admin2", "lsfadmin admin2\nCOLOUR = blue"), 3, "ClusterAdmins"),
]


def _issues(make_env, tmp_path, name: str, text: str):
    cfg, issues = parser.check(make_env(tmp_path, {name: text}))
    assert cfg is not None  # a warning never stops the configuration from loading
    return cfg, [(os.path.basename(i.file), i.line, i.message) for i in issues if not i.fatal]


@pytest.mark.parametrize("fname,text,line,message", [w[1:] for w in WARNED], ids=[w[0] for w in WARNED])
def test_a_key_lsfemu_does_not_act_on_is_warned_about_at_its_line(fname, text, line, message, make_env, tmp_path):
    _, issues = _issues(make_env, tmp_path, fname, text)
    assert (fname, line, message) in issues, issues


@pytest.mark.parametrize("fname,text,line,section", UNKNOWN, ids=[u[0] for u in UNKNOWN])
def test_a_key_lsf_does_not_know_gets_mbatchds_bad_keyword(fname, text, line, section, make_env, tmp_path):
    _, issues = _issues(make_env, tmp_path, fname, text)
    assert (fname, line, f"bad keyword COLOUR in section {section}, ignoring the line") in issues, issues


ACTING = [  # (id, file, text, what the configuration holds)
    ("lsb.params", "lsb.params", P("MBD_SLEEP_TIME = 5", "JOB_DEP_LAST_SUB = 1"),
     lambda cfg: cfg.params.extra["JOB_DEP_LAST_SUB"] == "1"),
    ("lsb.queues", "lsb.queues", LSB_QUEUES.replace(SHORT, f"{SHORT}\nENABLE_GPU_HIST_RUN_TIME = Y"),
     lambda cfg: effective_factors(cfg.params, cfg.queue("short"))[1]["ENABLE_GPU_HIST_RUN_TIME"] == "queue"),
    ("lsb.applications", "lsb.applications", APP("MEMLIMIT = 512"), lambda cfg: cfg.applications["a"].mem_limit == 512),
    ("lsb.users", "lsb.users", L("Begin User", "USER_NAME MAX_JOBS", "user1 4", "End User"),
     lambda cfg: cfg.user_limits["user1"].max_jobs == 4),
    ("lsb.hosts", "lsb.hosts", L("Begin Host", "HOST_NAME MXJ", "hostA 2", "End Host"),
     lambda cfg: cfg.host_mxj("hostA") == 2),
    ("lsb.resources", "lsb.resources", LIMIT(), lambda cfg: cfg.limits[0].slots == 4),
]


@pytest.mark.parametrize("fname,text,holds", [a[1:] for a in ACTING], ids=[a[0] for a in ACTING])
def test_a_key_that_acts_is_read_without_a_word(fname, text, holds, make_env, tmp_path):
    cfg, issues = _issues(make_env, tmp_path, fname, text)
    assert not [i for i in issues if i[0] == fname], issues
    assert holds(cfg)


#: lsf.conf-style names docs/ and README mention that no code reads, each said there to be
#: not built or not a setting (LSB_BAD_BSUBARGS is an OpenLava error code, LSFEMU_UPDATE_GOLDEN
#: a switch of the tests)
NAMED_NOT_READ = {"LSF_STRICT_RESREQ", "LSB_TIME_RESERVE_NUMJOBS", "LSB_SUBK_SHOW_JOBID", "LSB_POSTEXEC_SEND_MAIL",
                  "LSB_MOD_ALL_JOBS", "LSB_CPUACCT_STAT", "LSB_BAD_BSUBARGS", "LSFEMU_UPDATE_GOLDEN",
                  "LSB_DISABLE_LIMLOCK_EXCL"}  # PREEMPT_JOBTYPE=EXCLUSIVE acts without it (no LIM lock here)


def test_every_lsf_conf_setting_the_docs_name_is_read_by_the_code():
    """lsf.conf stays silent about keys it does not know (as LSF); so every setting the
    documentation names must be read somewhere (a quoted name in lsfemu/), unless it is one
    the documentation says is not built."""
    root = Path(__file__).parents[2]
    docs = "".join(p.read_text() for p in [root / "README.md", *sorted((root / "docs").glob("*.md"))])
    named = set(re.findall(r"\b(?:LSF|LSB|LSFEMU)_[A-Z0-9_]*[A-Z0-9]\b", docs))
    code = "".join(p.read_text() for p in (root / "lsfemu").rglob("*.py") if p.name != "options.py")
    read = {k for k in named if f'"{k}"' in code or f"'{k}'" in code}
    assert named - read == NAMED_NOT_READ, (
        "a setting named in docs/ or README that no code reads (read it, or say it is not built and add "
        "it to NAMED_NOT_READ), or one of NAMED_NOT_READ now read or no longer named")
