"""bjobs: the command function (its options: lsfemu.options); the jobs selected by `ops.query` (as LSF does)
go to the renderers, with the -aps values and the kept -aps text.

Selection: by default the caller's unfinished jobs; -a adds jobs finished
within CLEAN_PERIOD; -d/-p/-r/-s pick states; -u/-q/-J/-g/-app/-P/-G/-m/-Jd/-rusage
filter; -x keeps the jobs with a job exception; -N adds finished jobs and
normalizes their CPU time in the long form; -pe/-pi/-pei keep the pending jobs
eligible / ineligible for scheduling; job IDs select jobs of any user and
state. Output order: started jobs, then pending jobs in dispatch order, then
finished jobs in completion order (mbatchd's lists). The forms: the tables,
-l/-UF, -o/-json, -A, -aps, -prio, -sum, -psum, -W, -WL/-WF/-WP (the table
with estimate columns), -p0..-p3 and -pei's two tables, -env/-script; the
display settings (LSB_BJOBS_FORMAT, LSB_HMS_TIME_FORMAT, LSB_DISPLAY_YEAR,
...) come from `Ctx.setting`: the option, the caller's environment, lsf.conf
as it is now.
"""

from __future__ import annotations

import dataclasses
import json
import os
from operator import attrgetter, itemgetter
from typing import Optional


from lsfemu.cli.base import Ctx, Result, UsageExit, bad_id_message, ctx, parse_job_refs, run_collector_paused
from lsfemu.errors import LsfError
from lsfemu.jobstate import FINISHED
from lsfemu.ops import permissions
from lsfemu.ops.history import normal_factor
from lsfemu.ops import query as ops
from lsfemu.ops import select
from lsfemu.ops.select import hosts_named, jobs_of
from lsfemu.render import bjobs as R
from lsfemu.render.bjobs import array_table, categorized
from lsfemu.render.bjobs.fields import key_reason
from lsfemu.render import messages
from lsfemu.views import JobView, quick_job_view


#: the job columns the tables (default, -p, -s, -aps, -w) print
_TABLE_KEYS = ("id", "array_index", "user", "status", "queue", "from_host", "command", "name",
               "submit_time", "exec_hosts", "aps_system", "aps_admin", "pend_reasons", "susp_reason")
_TABLE_COLUMNS = frozenset(_TABLE_KEYS)
_table_loaded = itemgetter(*_TABLE_KEYS)  # an ORM object's loaded values
_table_attrs = attrgetter(*_TABLE_KEYS)  # a job held as a record (lsfemu.store.records): its slots


def table_view(job) -> JobView:
    """The view of a job with the fields the tables print, and only those.
    A listing may show every job of the cluster; the full view
    (Cluster.view: CPU time, limits, usage, priority...) costs several times
    more per job and the tables would not print it."""
    d = job.__dict__  # the loaded column values: no ORM attribute machinery per field
    (jid, idx, user, status, queue, from_host, command, name, submit_time, exec_hosts, aps_system, aps_admin,
     pend_reasons, susp) = _table_loaded(d) if _TABLE_COLUMNS <= d.keys() else _table_attrs(job)
    return quick_job_view(job_id=jid, user=user, status=status, queue=queue, from_host=from_host,
                   command=command, submit_time=submit_time, name=name,
                   array_index=idx, exec_hosts=exec_hosts.split(),
                   aps_system=aps_system, aps_admin=aps_admin,
                   pend_reasons=[r for r in pend_reasons.split("\n") if r],
                   susp_reasons=[susp] if susp else [])


