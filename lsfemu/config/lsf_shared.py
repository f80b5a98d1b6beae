"""lsf.shared: the Resource section (RESOURCENAME TYPE INTERVAL INCREASING
RELEASE DESCRIPTION), HostType (TYPENAME) and HostModel (MODELNAME CPUFACTOR
ARCHITECTURE); the Cluster section is read by LSF for multicluster and
ignored here. LSF's built-in resources (`BUILTIN_RESOURCES`, OpenLava's
lib.conf.c table, the texts lsinfo prints) are always defined first.

lsf.shared lives next to lsf.cluster.<name>. Without the file a cluster
has the built-in resources only and any host type and model (lsfemu's
clusters made before issue 19 have none).
"""

from __future__ import annotations

import re

from lsfemu.config.lexer import Reporter, inner, is_default, read_table, show, unquote
from lsfemu.config.model import ResourceDef, SharedConf
from lsfemu.config.values import read_sections, unsupported


def _b(name: str, desc: str, typ: str = "Numeric", inc: bool | None = None, interval: int = 0,
       release: bool = False) -> ResourceDef:
    return ResourceDef(name, typ, interval, inc, desc, builtin=True, release=release)


#: LSF's built-in resources in lsinfo's order (OpenLava lib.conf.c builtInRes)
BUILTIN_RESOURCES: tuple[ResourceDef, ...] = (
    _b("r15s", "15-second CPU run queue length", inc=True, interval=15, release=True),
    _b("r1m", "1-minute CPU run queue length (alias: cpu)", inc=True, interval=15, release=True),
    _b("r15m", "15-minute CPU run queue length", inc=True, interval=15, release=True),
    _b("ut", "1-minute CPU utilization (0.0 to 1.0)", inc=True, interval=15),
    _b("pg", "Paging rate (pages/second)", inc=True, interval=15),
    _b("io", "Disk IO rate (Kbytes/second)", inc=True, interval=15),
    _b("ls", "Number of login sessions (alias: login)", inc=True, interval=30),
    _b("it", "Idle time (minutes) (alias: idle)", inc=False, interval=30),
    _b("tmp", "Disk space in /tmp (Mbytes)", inc=False, interval=120),
    _b("swp", "Available swap space (Mbytes) (alias: swap)", inc=False, interval=15),
    _b("mem", "Available memory (Mbytes)", inc=False, interval=15),
    _b("ncpus", "Number of CPUs", inc=False),
    _b("ndisks", "Number of local disks", inc=False),
    _b("maxmem", "Maximum memory (Mbytes)", inc=False),
    _b("maxswp", "Maximum swap space (Mbytes)", inc=False),
    _b("maxtmp", "Maximum /tmp space (Mbytes)", inc=False),
    _b("cpuf", "CPU factor", inc=False),
    _b("type", "Host type", "String"),
    _b("model", "Host model", "String"),
    _b("status", "Host status", "String"),
    _b("rexpri", "Remote execution priority"),
    _b("server", "LSF server host", "Boolean"),
    _b("hname", "Host name", "String"),
    _b("slots", "Unused slots of host", inc=False),
)

#: names a Resource row may not take (IBM "Configuring the lsf.shared resource section")
RESERVED_NAMES = frozenset(
    "cpu cpuf io logins ls idle maxmem maxswp maxtmp type model status it mem ncpus nprocs ncores nthreads "
    "define_ncpus_cores define_ncpus_procs define_ncpus_threads ndisks pg r15m r15s r1m swap swp tmp ut local "
    "dchost jobvm hname server rexpri slots".split())

_RES_NAME = re.compile(r"^[A-Za-z_][^:.()\[\]+\-*/!&|<>@=,\s]*$")
_TYPES = {"numeric": "Numeric", "boolean": "Boolean", "string": "String"}


def builtin_shared() -> SharedConf:
    """The resources every cluster has (no lsf.shared file)."""
    return SharedConf(resources={r.name: r for r in BUILTIN_RESOURCES})


