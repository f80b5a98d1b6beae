"""bqueues / bhosts / busers -o and -json (issue 21, part 2): the reference's
seen outputs (lsf-breadth 4.1, 4.2) made from views holding their values,
and every JSON view valid JSON with LSF's key spellings."""

import json

from render_helpers import assert_golden

from lsfemu.render import bhosts, bqueues, busers
from lsfemu.views import HostView, QueueView, UserView


def test_bqueues_o_datadog_row():
    fmt = bqueues.parse_format("QUEUE_NAME PRIO STATUS MAX JL_U JL_P JL_H NJOBS PEND RUN SUSP")
    assert_golden("bqueues_o_datadog", bqueues.custom([QueueView("admin", 50)], fmt))


def test_bqueues_json_belle():
    fmt = bqueues.parse_format("queue_name status")
    assert_golden("bqueues_json_belle", bqueues.json_out([QueueView("batch", 30), QueueView("test", 20)], fmt))


def test_bhosts_json_parallelcluster():
    fmt = bhosts.parse_format("HOST_NAME STATUS MAX NJOBS RUN SSUSP USUSP RSV")
    host = HostView("ip-10-30-9-105", status="closed_Full", max_slots=4, njobs=4, run=4)
    assert_golden("bhosts_json_parallelcluster", bhosts.json_out([host], fmt, {}))


def test_every_json_view_is_json_with_lsfs_keys():
    views = (
        (bqueues, [QueueView("normal", 30, njobs=3, pend=1, run=2, description='say "hi" / bye')], (),
         "QUEUES", "QUEUE_NAME"),
        (bhosts, [HostView("hostA", max_slots=4)], ({},), "HOSTS", "HOST_NAME"),
        (busers, [UserView("user1", max_jobs=8)], (), "USERS", "USER"),
    )
    for module, items, extra, count, first in views:
        fmt = module.parse_format("all")
        doc = json.loads(module.json_out(items, fmt, *extra))
        assert list(doc) == ["COMMAND", count, "RECORDS"] and doc[count] == 1
        record = doc["RECORDS"][0]
        assert list(record) == [f.name.upper() for f in fmt.fields] and list(record)[0] == first
        assert all(isinstance(v, str) for v in record.values())
    text = bqueues.json_out(views[0][1], bqueues.parse_format("description"))
    assert '"DESCRIPTION":"say \\"hi\\" \\/ bye"' in text  # LSF escapes "/" as "\/"
