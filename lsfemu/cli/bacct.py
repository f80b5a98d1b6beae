"""bacct: accounting statistics of finished jobs, read from lsb.acct (reference lsf-breadth section 2).

Files and selection: `ops.accounting` (its docstring). Output (`render.bacct`):
the header block naming the selection, then with ``-l`` each job's long
block (header record, submission, dispatch and completion records, its
accounting table), with ``-b`` each job's header record and accounting table
(``-l`` wins over ``-b``), ``-w`` and ``-UF`` leaving those records unwrapped; always the
SUMMARY statistics last. ``-N`` normalises CPU times to a CPU factor; ``-E``
counts only eligible pending time in waits and turnarounds.
Nothing selected: ``No matching job found`` on stdout, exit 255 (as bhist).
Damaged lines of the files are skipped with a ``file:line: why`` warning on
stderr; the rest is read.

``bacct -f FILE`` runs in the caller's process without a daemon or a cluster
(``lsfemu.client`` hands it to :func:`run_local`): nothing on that path
imports the store.
"""

from __future__ import annotations

import math
import os
import time
from typing import Optional

from lsfemu.cli.base import Ctx, Result, UsageExit, ctx, parse_job_refs, run_command
from lsfemu.errors import LsfError
from lsfemu.events.acct import AcctWarning
from lsfemu.ops import accounting
from lsfemu.render import bacct as R
from lsfemu.render import messages


def bacct(
    brief: bool = False,
    long: bool = False,
    done: bool = False,
    eligible: bool = False,
    exited: bool = False,
    unformatted: bool = False,
    wide: bool = False,
    exception: bool = False,
    app: Optional[str] = None,
    complete: Optional[str] = None,
    dispatched: Optional[str] = None,
    logfile: Optional[str] = None,
    host: Optional[str] = None,
    host_file: Optional[str] = None,
    license_project: Optional[str] = None,
    normalize: Optional[str] = None,
    project: Optional[str] = None,
    queue: Optional[str] = None,
    sla: Optional[str] = None,
    submitted: Optional[str] = None,
    user: Optional[str] = None,
    job_ids: Optional[list[str]] = None,
) -> None:
    c = ctx()
    refs, bad = parse_job_refs(job_ids or [])
    for b in bad:
        c.error(messages.object_error(b, messages.ILLEGAL_JOB_ID))
    if bad:
        return
    refs = [r for r in refs if r[0] != 0]  # IBM's page: the reserved job ID 0 is ignored
    if host is not None and host_file is not None:
        raise UsageExit()  # -m | -M
    queues, projects, apps, slas, lic = (_words(v) for v in (queue, project, app, sla, license_project))
    for value in (user, queue, project, host, app, sla, license_project):
        if value is not None and not value.split():
            raise UsageExit()  # an empty list
    cluster = c.cluster
    try:
        paths = accounting.files(logfile, c.cwd, cluster.logdir if cluster is not None else None)
        now = float(cluster.now()) if cluster is not None else time.time()
        factor = None
        if normalize is not None:
            factor = accounting.cpu_factor(normalize, cluster.config if cluster is not None else None)
        users = accounting.users(cluster, c.user, user, bool(refs))
        host_names = host.split() if host is not None else None
        if host_file is not None:
            host_names = accounting.host_file(host_file, c.cwd)
        sel = accounting.Selection(
            users=users,
            queues=_set(queues), projects=_set(projects), apps=_set(apps), slas=_set(slas), license_projects=_set(lic),
            hosts=accounting.hosts(host_names, cluster.config if cluster is not None else None)
            if host_names is not None else None,
            status="done" if done and not exited else "exit" if exited and not done else None,
            submitted=accounting.window(submitted, now),
            dispatched=accounting.window(dispatched, now),
            completed=accounting.window(complete, now),
            exception=exception,
            job_ids=tuple((jid, ranges) for jid, ranges, _ in refs) if refs else None,
        )
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    if cluster is not None and callable(getattr(cluster, "commit", None)):
        cluster.commit()  # the writer logs on commit: this request's catch-up is in the file

    def warn(w: AcctWarning) -> None:
        # the file as the caller named it (-f), not its absolute path
        name = logfile if logfile not in (None, "-") and len(paths) == 1 and w.path == str(paths[0]) else w.path
        c.err.append(f"{name}:{w.lineno}: {w.message}\n")

    try:
        records = [r for r in accounting.read(paths, warn) if sel.wants(r)]
    except OSError as e:
        c.error(f"{e.filename or logfile}: {e.strerror or e}")
        return
    if not records:
        c.out.append(R.NOT_FOUND)
        c.rc = 255
        return
    shown = R.Selection(
        users=None if sel.users is None else (tuple(user.split()) if user is not None else (c.user,)),
        queues=queues, projects=projects, slas=slas,
        hosts=None if host_names is None else tuple(host_names),
        status=sel.status,
        submitted=sel.submitted, dispatched=sel.dispatched, completed=sel.completed,
    )
    period = sel.completed if sel.completed is not None and all(map(math.isfinite, sel.completed)) else None
    form = "long" if long else "brief" if brief else "summary"
    c.out.append(R.render(records, shown, form=form, year=c.yes("LSB_DISPLAY_YEAR"), wide=wide or unformatted,
                          calc=R.Calc(factor=factor, eligible=eligible), window=period))


def _words(value: str | None) -> tuple[str, ...] | None:
    """A space-separated list option (``-q "q1 q2"``) as typed; None when not given."""
    return None if value is None else tuple(value.split())


def _set(words: tuple[str, ...] | None) -> frozenset[str] | None:
    return None if words is None else frozenset(words)


def run(c: Ctx) -> Result:
    return run_command(c, bacct)


def run_local(argv: list[str], user: str, cwd: str, env: dict[str, str]) -> Result:
    """``bacct -f FILE`` in the caller's process: no daemon, no cluster."""
    return run(Ctx(cluster=None, cmd="bacct", argv=argv, user=user, uid=os.getuid(), cwd=cwd, env=env))
