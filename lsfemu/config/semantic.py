"""Checks across the files: APS_PRIORITY and its forbidden combinations
(lsfemu.config.aps), FAIRSHARE / USER_SHARES syntax, RES_REQ reserving a
shared resource (lsfemu.config.resourcemap). They run with
the file checks in `check_all`, the one entry point of `badmin ckconfig`,
`badmin reconfig` and the daemon's start, and point at file and line.
"""

from __future__ import annotations

from lsfemu.config import parser as config_parser
from lsfemu.config.aps import check_issues
from lsfemu.config.fairshare import ShareSyntaxError, load_plugin, parse_user_shares
from lsfemu.config.model import ClusterConfig, ConfigError, ConfigIssue
from lsfemu.config.resourcemap import rusage_refusals


def semantic_issues(cfg: ClusterConfig) -> list[ConfigIssue]:
    queues_file = cfg.files.get("lsb.queues", "lsb.queues")
    by_name = {q.name: q for q in cfg.queues}
    out: list[ConfigIssue] = []
    for issue in check_issues(cfg.queues, cfg.params, host_partitions=cfg.host_partitions,
                             host_groups=cfg.host_groups):
        q = by_name.get(issue.queue)
        line = (q.lines.get(issue.key, q.line) if q else 0)
        out.append(ConfigIssue(q.file if q and q.file else str(queues_file), line, issue.message, issue.fatal))
    for q in cfg.queues:
        if q.fairshare:
            try:
                parse_user_shares(q.fairshare)
            except ShareSyntaxError as e:
                out.append(ConfigIssue(q.file or str(queues_file), q.lines.get("FAIRSHARE", q.line), str(e)))
    for g in cfg.user_groups.values():
        if g.user_shares:
            try:
                parse_user_shares(g.user_shares)
            except ShareSyntaxError as e:
                out.append(ConfigIssue(g.file or "lsb.users", g.line, f"group {g.name}: {e}"))
    out += [ConfigIssue(path, line, message) for path, line, message in rusage_refusals(cfg)]
    spec = cfg.params.extra.get("FAIRSHARE_ADJUSTMENT_PLUGIN")
    if spec:
        try:
            load_plugin(spec)
        except ValueError as e:
            out.append(ConfigIssue(cfg.files.get("lsb.params", "lsb.params"),
                                   cfg.params.lines.get("FAIRSHARE_ADJUSTMENT_PLUGIN", 0), str(e)))
    return out


def check_all(envdir: str) -> tuple[ClusterConfig | None, list[ConfigIssue]]:
    """File checks, then (when the files are sound) the semantic checks."""
    cfg, issues = config_parser.check(envdir)
    if cfg is None:
        return None, issues
    more = semantic_issues(cfg)
    issues = issues + more
    if any(i.fatal for i in more):
        return None, issues
    cfg.warnings = [i for i in issues if not i.fatal]
    return cfg, issues


def load_all(envdir: str) -> ClusterConfig:
    cfg, issues = check_all(envdir)
    if cfg is None:
        raise ConfigError(issues)
    return cfg