def bjobs(
    all_: bool = False,
    done: bool = False,
    pend: bool = False,
    run: bool = False,
    susp: bool = False,
    long: bool = False,
    uf: bool = False,
    wide: bool = False,
    aps: bool = False,
    prio: bool = False,
    arrays: bool = False,
    noheader: bool = False,
    json_: bool = False,
    hms: bool = False,
    user: Optional[str] = None,
    queue: Optional[str] = None,
    name: Optional[str] = None,
    fmt: Optional[str] = None,
    job_group: Optional[str] = None,
    app: Optional[str] = None,
    p0: bool = False,
    p1: bool = False,
    p2: bool = False,
    p3: bool = False,
    eligible: bool = False,
    ineligible: bool = False,
    eligible_split: bool = False,
    psum: bool = False,
    sum_: bool = False,
    wfull: bool = False,
    est_left: bool = False,
    est_finish: bool = False,
    est_complete: bool = False,
    noncondensed: bool = False,
    script: bool = False,
    env: bool = False,
    project: Optional[str] = None,
    user_group: Optional[str] = None,
    host: Optional[str] = None,
    description: Optional[str] = None,
    rusage: Optional[str] = None,
    normalize: Optional[str] = None,
    exception: bool = False,
    host_file: bool = False,
    job_ids: Optional[list[str]] = None,
) -> None:
    c = ctx()
    cl = c.cluster
    cfg = cl.config
    now = cl.now()
    if env or script:  # a single job, no other option (IBM's bjobs -env / -script pages)
        if env and script or len(job_ids or []) != 1 or len(c.argv) != 2:
            raise UsageExit()
        _job_insides(c, job_ids[0], script=script)
        return
    if user_group is not None and user is not None:  # -G cannot be used with -u (IBM's doc)
        raise UsageExit()
    if host_file and not (long or uf):  # -hostfile: "Use only with the -l or -UF option" (IBM's doc)
        raise UsageExit()
    if rusage is not None and not rusage.replace(",", "").strip():
        raise UsageExit()
    if user_group is not None and user_group not in cfg.user_groups:  # a group's name only, `all` neither
        c.error(messages.object_error(user_group, messages.BAD_USER_GROUP))
        return
    # -X: lsfemu never condenses host groups (lsb.hosts CONDENSE is read, not built): every listing
    # is the noncondensed one already (docs/semantics.md)
    del noncondensed
    # -pe / -pi / -pei: the pending jobs eligible / ineligible for scheduling now (-o pendstate's EPEND /
    # IPEND), -pei (or -pe -pi) both, the eligible ones first
    split = eligible_split or eligible and ineligible
    pendstates = {"EPEND", "IPEND"} if split else {"EPEND"} if eligible else {"IPEND"} if ineligible else None
    pend = pend or p0 or p1 or p2 or p3 or psum or pendstates is not None
    factor = None
    if normalize is not None:
        # -N (OpenLava's bjobs.c): the long form with the CPU time normalized, done and exited jobs
        # added to the states asked for (to the unfinished ones when none is)
        factor = normal_factor(cfg, normalize)
        if factor is None:
            c.error(f"<{normalize}> {messages.BJOBS_NOT_A_FACTOR}")
            return
        long = long or not uf
        if pend or run or susp:
            done = True
        else:
            all_ = True
    level = _pend_level(c, p0, p1, p2, p3) if pend else 0
    aps = aps or prio  # -prio: the -aps listing with each factor's share
    # -WL -WF -WP: the table with their estimate columns, in that order
    estimates = [f for flag, f in R.ESTIMATE_FIELDS.items()
                 if {"-WL": est_left, "-WF": est_finish, "-WP": est_complete}[flag]]
    counting = sum_ or psum or wfull  # the views -o does not apply to
    hosts = None
    if host is not None:
        hosts = hosts_named(cfg, host) if host != cfg.cluster_name else set(cfg.host_names)
        if hosts is None:
            c.error(messages.object_error(host, messages.BAD_HOST))
            return
    if json_ and noheader:
        raise UsageExit("bjobs: -json cannot be used with -noheader")
    if queue is not None and cfg.queue(queue) is None:
        c.error(messages.object_error(queue, messages.NO_SUCH_QUEUE))
        return
    # -o, else LSB_BJOBS_FORMAT (the caller's environment, else lsf.conf as it is now); -json with
    # neither has no effect (LSF's doc: the plain table)
    if counting:
        fmt = None
    fmt_spec = fmt or (c.setting("LSB_BJOBS_FORMAT") if not (long or uf or wide or aps or counting or estimates)
                       else None)
    json_ = json_ and fmt_spec is not None
    parsed_fmt = None
    if fmt_spec:
        try:
            parsed_fmt = R.parse_format(fmt_spec, _jobid_width(c))
        except R.FormatError as e:
            c.error(str(e))
            return

    # a table: table_view has all it prints
    # (-pe/-pi/-pei: not the kept -aps lines, which would not be filtered)
    lean = parsed_fmt is None and not (long or uf or json_ or wfull or sum_ or exception or estimates or prio
                                       or pendstates is not None)
    # the default / -w table: each job's lines kept by the cluster (_plain_text)
    plain = lean and not (aps or pend or susp or wfull or counting)
    year = c.yes("LSB_DISPLAY_YEAR")
    enh = parsed_fmt is None and not (long or uf) and _display_enh(c)
    kept = None  # what the -aps table made here is kept for

    ids, bad = parse_job_refs(job_ids or [])
    for b in bad:
        c.error(messages.object_error(b, bad_id_message(b)))
    if bad:
        return
    group = None
    if job_group is not None:
        try:
            group = ops.job_group_filter(cl, job_group)
        except LsfError as e:
            c.error(messages.error_text(e))
            return
    if app is not None and app not in cfg.applications:
        c.error(messages.object_error(app, messages.NO_SUCH_APP))
        return
    query = ops.JobQuery(tuple(ids), None, queue, name, all_, done, pend, run, susp, arrays, group, app, project,
                         user_group, frozenset(hosts) if hosts is not None else None, description,
                         frozenset(n.strip() for n in rusage.split(",") if n.strip()) if rusage is not None else None)
    if not ops.by_id(query):
        if user is None and (ids or user_group is not None or wfull and permissions.is_cluster_admin(cfg, c.caller)):
            user = "all"  # -G: the group's jobs, whoever submitted them; -W run by an administrator: all users
        users = select.users(c.cluster.config, c.user, user)
        query = dataclasses.replace(query, users=users)
        if aps and lean and not arrays and group is None and app is None and not query.more:
            # The last -aps table, if nothing it depends on changed since (lsfemu.engine.listing)
            kept = (frozenset(users) if users is not None else None, queue, name, all_, done, pend, run, susp,
                    wide, noheader, year, enh, os.environ.get("TZ"))
            text = cl.aps_listing.kept_text(kept, now)
            if text is not None:
                c.out.append(text)
                return
    found = ops.select(cl, query)
    for typed in found.not_arrays:
        c.error(messages.not_an_array(typed))
    jobs, missing = found.jobs, found.missing
    if arrays:
        _array_summary(c, jobs, missing, wide=wide, header=not noheader,
                       nothing=_nothing_found(name, all_, done, pend, run, susp, aps, queue))
        return
    listing = None
    if aps:
        # Pending jobs in the order they are considered for dispatch, with their APS values.
        listing = cl.aps_listing.order(cl.aps_listing.pending(jobs), now)
        jobs = [j for j, _system, _value in listing]
        views = []
        if not lean:  # (a table is made of kept lines: _aps_text)
            for j, system, value in listing:
                v = cl.view(j, now)
                v.aps_system, v.aps_value = system, value
                views.append(v)
    else:
        ranks = ops.queue_ranks(cfg)
        if plain:  # (the kept order keys and lines: _plain_text)
            views = []
        else:
            jobs.sort(key=lambda j: ops.order_key(ranks, j))
            views = [table_view(j) for j in jobs] if lean else [cl.view(j, now) for j in jobs]
    if not lean:  # the job exceptions of its queue (lsb.queues JOB_OVERRUN...): -x, -l, -o exception_status
        for v in views:
            v.exceptions = ops.exceptions(cfg, v)
    if exception:  # -x: the jobs that raised one
        keep = [bool(v.exceptions) for v in views]
        views = [v for v, k in zip(views, keep) if k]
        jobs = [j for j, k in zip(jobs, keep) if k]
    if pendstates is not None:
        states = [R.pendstate(v) for v in views]
        order = sorted((i for i, st in enumerate(states) if st in pendstates), key=lambda i: states[i])  # (stable)
        views, jobs = [views[i] for i in order], [jobs[i] for i in order]
    if exception or pendstates is not None:  # an ID those filters dropped: not found, as with -r
        missing = ops.unmatched(cl, query, jobs, missing)
    if factor is not None:
        views = ops.normalized_cpu(cfg, views, factor)
    hms = hms or c.yes("LSB_HMS_TIME_FORMAT")
    if sum_:
        c.out.append(R.sum_table(v for v in views if v.status not in FINISHED))
        return
    if psum:
        # -p1 -psum: the single key reasons; -p2 -psum: the candidate hosts' reasons only, a job
        # with none not counted (IBM's -psum page)
        if level == 1:
            views = [dataclasses.replace(v, pend_reasons=[r] if (r := key_reason(v)) else []) for v in views]
        elif level == 2:
            views = [dataclasses.replace(v, pend_reasons=categorized.candidates_only(v)) for v in views]
            views = [v for v in views if v.pend_reasons]
        c.out.append(R.psum_text(views, cluster=cfg.cluster_name, now=now))
        return

    if json_:
        c.out.append(R.json_out(views, parsed_fmt, now=now, not_found=missing, hms=hms, year=year, unit=_unit(c)))
        return
    for m in missing:
        c.error(messages.not_found(m, queue=queue))
    if not jobs:
        if not missing:
            c.error(_nothing_found(name, all_, done, pend, run, susp, aps, queue))
        return
    width = _jobid_width(c)
    if enh:
        for v in views:
            _enh_id(v)
    if aps and lean:
        text = _aps_text(c, listing, enh=enh, wide=wide, width=width, year=year, header=not noheader)
        if kept is not None and not missing:
            cl.aps_listing.keep_text(kept, now, text)
        c.out.append(text)
    elif parsed_fmt is not None:
        c.out.append(R.custom(views, parsed_fmt, now=now, header=not noheader, hms=hms, year=year, unit=_unit(c)))
    elif long or uf:
        c.out.append(R.long(views, now=now, max_user_priority_set=cfg.params.max_user_priority is not None,
                            year=year, uf=uf, short_hostlist=c.setting("LSB_SHORT_HOSTLIST") == "1",
                            res_req_display=(c.setting("BJOBS_RES_REQ_DISPLAY") or "brief").strip().lower(),
                            host_file=host_file))
    elif prio:
        live = cl.fairshare(now)
        shares = [_aps_shares(cl.aps_result(j, now, live)) for j in jobs]
        c.out.append(R.prio_table(zip(views, shares), wide=wide, jobid_width=width, year=year, header=not noheader))
    elif aps:
        c.out.append(R.aps_table(views, wide=wide, jobid_width=width, year=year, header=not noheader))
    elif wfull:
        c.out.append(R.w_table(views, header=not noheader))
    elif estimates:
        c.out.append(R.table(views, wide=wide, jobid_width=width, year=year, header=not noheader,
                             reasons=susp or pend, estimates=estimates, now=now, hms=hms))
    elif pend and split:  # -pei: the eligible jobs' table, then the ineligible ones' (either left out when empty)
        parts = [[v for v in views if R.pendstate(v) == st] for st in ("EPEND", "IPEND")]
        c.out.append("\n".join(R.pend_table(p, wide=wide, jobid_width=width, year=year, header=not noheader,
                                             level=level) for p in parts if p))
    elif pend:
        c.out.append(R.pend_table(views, wide=wide, jobid_width=width, year=year, header=not noheader, level=level))
    elif plain:
        c.out.append(_plain_text(c, jobs, enh=enh, wide=wide, width=width, year=year, header=not noheader))
    else:
        c.out.append(R.table(views, wide=wide, jobid_width=width, year=year, header=not noheader, reasons=susp))