def _resource(row: dict[str, str], line: int, rep: Reporter) -> ResourceDef | None:
    """One Resource row; LSF ignores a bad row with a message (lim.conf.c doresources): so do we, as a warning."""
    name = unquote(row["RESOURCENAME"])
    if not _RES_NAME.match(name) or len(name) > 39:
        rep.warn(line, f"RESOURCENAME: {show(name)} is not a valid resource name (letters, digits, _, at most "
                       "39 characters, not beginning with a digit); ignoring line")
        return None
    if name in RESERVED_NAMES or re.match(r"^(inf|nan)", name, re.IGNORECASE):
        rep.warn(line, f"RESOURCENAME: {name} is a reserved name (a built-in resource); ignoring line")
        return None
    typ = "Boolean"
    if "TYPE" in row and not is_default(row["TYPE"]):
        typ = _TYPES.get(inner(row["TYPE"]).lower(), "")
        if not typ:
            rep.warn(line, f"resource type {show(inner(row['TYPE']))} for resource {name} is not valid "
                           "(expected Numeric, Boolean or String); ignoring resource")
            return None
    interval = 0
    if "INTERVAL" in row and not is_default(row["INTERVAL"]):
        v = inner(row["INTERVAL"])
        if not v.isdigit() or int(v) <= 0:
            rep.warn(line, f"INTERVAL {show(v)} for resource {name} should be an integer greater than 0; "
                           "ignoring resource")
            return None
        interval = int(v)
    increasing: bool | None = None
    if typ == "Numeric":
        increasing = False
        if "INCREASING" in row and not is_default(row["INCREASING"]):
            v = inner(row["INCREASING"]).upper()
            if v not in ("Y", "N"):
                rep.warn(line, f"INCREASING {show(v)} for resource {name} is not valid (expected Y or N); "
                               "ignoring resource")
                return None
            increasing = v == "Y"
    release = False
    if "RELEASE" in row and not is_default(row["RELEASE"]):
        v = inner(row["RELEASE"]).upper()
        if v not in ("Y", "N"):
            rep.warn(line, f"RELEASE {show(v)} for resource {name} is not valid (expected Y or N); ignoring resource")
            return None
        release = v == "Y"
    desc = inner(row["DESCRIPTION"]) if "DESCRIPTION" in row and not is_default(row["DESCRIPTION"]) else ""
    return ResourceDef(name, typ, interval, increasing, desc, release=release)


def parse_shared(text: str, rep: Reporter) -> SharedConf:
    conf = builtin_shared()
    conf.present = True
    lines: dict[str, int] = {}
    for sec in read_sections(text, rep):
        if sec.key == "RESOURCE":
            tab = read_table(sec, rep, required=("RESOURCENAME",),
                             known=("RESOURCENAME", "TYPE", "INTERVAL", "INCREASING", "RELEASE", "DESCRIPTION"),
                             unused=("CONSUMABLE",))
            for line, row in tab.rows if tab else ():
                res = _resource(row, line, rep)
                if res is None:
                    continue
                if res.name in lines:
                    rep.warn(line, f"resource {res.name} is defined twice (first at line {lines[res.name]}); "
                                   "ignoring line")
                    continue
                lines[res.name] = line
                conf.resources[res.name] = res
        elif sec.key == "HOSTTYPE":
            tab = read_table(sec, rep, required=("TYPENAME",), known=("TYPENAME",))
            for line, row in tab.rows if tab else ():
                name = unquote(row["TYPENAME"])
                if name in conf.host_types:
                    rep.warn(line, f"host type {name} is defined twice; ignoring line")
                else:
                    conf.host_types.append(name)
        elif sec.key == "HOSTMODEL":
            tab = read_table(sec, rep, required=("MODELNAME", "CPUFACTOR"),
                             known=("MODELNAME", "CPUFACTOR", "ARCHITECTURE"))
            for line, row in tab.rows if tab else ():
                name = unquote(row["MODELNAME"])
                try:
                    cpuf = float(inner(row["CPUFACTOR"]))
                except ValueError:
                    cpuf = -1.0
                if not cpuf > 0:
                    rep.fatal(line, f"CPUFACTOR of host model {name}: expected a positive number, "
                                    f"got {show(row['CPUFACTOR'])}")
                    continue
                if name in conf.host_models:
                    rep.warn(line, f"host model {name} is defined twice; ignoring line")
                    continue
                arch = inner(row["ARCHITECTURE"]) if "ARCHITECTURE" in row and not is_default(row["ARCHITECTURE"]) else ""
                conf.host_models[name] = (cpuf, arch)
        elif sec.key == "CLUSTER":
            pass  # the cluster list, for multicluster: one cluster here
        else:
            unsupported(sec, rep, "lsf.shared")
    return conf
