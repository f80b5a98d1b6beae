"""Real lsb.acct files (issue 20, part 3): records written by LSF 5.1, 7, 9
and 10 -- copied from public tools' test fixtures, see
tests/data/lsbacct/README.md -- read by lsfemu.events.acct, written back
byte for byte where LSF's number formats were used, and damaged records
skipped with a file:line warning, never an exception."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsfemu.events.acct import format_record, read_acct

pytestmark = pytest.mark.slow(1)

CORPUS = Path(__file__).parent.parent / "data" / "lsbacct"

# file -> (versions of the records read, line numbers warned about)
EXPECTED = {
    "lsf10108_hpc_cost_simulator.acct": (["10.108"] * 4, [2]),
    "lsf101_killed_pending.acct": (["10.1"], []),
    "lsf101_gpu_xdmod.acct": (["10.1"] * 3, []),
    "lsf101_pac.acct": (["10.1"], []),
    "lsf101_xdmod_truncated.acct": (["10.1"], []),
    "lsf911_xdmod_utf8.acct": (["9.11"], []),
    "lsf51_lsf706_apel.acct": (["5.1", "7.06"], []),
    "damaged_apel_no_blank.acct": ([], [1]),
    "damaged_derived.acct": (["10.108"], [1, 2, 4, 7]),
}


def _read(name):
    warnings = []
    return list(read_acct(CORPUS / name, warnings.append)), warnings


def test_the_corpus_is_described():
    files = {p.name for p in CORPUS.glob("*.acct")}
    assert files == set(EXPECTED)
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in readme for name in files)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_file_reads_with_its_damage_reported(name):
    recs, warnings = _read(name)
    versions, warned = EXPECTED[name]
    assert [r.version for r in recs] == versions
    assert [w.lineno for w in warnings] == warned
    assert all(str(w).startswith(f"{CORPUS / name}:{w.lineno}: ") for w in warnings)
    lines = [ln for ln in (CORPUS / name).read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
    rewritten = [format_record(r) for r in recs]
    exact = [t for t in rewritten if t in lines]
    # every record is written back as LSF wrote it, except the 7.06 one with two blanks in a row
    assert len(exact) == len(recs) - (name == "lsf51_lsf706_apel.acct")


def test_what_the_versions_hold():
    (old, lsf7), _ = _read("lsf51_lsf706_apel.acct")
    assert (old.job_id, old.host_factor, old.max_r_mem, old.rsv_id, old.sla) == (699195, 3.3, 310424, "", "")
    assert old.command == "/afs/cern.ch/user/r/raortega/prog/step3c/startEachset.pl 362 7 8"
    assert lsf7.exec_hosts == ("comp042",) * 8 + ("comp043",) * 8 and lsf7.exit_code == 255
    assert (lsf7.job_name, lsf7.idx, lsf7.charged_saap, lsf7.app, lsf7.submit_ext) == (
        "imb_sr[1-90]", 23, "/viglen", "default", ())
    assert 'echo "LSB_HOSTS: $LSB_HOSTS"' in lsf7.command  # doubled quotes read as one
    assert lsf7.alloc_slots == () and lsf7.finish_kvp == ()  # fields LSF 7 did not have
    ((lsf9,), _) = _read("lsf911_xdmod_utf8.acct")
    assert lsf9.command == "aàb" and lsf9.exec_hosts[0] == "16*host1201-ib"
    assert len(lsf9.slot_hosts) == 128 == lsf9.num_processors and lsf9.slot_hosts[16] == "host1234-ib"
    assert lsf7.slot_hosts == lsf7.exec_hosts  # one entry per slot already
    assert lsf9.host_rusage[0] == ("host1201-ib", 1306, 0, 1287486, 242, 0) and len(lsf9.host_rusage) == 8
    assert (lsf9.run_limit, lsf9.options3, lsf9.avg_mem, lsf9.run_time) == (43200, 0, 8688640, 40368)
    assert lsf9.network_alloc == (("18338657682652659712", 1),)
    (gpu, *_), _ = _read("lsf101_gpu_xdmod.acct")
    assert gpu.submit_ext[:3] == ((1036, 1), (1037, 3), (1038, "anongroup"))
    assert gpu.gpu_rusage[0][0] == "host2001" and gpu.gpu_rusage[0][1][0][0] == "1"
    assert gpu.finish_kvp == (("1", "0"),)
    ((pac,), _) = _read("lsf101_pac.acct")
    assert (pac.job_file, pac.asked_hosts, pac.exit_status) == ("10/1527326745.7610", ("pac",), 65280)
    ((killed,), _) = _read("lsf101_killed_pending.acct")
    assert killed.start_time == 0 and killed.exec_hosts == ()