#: LSB_UNIT_FOR_JOBS_DISPLAY's values -> the unit letter (S: the automatic unit without "bytes")
_DISPLAY_UNITS = {"K": "K", "KB": "K", "M": "M", "MB": "M", "G": "G", "GB": "G", "T": "T", "TB": "T",
                  "P": "P", "PB": "P", "E": "E", "EB": "E", "S": "S"}


def _unit(c: Ctx) -> str | None:
    """LSB_UNIT_FOR_JOBS_DISPLAY (the caller's environment, else lsf.conf): the unit of -o's
    memory fields that name none; an unknown value (ZB too: no such unit here) counts as unset."""
    return _DISPLAY_UNITS.get((c.setting("LSB_UNIT_FOR_JOBS_DISPLAY") or "").strip().upper())


def _pend_level(c: Ctx, p0: bool, p1: bool, p2: bool, p3: bool) -> int:
    """-p's reason level: -p0 .. -p3 (the highest given), else LSB_BJOBS_PENDREASON_LEVEL (the
    caller's environment, else lsf.conf; a value that is no level counts as 0)."""
    for level, given in ((3, p3), (2, p2), (1, p1), (0, p0)):
        if given:
            return level
    value = (c.setting("LSB_BJOBS_PENDREASON_LEVEL") or "0").strip()
    return int(value) if value in ("1", "2", "3") else 0


