"""bhist shows the directory of `bsub -cwd` in the submit record, as bjobs -l
does (`, Specified CWD <dir>`, lsf-formats.md 3.7 / 4.2): live from the
log (JOB_NEW's LSF 9/10 tail carries the -cwd, issue 21), so also with `-f`
on a copy of the log."""

from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.slow(6)  # seconds, quiet machine


def test_specified_cwd_in_the_submit_record(lsf_cluster, tmp_path):
    c = lsf_cluster
    assert c.run("bsub -cwd /tmp/work/%J sleep 60", user="user1").rc == 0
    assert c.run("bsub sleep 60", user="user1").rc == 0
    c.advance("2m")
    r = c.run("bhist -l -w 1", user="user1")
    assert r.rc == 0, r.text
    submit = next(line for line in r.out.splitlines() if "Submitted from host" in line)
    assert submit.endswith(", Specified CWD </tmp/work/%J>;"), submit
    assert "Specified CWD" in c.run("bjobs -l 1", user="user1").out  # the same item bjobs -l shows
    assert "Specified CWD" not in c.run("bhist -l 2", user="user1").out
    t = c.run("bhist -t", user="user1").out
    assert "Job <1>, submitted from host" in t and ", Specified CWD </tmp/work/%J>;" in t
    # the log alone carries it
    copy = tmp_path / "lsb.events"
    shutil.copy(c.home / "logdir" / "lsb.events", copy)
    off_line = c.run(["bhist", "-l", "-f", str(copy), "1"], user="user1").out
    assert ", Specified CWD </tmp/work/%J>;" in off_line.replace("\n                     ", ""), off_line
