"""lsfemu.events: LSF's event log (``lsb.events``) and job histories.

* ``format``  - the record types (JOB_NEW, JOB_STATUS, ...), ``encode`` /
  ``decode`` of one line, LSF's quoting, the JOB_STAT_* / SUB_* constants;
* ``log``     - ``EventWriter`` (append, flush, optional fsync), ``rotate``
  (LSF's lsb.events -> lsb.events.1 -> ... switch), ``read_events``
  (streaming, warnings instead of errors), ``event_files``;
* ``history`` - ``JobHistory`` / ``HistoryBuilder``: records -> per-job
  changes and the PEND/PSUSP/RUN/USUSP/SSUSP/UNKWN time accounting that
  ``lsfemu.render.bhist`` prints.

Everything here is standard library only and does no clock reads.
"""
