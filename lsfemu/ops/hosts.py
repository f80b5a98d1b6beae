"""The hosts' resources and load as plain views: lshosts, lsload, lsinfo
and bhosts -l's load blocks (issue 19); lsclusters' row. The load is engine/hostload.py's;
a `-R` requirement's select[] and order[] are sched/select.py's, evaluated on
what placement reads of each host (hostres.namespace).

A host whose load passes one of lsf.cluster's thresholds is LIM's `busy`.

LIM's refusals, as OpenLava's commands print them (ls_perror): a name that is
no host of the cluster fails the whole request (`Host name not recognizable
by LIM`), a requirement LIM cannot parse is `Bad resource requirement
syntax`, one naming no resource `Unknown resource name`, one no host satisfies `Not enough host(s) currently eligible`.
"""

from __future__ import annotations

from lsfemu.engine import hostload
from lsfemu.errors import LsfError
from lsfemu.render import messages as M
from lsfemu.sched import hostres, resreq, select
from lsfemu.views import HostLoadView, LsInfoView, ResourceInfoView, SharedInstanceView, SharedResourceView


def _selector(cfg, res_req: str | None, local_type: str):
    """(select, order) of a -R string's first simple requirement; order None
    when it has none (and *res_req* is None: no selection at all)."""
    if res_req is None:
        return None, None
    units = resreq.units_from_conf(cfg.lsf_conf)
    kinds = {r.name: r.type for r in cfg.shared.resources.values() if not r.builtin}
    try:
        parsed = resreq.parse(res_req, units)
        simple = parsed.alternatives[0].terms[0].simple if parsed.alternatives else None
        sel = select.compile_select(simple.select if simple else None, local_type, resources=kinds, units=units)
        order = select.compile_order(simple.order, resources=kinds) if simple and simple.order else None
    except select.SelectError as e:  # OpenLava LIM: PARSE_BAD_NAME -> LIME_UNKWN_RNAME
        raise LsfError(M.UNKNOWN_RESNAME if e.unknown else M.BAD_RESREQ) from None
    except resreq.ResReqError:
        raise LsfError(M.BAD_RESREQ) from None
    return sel, order


def load_views(cl, names: list[str] | None, res_req: str | None = None, local_host: str | None = None,
               by_load: bool = False, clients: bool = False) -> list[HostLoadView]:
    """The server hosts (with *clients*, lshosts', the client hosts too), those
    named, in cluster order, those a -R requirement selects; *by_load*: sorted
    by its order[] (LIM's default r15s:pg), as lsload lists them. Raises
    LsfError with LIM's reason."""
    cfg = cl.config
    rows_cfg = [h for h in cfg.cluster_hosts if h.server or clients]
    known = {h.name for h in rows_cfg}
    if names and any(n not in known for n in names):
        raise LsfError(M.LIM_BAD_HOST)
    loads = hostload.host_loads(cl, names or None)
    sel, order = _selector(cfg, res_req, cl.requirements.type_of(local_host))  # type == local: the caller's host
    rows = []
    for h in rows_cfg:
        if names and h.name not in names:
            continue
        hl = loads.get(h.name) or hostload.HostLoad(hostres.host_resources(cfg, h), 0, 0, {}, {})
        mxj = cfg.host_mxj(h.name) if h.server else None
        ns = hostres.namespace(hl.res, hl.load, maxslots=mxj, slots=None if mxj is None else max(0, mxj - hl.held))
        if sel is not None and not sel(ns):
            continue
        rows.append((ns, hl))
    if not rows:
        raise LsfError(M.NOT_ENOUGH_HOSTS)
    if by_load:
        key = order or select.compile_order(None)
        rows.sort(key=lambda row: key(row[0]))
    return [_view(cl, hl) for _, hl in rows]


def _view(cl, hl: hostload.HostLoad) -> HostLoadView:
    r = hl.res
    row = cl.config.cluster_host(r.name)
    thresholds = dict(row.thresholds) if row else {}
    busy = hostres.busy(hl.load, thresholds)
    return HostLoadView(
        name=r.name, type=r.type, model=r.model, cpuf=r.cpuf, ncpus=r.ncpus, maxmem=r.maxmem, maxswp=r.maxswp,
        maxtmp=r.maxtmp, server=r.server, resources=list(row.resources) if row else [],
        status="unavail" if cl.host_failed(r.name) else "busy" if busy else "ok", load=hl.load,
        reserved=hl.reserved, thresholds=thresholds, busy=busy)


