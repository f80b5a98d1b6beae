"""A cluster whose files hold LSF keys lsfemu does not act on, in every file
(issue 21): the daemon starts and schedules, and badmin ckconfig names each
key with its file and line (tests/config/test_key_audit.py has one case per
file; docs/semantics.md, "Configuration keys: acted on, warned about, or
refused")."""

from __future__ import annotations

import pytest

from lsfemu.config.sample import CLUSTER, init_files

pytestmark = pytest.mark.slow(4)  # seconds, quiet machine (one cluster)

LSB = f"lsbatch/{CLUSTER}/configdir"


def test_keys_lsfemu_does_not_act_on_are_named_and_the_daemon_still_runs(lsf_cluster_factory):
    base = init_files()
    files = {
        f"{LSB}/lsb.params": base[f"{LSB}/lsb.params"].replace("End Parameters", "CHUNK_JOB_DURATION = 10\nEnd Parameters"),
        f"{LSB}/lsb.queues": base[f"{LSB}/lsb.queues"].replace("NICE         = 20", "NICE = 20\nPRE_EXEC = /bin/true"),
        f"{LSB}/lsb.hosts": base[f"{LSB}/lsb.hosts"].replace("JL/U\n", "JL/U  MIG\n").replace("()\n", "()    1\n"),
        f"lsf.cluster.{CLUSTER}": base[f"lsf.cluster.{CLUSTER}"] + "\nBegin Parameters\nEXINTERVAL = 15\nEnd Parameters\n",
    }
    c = lsf_cluster_factory(files=files)
    assert c.run("bsub -q normal sleep 600", user="user1").rc == 0
    c.advance("20s")
    assert c.run("bjobs -noheader -o stat 1").out.split() == ["RUN"]
    r = c.run("badmin ckconfig")
    assert r.rc == 0, r.text
    for where, line, message in (
        ("lsb.params", 8, "parameter CHUNK_JOB_DURATION is not supported by lsfemu; ignored"),
        ("lsb.queues", 5, "parameter PRE_EXEC is not supported by lsfemu; ignored"),
        ("lsb.hosts", 3, "column MIG is not supported by lsfemu; its values are ignored"),
        (f"lsf.cluster.{CLUSTER}", 16, "parameter EXINTERVAL is not supported by lsfemu; ignored"),
    ):
        assert f"{where}({line}): {message}" in r.text, r.text
