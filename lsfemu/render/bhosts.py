"""bhosts output format (reference section 7.2): data in, text out.

Default table: host name cut at 18, STATUS in 11 (every ``closed_*`` state
shows as ``closed``). ``-w``: host names never cut, full status
(``closed_Adm``, ``closed_Full`` ...). The ``-w`` header widens STATUS to 14
while rows keep 11 columns -- exactly what real LSF 10 ``bhosts -w`` captures
show (``STATUS          JL/U`` over ``ok              -``).

``-l`` (`long`): one block per host: its row with the CPU factor and
DISPATCH_WINDOW, the load used for scheduling (Total: the indices after
reservations, and the unused slots; Reserved: what started jobs reserve) and
the cluster's shared resources (lsf.cluster's ResourceMap: the host's instance's
Total and Reserved) and the load thresholds (lsb.hosts' loadSched; loadStop is
not built: `-`), each followed by an empty line; an unavailable host has no load
block.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from lsfemu.render import outfmt
from lsfemu.render.bjobs.common import LOAD_HEADER, LOAD_STOP
from lsfemu.render.lstools import index_value, size
from lsfemu.render.shared import number
from lsfemu.views import HostLoadView, HostView, SharedResourceView

HEADER = "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV "
HEADER_WIDE = "HOST_NAME          STATUS          JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV "


def short_status(status: str) -> str:
    return "closed" if status.startswith("closed") else status


def table(hosts: Iterable[HostView], *, wide: bool = False, header: bool = True) -> str:
    hosts = list(hosts)
    if not hosts:
        return ""
    out = [HEADER_WIDE if wide else HEADER] if header else []
    for h in hosts:
        name = h.name if wide else h.name[:18]
        status = h.status if wide else short_status(h.status)
        jlu = "-" if h.jl_u is None else str(h.jl_u)
        mx = "-" if h.max_slots is None else str(h.max_slots)
        out.append(
            f"{name:<18} {status:<11} {jlu:>5} {mx:>6} {h.njobs:>6} {h.run:>6} "
            f"{h.ssusp:>6} {h.ususp:>6} {h.rsv:>6}"
        )
    return "\n".join(out) + "\n"


# --- bhosts -l (lsf-breadth.md 4.3; OpenLava bhosts.c) --------------------------------

#: CURRENT LOAD USED FOR SCHEDULING's columns: (index, width)
_LOAD_COLS = (("r15s", 8), ("r1m", 6), ("r15m", 6), ("ut", 6), ("pg", 6), ("io", 6), ("ls", 5), ("it", 6),
              ("tmp", 6), ("swp", 6), ("mem", 6))


def _load_row(label: str, values: Mapping[str, float], slots: str) -> str:
    cells = "".join(f"{index_value(n, values.get(n, 0.0)):>{w}}" for n, w in _LOAD_COLS)
    return f" {label:<11}{cells}{slots:>7}"


#: OpenLava's printThresholds (cmd.prt.c fill_load): each index's format and its `-`
_THRESHOLD_FORMATS = (("r15s", "{:5.1f} ", "   -  "), ("r1m", "{:5.1f} ", "   -  "), ("r15m", "{:5.1f} ", "   -  "),
                      ("ut", " {:3.1f} ", "   - "), ("pg", "{:7.1f} ", "      - "), ("io", "{:5.0f} ", "    - "),
                      ("ls", " {:3.0f} ", "   - "), ("it", "{:5.0f} ", "    - "), ("tmp", "{:5.0f}M ", "    -  "),
                      ("swp", "{:5.0f}M ", "    -  "), ("mem", "{:5.0f}M ", "    -  "))


def threshold_row(label: str, values: Mapping[str, float]) -> str:
    """A loadSched / loadStop row under LOAD_HEADER (`-` where no threshold is set)."""
    return label + "".join(fmt.format(values[n]) if n in values else dash for n, fmt, dash in _THRESHOLD_FORMATS)


def shared_block(host: str, shared: Iterable[SharedResourceView]) -> list[str]:
    """bhosts -l's shared resources under the load (OpenLava bhosts.c makeShareFields): each Numeric
    shared resource a column as wide as its name, total or reservation plus one, right-justified; Total
    the host's instance's value left for scheduling, Reserved what is reserved of it (`-` for a resource
    the host has no instance of); the columns wrap before 80 characters, each group its own three rows."""
    cols = []
    for v in shared:
        if not v.numeric:
            continue
        inst = next((i for i in v.instances if host in i.hosts), None)
        total = "-" if inst is None else number((inst.number or 0.0) - inst.reserved)
        rsv = "-" if inst is None else f"{inst.reserved:.1f}"
        cols.append((v.name, total, rsv, max(len(v.name), len(total), len(rsv)) + 1))
    out: list[str] = []
    while cols:
        width, n = 11, 0
        while n < len(cols) and (n == 0 or width + cols[n][3] < 80):
            width += cols[n][3]
            n += 1
        part, cols = cols[:n], cols[n:]
        out += [f" {'':<11}" + "".join(f"{c[0]:>{c[3]}}" for c in part),
                f" {'Total':<11}" + "".join(f"{c[1]:>{c[3]}}" for c in part),
                f" {'Reserved':<11}" + "".join(f"{c[2]:>{c[3]}}" for c in part), ""]
    return out


def long(hosts: Iterable[tuple[HostView, HostLoadView, float | None]],
         shared: Iterable[SharedResourceView] = ()) -> str:
    """One block per host: (bhosts' row, its load view, unused slots or None when unlimited); *shared*:
    the cluster's shared resources (bhosts -s's views), shown under each host's load."""
    shared = list(shared)
    out: list[str] = []
    for h, load, free in hosts:
        jlu = "-" if h.jl_u is None else str(h.jl_u)
        mx = "-" if h.max_slots is None else str(h.max_slots)
        out += [f"HOST  {h.name}",
                "STATUS           CPUF  JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV DISPATCH_WINDOW",
                f"{h.status:<15}{load.cpuf:6.2f} {jlu:>5} {mx:>6} {h.njobs:>6} {h.run:>6} {h.ssusp:>6} {h.ususp:>6} "
                f"{h.rsv:>6} {'-':>6}",
                ""]
        if load.status != "unavail":
            head = "".join(f"{n:>{w}}" for n, w in _LOAD_COLS)
            out += [" CURRENT LOAD USED FOR SCHEDULING:",
                    f" {'':<11}{head}{'slots':>7}",
                    _load_row("Total", load.load, "-" if free is None else f"{free:.0f}"),
                    _load_row("Reserved", load.reserved, "-"),
                    ""]
            out += shared_block(h.name, shared)
        out += [" LOAD THRESHOLD USED FOR SCHEDULING:", LOAD_HEADER, threshold_row(" loadSched", h.load_sched).rstrip(),
                LOAD_STOP.rstrip(), ""]
    return "\n".join(out) + "\n"


