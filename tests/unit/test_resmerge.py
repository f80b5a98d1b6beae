"""A job's effective requirement (issue 19): bsub -R merged with the application
profile's and the queue's RES_REQ (sched/resmerge.py) by LSF's documented rules,
and the Combined/Effective strings against the real ones of lsf-breadth.md 7.3
(EBI's toil and pipelite captures, lsfMonitor's)."""

from types import SimpleNamespace

import pytest

from lsfemu.sched import resreq
from lsfemu.sched.resmerge import combined_text, effective, effective_text, merge, unknown_name
from lsfemu.sched.select import cluster_resources, compile_select

pytestmark = pytest.mark.slow(1)


def texts(job, app=None, queue=None, units=None):
    req = effective(job, app, queue, units)
    return combined_text(req, units), effective_text(req, units)


def test_real_toil_job_with_the_queues_span():
    # EBI (LSF 10): the job's -R as bjobs' "Requested Resources" shows it; its queue adds span[hosts=1]
    combined, eff = texts("select[(mem>4000)] rusage[mem=4000:duration=480, numcpus=1:duration=480]",
                          queue="span[hosts=1]")
    assert combined == ("select[((mem>4000)) && (type == local)] order[r15s:pg] rusage[mem=4000.00:"
                        "duration=8h:decay=0,numcpus=1.00:duration=8h:decay=0] span[hosts=1]")
    assert eff == ("select[(((mem>4000))) && (type == local)] order[r15s:pg] rusage[mem=4000.00:"
                   "duration=8h:decay=0,numcpus=1.00:duration=8h:decay=0] span[hosts=1] ")


def test_real_pipelite_effective():
    # bhist -l's "Effective RES_REQ <...>" of the same site
    assert texts("rusage[numcpus=1:duration=480]", queue="span[hosts=1]")[1] == (
        "select[type == local] order[r15s:pg] rusage[numcpus=1.00:duration=8h:decay=0] span[hosts=1] ")


def test_real_lsfmonitor_combined():
    assert texts("span[hosts=1] rusage[mem=123]")[0] == (
        "select[type == local] order[r15s:pg] rusage[mem=123.00] span[hosts=1]")


def test_nothing_anywhere_is_lsfs_default():
    assert texts(None) == ("select[type == local] order[r15s:pg]", "select[type == local] order[r15s:pg] ")
    assert texts("rusage[mem=1]")[0] == "select[type == local] order[r15s:pg] rusage[mem=1.00]"


def test_selects_are_anded_job_app_queue():
    combined, eff = texts("select[mem>512]", "select[ncpus>1]", "select[swp>1]")
    assert combined.startswith("select[(mem>512) && (ncpus>1) && (swp>1) && (type == local)] ")
    assert eff.startswith("select[((mem>512)) && ((ncpus>1)) && ((swp>1)) && (type == local)] ")
    # a level naming a type: no implicit type == local
    assert texts("select[mem>512]", queue="select[type==any]")[0].startswith(
        "select[(mem>512) && (type==any)] ")
    assert texts("bigmem")[0].startswith("select[bigmem] ")


def test_order_job_wins_and_queue_order_is_ignored_once_the_job_gives_R():
    assert texts("order[-mem]", None, "order[ut]")[0].endswith(" order[-mem]")
    assert " order[r15s:pg] " in texts("rusage[mem=1]", None, "order[ut]")[0]  # LSF: default, not the queue's
    assert texts(None, None, "order[ut]")[0].endswith(" order[ut]")
    assert texts(None, "order[pg]", "order[ut]")[0].endswith(" order[pg]")


def test_rusage_documented_examples():
    # LSF's "Usage string": queue rusage[mem=200:lic=1] and bsub -R rusage[mem=100]
    assert "rusage[mem=100.00:lic=1.00]" in texts("rusage[mem=100]", None, "rusage[mem=200:lic=1]")[0]
    # queue duration and decay kept when the job gives none
    assert "rusage[mem=100.00:duration=20m:decay=1]" in texts("rusage[mem=100]", None,
                                                               "rusage[mem=200:duration=20:decay=1]")[0]
    # the application's value merged before the queue's
    assert "rusage[mem=100.00:lic=3.00:duration=1h:decay=0,tmp=5.00]" in texts(
        "rusage[mem=100]", "rusage[mem=50:lic=3:duration=60]", "rusage[lic=1,tmp=5]")[0]


def test_rusage_units_phases_alternatives_and_methods():
    assert "rusage[mem=16.00]" in texts("rusage[mem=16G]", units={"mem": "GB", "swp": "GB", "tmp": "MB"})[0]
    assert "rusage[mem=128.00]" in texts("rusage[mem=128M]")[0]
    assert "rusage[mem=(500.00 200.00):duration=(10m 20m):decay=(0 1)]" in texts(
        "rusage[mem=(500 200):duration=(10 20):decay=(0 1)]")[0]
    assert "rusage[lic_a=1.00,mem=5.00||lic_b=1.00,mem=5.00]" in texts("rusage[lic_a=1 || lic_b=1]",
                                                                        "rusage[mem=5]")[0]
    assert "rusage[ngpus_physical=2.00/host]" in texts("rusage[ngpus_physical=2/host]")[0]