def _job_insides(c: Ctx, typed: str, *, script: bool) -> None:
    """bjobs -script: the job's script as submitted (a job given as a command: the command);
    bjobs -env: its submission environment, NAME=value lines in name order. The job's owner
    and the cluster administrators only: an environment can hold secrets."""
    ids, bad = parse_job_refs([typed])
    if bad:
        c.error(messages.object_error(typed, bad_id_message(typed)))
        return
    jid, ranges, _typed = ids[0]
    found = jobs_of(c.cluster.jobs, jid, ranges)
    if jid == 0 or len(found) != 1:
        c.error(messages.not_found(typed))
        return
    job = found[0]
    if not c.allows("read_job", job=job):
        c.error(messages.object_error(f"Job <{typed}>", messages.PERM_DENIED))
        return
    if script:
        text = c.cluster.runner.read_script(job.submit_time, job.id)
        text = job.command if text is None else text
        c.out.append(text if text.endswith("\n") else text + "\n")
        return
    env = json.loads(job.env_json or "{}")
    c.out.append("".join(f"{k}={env[k]}\n" for k in sorted(env)))


def _aps_shares(result) -> dict[str, float] | None:
    """bjobs -prio: what each factor of a job's APS value adds (the one APS
    ranker's terms, lsfemu.sched.aps_rank.aps_value), None outside APS queues."""
    return None if result is None else {t.factor: t.contributes for t in result.terms}


