"""lshosts and lsload (their tables, -o and -json), lsinfo and lsclusters
(lsf-breadth.md sections 3.1-3.5, OpenLava's lshosts.c, load.c and lsinfo.c
layouts): data in, text out.

Memory sizes come in MB and print with LSF 10's units (section 3.3): under
1 GB integer MB (`551M`); tmp keeps MB while it fits in 5 characters
(`8605M`) and otherwise integer GB (`100G`); swp, mem (and lshosts' maxmem,
maxswp) GB with one decimal (`1.4G`, `15.4G`) unless the decimal is 0 or the
value reaches 100 GB (`16G`, `163G`); TB the same way from 1024 GB (`2.9T`).
A load column is its width with at least one blank before the value: a
longer value pushes the rest of the line right. An index beyond its LIM
threshold is marked with a leading `*` (`*4.0`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from lsfemu.render import outfmt
from lsfemu.render.bjobs.common import mem_in_unit
from lsfemu.render.shared import lshosts_long_rows
from lsfemu.views import HostLoadView, LsInfoView, SharedResourceView

#: lsload's columns: (index, width); `io` only with -l
_LOAD_COLS = (("r15s", 6), ("r1m", 6), ("r15m", 6), ("ut", 5), ("pg", 6), ("io", 6), ("ls", 4), ("it", 6),
              ("tmp", 6), ("swp", 6), ("mem", 6))


def size(mb: float, kind: str = "mem") -> str:
    """A size in MB as lsload / lshosts print it (module doc)."""
    if mb < 1024:
        return f"{mb:.0f}M"
    if kind == "tmp":
        whole = f"{mb:.0f}M"
        return whole if len(whole) <= 5 else f"{mb / 1024:.0f}G"
    value, unit = mb / 1024, "G"
    if value >= 1024:
        value, unit = value / 1024, "T"
    if value >= 100:
        return f"{value:.0f}{unit}"
    one = f"{value:.1f}"
    return (one[:-2] if one.endswith(".0") else one) + unit


def index_value(name: str, value: float) -> str:
    """One load index as lsload prints it."""
    if name in ("r15s", "r1m", "r15m", "pg"):
        return f"{value:.1f}"
    if name == "ut":
        return f"{min(value, 1.0) * 100:.0f}%"
    if name in ("tmp", "swp", "mem"):
        return size(value, name)
    return f"{value:.0f}"


def _field(text: str, width: int) -> str:
    return " " + text.rjust(width - 1)


# --- lshosts -----------------------------------------------------------------------


def _resources(h: HostLoadView) -> str:
    return "(" + " ".join(h.resources) + ")"


def _mem_or_dash(mb: float, kind: str = "mem") -> str:
    return size(mb, kind) if mb > 0 else "-"


def lshosts(hosts: Iterable[HostLoadView], *, wide: bool = False) -> str:
    if wide:
        out = [f"{'HOST_NAME':<25} {'type':>10} {'model':>11} {'cpuf':>5} {'ncpus':>5} {'maxmem':>6} {'maxswp':>6} "
               f"{'server':>6} RESOURCES"]
    else:
        out = ["HOST_NAME      type    model  cpuf ncpus maxmem maxswp server RESOURCES"]
    for h in hosts:
        if wide:
            head = f"{h.name:<25} {h.type:>10} {h.model:>11} {h.cpuf:5.1f}"
        else:
            head = f"{h.name[:11]:<11} {h.type[:7]:>7} {h.model[:8]:>8} {h.cpuf:5.1f}"
        out.append(f"{head} {h.ncpus if h.ncpus > 0 else '-':>5} {_mem_or_dash(h.maxmem):>6} {_mem_or_dash(h.maxswp):>6} "
                   f"{'Yes' if h.server else 'No':>6} {_resources(h)}")
    return "\n".join(out) + "\n"


def _threshold_table(thresholds: Mapping[str, float]) -> list[str]:
    # lshosts -l's LOAD_THRESHOLDS: every index, in lsload's widths
    head = "".join(_field(n, w) for n, w in _LOAD_COLS)
    vals = "".join(_field(index_value(n, thresholds[n]) if n in thresholds else "-", w) for n, w in _LOAD_COLS)
    return [head, vals]


def lshosts_long(hosts: Iterable[HostLoadView], shared: Iterable[SharedResourceView] = ()) -> str:
    """lshosts -l's blocks; *shared*: the static shared and host-based resources (lshosts -s's views),
    shown as two rows under each host's values when there are any (OpenLava print_long)."""
    shared = list(shared)
    out: list[str] = []
    for h in hosts:
        out += ["", f"HOST_NAME:  {h.name}",
                "type             model  cpuf ncpus ndisks maxmem maxswp maxtmp rexpri server"]
        if h.server:
            out.append(f"{h.type:<10} {h.model:>11} {h.cpuf:5.1f} {h.ncpus:>5} {'-':>6} {_mem_or_dash(h.maxmem):>6} "
                       f"{_mem_or_dash(h.maxswp):>6} {_mem_or_dash(h.maxtmp, 'tmp'):>6} {0:>6} {'Yes':>6}")
        else:  # OpenLava print_long: a client host has no values
            out.append(f"{h.type:<10} {h.model:>11} {h.cpuf:5.1f} " + " ".join(f"{'-':>{w}}" for w in (5, 6, 6, 6, 6, 6))
                       + f" {'No':>6}")
        out += lshosts_long_rows(h.name, shared)
        out += ["", "RESOURCES: " + (_resources(h) if h.resources else "Not defined")]
        if not h.server:
            out += ["RUN_WINDOWS: Not applicable for client-only host", ""]
            continue
        out += ["RUN_WINDOWS:  (always open)", "", "LOAD_THRESHOLDS:", *_threshold_table(h.thresholds)]
    return "\n".join(out) + "\n"


