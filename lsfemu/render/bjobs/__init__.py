"""bjobs output formats (reference section 3): data in, text out.

Its modules:

* :mod:`~lsfemu.render.bjobs.table`  - :func:`table`, the default and ``-w``
  tables (3.1, 3.2), ``-noheader``; :func:`pend_table` (``-p``),
  :func:`array_table` (``-A``), :func:`aps_table` (``bjobs -aps``, 3.9),
  :func:`prio_table` (``-prio``);
  :func:`table` takes ``-WL`` ``-WF`` ``-WP``'s columns;
* :mod:`~lsfemu.render.bjobs.long`   - :func:`long`, ``bjobs -l`` and ``-UF``
  (3.7, 3.8);
* :mod:`~lsfemu.render.bjobs.custom` - :func:`parse_format` / :func:`custom` /
  :func:`json_out`: ``-o``, ``-hms``, ``delimiter=``, ``-json`` (3.10);
* :mod:`~lsfemu.render.bjobs.summary` - :func:`sum_table` (``-sum``),
  :func:`psum_text` (``-psum``), :func:`w_table` (``-W``);
* :mod:`~lsfemu.render.bjobs.categorized` - ``-p2``/``-p3``: the pending
  reasons by candidate and non-candidate host;
* :mod:`~lsfemu.render.bjobs.fields` - the ``-o`` field table (LSF 10.1's, with
  FP14's ``all``) and each field's value;
* :mod:`~lsfemu.render.bjobs.common` - what they share (the -l blocks'
  constants, job names, host lists, memory texts).

Emulated release: **IBM Spectrum LSF 10.1 Fix Pack 13 (10.1.0.13)**, the
version ``lsid`` prints. Where fix packs differ these modules use that FP's
wording throughout:

* submit record ``, 4 Task(s)`` (not ``, 4 Processors Requested``);
* start record ``Started 4 Task(s) on Host(s) <h> <h> <h> <h>, Allocated 4
  Slot(s) on Host(s) <h> <h> <h> <h>, Execution Home </h>, Execution CWD </c>;``
  (not ``Started on <h>``), per-slot host list unless ``short_hostlist``
  (``LSB_SHORT_HOSTLIST=1``) asks for ``<4*h>``;
* finish record followed by ``HOST: h; CPU_TIME: N seconds`` lines;
* ``MEMORY USAGE`` block without the FP14 ``MEM Efficiency`` and no FP14
  ``CPU USAGE`` block; but ``-o`` knows FP14's ``all`` and field names.

Job lists are printed in the order given; an empty list renders as ``""``
(LSF prints no header when nothing matched -- the caller prints the
"No ... job found" message). Nothing here reads the clock: ``now`` is passed in.

The names below are the package's API (``from lsfemu.render import bjobs as
R; R.table(...)``).
"""

from lsfemu.render.bjobs.common import LOAD_TABLE, RUNLIMIT_TITLE, home_relative, mem_text
from lsfemu.render.bjobs.custom import (
    FIELDS, FieldSpec, Format, FormatError, custom, json_out, json_string, parse_format,
)
from lsfemu.render.bjobs.fields import pendstate
from lsfemu.render.bjobs.long import long
from lsfemu.render.bjobs.summary import psum_text, sum_table, w_table
from lsfemu.render.bjobs.table import (
    ARRAY_HEADER, ESTIMATE_FIELDS, aps_cell_text, aps_line, aps_lines_text, aps_row, aps_table, aps_value_lines,
    aps_value_text, array_table, pend_table, prio_table, table, table_job_text, table_lines_text,
)

__all__ = [
    "ARRAY_HEADER", "ESTIMATE_FIELDS", "FIELDS", "LOAD_TABLE", "RUNLIMIT_TITLE", "FieldSpec", "Format", "FormatError",
    "aps_cell_text", "aps_line", "aps_lines_text", "aps_row", "aps_table", "aps_value_lines", "aps_value_text",
    "array_table", "custom", "home_relative", "json_out", "json_string", "long", "mem_text", "parse_format", "pend_table",
    "pendstate", "prio_table", "psum_text", "sum_table", "table", "table_job_text",
    "table_lines_text", "w_table",
]
