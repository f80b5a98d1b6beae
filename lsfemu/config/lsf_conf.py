"""lsf.conf (`KEY=value` lines, the keys lsfemu's commands convert checked
at reconfig time) and where the other files are: the cluster file
`lsf.cluster.<name>` in LSF_CONFDIR or LSF_ENVDIR, the lsb.* files in
`LSB_CONFDIR/<cluster>/configdir` (or, for a flat test setup, directly in
LSF_ENVDIR).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from lsfemu.clock import parse_start
from lsfemu.config.lexer import Reporter, logical_lines, show, unquote
from lsfemu.config.model import ConfigIssue
from lsfemu.config.values import to_bool, to_int

LSB_FILES = ("lsb.params", "lsb.queues", "lsb.users", "lsb.hosts", "lsb.applications", "lsb.resources")

_CONF_KV = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$", re.DOTALL)
_CLUSTER_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def _check_start(key: str, value: str, rep: Reporter, line: int) -> None:
    try:
        parse_start(value)
    except ValueError as e:
        rep.fatal(line, f"{key}: {e}")


def parse_lsf_conf(text: str, rep: Reporter) -> tuple[dict[str, str], dict[str, int]]:
    """lsf.conf: `KEY=value` lines; returns (values, lines) with upper-case keys.

    A key set twice keeps its last value, as when the file is sourced by a shell.
    A few keys lsfemu's commands convert are checked here so a bad value is
    reported at reconfig time rather than crashing a command later.
    """
    conf: dict[str, str] = {}
    lines: dict[str, int] = {}
    for ln in logical_lines(text, rep, directives=False):
        m = _CONF_KV.match(ln.text)
        if m is None:
            rep.fatal(ln.no, f"expected KEY=value, got {show(ln.text)}")
            continue
        key = m.group(1).upper()
        conf[key] = unquote(m.group(2), single=True)
        lines[key] = ln.no
    checks: dict[str, Callable[[str, str, int], object]] = {
        "LSB_JOBID_DISP_LENGTH": lambda k, v, n: to_int(k, v, rep, n, 1, 64),
        "LSB_BJOBS_PENDREASON_LEVEL": lambda k, v, n: to_int(k, v, rep, n, 0, 3),
        "LSB_DISPLAY_YEAR": lambda k, v, n: to_bool(k, v, rep, n),
        "LSB_HMS_TIME_FORMAT": lambda k, v, n: to_bool(k, v, rep, n),
        "LSF_UNIT_FOR_LIMITS": lambda k, v, n: v.upper() in ("KB", "MB", "GB", "TB", "PB", "EB")
        or rep.fatal(n, f"{k}: expected one of KB MB GB TB PB EB, got {show(v)}"),
        "LSB_SHORT_HOSTLIST": lambda k, v, n: v in ("0", "1") or rep.fatal(n, f"{k}: expected 1 or 0, got {show(v)}"),
        "BJOBS_RES_REQ_DISPLAY": lambda k, v, n: v.strip().lower() in ("none", "brief", "full")
        or rep.fatal(n, f"{k}: expected none, brief or full, got {show(v)}"),
        "LSFEMU_CLOCK": lambda k, v, n: v.lower() in ("wall", "virtual")
        or rep.fatal(n, f"{k}: expected wall or virtual, got {show(v)}"),
        "LSFEMU_CLOCK_START": lambda k, v, n: _check_start(k, v, rep, n),
        "LSB_MBD_PORT": lambda k, v, n: to_int(k, v, rep, n, 1, 65535),
        "LSF_CLUSTER_NAME": lambda k, v, n: _CLUSTER_NAME.match(v)
        or rep.fatal(n, f"{k}: expected a cluster name (letters, digits, _ . -), got {show(v)}"),
    }
    for key, fn in checks.items():
        if key in conf and conf[key] != "":
            fn(key, conf[key], lines[key])
    return conf, lines


def _resolve(envdir: str, path: str) -> str:
    return path if os.path.isabs(path) else os.path.join(envdir, path)


def _isdir(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except (OSError, ValueError):
        return False


def locate(envdir: str, conf: dict[str, str], conf_lines: dict[str, int], conf_rep: Reporter) -> tuple[dict, list[ConfigIssue]]:
    """Where the files are. Issues about the cluster file go to the folder searched;
    a warning about an unusable LSB_CONFDIR goes to lsf.conf (`conf_rep`)."""
    issues: list[ConfigIssue] = []
    dirs: list[str] = []
    lsf_confdir = conf.get("LSF_CONFDIR", "").strip()
    if lsf_confdir and _isdir(_resolve(envdir, lsf_confdir)):
        dirs.append(_resolve(envdir, lsf_confdir))
    elif lsf_confdir:
        conf_rep.warn(conf_lines.get("LSF_CONFDIR", 0),
                      f"LSF_CONFDIR: {_resolve(envdir, lsf_confdir)} is not a folder; "
                      f"lsf.cluster.<name> is looked for in {envdir}")
    if not dirs or os.path.realpath(dirs[0]) != os.path.realpath(envdir):
        dirs.append(envdir)

    name = conf.get("LSF_CLUSTER_NAME", "").strip()
    cluster_file: str | None = None
    if name and not _CLUSTER_NAME.match(name):
        name = ""  # reported by parse_lsf_conf
        cluster_file = None
    elif name:
        cands = [os.path.join(d, f"lsf.cluster.{name}") for d in dirs]
        cluster_file = next((p for p in cands if os.path.exists(p)), cands[0])
    else:
        found: tuple[str, list[str]] | None = None
        for d in dirs:
            try:
                names = sorted(
                    f for f in os.listdir(d)
                    if f.startswith("lsf.cluster.") and len(f) > len("lsf.cluster.")
                    and not f.endswith("~") and os.path.isfile(os.path.join(d, f))
                )
            except (OSError, ValueError):
                names = []
            if names:
                found = (d, names)
                break
        if found is None:
            where = " or ".join(dirs)
            issues.append(ConfigIssue(dirs[0], 0, f"no lsf.cluster.<name> file in {where} "
                                                  "(expected exactly one, or LSF_CLUSTER_NAME in lsf.conf)"))
        elif len(found[1]) > 1:
            issues.append(ConfigIssue(found[0], 0, f"several cluster files in {found[0]}: {' '.join(found[1])} "
                                                   "(expected exactly one, or LSF_CLUSTER_NAME in lsf.conf)"))
        else:
            cluster_file = os.path.join(found[0], found[1][0])
            name = found[1][0][len("lsf.cluster."):]

    confdir = envdir
    lsb_confdir = conf.get("LSB_CONFDIR", "").strip()
    if lsb_confdir and name:
        cand = os.path.join(_resolve(envdir, lsb_confdir), name, "configdir")
        if _isdir(cand):
            confdir = cand
        else:
            conf_rep.warn(conf_lines.get("LSB_CONFDIR", 0),
                          f"LSB_CONFDIR: {cand} is not a folder; the lsb.* files are read from {envdir}")
    files: dict = {
        "envdir": envdir,
        "cluster_name": name or None,
        "confdir": confdir,
        "lsf.conf": os.path.join(envdir, "lsf.conf"),
        "lsf.cluster": cluster_file,
        # lsf.shared sits with the cluster file (LSF_CONFDIR); optional for lsfemu
        "lsf.shared": os.path.join(os.path.dirname(cluster_file), "lsf.shared") if cluster_file else None,
    }
    for f in LSB_FILES:
        files[f] = os.path.join(confdir, f)
    return files, issues