# --- lsload ------------------------------------------------------------------------


def lsload(hosts: Iterable[HostLoadView], *, wide: bool = False, long: bool = False,
           indices: list[str] | None = None) -> str:
    """lsload's table: every index but io, all with *long*, those of *indices* (-I) in their order."""
    widths = dict(_LOAD_COLS)
    if indices and not long:
        cols = [(n, widths[n]) for n in indices]
    else:
        cols = [(n, w) for n, w in _LOAD_COLS if long or n != "io"]
    name_w = 23 if (wide or long) else 15
    out = [f"{'HOST_NAME':<{name_w}} {'status':>6}" + "".join(_field(n, w) for n, w in cols)]
    for h in hosts:
        name = h.name if (wide or long) else h.name[:name_w]
        line = f"{name:<{name_w}} {h.status:>6}"
        if h.status != "unavail":
            line += "".join(_field(("*" if n in h.busy else "") + index_value(n, h.load[n]), w) for n, w in cols)
        out.append(line)
    return "\n".join(out) + "\n"


# --- lsinfo ------------------------------------------------------------------------


def lsinfo(info: LsInfoView, *, resources: bool, types: bool, models: bool, long: bool,
           not_found: list[str], wide: bool = False) -> str:
    """lsinfo's sections; *wide* (-w): resource names whole, their column as
    wide as the longest (13 at least), the header's words following it."""
    out: list[str] = []
    if resources:
        if long:
            for i, r in enumerate(info.resources):
                out += ([] if i == 0 else [""]) + [
                    f"RESOURCE_NAME:  {r.name}", f"DESCRIPTION: {r.description}",
                    "TYPE    ORDER   INTERVAL  BUILTIN  DYNAMIC  RELEASE",
                    f"{r.type[:7]:<7} {r.order:>5}  {r.interval:>9} {'Yes' if r.builtin else 'No':>8} "
                    f"{'Yes' if r.interval > 0 else 'No':>8} {'Yes' if r.release else 'No':>8}"]
        else:
            nw = max([13] + [len(r.name) for r in info.resources]) if wide else 13
            out.append(f"{'RESOURCE_NAME':<{nw}}   TYPE   ORDER  DESCRIPTION")
            out += [f"{r.name if wide else r.name[:13]:<{nw}} {r.type[:7]:>7} {r.order[:5]:>5}   {r.description}"
                    for r in info.resources]
        out += [f"{n}: Resource name not found" for n in not_found]
    if types:
        out += ([""] if resources else []) + ["TYPE_NAME", *info.types]
    if models:
        out += ([""] if resources or types else []) + ["MODEL_NAME      CPU_FACTOR      ARCHITECTURE"]
        out += [f"{name:<16}    {cpuf:6.2f}      {arch}" for name, cpuf, arch in info.models]
    return "\n".join(out) + "\n"