def shared_views(cl, names: list[str] | None, host_based: bool) -> list[SharedResourceView]:
    """The static resources lsf.cluster's ResourceMap maps to hosts (bhosts -s:
    mbatchd's shared resources), with *host_based* also those the Host
    section's RESOURCES give one host (`name=value`: lshosts -s, "shared or
    host-based"): ResourceMap's rows in file order, then the others in
    lsf.shared's order; each instance's reservation is what started jobs
    reserve of it on its hosts. *names* keeps those, in the order given.
    Raises LsfError(NO_SHARED_RESOURCE) when there is none at all,
    LsfError(UNKNOWN_RESNAME) for a name that is none of them."""
    cfg = cl.config
    out: dict[str, SharedResourceView] = {}
    mapped: set[tuple[str, str]] = set()
    for res in cfg.resource_map.values():
        view = out[res.name] = SharedResourceView(res.name, res.type == "Numeric")
        for inst in res.instances:
            view.instances.append(SharedInstanceView(inst.value, inst.number, 0.0, list(inst.hosts)))
            mapped.update((res.name, h) for h in inst.hosts)
    if host_based:
        kinds = cfg.shared.resources
        for h in cfg.cluster_hosts:
            for name, value in h.values.items():
                if (name, h.name) in mapped:
                    continue
                view = out.setdefault(name, SharedResourceView(name, not isinstance(value, str)))
                text = value if isinstance(value, str) else f"{value:g}"
                number = None if isinstance(value, str) else float(value)
                view.instances.append(SharedInstanceView(text, number, 0.0, [h.name]))
        order = {n: i for i, n in enumerate(kinds)}
        first = [n for n in out if n in cfg.resource_map]
        out = {n: out[n] for n in first + sorted((n for n in out if n not in cfg.resource_map),
                                                 key=lambda n: order.get(n, len(order)))}
    if not out:
        raise LsfError(M.NO_SHARED_RESOURCE)
    if names:
        if any(n not in out for n in names):
            raise LsfError(M.UNKNOWN_RESNAME)
        out = {n: out[n] for n in dict.fromkeys(names)}
    loads = hostload.host_loads(cl)
    for view in out.values():
        for inst in view.instances:
            inst.reserved = sum(loads[h].reserved.get(view.name, 0.0) for h in inst.hosts if h in loads)
    return list(out.values())


def lsinfo_view(cfg, names: list[str] | None, all_models: bool) -> tuple[LsInfoView, list[str]]:
    """lsinfo's resources (those named), host types and models (the cluster's
    hosts' models, every model of lsf.shared with -M); and the names that are
    no resource."""
    res = [r for r in cfg.shared.resources.values() if not names or r.name in names]
    missing = [n for i, n in enumerate(names or []) if n not in cfg.shared.resources and n not in names[:i]]
    hosts = hostres.from_config(cfg)
    types = list(cfg.shared.host_types) or list(dict.fromkeys(h.type for h in hosts.values()))
    used = {h.model for h in hosts.values()}
    models = [(m, cpuf, arch) for m, (cpuf, arch) in cfg.shared.host_models.items() if all_models or m in used]
    known = {m for m, _, _ in models} | set(cfg.shared.host_models)
    for h in hosts.values():  # a model lsf.shared does not list (no lsf.shared): lsfemu's default
        if h.model not in known:
            known.add(h.model)
            models.append((h.model, h.cpuf, ""))
    return LsInfoView(
        resources=[ResourceInfoView(r.name, r.type, r.order, r.description, r.interval, r.builtin, r.release)
                   for r in res],
        types=types, models=models), missing


def run_queues(views: list[HostLoadView], kind: str) -> None:
    """lsload -N / -E: r15s, r1m and r15m of *views* as LIM's normalized or
    effective run queue lengths (the raw ones otherwise)."""
    fn = hostres.normalized_rq if kind == "normalized" else hostres.effective_rq
    for v in views:
        v.load = {**v.load, **{i: fn(v.load[i], v.cpuf, v.ncpus) for i in ("r15s", "r1m", "r15m") if i in v.load}}


def index_list(text: str) -> list[str]:
    """lsload -I's `index[:index]...`: the load indices to show, in that order
    (LIM's filter: a name that is no load index is `Bad index name list`)."""
    names = text.split(":")
    if not text or any(n not in hostres.LOAD_INDICES for n in names):
        raise LsfError(M.BAD_INDEX_LIST)
    return list(dict.fromkeys(names))


def cluster_rows(cl, names: list[str] | None) -> list[tuple[str, str, str, str, int, int]]:
    """lsclusters' rows: the one cluster (its name, `ok`, the master, the
    primary administrator, its hosts and server hosts); a name that is not
    this cluster's is LIM's `Invalid cluster name` (no MultiCluster)."""
    cfg = cl.config
    if names and any(n != cfg.cluster_name for n in names):
        raise LsfError(M.BAD_CLUSTER_NAME)
    return [(cfg.cluster_name, "ok", cl.master_name or cfg.master_host, cfg.admins[0] if cfg.admins else "-",
             len(cfg.cluster_hosts), sum(1 for h in cfg.cluster_hosts if h.server))]
