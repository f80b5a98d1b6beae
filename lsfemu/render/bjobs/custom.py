"""``bjobs -o`` (custom fields, widths, units, ``delimiter=``, ``-hms``) and
``bjobs -o ... -json`` (reference 3.10): the format parser, the table and
the JSON document; the fields and their values are
:mod:`lsfemu.render.bjobs.fields`.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterable, Sequence

from lsfemu.render import outfmt
from lsfemu.render.bjobs import fields
from lsfemu.render.bjobs.common import name_trunc
from lsfemu.render.bjobs.fields import FIELDS
from lsfemu.render.outfmt import FieldDef, FieldSpec, Format, FormatError, json_string  # noqa: F401 (bjobs' names)
from lsfemu.views import JobView


def parse_format(spec: str, jobid_width: int = 7) -> Format:
    """Parse ``"field[:[-][width][:unit]] ... [delimiter='c']"`` against bjobs'
    fields (:func:`lsfemu.render.outfmt.parse_format`). *jobid_width*:
    LSB_JOBID_DISP_LENGTH, the recommended width of ``jobid:`` (and ``all:``)
    as it is the JOBID column's in the tables; an explicit width wins."""
    table = FIELDS
    if jobid_width != FIELDS["jobid"].width:
        table = {**FIELDS, "jobid": dataclasses.replace(FIELDS["jobid"], width=jobid_width)}
    return outfmt.parse_format(spec, table, all_field=True)


def custom(
    jobs: Iterable[JobView],
    fmt: Format,
    *,
    now: float,
    header: bool = True,
    hms: bool = False,
    year: bool = False,
    unit: str | None = None,
) -> str:
    """``bjobs -o``: header (field names, upper case) and one row per job;
    missing values print ``-`` (*unit*: LSB_UNIT_FOR_JOBS_DISPLAY, :class:`fields.Shown`)."""
    shown = fields.Shown(now, hms, year, unit)
    rows = [[fields.value(job, f, shown) for f in fmt.fields] for job in jobs]
    return outfmt.text_table(fmt, rows, header=header, cuts={"job_name": name_trunc})


def json_out(
    jobs: Iterable[JobView],
    fmt: Format,
    *,
    now: float,
    not_found: Sequence[str] = (),
    hms: bool = False,
    year: bool = False,
    not_found_message: Callable[[str], str] | None = None,
    unit: str | None = None,
) -> str:
    """``bjobs -o ... -json``: 2-space indentation, no space after ``:``, every
    value a string (missing ones ``""``), ``JOBS`` a number. Job IDs in
    *not_found* become ``{"JOBID":"123","ERROR":"Job <123> is not found"}``
    records after the found jobs."""
    shown = fields.Shown(now, hms, year, unit)
    records = [outfmt.json_record([(f.header, fields.value(job, f, shown)) for f in fmt.fields]) for job in jobs]
    for jid in not_found:
        message = not_found_message(jid) if not_found_message else f"Job <{jid}> is not found"
        records.append(outfmt.json_record([("JOBID", str(jid)), ("ERROR", message)]))
    return outfmt.json_document("bjobs", "JOBS", records)
