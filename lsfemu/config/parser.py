"""Reading and checking one cluster's LSF configuration files.

This module owns the entry points: it reads the files in order, has each
parsed by its own module, runs the checks across files (DEFAULT_QUEUE and
QUEUE_GROUP name real queues, HOSTS name real hosts, ...) and builds the
typed `lsfemu.config.model.ClusterConfig`. The meaning of every key, column
and section is in the file's module: `lsf_conf` (lsf.conf, and where the
other files are), `lsf_cluster`, `lsb_params`, `lsb_queues`, `lsb_users`,
`lsb_hosts`, `lsb_applications`, `lsb_resources`; what they share (reading, sections, value conversions) is in
`values`.

Public API: `load(envdir)` (raises `ConfigError` on fatal issues), `check(envdir)`
(returns the config or None plus every issue, as `badmin ckconfig` needs) and
`find_files(envdir)`. lsf.shared (`lsf_shared`) is read before the cluster
file, whose RESOURCES it defines; without it the built-in resources only. The lexical rules (comments, continuations, sections,
table rows) live in `lsfemu.config.lexer`.

Every issue is a `ConfigIssue(file, line, message, fatal)`; `file` is the path
of the file as found, `line` is 1-based (0 = about the whole file). Anything
LSF itself would reject, and any value lsfemu could not use safely, is fatal;
things lsfemu merely ignores (unknown keys, unsupported sections) are warnings.
"""

from __future__ import annotations

import os
import re

from lsfemu.config.lexer import Reporter
from lsfemu.config.lsb_applications import parse_applications
from lsfemu.config.lsb_hosts import parse_hosts
from lsfemu.config.lsb_params import parse_params
from lsfemu.config.lsb_queues import parse_queues
from lsfemu.config.lsb_resources import check_names, parse_resources
from lsfemu.config.lsb_users import parse_users
from lsfemu.config.lsf_cluster import parse_cluster
from lsfemu.config.lsf_conf import LSB_FILES, locate, parse_lsf_conf
from lsfemu.config.lsf_shared import builtin_shared, parse_shared
from lsfemu.config.model import (ClusterConfig, ClusterHost, ConfigError, ConfigIssue, HostConf, Params, QueueConf,
                                 resolve_host_groups)
from lsfemu.config.values import read_file

__all__ = ["load", "check", "find_files", "ConfigError", "ConfigIssue"]

REQUIRED_FILES = ("lsf.conf", "lsf.cluster", "lsb.params", "lsb.queues")
OPTIONAL_FILES = ("lsf.shared", "lsb.users", "lsb.hosts", "lsb.applications", "lsb.resources")


def find_files(envdir: str) -> dict:
    """Where the configuration files of the cluster in `envdir` are.

    Returns a dict with keys `envdir`, `cluster_name` (None when unknown),
    `confdir` (folder of the lsb.* files), one key per file (`lsf.conf`,
    `lsf.cluster`, `lsb.params`, `lsb.queues`, `lsb.users`, `lsb.hosts`) giving
    the path where the file is or is expected (`lsf.cluster` is None when the
    cluster name is unknown), and `issues`: the problems found while locating
    (missing lsf.conf, missing/ambiguous cluster file, unusable LSF_CONFDIR or
    LSB_CONFDIR). Problems inside the files are not looked for (see `check`).
    """
    envdir = os.fspath(envdir)
    conf_path = os.path.join(envdir, "lsf.conf")
    conf_rep = Reporter(conf_path)
    text = read_file(conf_path, conf_rep, required=True)
    conf, lines = parse_lsf_conf(text, Reporter(conf_path)) if text is not None else ({}, {})
    files, issues = locate(envdir, conf, lines, conf_rep)
    files["issues"] = conf_rep.sorted() + issues
    return files


def _cross_checks(
    reps: dict[str, Reporter],
    params: Params | None,
    queues: list[QueueConf] | None,
    cluster_hosts: list[ClusterHost] | None,
    hosts: dict[str, HostConf],
    host_groups: dict[str, list[str]],
) -> None:
    names = {q.name for q in queues} if queues is not None else None
    if names and params is not None:  # with no queue at all, "no queues defined" says it already
        for qn in params.default_queues:
            if qn not in names:
                reps["lsb.params"].fatal(params.lines.get("DEFAULT_QUEUE", 0),
                                         f"DEFAULT_QUEUE: queue {qn} is not defined in lsb.queues")
    if names is not None:
        for q in queues or ():
            for member in q.queue_group:
                if member not in names:
                    reps["lsb.queues"].fatal(q.lines.get("QUEUE_GROUP", q.line),
                                             f"QUEUE_GROUP of queue {q.name}: queue {member} is not defined in lsb.queues")
    if cluster_hosts:
        known = {h.name for h in cluster_hosts}
        kinds = known | {h.model for h in cluster_hosts} | {h.type for h in cluster_hosts}
        for q in queues or ():
            for h in q.hosts:
                base = re.sub(r"\+[0-9]*$", "", h.lstrip("~")).rstrip("/")
                if base in ("all", "others", "none") or base in known or base in host_groups or "@" in base:
                    continue
                reps["lsb.queues"].warn(q.lines.get("HOSTS", q.line),
                                        f"HOSTS of queue {q.name}: {h} is not a host of lsf.cluster nor a host group; ignored")
        for h in hosts.values():
            if h.name != "default" and h.name not in kinds and h.name not in host_groups:
                reps["lsb.hosts"].warn(h.line, f"host {h.name} is not a host of lsf.cluster; its row is not used")