def _enh_id(v: JobView) -> None:
    """LSB_BJOBS_DISPLAY_ENH=Y: the tables' JOBID column shows an element as 123[4]."""
    if v.array_index:
        v.job_id = f"{v.job_id}[{v.array_index}]"


def _plain_text(c: Ctx, jobs: list, *, enh: bool, wide: bool, width: int, year: bool, header: bool) -> str:
    """The default / -w table of *jobs* (R.table's text, the jobs in
    ops.order_key's order): each job's place in that order and its lines kept
    by the cluster until the job, the format or the configuration changes
    (lsfemu.engine.listing): a listing of 10,000 jobs makes only the entries
    of the jobs that changed since the last one."""
    kept = c.cluster.aps_listing.table_lines((wide, width, year, enh, os.environ.get("TZ")))  # (TZ: the caller's)
    get = kept.get
    ranks = None
    entries = []
    append = entries.append
    for job in jobs:
        entry = get(job)
        if entry is None:
            if ranks is None:
                ranks = ops.queue_ranks(c.cluster.config)
            v = table_view(job)
            if enh:
                _enh_id(v)
            entry = kept[job] = (ops.order_key(ranks, job),
                                 R.table_job_text(v, wide=wide, jobid_width=width, year=year))
        append(entry)
    entries.sort(key=itemgetter(0))  # (stable, as the sort of the jobs by order_key)
    return R.table_lines_text([text for _key, text in entries], jobid_width=width, header=header)


