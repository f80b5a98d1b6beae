"""The listings' fast paths (issue 23) give what the plain ones give:
views.quick_job_view is JobView(...), ops.query.order_key reads an expired
job object as a loaded one."""

from __future__ import annotations

import dataclasses

import pytest

from lsfemu.ops.query import order_key
from lsfemu.views import JobView, quick_job_view

FIELDS = dict(job_id=7, user="alice", status="PEND", queue="normal", from_host="hostA", command="sleep 1",
              submit_time=1767603600.0, name=None, array_index=0, exec_hosts=[], aps_system=None, aps_admin=None,
              pend_reasons=["New job is waiting for scheduling"], susp_reasons=[])


def test_quick_job_view_is_the_dataclass_s():
    a, b = quick_job_view(**FIELDS), JobView(**FIELDS)
    assert type(a) is JobView and a == b and dataclasses.asdict(a) == dataclasses.asdict(b)
    c = quick_job_view(**FIELDS)
    c.pids.append(1)  # a field's default list is its own, as with default_factory
    assert a.pids == [] and c.pids == [1]


def test_quick_job_view_refuses_what_the_dataclass_refuses():
    with pytest.raises(TypeError):
        quick_job_view(**FIELDS, no_such_field=1)
    with pytest.raises(TypeError):
        quick_job_view(**{k: v for k, v in FIELDS.items() if k != "user"})


class Expired:
    """A job object whose columns are not loaded: read through attributes (the ORM's)."""

    def __init__(self, **values):
        self._values = values

    def __getattr__(self, name):
        return self._values[name]


class Loaded:
    def __init__(self, **values):
        self.__dict__.update(values)


@pytest.mark.parametrize("status", ["PEND", "RUN", "DONE"])
def test_order_key_reads_loaded_and_expired_jobs_alike(status):
    cols = dict(queue="normal", priority=None, position=3.0, status=status, start_time=10.0, migrated=False,
                finish_time=20.0)
    ranks = {"normal": (-30, 0)}
    assert order_key(ranks, Expired(**cols)) == order_key(ranks, Loaded(**cols))
