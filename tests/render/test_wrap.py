"""The 79-column wrapper of reference 1.4, checked on real records."""

from hypothesis import given, settings
from hypothesis import strategies as st
from render_helpers import assert_golden

from lsfemu.render.wrap import SOFT_SPACE, host_list, unwrap, wrap_lines, wrap_record

# Real bhist -l records (EBI pipelite fixture, LSF 10), golden copied verbatim
# with one edit: the fixture's "Running with ..." record has no space at column
# 79 ("Execution CWD" / "</homes/rasko>"). The same fixture also lost the
# trailing pad of the bhist summary lines (reference 4.1/4.2), i.e. its author
# stripped trailing whitespace; the blind split keeps that space (brief + 1.4).
PIPELITE_RECORDS = [
    "Job <873209>, User <rasko>, Project <default>, Command <fdfs>, Esub <esub>",
    "Sun Jan 10 17:50:11: Submitted from host <noah-login-01>, to Queue <research-rh74>, CWD <$HOME>, "
    "Requested Resources <rusage[numcpus=1:duration=480]>;",
    "Sun Jan 10 17:50:12: Dispatched to <hx-noah-10-04>, Effective RES_REQ <select[type == local] "
    "order[r15s:pg] rusage[numcpus=1.00:duration=8h:decay=0] span[hosts=1] >;",
    "Sun Jan 10 17:47:39: Running with execution home </homes/rasko>, Execution CWD </homes/rasko>, "
    "Execution Pid <110245>;",
]


def test_pipelite_bhist_records():
    assert_golden("wrap_pipelite_bhist", "".join(wrap_record(r) for r in PIPELITE_RECORDS))


def test_year_indent_keeps_a_space_at_line_start():
    # aiida-scheduler-nsccsz fixture (LSB_DISPLAY_YEAR=Y): 26-column indent, and
    # " Processors" keeps its leading space on the continuation line.
    text = (
        "Sat May 23 18:18:44 2026: Submitted from host <gsnew2010>, CWD <$HOME/work/lixiang/d5/46/"
        "376f-f288-478b-a841-bcc798091958>, Output File <_scheduler-stdout.txt>, Error File "
        "<_scheduler-stderr.txt>, Notify when job ends, Not Re-runnable, 36 Processors Requested, "
        "Requested Resources < span[ptile=36] >;"
    )
    assert_golden("wrap_aiida_year", wrap_record(text, indent=26))


def test_short_record_is_one_line():
    assert wrap_record("Job <1>, User <u>") == "Job <1>, User <u>\n"
    assert wrap_record("x" * 79) == "x" * 79 + "\n"
    assert wrap_record("x" * 80) == "x" * 79 + "\n" + " " * 21 + "x\n"


def test_soft_space_dropped_only_at_line_start():
    text = "a" * 79 + host_list(["h1", "h2"])
    lines = wrap_lines(text)
    assert lines == ["a" * 79, " " * 21 + "<h1> <h2>"]
    text = "a" * 78 + host_list(["h1"])
    assert wrap_lines(text) == ["a" * 78 + " ", " " * 21 + "<h1>"]
    assert SOFT_SPACE not in "".join(wrap_lines("b" * 200 + host_list(["x"] * 40)))


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=st.characters(blacklist_characters="\n" + SOFT_SPACE), max_size=600),
    indent=st.integers(min_value=0, max_value=40),
    extra=st.integers(min_value=1, max_value=80),
)
def test_wrap_never_exceeds_width_and_rejoins(text, indent, extra):
    width = indent + extra
    lines = wrap_lines(text, indent, width)
    assert all(len(line) <= width for line in lines)
    assert all(line.startswith(" " * indent) for line in lines[1:])
    # every line but the last is full
    assert all(len(line) == width for line in lines[:-1])
    rejoined = lines[0] + "".join(line[indent:] for line in lines[1:])
    assert rejoined == text
    assert unwrap(wrap_record(text, indent, width), indent) == text


@settings(max_examples=200, deadline=None)
@given(
    head=st.text(alphabet="abc<>,", max_size=200),
    hosts=st.lists(st.text(alphabet="hn0-9", min_size=1, max_size=12), max_size=30),
)
def test_host_lists_never_exceed_width(head, hosts):
    lines = wrap_lines(head + host_list(hosts) + ";")
    assert all(len(line) <= 79 for line in lines)
    # a host-list separator never opens a continuation line (head has no spaces)
    assert not any(line.startswith(" " * 22 + "<") for line in lines[1:])
    joined = lines[0] + "".join(line[21:] for line in lines[1:])
    assert joined.replace(" ", "") == (head + "".join(f"<{h}>" for h in hosts) + ";").replace(" ", "")