# --- bhosts -o / -json (lsf-breadth.md 4.2) -------------------------------------------

#: bhosts -o's fields: canonical name -> recommended width and aliases (LSF 10.1's
#: names, lsf-breadth.md 4.2; the widths are lsfemu's: the table's columns where
#: it has them, docs/semantics.md)
FIELDS: dict[str, outfmt.FieldDef] = {
    "host_name": outfmt.FieldDef(20, ("hname",)),
    "status": outfmt.FieldDef(15, ("stat",)),
    "cpuf": outfmt.FieldDef(10),
    "jl_u": outfmt.FieldDef(4, ("jlu",)),
    "max": outfmt.FieldDef(4),
    "njobs": outfmt.FieldDef(5),
    "run": outfmt.FieldDef(5),
    "ssusp": outfmt.FieldDef(5),
    "ususp": outfmt.FieldDef(5),
    "rsv": outfmt.FieldDef(4),
    "dispatch_window": outfmt.FieldDef(50, ("dispwin",)),
    "ngpus": outfmt.FieldDef(5),
    "ngpus_alloc": outfmt.FieldDef(11),
    "ngpus_excl_alloc": outfmt.FieldDef(16),
    "ngpus_shared_alloc": outfmt.FieldDef(18),
    "ngpus_shared_jexcl_alloc": outfmt.FieldDef(24),
    "ngpus_excl_avail": outfmt.FieldDef(16),
    "ngpus_shared_avail": outfmt.FieldDef(18),
    "available_mem": outfmt.FieldDef(15),
    "reserved_mem": outfmt.FieldDef(15),
    "total_mem": outfmt.FieldDef(15),
}


def parse_format(spec: str) -> outfmt.Format:
    """``bhosts -o`` / LSB_BHOSTS_FORMAT (``all`` included, FP14)."""
    return outfmt.parse_format(spec, FIELDS, all_field=True)


#: the fields read from the host's load (bhosts -l's numbers): the caller fetches it only for these
LOAD_FIELDS = frozenset({"cpuf", "available_mem", "reserved_mem", "total_mem"})


def field_value(h: HostView, name: str, load: HostLoadView | None = None) -> str | None:
    """One field of a host: what bhosts -w / -l show for it (`-` for no limit;
    the status word in full); None for what lsfemu has not (GPUs, dispatch windows)."""
    counts = {"njobs": h.njobs, "run": h.run, "ssusp": h.ssusp, "ususp": h.ususp, "rsv": h.rsv}
    if name in counts:
        return str(counts[name])
    if name == "host_name":
        return h.name
    if name == "status":
        return h.status
    if name == "jl_u":
        return "-" if h.jl_u is None else str(h.jl_u)
    if name == "max":
        return "-" if h.max_slots is None else str(h.max_slots)
    if load is None:
        return None
    if name == "cpuf":
        return f"{load.cpuf:.2f}"
    if name == "total_mem":
        return size(load.maxmem)
    if name == "available_mem":
        return size(load.load.get("mem", 0.0))
    if name == "reserved_mem":
        return size(load.reserved.get("mem", 0.0))
    return None


def _rows(hosts, fmt: outfmt.Format, loads: Mapping[str, HostLoadView]) -> list[list[str | None]]:
    return [[field_value(h, f.name, loads.get(h.name)) for f in fmt.fields] for h in hosts]


def custom(hosts: Iterable[HostView], fmt: outfmt.Format, loads: Mapping[str, HostLoadView], *,
           header: bool = True) -> str:
    """``bhosts -o``: the header and one line per host."""
    return outfmt.text_table(fmt, _rows(hosts, fmt, loads), header=header)


def json_out(hosts: Iterable[HostView], fmt: outfmt.Format, loads: Mapping[str, HostLoadView]) -> str:
    """``bhosts -o ... -json``: LSF's document with the count key HOSTS."""
    return outfmt.json_rows("bhosts", "HOSTS", fmt, _rows(hosts, fmt, loads))