def test_span_same_cu_affinity():
    assert texts("span[hosts=-1]", None, "span[ptile=2]")[0] == "select[type == local] order[r15s:pg]"
    assert texts(None, None, "span[ptile=2]")[0].endswith(" span[ptile=2]")
    assert texts("span[hosts=1]", None, "span[ptile=2]")[0].endswith(" span[hosts=1]")
    assert texts("same[model]", None, "same[type:model]")[0].endswith(" same[model:type]")
    assert texts("cu[type=rack]", "cu[type=enclosure]")[0].endswith(" cu[type=rack]")


def test_compound_and_alternatives():
    req = effective("2*{select[mem>1]} + 4*{rusage[mem=10]}", None, "select[bigmem] span[hosts=1]")
    assert combined_text(req) == ("2*{select[(mem>1) && (bigmem)] order[r15s:pg] span[hosts=1]} + "
                                  "4*{select[bigmem] order[r15s:pg] rusage[mem=10.00] span[hosts=1]}")
    alt = effective("{select[bigmem]} || {select[mem>1]}@10")
    assert combined_text(alt) == ("{select[bigmem] order[r15s:pg]} || "
                                  "{select[(mem>1) && (type == local)] order[r15s:pg]}@10")
    assert effective_text(alt) == "select[bigmem] order[r15s:pg] "
    assert effective_text(alt, chosen=1) == "select[((mem>1)) && (type == local)] order[r15s:pg] "
    # a compound queue requirement with a simple job -R: the job wins inside each term
    q = effective("rusage[mem=5]", None, "1*{rusage[mem=1]} + 2*{select[ncpus>1]}")
    assert combined_text(q) == ("1*{select[type == local] order[r15s:pg] rusage[mem=5.00]} + "
                                "2*{select[(ncpus>1) && (type == local)] order[r15s:pg] rusage[mem=5.00]}")


def test_merged_requirement_is_what_placement_compiles():
    req = merge(resreq.parse("select[mem>4G] rusage[mem=100]"), None, resreq.parse("select[ncpus>=2]"))
    s = req.alternatives[0].terms[0].simple
    sel = compile_select(s.select, "X86_64")
    assert sel({"type": "X86_64", "mem": 5000, "ncpus": 2}) and not sel({"type": "X86_64", "mem": 5000, "ncpus": 1})
    assert not sel({"type": "PPC", "mem": 5000, "ncpus": 2})
    assert s.order == "r15s:pg" and resreq.amounts_of(req) == {"mem": 100.0}


def test_the_merge_marks_the_default_order_it_filled_in():
    """Simple.default_order: nobody gave the order the merge wrote (placement
    then keeps the hosts' order; engine/requirements.py)."""
    def first(job, app=None, queue=None):
        s = effective(job, app, queue).alternatives[0].terms[0].simple
        return s.order, s.default_order
    assert first(None) == ("r15s:pg", True)
    assert first("rusage[mem=1]", None, "order[ut]") == ("r15s:pg", True)  # the job's -R: the queue's is ignored
    assert first(None, None, "order[ut]") == ("ut", False)
    assert first(None, "order[pg]", "order[ut]") == ("pg", False)
    assert first("order[-mem]", None, "order[ut]") == ("-mem", False)
    assert first("order[r15s:pg]") == ("r15s:pg", False)  # given, even if it is the default's text
    compound = effective(None, None, "2*{order[ut]} + {select[mem>1]}").alternatives[0].terms
    assert [(t.simple.order, t.simple.default_order) for t in compound] == [("ut", False), ("r15s:pg", True)]
    assert not resreq.parse("order[ut]").alternatives[0].terms[0].simple.default_order  # parsing sets nothing


def test_a_bad_queue_res_req_is_ignored():
    assert texts("rusage[mem=1]", None, "select[")[0] == "select[type == local] order[r15s:pg] rusage[mem=1.00]"


def test_unknown_names_against_the_clusters_resources():
    cfg = SimpleNamespace(cluster_hosts=[SimpleNamespace(booleans=["bigmem", "fddi"], values={"osver": "rhel7", "lic": 4.0})],
                          shared=SimpleNamespace(resources={"ngpus": SimpleNamespace(type="Numeric"),
                                                            "gpu": SimpleNamespace(type="Boolean")}))
    known = cluster_resources(cfg)
    assert known == {"ngpus": "Numeric", "gpu": "Boolean", "bigmem": "Boolean", "fddi": "Boolean",
                     "osver": "String", "lic": "Numeric"}
    assert unknown_name(resreq.parse("select[bigmem && ngpus>0 && mem>1 && type==X86_64]"), known) is None
    assert unknown_name(resreq.parse("select[gpus>0]"), known) == "gpus"
    assert unknown_name(resreq.parse("2*{select[mem>1]} + {select[nope]}"), known) == "nope"
    assert unknown_name(resreq.parse("rusage[anything=1]"), known) is None
