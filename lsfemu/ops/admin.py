"""The administrator's operations: the configuration check (badmin ckconfig,
and before reconfig, mbdrestart and `lsfemu daemon restart`), reconfiguration
and restart, opening and closing queues and hosts (badmin q*, h*), and
failing or recovering a host on purpose (`lsfemu host fail|recover`). Each
change needs the cluster administrator (`permissions.RULES`).
"""

from __future__ import annotations

import os
import time

from lsfemu.clock import wall_refusal
from lsfemu.config.lexer import Reporter
from lsfemu.config.model import ConfigIssue
from lsfemu.config.lsf_conf import parse_lsf_conf
from lsfemu.config.semantic import check_all
from lsfemu.errors import LsfError
from lsfemu.ops import permissions
from lsfemu.ops.permissions import Caller
from lsfemu.render import messages as M

#: badmin's queue subcommands -> what LSF says was done
QUEUE_ACTIONS = {"qopen": "opened", "qclose": "closed", "qact": "activated", "qinact": "inactivated"}


def check_config(envdir: str, cluster_time: float | None = None) -> tuple[str, bool]:
    """The check run before the configuration is taken (badmin ckconfig,
    reconfig, mbdrestart; lsfemu daemon restart): its stderr text, and whether
    it found fatal errors (then the running configuration and daemon are kept).
    With the running cluster's time: a wall clock that would take it backwards
    is one of those errors (the daemon would refuse to start on it)."""
    cfg, issues = check_all(envdir)
    if cfg is not None and cluster_time is not None and cfg.lsf_conf.get("LSFEMU_CLOCK", "wall").lower() == "wall":
        why = wall_refusal(cluster_time, time.time())
        if why:
            conf = cfg.files.get("lsf.conf") or os.path.join(cfg.envdir, "lsf.conf")
            with open(conf, encoding="utf-8", errors="replace") as f:
                _, lines = parse_lsf_conf(f.read(), Reporter(conf))
            issues = issues + [ConfigIssue(conf, lines.get("LSFEMU_CLOCK", 0), M.error_text(why))]
    return M.config_check(issues), any(i.fatal for i in issues)


def control_queues(cluster, caller: Caller, action: str, names: list[str],
                   comment: str = "") -> list[tuple[str, str | None]]:
    """badmin qopen|qclose|qact|qinact [-C comment] [queue_name ... | all]:
    (queue, None when done or LSF's reason) for each; the comment goes with
    the QUEUE_CTRL record. No name is the default queue (LSF's badmin
    reference; OpenLava asks lsb_queueinfo(NULL))."""
    cfg = cluster.config
    if "all" in names:
        names = [q.name for q in cfg.queues]
    elif not names:
        default = next((q for q in cfg.params.default_queues if cfg.queue(q)), None)
        if default is None:
            raise LsfError(M.QUEUE_NAME_REQUIRED)
        names = [default]
    done: list[tuple[str, str | None]] = []
    for n in names:
        if cfg.queue(n) is None:
            done.append((n, M.NO_SUCH_QUEUE))
            continue
        cluster.set_queue_state(n, action, caller.user, comment)
        done.append((n, None))
    return done


def control_hosts(cluster, caller: Caller, open_: bool, names: list[str], local_host: str,
                  comment: str = "") -> list[tuple[str, str | None]]:
    """badmin hopen|hclose [-C comment] [host_name ... | all]: (host, None when
    done or LSF's reason) for each; the comment goes with the HOST_CTRL record. No name is the local host (LSF's badmin reference;
    OpenLava asks lsb_hostinfo(NULL))."""
    cfg = cluster.config
    if "all" in names:
        names = list(cfg.host_names)
    elif not names:
        names = [local_host]
    done: list[tuple[str, str | None]] = []
    for n in names:
        if n not in cfg.host_names:
            done.append((n, M.BAD_HOST))
            continue
        cluster.set_host_state(n, open_, caller.user, comment)
        done.append((n, None))
    return done


def fail_host(cluster, caller: Caller, host: str, recover: bool) -> list:
    """`lsfemu host fail|recover HOST`: the jobs the failure hit (pending again or
    UNKWN), or those lost with the host on recovery (EXIT)."""
    permissions.require(cluster.config, caller, "administer_cluster")
    if host not in cluster.config.host_names:
        raise LsfError(M.BAD_HOST, host)
    return cluster.recover_host(host, caller.user) if recover else cluster.fail_host(host, caller.user)
