"""lshosts, lsload, lsinfo and bhosts -l rendered from the reference's values
match the goldens derived from lsf-breadth.md 3.2-3.5 and 4.3 byte for byte
(tests/unit/golden_hosts/README.md), and LSF 10's size units (issue 19)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsfemu.render import bhosts, lstools, outfmt, shared
from lsfemu.views import HostLoadView, HostView, LsInfoView, ResourceInfoView, SharedInstanceView, SharedResourceView

pytestmark = pytest.mark.slow(1)

GOLDEN = Path(__file__).parent / "golden_hosts"
G = 1024.0


def _golden(name: str) -> str:
    return (GOLDEN / name).read_text()


def _host(name, type_="X86_64", model="PC6000", cpuf=116.1, ncpus=2, maxmem=0.0, maxswp=0.0, maxtmp=0.0,
          resources=(), load=None, reserved=None, thresholds=None):
    return HostLoadView(name, type_, model, cpuf, ncpus, maxmem, maxswp, maxtmp, True, list(resources), "ok",
                        load or {}, reserved or {}, thresholds or {})


def _load(r15s=0.0, ut=0.0, pg=0.0, io=0.0, ls=0.0, it=0.0, tmp=0.0, swp=0.0, mem=0.0):
    return {"r15s": r15s, "r1m": 0.0, "r15m": 0.0, "ut": ut, "pg": pg, "io": io, "ls": ls, "it": it,
            "tmp": tmp, "swp": swp, "mem": mem}


def test_lshosts():
    hosts = [_host("lsfrhel01", maxmem=1.4 * G, maxswp=1.4 * G, resources=["mg"]),
             _host("icgen2host-10-240-128-21", model="Intel_E5", cpuf=12.5, ncpus=4, maxmem=15.4 * G)]
    assert lstools.lshosts(hosts) == _golden("lshosts.txt")


def test_lshosts_wide_pushes_a_long_type_right():
    hosts = [_host("kilenc", "LINUXPPC64LE", "POWER9", 25.0, 32, 30.7 * G, 15.8 * G, resources=["mg", "docker"])]
    assert lstools.lshosts(hosts, wide=True) == _golden("lshosts_w.txt")


def test_lshosts_long():
    hosts = [_host("hostA", maxmem=2016, maxswp=1983, maxtmp=72917, resources=["mg"], thresholds={"r1m": 3.5})]
    assert lstools.lshosts_long(hosts) == _golden("lshosts_l.txt")


def test_lsload():
    hosts = [_host("lsfrhel01", load=_load(r15s=0.4, ls=1, it=179, tmp=10 * G, swp=1.4 * G, mem=1.1 * G)),
             _host("icgen2host-10-240-128-21", load=_load(it=12818, tmp=76 * G, swp=0, mem=14.8 * G))]
    assert lstools.lsload(hosts) == _golden("lsload.txt")


def test_lsload_long_shows_io_and_whole_names():
    text = lstools.lsload([_host("icgen2host-10-240-128-21", load=_load(io=12))], long=True)
    assert text.splitlines() == [
        "HOST_NAME               status  r15s   r1m  r15m   ut    pg    io  ls    it   tmp   swp   mem",
        "icgen2host-10-240-128-21     ok   0.0   0.0   0.0   0%   0.0    12   0     0    0M    0M    0M"]


def test_lsinfo():
    res = [ResourceInfoView("r15s", "Numeric", "Inc", "15-second CPU run queue length"),
           ResourceInfoView("it", "Numeric", "Dec", "Idle time (minutes) (alias: idle)"),
           ResourceInfoView("rexpri", "Numeric", "N/A", "Remote execution priority"),
           ResourceInfoView("server", "Boolean", "N/A", "LSF server host"),
           ResourceInfoView("type", "String", "N/A", "Host type"),
           ResourceInfoView("LSF_JobScheduler", "Boolean", "N/A", "JobScheduler product")]
    info = LsInfoView(res, ["UNKNOWN_AUTO_DETECT", "X86_64"],
                      [("Opteron2216", 8.0, "x15_3604_AMDOpterontmProcessor2216")])
    text = lstools.lsinfo(info, resources=True, types=True, models=True, long=False, not_found=[])
    assert text == _golden("lsinfo.txt")


def test_bhosts_long():
    row = HostView("hostA", "ok", None, 4, njobs=2, run=1, rsv=1)
    load = _host("hostA", cpuf=60.0, load=_load(ut=0.30, io=193, ls=25, tmp=8605, swp=5.8 * G, mem=13.2 * G))
    assert bhosts.long([(row, load, 3)]) == _golden("bhosts_l.txt")


@pytest.mark.parametrize("mb,kind,text", [
    (0, "mem", "0M"), (551, "mem", "551M"), (1023.4, "swp", "1023M"), (1.4 * G, "mem", "1.4G"),
    (16 * G, "mem", "16G"), (163 * G, "mem", "163G"), (99.96 * G, "mem", "100G"), (2.9 * G * G, "mem", "2.9T"),
    (2391, "tmp", "2391M"), (9999, "tmp", "9999M"), (10 * G, "tmp", "10G"), (452 * G, "tmp", "452G"),
])
def test_sizes(mb, kind, text):
    assert lstools.size(mb, kind) == text


def test_a_client_host_has_no_values():
    client = HostLoadView("client1", "X86_64", "Intel_EM64T", 60.0, 0, 0.0, 0.0, 0.0, False)
    assert lstools.lshosts([client]).splitlines()[1] == \
        "client1      X86_64 Intel_EM  60.0     -      -      -     No ()"
    assert lstools.lshosts_long([client]) == (
        "\nHOST_NAME:  client1\n"
        "type             model  cpuf ncpus ndisks maxmem maxswp maxtmp rexpri server\n"
        "X86_64     Intel_EM64T  60.0     -      -      -      -      -      -     No\n\n"
        "RESOURCES: Not defined\nRUN_WINDOWS: Not applicable for client-only host\n\n")


def test_lsclusters_cuts_the_master_at_18_and_w_keeps_it_whole():
    row = ("HPCCluster", "ok", "icgen2host-10-240-128-21", "lsfadmin", 3, 3)
    assert lstools.lsclusters([row]) == _golden("lsclusters.txt")
    assert lstools.lsclusters([("OnPremCluster",) + row[1:]], wide=True) == _golden("lsclusters_w.txt")


def test_lsload_o_prints_sizes_unscaled_in_mb():
    fmt = lstools.load_format("HOST_NAME status r15s r1m r15m ut pg io ls it tmp swp mem delimiter='|'")
    host = _host("lsfrhel01", load=_load(r15s=0.4, ut=0.1, ls=1, it=179, tmp=37823.2, swp=0, mem=14807.0))
    assert lstools.lsload_custom([host], fmt) == _golden("lsload_o.txt")


def test_lsload_o_widths_aliases_and_refusals():
    fmt = lstools.load_format("hname:8 MEM:-9 r1m: it")
    assert [(f.header, f.width, f.right) for f in fmt.fields] == [
        ("HOST_NAME", 8, False), ("mem", 9, True), ("r1m", 6, False), ("it", None, False)]
    host = _host("icgen2host-10-240-128-21", load=_load(mem=2048, it=5))
    assert lstools.lsload_custom([host], fmt) == (
        "HOST_NAM       mem r1m    it\n"
        "icgen2ho   2048.0M 0.0    5\n")
    for spec, said in (("HOST_NAME nosuch", "<nosuch> in the format string is not a valid field name."),
                       ("r1m:x", "<r1m:x>: the output width must be a positive integer."),
                       ("r1m delimiter=',' delimiter=';'", "The delimiter can only be specified once."),
                       ("delimiter=','", "No field names were specified in the format string.")):
        with pytest.raises(outfmt.FormatError) as e:
            lstools.load_format(spec)
        assert e.value.message == said


def test_lsload_json_is_valid_json_with_lsf_keys():
    fmt = lstools.load_format(lstools.DEFAULT_LOAD_FORMAT)
    text = lstools.lsload_json([_host("hostA", load=_load(r15s=1.5, ut=0.5, mem=1024))], fmt)
    data = json.loads(text)
    assert (data["COMMAND"], data["HOSTS"]) == ("lsload", 1)
    assert list(data["RECORDS"][0]) == ["HOST_NAME", "status", "r15s", "r1m", "r15m", "ut", "pg", "ls", "it",
                                        "tmp", "swp", "mem"]
    assert data["RECORDS"][0]["r15s"] == "1.5" and data["RECORDS"][0]["ut"] == "50%"
    assert data["RECORDS"][0]["mem"] == "1024.0M"
    assert text.startswith('{\n  "COMMAND":"lsload",\n  "HOSTS":1,\n  "RECORDS":[\n    {\n      "HOST_NAME":"hostA",\n')
    assert json.loads(lstools.lsload_json([], fmt)) == {"COMMAND": "lsload", "HOSTS": 0, "RECORDS": []}


def test_lsload_o_sizes_in_a_unit():
    fmt = lstools.load_format("HOST_NAME mem::GB tmp:-8:K swp:6")
    host = _host("hostA", load=_load(mem=14439.0, tmp=2.0, swp=4096.0))
    # no width: the value's length; `::GB`: the recommended width (6), `:6` cuts (4096.0M -> 4096.0)
    assert lstools.lsload_custom([host], fmt) == (
        "HOST_NAME mem         tmp swp   \n"
        "hostA 14.1 G   2048 K 4096.0\n")


# --- bhosts -s, lshosts -s (issue 21; lsfemu/render/shared.py) ---------------------------


def _shared(name, *instances, numeric=True):
    return SharedResourceView(name, numeric, [SharedInstanceView(v, n, r, list(h)) for v, n, r, h in instances])


def test_bhosts_s():
    assert shared.bhosts_shared([_shared("tot_lic", ("5", 5.0, 0.0, ["hostA", "hostB"]))]) == _golden("bhosts_s.txt")


def test_bhosts_s_reserved_and_wrapped_hosts():
    """TOTAL is what is left for scheduling; a String resource is not listed; 52 + each host and its
    blank past column 80 starts a new line indented 52 (OpenLava bhosts.c prtOneInstance)."""
    many = [f"node{i:02d}" for i in range(1, 9)]
    views = [_shared("scratch", ("100", 100.0, 30.0, ["hostA"]), ("100", 100.0, 2.5, ["hostB"])),
             _shared("site", ("north", None, 0.0, ["hostA"]), numeric=False),
             _shared("tot_lic", ("40", 40.0, 0.0, many))]
    assert shared.bhosts_shared(views) == _golden("bhosts_s_wrap.txt")


def test_lshosts_s():
    many = [f"node{i:02d}" for i in range(1, 9)]
    views = [_shared("tot_lic", ("5", 5.0, 1.0, many)),
             _shared("site", ("north", None, 0.0, ["hostA", "hostB"]), ("a-site-name-over-20-chars", None, 0.0,
                                                                         ["hostC"]), numeric=False)]
    assert shared.lshosts_shared(views) == _golden("lshosts_s.txt")
    assert shared.lshosts_shared([]) == ""


def test_bhosts_l_shared_block_wraps_before_80_columns():
    """OpenLava bhosts.c makeShareFields/getDispLastItem: columns as wide as name, total or reservation
    plus one; a group ends before 11 + its widths reach 80; `-` where the host has no instance."""
    views = [_shared(f"license_{i:02d}", ("12", 12.0, 2.0, ["hostA"])) for i in range(8)]
    views.append(_shared("other", ("3", 3.0, 0.0, ["hostB"])))
    views.append(_shared("site", ("north", None, 0.0, ["hostA"]), numeric=False))
    lines = bhosts.shared_block("hostA", views)
    head = "".join(f"{f'license_{i:02d}':>11}" for i in range(6))
    assert lines == [" " * 12 + head, " Total      " + f"{'10':>11}" * 6, " Reserved   " + f"{'2.0':>11}" * 6, "",
                     " " * 12 + f"{'license_06':>11}{'license_07':>11}{'other':>6}",
                     " Total      " + f"{'10':>11}" * 2 + f"{'-':>6}",
                     " Reserved   " + f"{'2.0':>11}" * 2 + f"{'-':>6}", ""]


def test_lshosts_l_shared_rows_cut_values_at_the_name_plus_one():
    views = [_shared("site", ("a-long-site", None, 0.0, ["hostA"]), numeric=False),
             _shared("tot_lic", ("5", 5.0, 0.0, ["hostB"]))]
    assert shared.lshosts_long_rows("hostA", views) == ["  site  tot_lic", " a-lon        -"]
    assert shared.lshosts_long_rows("hostA", []) == []