def _aps_text(c: Ctx, listing: list, *, enh: bool, wide: bool, width: int, year: bool, header: bool) -> str:
    """The bjobs -aps table of *listing* (Cluster.aps_listing.order): each
    job's line before its value is kept by the cluster until the job or the
    format changes (lsfemu.engine.listing); the values are put after them."""
    kept = c.cluster.aps_listing.lines((wide, width, year, enh, os.environ.get("TZ")))  # (TZ: the caller's)
    rows = []
    append = rows.append
    for job, _system, _value in listing:
        row = kept.get(job)
        if row is None:
            v = table_view(job)
            if enh:
                _enh_id(v)
            row = kept[job] = R.aps_row(v, wide=wide, jobid_width=width, year=year)
        append(row)
    return R.aps_lines_text(R.aps_value_lines(rows, listing), jobid_width=width, year=year, header=header)


def _array_summary(c: Ctx, jobs: list, missing: list[str], *, wide: bool, header: bool, nothing: str) -> None:
    """bjobs -A: one row per job array among the selected jobs, counting all
    of its elements (OpenLava's layout; -w does not cut ARRAY_SPEC and OWNER)."""
    for m in missing:
        c.error(messages.not_found(m))
    ids = []
    for j in jobs:
        if j.array_index and j.id not in ids:
            ids.append(j.id)
    if not ids:
        if not missing and c.rc == 0:
            c.error(nothing)
        return
    ids.sort(key=lambda jid: min(j.position for (k, _), j in c.cluster.jobs.items() if k == jid))
    rows = []
    for jid in ids:
        elements = jobs_of(c.cluster.jobs, jid, None)
        counts = {s: 0 for s in ("PEND", "DONE", "RUN", "EXIT", "SSUSP", "USUSP", "PSUSP")}
        for e in elements:
            if e.status in counts:
                counts[e.status] += 1
        rows.append((jid, elements[0].array_spec or "", elements[0].user, len(elements), counts))
    c.out.append(array_table(rows, wide=wide, header=header))


def _display_enh(c: Ctx) -> bool:
    """LSB_BJOBS_DISPLAY_ENH (lsf.conf, or the caller's environment)."""
    return c.yes("LSB_BJOBS_DISPLAY_ENH")


def _jobid_width(c: Ctx) -> int:
    """LSB_JOBID_DISP_LENGTH: the JOBID column's width (7 to 10, LSF's valid values; 7 unset) in the
    tables and the recommended width of -o's `jobid:`."""
    try:
        w = int(c.setting("LSB_JOBID_DISP_LENGTH") or "7")
    except ValueError:
        return 7
    return min(10, max(7, w))


def _nothing_found(name, all_, done, pend, run, susp, aps, queue) -> str:
    if name is not None:
        return messages.not_found(name)
    if pend or aps:
        kind = "pending"
    elif run:
        kind = "running"
    elif susp:
        kind = "suspended"
    elif done:
        kind = "done"
    elif all_:
        kind = "all"
    else:
        kind = "unfinished"
    return messages.no_job_found(kind, queue=queue)


def run(c: Ctx) -> Result:
    return run_collector_paused(c, bjobs)