def check(envdir: str) -> tuple[ClusterConfig | None, list[ConfigIssue]]:
    """Read and check every file; returns (config or None when any issue is fatal, all issues).

    Issues come file by file (lsf.conf, lsf.shared, cluster file, lsb.params, lsb.queues,
    lsb.users, lsb.hosts, lsb.applications), each file's in line order.
    """
    envdir = os.fspath(envdir)
    conf_path = os.path.join(envdir, "lsf.conf")
    reps: dict[str, Reporter] = {"lsf.conf": Reporter(conf_path)}
    text = read_file(conf_path, reps["lsf.conf"], required=True)
    conf, conf_lines = parse_lsf_conf(text, reps["lsf.conf"]) if text is not None else ({}, {})
    files, locate_issues = locate(envdir, conf, conf_lines, reps["lsf.conf"])

    admins: list[str] = []
    cluster_hosts: list[ClusterHost] | None = None
    resource_map: dict = {}
    shared = builtin_shared()
    if files["lsf.shared"] is not None:
        reps["lsf.shared"] = rep = Reporter(files["lsf.shared"])
        text = read_file(files["lsf.shared"], rep, required=False)
        if text is not None:
            shared = parse_shared(text, rep)
    if files["lsf.cluster"] is not None:
        reps["lsf.cluster"] = rep = Reporter(files["lsf.cluster"])
        text = read_file(files["lsf.cluster"], rep, required=True)
        if text is not None:
            admins, cluster_hosts, resource_map = parse_cluster(text, rep, shared)

    texts = {}
    for f in LSB_FILES:
        reps[f] = Reporter(files[f])
        texts[f] = read_file(files[f], reps[f], required=f in REQUIRED_FILES)
    params = parse_params(texts["lsb.params"], reps["lsb.params"]) if texts["lsb.params"] is not None else None
    queues = parse_queues(texts["lsb.queues"], reps["lsb.queues"]) if texts["lsb.queues"] is not None else None
    user_groups, user_limits = (parse_users(texts["lsb.users"], reps["lsb.users"])
                                if texts["lsb.users"] is not None else ({}, {}))
    hosts, host_groups, partitions, condensed = (parse_hosts(texts["lsb.hosts"], reps["lsb.hosts"])
                                                 if texts["lsb.hosts"] is not None else ({}, {}, {}, []))
    applications = (parse_applications(texts["lsb.applications"], reps["lsb.applications"])
                    if texts["lsb.applications"] is not None else {})
    limits = (parse_resources(texts["lsb.resources"], reps["lsb.resources"])
              if texts["lsb.resources"] is not None else [])
    _cross_checks(reps, params, queues, cluster_hosts, hosts, host_groups)
    check_names(limits, reps["lsb.resources"], {q.name for q in queues} if queues is not None else None,
                {h.name for h in cluster_hosts} if cluster_hosts is not None else None, host_groups)

    issues: list[ConfigIssue] = reps["lsf.conf"].sorted() + locate_issues
    for key in ("lsf.shared", "lsf.cluster") + LSB_FILES:
        if key in reps:
            issues += reps[key].sorted()
    if any(i.fatal for i in issues):
        return None, issues
    assert params is not None and queues is not None and cluster_hosts is not None and files["cluster_name"]
    cfg = ClusterConfig(
        envdir=envdir,
        confdir=files["confdir"],
        cluster_name=files["cluster_name"],
        lsf_conf=conf,
        admins=admins,
        cluster_hosts=cluster_hosts,
        params=params,
        queues=queues,
        user_groups=user_groups,
        user_limits=user_limits,
        hosts=hosts,
        warnings=[i for i in issues if not i.fatal],
        host_groups=resolve_host_groups(host_groups, [h.name for h in cluster_hosts if h.server]),
        host_partitions=partitions,
        condensed_groups=condensed,
        applications=applications,
        limits=limits,
        shared=shared,
        resource_map=resource_map,
        files={k: v for k, v in files.items() if k in REQUIRED_FILES + OPTIONAL_FILES and v and os.path.exists(v)},
    )
    return cfg, issues


def load(envdir: str) -> ClusterConfig:
    """The configuration of the cluster in `envdir`.

    Raises `ConfigError` when any issue is fatal; its `issues` holds every issue
    found (fatal ones and warnings, as `check` returns them). Warnings of a
    loadable configuration are in `ClusterConfig.warnings`.
    """
    cfg, issues = check(envdir)
    if cfg is None:
        raise ConfigError(issues)
    return cfg
