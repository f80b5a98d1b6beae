"""lsb.resources (issue 19): the Limit sections in both of LSF's forms,
consumers as configured, and every malformed or unbuilt key named with its
file and line."""

from __future__ import annotations

import os

import pytest

from lsfemu.config import parser
from lsfemu.config.lsb_resources import Consumer

pytestmark = pytest.mark.slow(2)


def L(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def test_both_forms_as_ibm_documents_them(tmp_path, make_env):
    """The lsb.resources(5) examples: a vertical tabular section (one limit
    per row, `-` for a default, several names in parentheses) and a
    horizontal one (SLOTS_PER_PROCESSOR with PER_HOST, a group with an exclusion)."""
    text = L("Begin Limit",
             "NAME USERS QUEUES HOSTS SLOTS MEM SWP TMP JOBS",
             "limit1 (user1 user3) - hostA 2 - - - -",
             "- user2 normal - - 20 - - -",
             "- - short - - - - - 200",
             "End Limit",
             "",
             "Begin Limit",
             "# ugroup1 except user1 uses queue1 and queue2 with 2 job slots",
             "# on each host in hgroup1",
             "NAME = limit2",
             "SLOTS_PER_PROCESSOR = 2",
             "QUEUES = normal short",
             "USERS = ugroup1 ~user1",
             "PER_HOST = hostA",
             "RESOURCE = [lic1, 2] [lic2,1.5]",
             "End Limit")
    cfg, issues = parser.check(make_env(tmp_path, {"lsb.resources": text}))
    assert cfg is not None, issues
    assert [(lim.name, lim.line) for lim in cfg.limits] == [
        ("limit1", 3), ("NONAME000", 4), ("NONAME001", 5), ("limit2", 8)]
    one, two, three, four = cfg.limits
    assert one.consumers == {"users": Consumer(False, ("user1", "user3")), "hosts": Consumer(False, ("hostA",))}
    assert (one.slots, one.jobs, one.amounts) == (2, None, {})
    assert two.amounts == {"mem": 20.0} and two.consumers["queues"] == Consumer(False, ("normal",))
    assert three.jobs == 200
    assert four.consumers["hosts"] == Consumer(True, ("hostA",))
    assert four.consumers["users"] == Consumer(False, ("ugroup1", "~user1"))
    assert (four.slots_per_processor, four.resources) == (2, {"lic1": 2.0, "lic2": 1.5})
    assert four.items[:2] == [("NAME", "limit2"), ("SLOTS_PER_PROCESSOR", "2")]
    assert [i for i in issues if "lsb.resources" in i.file] == []


CASES = [  # (id, file lines, fatal, line, phrase)
    ("unbuilt-key", ("Begin Limit", "NAME = a", "SLOTS = 1", "LIC_PROJECTS = p1", "End Limit"), False, 4,
     "parameter LIC_PROJECTS is not supported by lsfemu; ignored"),
    ("unknown-key", ("Begin Limit", "NAME = a", "SLOTS = 1", "FOO = 1", "End Limit"), False, 4,
     "bad keyword FOO in section Limit, ignoring the line"),
    ("unbuilt-column", ("Begin Limit", "USERS SLOTS INELIGIBLE", "user1 1 Y", "End Limit"), False, 3,
     "column INELIGIBLE is not supported by lsfemu"),
    ("percentage-without-per-host", ("Begin Limit", "NAME = a", "HOSTS = all", "MEM = 10%", "End Limit"), True, 4,
     "MEM: a percentage needs PER_HOST in the same Limit section"),
    ("percentage-above-100", ("Begin Limit", "NAME = a", "PER_HOST = all", "SWP = 101%", "End Limit"), True, 4,
     "SWP: expected a percentage up to 100%"),
    ("no-resource", ("Begin Limit", "NAME = a", "USERS = user1", "End Limit"), False, 1,
     "Limit section a limits no resource"),
    ("other-section", ("Begin HostExport", "PER_HOST = hostA", "SLOTS = 1", "End HostExport"), False, 1,
     "section HostExport is not supported by lsfemu in lsb.resources"),
    ("bad-slots", ("Begin Limit", "NAME = a", "SLOTS = many", "End Limit"), True, 3,
     "SLOTS: expected a non-negative integer, got <many>"),
    ("bad-mem", ("Begin Limit", "NAME = a", "MEM = 4G", "End Limit"), True, 3,
     "MEM: expected an amount in MB or a percentage"),
    ("users-and-per-user", ("Begin Limit", "NAME = a", "USERS = user1", "PER_USER = all", "SLOTS = 1",
                            "End Limit"), True, 4, "PER_USER: USERS is also set in this Limit section"),
    ("spp-without-per-host", ("Begin Limit", "NAME = a", "SLOTS_PER_PROCESSOR = 1", "End Limit"), True, 3,
     "SLOTS_PER_PROCESSOR: needs PER_HOST"),
    ("slots-and-spp", ("Begin Limit", "NAME = a", "PER_HOST = all", "SLOTS = 1", "SLOTS_PER_PROCESSOR = 1",
                       "End Limit"), True, 5, "SLOTS_PER_PROCESSOR: SLOTS is also set"),
    ("bad-resource", ("Begin Limit", "NAME = a", "RESOURCE = lic1 2", "End Limit"), True, 3,
     "RESOURCE: expected [resource_name,value]"),
    ("twice", ("Begin Limit", "NAME = a", "SLOTS = 1", "End Limit", "Begin Limit", "NAME = a", "JOBS = 1",
               "End Limit"), True, 5, "limit a is defined twice (first at line 1)"),
    ("bad-name", ("Begin Limit", "NAME = a b", "SLOTS = 1", "End Limit"), True, 2, "NAME: expected a limit name"),
    ("row-width", ("Begin Limit", "USERS SLOTS", "user1", "End Limit"), True, 3, "expected 2 values"),
    ("unknown-queue", ("Begin Limit", "NAME = a", "PER_QUEUE = normal nosuch", "SLOTS = 1", "End Limit"), False, 1,
     "limit a: nosuch is not a queue of lsb.queues; ignored"),
    ("unknown-host", ("Begin Limit", "NAME = a", "HOSTS = nohost", "SLOTS = 1", "End Limit"), False, 1,
     "limit a: nohost is not a host of lsf.cluster nor a host group; ignored"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_malformed(case, tmp_path, make_env):
    _id, lines, fatal, line, phrase = case
    cfg, issues = parser.check(make_env(tmp_path, {"lsb.resources": L(*lines)}))
    found = [i for i in issues if phrase in i.message]
    assert found, "\n".join(map(str, issues))
    assert (os.path.basename(found[0].file), found[0].line, found[0].fatal) == ("lsb.resources", line, fatal)
    assert (cfg is None) is fatal
