"""bsub -w: the dependency condition parser, resolver and evaluator (lsfemu.sched.depend)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.sched import depend as D


def _state(jid, status, idx=0, user="u1", name=None, exit_code=None, started=None, t=0.0):
    if started is None:
        started = status in ("RUN", "USUSP", "SSUSP", "DONE", "EXIT")
    return D.JobState(jid, idx, user, name, status, exit_code, started, t)


def _resolved(text, rows, user="u1", arrays=None, **kw):
    tree = D.parse(text)
    D.resolve(tree, D.Known.of(rows, arrays or {}), user, **kw)
    return tree


def _eval(tree, rows, index=0):
    by_id = {}
    for r in rows:
        by_id.setdefault(r.job_id, []).append(r)
    return D.evaluate(tree, lambda jid: by_id.get(jid, []), index)


# -- parsing ---------------------------------------------------------------------
def test_parse_shapes():
    t = D.parse('done(312) && (started(Job2)||exit("99Job"))')
    assert isinstance(t, D.And) and isinstance(t.items[1], D.Or)
    assert t.items[0].kind == "done" and t.items[0].ref.job_id == 312
    assert t.items[1].items[0].ref.name == "Job2" and t.items[1].items[1].ref.name == "99Job"
    assert t.items[1].items[1].ref.job_id is None  # quoted: a name even if it starts with digits
    bare = D.parse("210")
    assert (bare.kind, bare.ref.job_id) == ("done", 210)  # a bare job means done()
    assert D.parse('"210"').ref.name == "210"


def test_exit_code_comparisons():
    assert (D.parse("exit(5)").op, D.parse("exit(5)").value) == (None, None)  # any exit code
    assert (D.parse("exit(5, 2)").op, D.parse("exit(5, 2)").value) == ("==", 2)
    t = D.parse("exit(5,!=0)")
    assert (t.op, t.value) == ("!=", 0)
    t = D.parse("exit(myjob, > 2)")
    assert (t.ref.name, t.op, t.value) == ("myjob", ">", 2)


def test_counters_default_and_star():
    t = D.parse("numdone(123)")
    assert (t.kind, t.job_id, t.op, t.value) == ("numdone", 123, "!=", 0)
    t = D.parse("numended(123, *)")
    assert (t.op, t.value) == ("==", None)
    t = D.parse("numrun(7, >= 3)")
    assert (t.op, t.value) == (">=", 3)


def test_precedence_not_and_or():
    t = D.parse("!done(1) && done(2) || done(3)")
    assert isinstance(t, D.Or) and isinstance(t.items[0], D.And) and isinstance(t.items[0].items[0], D.Not)
    assert isinstance(D.parse("!!done(1)").arg, D.Not)


def test_long_chains_and_deep_nesting():
    rows = [_state(i, "DONE") for i in range(1, 3001)]
    text = " && ".join(f"done({i})" for i in range(1, 3001))  # scripts write such chains
    tree = _resolved(text, rows)
    assert len(D.leaves(tree)) == 3000 and _eval(tree, rows) == D.TRUE
    rows[-1] = _state(3000, "RUN")
    assert _eval(D.from_data(json.loads(json.dumps(D.to_data(tree)))), rows) == D.FALSE
    assert D.parse("(" * 50 + "done(1)" + ")" * 50).ref.job_id == 1
    with pytest.raises(D.DependError) as e:  # far deeper than anyone writes: refused, never a crash
        D.parse("(" * 5000 + "done(1)" + ")" * 5000)
    assert e.value.text == D.SYNTAX


def test_keywords_as_name_prefixes():
    assert D.parse("donex").ref.name == "donex"  # a letter follows: a name
    assert D.parse("exit2").ref.name == "exit2"
    with pytest.raises(D.DependError):
        D.parse("done_x")  # "_" does not: the keyword done, then a name -- as OpenLava's scanner


@pytest.mark.parametrize("text", ["", "   ", "done(1", "done 1", "(done(1)", "done(1))", "done(1) done(2)",
                                  "&&", "done(1) &&", "!", "exit(1, >)", "exit(1, x)", "numdone(1, >= *x)",
                                  "done()", "done(1[0])", "done(1[3-2])", "ended(a[1-x])", "done(1) & done(2)",
                                  "external(1, \"x\")", "done(#)"])
def test_syntax_errors(text):
    with pytest.raises(D.DependError) as e:
        D.parse(text)
    assert e.value.text == D.SYNTAX


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("done(exit)started!&|,<>=*[]-:\"' 0123456789abnumrpst_")), max_size=40))
def test_any_text_parses_or_is_a_syntax_error(text):
    try:
        tree = D.parse(text)
    except D.DependError as e:
        assert e.text == D.SYNTAX
        return
    # What parses survives the store's JSON form unchanged in meaning.
    assert D.leaves(tree)
    back = D.from_data(json.loads(json.dumps(D.to_data(tree))))
    assert [type(x).__name__ for x in D.leaves(back)] == [type(x).__name__ for x in D.leaves(tree)]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_unicode_never_crashes(text):
    try:
        D.parse(text)
    except D.DependError as e:
        assert e.text == D.SYNTAX


# -- resolving ---------------------------------------------------------------------
def test_unknown_job_names_the_reference_as_openlava_does():
    rows = [_state(1, "RUN", name="a")]
    with pytest.raises(D.DependError) as e:
        _resolved("done(99)", rows)
    assert (e.value.text, e.value.obj) == (D.NO_JOB, "99")
    with pytest.raises(D.DependError) as e:
        _resolved('done("nosuch")', rows)
    assert e.value.obj == '"nosuch'  # OpenLava cuts the token at the closing quote
    with pytest.raises(D.DependError) as e:
        _resolved("ended(b*)", rows)
    assert e.value.obj == "b*"


def test_names_are_the_users_own_jobs():
    rows = [_state(1, "DONE", user="u2", name="a"), _state(2, "RUN", user="u1", name="a")]
    tree = _resolved("done(a)", rows, user="u1")
    assert [t.job_id for t in tree.targets] == [2]
    with pytest.raises(D.DependError):
        _resolved("done(a)", rows, user="u3")
    # job IDs name anyone's job
    assert [t.job_id for t in _resolved("done(1)", rows, user="u3").targets] == [1]


def test_wildcard_and_several_jobs_of_one_name_all_count():
    rows = [_state(1, "DONE", name="stepA"), _state(2, "RUN", name="stepB"), _state(3, "DONE", name="other")]
    tree = _resolved("done(step*)", rows)
    assert [t.job_id for t in tree.targets] == [1, 2]
    assert _eval(tree, rows) == D.FALSE
    rows[1] = _state(2, "DONE", name="stepB")
    assert _eval(tree, rows) == D.TRUE


def test_job_dep_last_sub_takes_the_latest_of_a_name():
    rows = [_state(1, "EXIT", name="a", t=1.0), _state(2, "DONE", name="a", t=2.0)]
    assert _eval(_resolved("done(a)", rows), rows) == D.INVALID  # both must be DONE
    assert _eval(_resolved("done(a)", rows, last_sub=True), rows) == D.TRUE


def test_array_references():
    rows = [_state(5, "DONE", idx=i, name="arr") for i in (1, 2, 3)]
    arrays = {5: ((1, 3, 1),)}
    assert _eval(_resolved("done(5)", rows, arrays=arrays), rows) == D.TRUE
    rows[2] = _state(5, "RUN", idx=3, name="arr")
    assert _eval(_resolved("done(5)", rows, arrays=arrays), rows) == D.FALSE
    assert _eval(_resolved("done(5[1-2])", rows, arrays=arrays), rows) == D.TRUE
    assert _eval(_resolved("done(arr[2])", rows, arrays=arrays), rows) == D.TRUE
    with pytest.raises(D.DependError) as e:
        _resolved("done(5[4])", rows, arrays=arrays)
    assert (e.value.text, e.value.obj) == (D.NO_JOB, "5[4]")


def test_one_to_one_array_dependency():
    rows = [_state(5, "DONE", idx=1, name="A"), _state(5, "RUN", idx=2, name="A")]
    arrays = {5: ((1, 2, 1),)}
    tree = _resolved("done(A[*])", rows, arrays=arrays, submitting_ranges=((1, 2, 1),))
    assert _eval(tree, rows, index=1) == D.TRUE
    assert _eval(tree, rows, index=2) == D.FALSE
    assert _eval(tree, rows, index=3) == D.INVALID  # no such element
    assert D.uses_index(tree) and not D.uses_index(_resolved("done(5)", rows, arrays=arrays))
    # The element() shortcut answers as the filtering fallback.
    by = {(r.job_id, r.index): [r] for r in rows}
    for i in (1, 2, 3):
        assert D.evaluate(tree, lambda j: rows, i, lambda j, k: by.get((j, k), [])) == _eval(tree, rows, index=i)
    for ranges in (None, ((1, 3, 1),)):
        with pytest.raises(D.DependError) as e:
            _resolved("done(A[*])", rows, arrays=arrays, submitting_ranges=ranges)
        assert (e.value.text, e.value.obj) == (D.ARRAY_SIZE, None)


def test_counters_need_an_array():
    rows = [_state(1, "RUN"), _state(2, "DONE", idx=1), _state(2, "EXIT", idx=2, exit_code=1), _state(2, "RUN", idx=3)]
    arrays = {2: ((1, 3, 1),)}
    with pytest.raises(D.DependError) as e:
        _resolved("numdone(1, > 0)", rows, arrays=arrays)
    assert (e.value.text, e.value.obj) == (D.ARRAY_NULL, "1")
    with pytest.raises(D.DependError):
        _resolved("numdone(9)", rows, arrays=arrays)
    check = {"numdone(2, == 1)": D.TRUE, "numexit(2, >= 2)": D.FALSE, "numended(2, == 2)": D.TRUE,
             "numended(2, *)": D.FALSE, "numrun(2)": D.TRUE, "numpend(2)": D.FALSE,
             "numstart(2, == 1)": D.TRUE, "numhold(2, == 0)": D.TRUE}
    for text, want in check.items():
        assert _eval(_resolved(text, rows, arrays=arrays), rows) == want, text


# -- evaluating ----------------------------------------------------------------------
@pytest.mark.parametrize("cond,status,code,want", [
    ("done(1)", "DONE", None, D.TRUE), ("done(1)", "RUN", None, D.FALSE), ("done(1)", "EXIT", 1, D.INVALID),
    ("ended(1)", "EXIT", 2, D.TRUE), ("ended(1)", "DONE", None, D.TRUE), ("ended(1)", "PEND", None, D.FALSE),
    ("exit(1)", "EXIT", 3, D.TRUE), ("exit(1)", "DONE", None, D.INVALID), ("exit(1)", "USUSP", None, D.FALSE),
    ("exit(1, 3)", "EXIT", 3, D.TRUE), ("exit(1, 3)", "EXIT", 4, D.INVALID), ("exit(1, > 2)", "EXIT", 4, D.TRUE),
    ("exit(1, != 0)", "EXIT", 0, D.INVALID), ("started(1)", "RUN", None, D.TRUE), ("started(1)", "PEND", None, D.FALSE),
    ("started(1)", "DONE", None, D.TRUE), ("post_done(1)", "DONE", None, D.TRUE), ("post_err(1)", "DONE", None, D.INVALID),
    ("!done(1)", "EXIT", 1, D.TRUE), ("!done(1)", "DONE", None, D.FALSE),
])
def test_conditions(cond, status, code, want):
    rows = [_state(1, status, exit_code=code)]
    assert _eval(_resolved(cond, rows), rows) == want


def test_started_is_invalid_for_a_job_killed_while_pending():
    rows = [_state(1, "EXIT", exit_code=130, started=False)]
    assert _eval(_resolved("started(1)", rows), rows) == D.INVALID


def test_three_valued_logic_as_mbatchd():
    rows = [_state(1, "DONE"), _state(2, "RUN"), _state(3, "EXIT", exit_code=1)]
    cases = {"done(1) || done(3)": D.TRUE, "done(3) || done(1)": D.TRUE, "done(2) || done(3)": D.FALSE,
             "done(3) || done(2)": D.FALSE, "done(3) || done(3)": D.INVALID, "done(1) && done(3)": D.INVALID,
             "done(2) && done(3)": D.INVALID, "done(2) && done(1)": D.FALSE, "done(1) && done(1)": D.TRUE,
             "!(done(3) && done(1))": D.TRUE}
    for text, want in cases.items():
        assert _eval(_resolved(text, rows), rows) == want, text


def test_a_job_gone_from_the_system_is_invalid():
    rows = [_state(1, "RUN")]
    tree = _resolved("done(1)", rows)
    assert _eval(tree, []) == D.INVALID
    assert D.reason(D.INVALID) == "Dependency condition invalid or never satisfied"
    assert D.reason(D.FALSE) == "Job dependency condition not satisfied"
    assert D.reason(D.TRUE) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["DONE", "EXIT", "RUN", "PEND"]), min_size=3, max_size=3),
       st.sampled_from(["&&", "||"]))
def test_stored_form_evaluates_the_same(states, op):
    rows = [_state(i + 1, s, exit_code=1 if s == "EXIT" else None) for i, s in enumerate(states)]
    tree = _resolved(f"(done(1) {op} !exit(2)) {op} ended(3)", rows)
    back = D.from_data(json.loads(json.dumps(D.to_data(tree))))
    assert _eval(back, rows) == _eval(tree, rows)
