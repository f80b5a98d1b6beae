"""lsfemu.engine: mbatchd's state without sockets or argv.

* ``cluster``   - ``Cluster``: configuration, the store's session, the clock,
  the jobs and their transitions, the loop of passes and job ends;
* ``passrows``  - what the scheduling pass reads of each job, kept between
  passes;
* ``apsrank``   - the pass's APS ranks, in bulk;
* ``listing``   - ``bjobs -aps``: the listed pending jobs ranked at once, the
  table kept between listings;
* ``fairshare`` - fairshare as the daemon applies it: share trees per queue
  or host partition, live usage, the pass's Order objects, charging;
* ``eventlog``  - lsb.events in step with the store.

The daemon (transport, processes) and the commands import the engine; the
engine imports store, sched, events, config and below.
"""
