"""lsfemu.ops.select.jobs_of: the rows one job ID names (bjobs -l ID, bmod,
bpeek, brun...), looked up by key rather than found among every job (issue
23: `bjobs -l ID` at 10k jobs scanned them all), with the same answer as the
scan it replaces: a plain job only without an index list that leaves out
index 0, an array's elements in the index lists, each once, by index."""

from __future__ import annotations

from types import SimpleNamespace

from lsfemu.ops.select import jobs_of
from lsfemu.sched.arrayspec import in_ranges, parse_index_list


class Unscanned(dict):
    """A job dict that fails if looked over whole (items, values, iteration)."""

    def items(self):
        raise AssertionError("scanned every job")

    values = keys = __iter__ = items


def jobs(*keys) -> Unscanned:
    return Unscanned({k: SimpleNamespace(id=k[0], array_index=k[1]) for k in keys})


def scan(table: dict, jid: int, ranges) -> list:
    """The answer by a look at every job (what jobs_of did before)."""
    found = [j for (k, i), j in dict.items(table) if k == jid and (ranges is None or in_ranges(i, ranges))]
    return sorted(found, key=lambda j: j.array_index)


def test_a_plain_job_by_its_key():
    table = jobs(*((n, 0) for n in range(1, 1000)), (1000, 1), (1000, 2))
    assert [j.id for j in jobs_of(table, 500, None)] == [500]
    assert jobs_of(table, 500, parse_index_list("1-3")) == []  # index lists name no plain job (as the scan)
    assert jobs_of(table, 5000, parse_index_list("1")) == []  # no such job, an index list: looked up too


def test_array_elements_named_by_index_lists_each_once_by_index():
    table = jobs((7, 0), *((9, i) for i in range(1, 21)))
    for text in ("3", "1-20:5", "12,2-4,3", "18-30"):  # in any order, overlapping, past the array's end
        ranges = parse_index_list(text)
        got = jobs_of(table, 9, ranges)
        assert got == scan(table, 9, ranges) and [j.array_index for j in got] == sorted({j.array_index for j in got})
    assert [j.array_index for j in jobs_of(table, 9, parse_index_list("12,2-4,3"))] == [2, 3, 4, 12]


def test_a_whole_array_or_a_range_wider_than_the_jobs_is_a_scan():
    table = {(9, i): SimpleNamespace(id=9, array_index=i) for i in (3, 1, 2)} | {(4, 0): SimpleNamespace(id=4, array_index=0)}
    assert [j.array_index for j in jobs_of(table, 9, None)] == [1, 2, 3]
    wide = parse_index_list("1-1000000")  # more indices than jobs: one look over them, not a million lookups
    assert jobs_of(table, 9, wide) == scan(table, 9, wide)
    assert jobs_of(table, 8, None) == []