# --- lsload -o / -json, lshosts -o / -json --------------------------------------------

_SIZES = ("tmp", "swp", "mem")
#: the -o fields (LSF 10.1 lsload and lshosts references) and their recommended
#: widths: the commands' own column widths (LSF's tables of them were not found,
#: lsf-breadth.md section 10). Read by render/outfmt.py, LSF's one reader of -o strings.
LOAD_FIELDS: dict[str, outfmt.FieldDef] = {
    "host_name": outfmt.FieldDef(15, ("hname",)), "status": outfmt.FieldDef(6),
    **{n: outfmt.FieldDef(w, memory=n in _SIZES) for n, w in _LOAD_COLS}}
HOST_FIELDS: dict[str, outfmt.FieldDef] = {
    "host_name": outfmt.FieldDef(11, ("hname",)), "type": outfmt.FieldDef(7), "model": outfmt.FieldDef(8),
    "cpuf": outfmt.FieldDef(5), "ncpus": outfmt.FieldDef(5), "nprocs": outfmt.FieldDef(6),
    "ncores": outfmt.FieldDef(6), "nthreads": outfmt.FieldDef(8), "maxmem": outfmt.FieldDef(6, memory=True),
    "maxswp": outfmt.FieldDef(6, memory=True), "maxtmp": outfmt.FieldDef(6, memory=True),
    "server": outfmt.FieldDef(6), "resources": outfmt.FieldDef(20, ("res",))}
#: what lsload -json shows without -o nor LSF_LSLOAD_FORMAT: the default table's columns
DEFAULT_LOAD_FORMAT = "HOST_NAME status r15s r1m r15m ut pg ls it tmp swp mem"
#: what lshosts -json shows without -o nor LSF_LSHOSTS_FORMAT: the default table's columns
DEFAULT_HOSTS_FORMAT = "HOST_NAME type model cpuf ncpus maxmem maxswp server RESOURCES"


@dataclass(frozen=True)
class _LsField(outfmt.FieldSpec):
    """A field of lsload or lshosts: its header (and JSON key) keeps the case
    the field is documented in: `HOST_NAME` and `RESOURCES` upper case, the
    others (`status`, `r15s`, `type`, `maxmem` ...) lower case [seen]."""

    @property
    def header(self) -> str:
        return self.name.upper() if self.name in ("host_name", "resources") else self.name


def _format(spec: str, fields: Mapping[str, outfmt.FieldDef]) -> outfmt.Format:
    fmt = outfmt.parse_format(spec, fields)
    return outfmt.Format(tuple(_LsField(f.name, f.width, f.right, f.unit) for f in fmt.fields), fmt.delimiter)


def load_format(spec: str) -> outfmt.Format:
    """lsload -o's `"field[:[-][width][:unit]] ... [delimiter='c']"` (outfmt's
    rules); raises outfmt.FormatError with LSF's text."""
    return _format(spec, LOAD_FIELDS)


def hosts_format(spec: str) -> outfmt.Format:
    """lshosts -o's format string, as load_format."""
    return _format(spec, HOST_FIELDS)


def _in_mb(mb: float, unit: str | None) -> str:
    return mem_in_unit(mb * 1024, unit) if unit else f"{mb:.1f}M"


