"""select[] and order[] evaluated (issue 19): sched/select.py against LSF
10.1's "Selection string" and "Ordering string" pages, their examples, and
properties of the evaluator over random expressions and hosts."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.sched import resreq
from lsfemu.sched.hostres import HostResources, namespace
from lsfemu.sched.select import SelectError, compile_order, compile_select

pytestmark = pytest.mark.slow(3)

HOST_A = HostResources("hostA", ncpus=4, maxmem=16384, maxswp=4096, booleans=frozenset({"bigmem", "fddi"}),
                       values={"osver": "rhel7", "lic": 3.0})
HOST_B = HostResources("hostB", type="LINUXPPC64LE", model="POWER9", ncpus=8, maxmem=8192)
LOAD = {"r15s": 0.5, "r1m": 0.7, "r15m": 0.2, "ut": 0.1, "pg": 1.0, "io": 3.0, "ls": 0, "it": 20,
        "tmp": 900.0, "swp": 2000.0, "mem": 12000.0}
NS_A = namespace(HOST_A, LOAD)
NS_B = namespace(HOST_B, {**LOAD, "mem": 3000.0, "r15s": 0.1})


def sel(text, ns=NS_A, local="X86_64", **kw):
    return compile_select(text, local, **kw)(ns)


@pytest.mark.parametrize("text,a,b", [
    # the default: the submission host's type
    (None, True, False), ("", True, False), ("type == local", True, False),
    ("type==any", True, True), ("type==LINUXPPC64LE", False, True), ("type != X86_64", False, True),
    ('model=="Intel_EM64T"', True, False), ("model=='POWER9'", False, True),
    # numbers with units; a numeric select keeps LSF's implicit type==local
    ("mem>4G", True, False), ("mem>2000", True, False), ("mem>2000 && type==any", True, True),
    ("maxmem>=8G && type==any", True, True), ("ncpus*2>=16 && type==any", False, True),
    ("swp > 15 && maxmem > 100", True, False),
    # boolean resources (LSF: a string or Boolean resource makes type==any the default)
    ("bigmem", True, False), ("!bigmem", False, True), ("bigmem || fddi", True, False),
    ("defined(lic)", True, False), ("!defined(lic)", False, True),
    ("hname==hostB", False, True), ("hname==hostA || hname==hostB", True, True),
    # a numeric resource the host lacks: any comparison on it is false, its negation true
    ("lic>=3", True, False), ("lic<3", False, False), ("!(lic<3)", True, False), ("!(lic<3) && type==any", True, True),
    ("osver==rhel7", True, False), ("osver!=rhel7", False, False),
    # aliases and arithmetic
    ("swap>=2000", True, False), ("idle>10 && login<1 && cpu<1", True, False),
    ("(r15s + r1m) / 2 < 1 && type==any", True, True), ("-mem < -1000 && type==any", True, True),
    ("ut < 0.5 && type == any", True, True),
])
def test_lsf_selection_semantics(text, a, b):
    assert (sel(text), sel(text, NS_B)) == (a, b)


def test_documented_examples_parse_and_select():
    # LSF 10.1 "Selection string" and bsub -R examples
    assert sel("rhel6 || rhel7", namespace(HOST_A.__class__("h", booleans=frozenset({"rhel7"})), LOAD))
    assert not sel("rhel6 || rhel7")
    assert sel("(swp > 15 && type == X86_64) || (swp > 10 && type == LINUXPPC64LE)", NS_B)
    assert not sel("select_me_not")  # an undeclared bare name: a Boolean nobody has
    assert sel("slots>4 && maxslots < 10 || mem > 10 && type==any", NS_B)


def test_type_local_is_the_submission_hosts():
    assert sel(None, NS_B, local="LINUXPPC64LE") and not sel(None, NS_A, local="LINUXPPC64LE")
    assert sel("mem>1", NS_B, local="LINUXPPC64LE")


def test_model_local():
    assert sel("model==local", NS_A, local_model="Intel_EM64T") and not sel("model==local", NS_B,
                                                                           local_model="Intel_EM64T")
    assert sel("model==local", NS_B)  # the submission host's model unknown: any


def test_bare_memory_amount_follows_lsf_unit_for_limits():
    assert sel("mem>11", units={"mem": "GB"}) and not sel("mem>12", units={"mem": "GB"})
    assert sel("mem>11000", units={"mem": "MB"})
    assert not sel("maxmem>17", units={"mem": "GB"})


def test_names_are_what_it_reads():
    assert compile_select("mem>4G && swap>1", "X").names == {"mem", "swp", "type"}
    assert compile_select("bigmem || defined(lic)", "X").names == {"bigmem", "lic"}
    assert compile_select(None, "X").names == {"type"}
    assert compile_select("hname==hostA", "X").names == {"hname"}


def test_unknown_names_are_refused_when_the_resources_are_known():
    with pytest.raises(SelectError) as e:
        compile_select("mem>1 && fooo>3", "X", resources={"bigmem": "Boolean"})
    assert e.value.unknown == "fooo"
    with pytest.raises(SelectError):
        compile_select("defined(nope)", "X", resources={})
    compile_select("bigmem && type==LINUX && hname==hostZ", "X", resources={"bigmem": "Boolean"})
    with pytest.raises(SelectError):
        compile_order("-fooo", resources={})


@pytest.mark.parametrize("text", ["", "mem>", "(mem>1", "mem>1)", "mem>>1", "&& mem", "defined()", "mem>1 mem<2",
                                  "type==", "mem @ 1", "5G5"])
def test_bad_syntax(text):
    with pytest.raises(SelectError):
        compile_select(text or "()", "X")
    with pytest.raises(resreq.ResReqError):
        resreq.check(f"select[{text}]")


def test_order_default_and_keys():
    hosts = {"hostA": NS_A, "hostB": NS_B}

    def ranked(text):
        o = compile_order(text)
        return sorted(hosts, key=lambda h: (o(hosts[h]), h))

    assert ranked(None) == ["hostB", "hostA"]  # r15s:pg, least loaded first
    assert ranked("r15s:pg") == ranked(None) and compile_order(None).text == "r15s:pg"
    assert ranked("mem") == ["hostA", "hostB"]  # more free memory is better
    assert ranked("-mem") == ["hostB", "hostA"]
    assert ranked("-ncpus") == ["hostA", "hostB"] and ranked("ncpus") == ["hostB", "hostA"]
    assert ranked("pg:-r15s") == ["hostA", "hostB"]  # the second key breaks the tie on pg
    assert ranked("!lic") == ["hostA", "hostB"]  # a host without the index sorts last
    assert compile_order("-mem:swap").names == {"mem", "swp"}
    assert compile_order("gpu_x", decreasing={"gpu_x"}).keys == (("gpu_x", True),)


# --- properties -------------------------------------------------------------------

_NAMES = ["mem", "swp", "r15s", "ncpus", "lic", "bigmem", "fddi", "nothere"]
_atoms = st.one_of(
    st.builds(lambda n, op, v: f"{n}{op}{v}", st.sampled_from(_NAMES), st.sampled_from(["<", "<=", ">", ">=", "==", "!="]),
              st.integers(0, 20000)),
    st.sampled_from(["bigmem", "fddi", "nothere", "defined(lic)", "type==X86_64", "type==any", "hname==hostB"]))
_exprs = st.recursive(_atoms, lambda inner: st.one_of(
    st.builds(lambda a, b: f"({a}) && ({b})", inner, inner),
    st.builds(lambda a, b: f"({a}) || ({b})", inner, inner),
    st.builds(lambda a: f"!({a})", inner)), max_leaves=8)
_hosts = st.builds(
    lambda mem, ncpus, bools, lic, typ: namespace(
        HostResources("hostB" if typ else "hostA", type="PPC" if typ else "X86_64", ncpus=ncpus,
                      booleans=frozenset(bools), values={"lic": lic} if lic is not None else {}),
        {**LOAD, "mem": float(mem)}),
    st.integers(0, 20000), st.integers(1, 64), st.sets(st.sampled_from(["bigmem", "fddi"])),
    st.one_of(st.none(), st.integers(0, 10)), st.booleans())


@settings(max_examples=300, deadline=None)
@given(_exprs, _hosts)
def test_an_expression_and_its_negation_never_both_hold(e, ns):
    typed = f"({e}) && (type==any)"  # the implicit type==local would make both false on other types
    assert sel(typed, ns) != sel(f"!({typed})", ns)


@settings(max_examples=300, deadline=None)
@given(_exprs, _exprs, _hosts)
def test_and_or_are_both_either(a, b, ns):
    a, b = f"({a}) && type==any", f"({b}) && type==any"
    assert sel(f"({a}) && ({b})", ns) == (sel(a, ns) and sel(b, ns))
    assert sel(f"({a}) || ({b})", ns) == (sel(a, ns) or sel(b, ns))


@settings(max_examples=200, deadline=None)
@given(_exprs, _hosts)
def test_compiled_once_answers_like_compiled_again(e, ns):
    s = compile_select(e, "X86_64")
    assert s(ns) == s(ns) == compile_select(e, "X86_64")(ns)
    # a host differing only in what the expression does not read answers the same
    other = {k: v for k, v in ns.items() if k in s.names or k == "type"}
    assert s(other) == s(ns)
