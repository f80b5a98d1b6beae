"""lsfemu.engine: mbatchd's state without sockets or argv.

* ``cluster``   - ``Cluster``: configuration, the store's session, the clock,
  the event log, the jobs in memory, commit and reconfiguration; the one
  object callers hold, naming its components' methods;
* ``jobs``      - ``Transitions``: submit, start, finish, kill, stop/resume,
  switch, bmod, btop/bbot, requeue, rerun, migrate, host failure;
  ``SubmitSpec``;
* ``loop``      - ``Loop``: when the next job end and pass are due
  (``run_until``, ``next_pass``, ``next_finish``);
* ``passes``    - ``Passes``: the scheduling pass (its input, quiet passes,
  the units' orders, the pending reasons written back) and its row cache;
* ``passrows``  - what the pass reads of each job, kept between passes;
* ``depends``   - ``Dependencies``: bsub -w conditions, evaluated;
* ``apsrank``   - the pass's APS ranks: inputs for lsfemu.sched.aps_rank, heap entries;
* ``listing``   - ``bjobs -aps``: the listed pending jobs ranked at once, the
  table kept between listings;
* ``fairshare`` - ``Accounts``: fairshare as the daemon applies it (share
  trees per queue or host partition, live usage, the pass's Order objects,
  charging);
* ``views``     - a job as the commands see it (``JobView``);
* ``eventlog``  - lsb.events in step with the store;
* ``acctlog``   - lsb.acct (a JOB_FINISH per finished job) in step with the store, its archives;
* ``runner``    - real jobs in wall clock mode (sbatchd's part: launch,
  signals, run limits, usage), each run by ``jobwrap`` (standard library
  only, started as a script).

The daemon (transport, processes) and the commands import the engine; the
engine imports store, sched, events, config and below.
"""
