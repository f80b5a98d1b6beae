"""lsfemu.render: LSF's text formats, pure functions from plain views to text.

Modules: ``timefmt`` (time stamps and durations), ``wrap`` (the 79-column
record wrapper), ``bjobs`` (tables, -l/-UF, -aps, -o/-json), ``bqueues``,
``bparams``, ``bhosts``, ``busers``, ``lsid`` and ``messages`` (lsberrno
strings, not-found and success lines, usage texts). Nothing here does I/O or
reads the clock; times are rendered with ``time.localtime``.
"""