def _load_value(h: HostLoadView, field: str, unit: str | None = None) -> str:
    """An lsload field's value in -o and -json: sizes unscaled in MB with one
    decimal (`37823.2M`), or in the field's *unit* as bjobs -o shows one
    (`14.1 G`); ut in percent, the rest as the table shows them; an
    unavailable host has no index (`-`)."""
    if field == "host_name":
        return h.name
    if field == "status":
        return h.status
    if h.status == "unavail":
        return "-"
    value = h.load.get(field, 0.0)
    if field in _SIZES:
        return _in_mb(value, unit)
    if field == "io":
        return f"{value:.1f}"
    return ("*" if field in h.busy else "") + index_value(field, value)


def _host_value(h: HostLoadView, field: str, unit: str | None = None) -> str:
    """An lshosts field's value in -o and -json: sizes whole MB (`16030M`
    [seen]) or in the field's unit; lsfemu's hosts have one processor of
    ncpus cores of one thread; a client host has no values (`-`)."""
    if field in ("host_name", "type", "model"):
        return h.name if field == "host_name" else getattr(h, field)
    if field == "cpuf":
        return f"{h.cpuf:.1f}"
    if field == "server":
        return "Yes" if h.server else "No"
    if field == "resources":
        return _resources(h)
    if field in ("maxmem", "maxswp", "maxtmp"):
        mb = getattr(h, field)
        return "-" if mb <= 0 else mem_in_unit(mb * 1024, unit) if unit else f"{mb:.0f}M"
    if h.ncpus <= 0:
        return "-"
    return str({"ncpus": h.ncpus, "nprocs": 1, "ncores": h.ncpus, "nthreads": 1}[field])


def _rows(hosts: Iterable[HostLoadView], fmt: outfmt.Format, value) -> list[list[str]]:
    return [[value(h, f.name, f.unit) for f in fmt.fields] for h in hosts]


def lsload_custom(hosts: Iterable[HostLoadView], fmt: outfmt.Format) -> str:
    """lsload -o: a header of the field names, one row per host."""
    return outfmt.text_table(fmt, _rows(hosts, fmt, _load_value))


def lsload_json(hosts: Iterable[HostLoadView], fmt: outfmt.Format) -> str:
    """lsload -o ... -json: bhosts -json's layout (lsf-breadth.md 4.2), COMMAND
    `lsload`, HOSTS the count, every value a string."""
    return outfmt.json_rows("lsload", "HOSTS", fmt, _rows(hosts, fmt, _load_value))


def lshosts_custom(hosts: Iterable[HostLoadView], fmt: outfmt.Format) -> str:
    """lshosts -o: a header of the field names, one row per host."""
    return outfmt.text_table(fmt, _rows(hosts, fmt, _host_value))


def lshosts_json(hosts: Iterable[HostLoadView], fmt: outfmt.Format) -> str:
    """lshosts -o ... -json: COMMAND `lshosts`, HOSTS the count."""
    return outfmt.json_rows("lshosts", "HOSTS", fmt, _rows(hosts, fmt, _host_value))


# --- lsclusters ----------------------------------------------------------------------


def lsclusters(clusters: Iterable[tuple[str, str, str, str, int, int]], *, wide: bool = False) -> str:
    """lsclusters (lsf-breadth.md 3.1): rows of (name, status, master, admin,
    hosts, servers); the master cut at 18 unless *wide*, where its column is
    as wide as the longest master."""
    rows = list(clusters)
    mw = max([18] + [len(r[2]) for r in rows]) if wide else 18
    out = [f"{'CLUSTER_NAME':<15}{'STATUS':<9}{'MASTER_HOST':<{mw}} {'ADMIN':>12} {'HOSTS':>8} {'SERVERS':>8}"]
    for name, status, master, admin, nhosts, nservers in rows:
        out.append(f"{name if wide else name[:15]:<15}{status:<9}{master if wide else master[:mw]:<{mw}} "
                   f"{admin:>12} {nhosts:>8} {nservers:>8}")
    return "\n".join(out) + "\n"
