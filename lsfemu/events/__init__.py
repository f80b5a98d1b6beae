"""lsfemu.events: LSF's event log (``lsb.events``) and job histories.

* ``lsbatch``    - LSF's numbers in the records (lsbatch.h): the JOB_STAT_*
  words and their names, the SUB_* option bits, RLIMIT_* slots, TERM_*
  reasons, the wait status;
* ``records``    - the record types (JOB_NEW, JOB_STATUS, ...): one dataclass
  each with its schema (LSF's field order, kinds, option-bit gates); the
  index of them all (import them and the registry from it); ``schema`` -
  their machinery (field spec, base record, registry, defaults);
  ``submitrecords`` - JOB_NEW and JOB_MODIFY2;
* ``others``     - the types of a real LSF 10 log that lsfemu reads but never
  writes (LOAD_INDEX, ... taken as they are; JOB_FORWARD, JOB_ACCEPT,
  JOB_ACCEPTACK field by field);
* ``codec``      - the exact text of a record: LSF's quoting, ``tokenize``,
  ``encode``, the reference decoder that says what is wrong with a line;
* ``fastdecode`` - ``decode`` (read a line: use this one), ``skim`` /
  ``reader`` / ``reading_table`` for readers of part of the records: decoders
  generated from the schemas, each giving what the reference gives;
* ``log``        - ``EventWriter`` (append, flush, optional fsync), ``rotate``
  (LSF's lsb.events -> lsb.events.1 -> ... switch), ``read_events``
  (streaming, warnings instead of errors), ``event_files``;
* ``history``    - ``JobHistory`` / ``HistoryBuilder``: records -> per-job
  changes and the PEND/PSUSP/RUN/USUSP/SSUSP/UNKWN time accounting that
  ``lsfemu.render.bhist`` prints; ``modifyitems`` - bhist's texts of a
  JOB_MODIFY2;
* ``emit``       - the daemon's job events -> the records mbatchd writes;
  ``bmodrecord`` - ``job_modify`` builds a bmod's JOB_MODIFY2;
  ``synth`` - synthetic logs for the benchmark;
* ``acct``       - the accounting file ``lsb.acct``: ``AcctRecord`` (JOB_FINISH,
  LSF 10.1's fields), ``format_record`` / ``parse_record`` (LSF 7 to 10.1
  layouts) and ``read_acct`` (damaged lines become ``file:line`` warnings);
  ``acctemit`` - a finished job -> its JOB_FINISH record (what the daemon
  appends to lsb.acct).

Imports go one way, without circles: lsbatch <- schema <- submitrecords <-
records <- others <- codec <- fastdecode <- log <- synth (each imports only
modules to its left); history and emit import records (history others and
modifyitems too, emit bmodrecord) and lsbatch; acct
imports codec; acctemit imports acct and emit.

Everything here is standard library only and does no clock reads.
"""
