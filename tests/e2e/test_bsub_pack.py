"""bsub -pack (issue 18, part 2; lsfemu.cli.bsubpack, reference lsf-breadth
6.3): one request a line in bsub's syntax, enabled by LSB_MAX_PACK_JOBS,
each answered as a single bsub answers, the first failure ending the pack
unless LSB_PACK_SKIP_ERROR=Y; OpenLava's texts for what LSF refuses."""

import json
import re

import pytest

pytestmark = pytest.mark.slow(10)  # seconds, quiet machine: scheduled early (tests/conftest.py)

SUBMITTED = re.compile(r"Job <(\d+)> is submitted to (default )?queue <(\w+)>\.")


def _cluster(factory, conf: str):
    c = factory()
    with open(c.path_of("lsf.conf"), "a") as f:
        f.write(conf)
    return c


def _jobs(c) -> list[dict]:
    out = c.run("bjobs -a -u all -o 'jobid job_name queue command' -json").out
    return json.loads(out)["RECORDS"]


def _pack(c, text: str, name: str = "pack.txt"):
    path = c.root / "userhome" / name
    path.write_text(text)
    return c.run(["bsub", "-pack", name], user="user1")


def test_a_pack_submits_every_request_as_bsub_would(lsf_cluster_factory):
    c = _cluster(lsf_cluster_factory, "LSB_MAX_PACK_JOBS=2\n")
    r = _pack(c, "# three requests, more than one pack\n"
                 "-J first -q normal sleep 10\n"
                 "\n"
                 "   -J 'two words' python3 -c \"import sys; print(1)\"\n"
                 "-Jthird -R 'rusage[mem=100]' echo \"a b\" '$HOME'\n")
    assert r.rc == 0 and r.err == "", r.text
    lines = r.out.splitlines()
    assert len(lines) == 3 and all(SUBMITTED.fullmatch(l) for l in lines), r.out
    assert [SUBMITTED.match(l).group(2) for l in lines] == [None, "default ", "default "]
    jobs = _jobs(c)
    assert [(j["JOB_NAME"], j["QUEUE"], j["COMMAND"]) for j in jobs] == [
        ("first", "normal", "sleep 10"),
        ("two words", "normal", 'python3 -c "import sys; print(1)"'),
        ("third", "normal", "echo \"a b\" '$HOME'"),
    ]
    assert [j["JOBID"] for j in jobs] == [SUBMITTED.match(l).group(1) for l in lines]


def test_the_first_failure_ends_the_pack(lsf_cluster_factory):
    c = _cluster(lsf_cluster_factory, "LSB_MAX_PACK_JOBS=300\n")
    r = _pack(c, "sleep 1\n-q nosuch sleep 2\nsleep 3\n")
    assert r.rc == 255
    assert SUBMITTED.fullmatch(r.out.strip()), r.out
    assert r.err == "nosuch: No such queue. Job not submitted.\n"
    assert [j["COMMAND"] for j in _jobs(c)] == ["sleep 1"]


def test_skip_error_goes_on_and_lsf_refusals_inside_the_file(lsf_cluster_factory):
    c = _cluster(lsf_cluster_factory, "LSB_MAX_PACK_JOBS=1\nLSB_PACK_SKIP_ERROR=Y\n")
    r = _pack(c, "-K sleep 1\n-q normal -Is bash\n-V\n-pack other.txt\n-h\n"
                 "-q normal\n"  # no command
                 "echo 'unbalanced\n"
                 "-network 'type=sn_all' sleep 1\n"  # an option lsfemu has not built: refused by name
                 "-Y x\n"
                 "sleep 4\n")
    assert r.rc == 255
    assert r.err.splitlines() == [
        "Option -K is not supported in -pack job submission file. Job not submitted.",
        "Option -I/-Ip/-Is is not supported in -pack job submission file. Job not submitted.",
        "Option -V is not supported in -pack job submission file. Job not submitted.",
        "Option -pack is not supported in -pack job submission file. Job not submitted.",
        "Syntax error. Job not submitted.",
        "No command is specified. Job not submitted.",
        "Failed to parse command line: \"echo 'unbalanced\". Job not submitted.",
        "bsub: option -network is not supported by lsfemu yet. Job not submitted.",
        "bsub: illegal option -- Y. Job not submitted.",
    ], r.err
    assert SUBMITTED.fullmatch(r.out.strip()), r.out
    assert [j["COMMAND"] for j in _jobs(c)] == ["sleep 4"]


def test_disabled_unreadable_and_mixed_with_other_options(lsf_cluster_factory, tmp_path):
    c = lsf_cluster_factory()
    assert _pack(c, "sleep 1\n").err == (
        "Pack submission disabled by LSB_MAX_PACK_JOBS in lsf.conf. Job not submitted.\n")
    with open(c.path_of("lsf.conf"), "a") as f:
        f.write("LSB_MAX_PACK_JOBS=10\n")
    c.run("badmin reconfig")
    (c.root / "userhome" / "bin.dat").write_bytes(b"sleep 1\n\xff\xfe\x00\n")
    r = c.run(["bsub", "-pack", "bin.dat"], user="user1")
    assert (r.rc, r.err) == (255, "Error: File <bin.dat> is not a valid text file. Job not submitted.\n")
    r = c.run(["bsub", "-pack", "missing.txt"], user="user1")
    assert (r.rc, r.err) == (255, "Cannot read file <missing.txt>. Job not submitted.\n")
    for argv in (["-q", "normal", "-pack", "pack.txt"], ["-pack", "pack.txt", "sleep", "1"]):
        r = c.run(["bsub"] + argv, user="user1")
        assert r.rc == 255 and r.err.startswith("Usage: bsub ") and r.out == "", r.text
    assert _jobs(c) == []


def test_plain_lines_split_as_shlex_splits_them():
    """A pack line without quotes or backslashes is split at shlex's whitespace
    (issue 23: shlex.split cost ~10% of a packed job); the words are shlex's,
    whatever else the line holds (#, other Unicode spaces, shell characters)."""
    import random
    import shlex

    from lsfemu.cli.bsubpack import _QUOTING, _WORD

    rnd = random.Random(23)
    chars = " \t\r\nab-=#;|&$*\x0b\x0c\u00a0\u3000"
    for _ in range(3000):
        line = "".join(rnd.choice(chars) for _ in range(rnd.randint(0, 14)))
        assert _QUOTING.search(line) is None
        assert _WORD.findall(line) == shlex.split(line), repr(line)
    assert _QUOTING.search("-J 'a b' x") and _QUOTING.search('say "hi"') and _QUOTING.search("a\\ b")
