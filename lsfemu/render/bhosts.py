"""bhosts output format (reference section 7.2): data in, text out.

Default table: host name cut at 18, STATUS in 11 (every ``closed_*`` state
shows as ``closed``). ``-w``: host names never cut, full status
(``closed_Adm``, ``closed_Full`` ...). The ``-w`` header widens STATUS to 14
while rows keep 11 columns -- exactly what real LSF 10 ``bhosts -w`` captures
show (``STATUS          JL/U`` over ``ok              -``).
"""

from __future__ import annotations

from typing import Iterable

from lsfemu.views import HostView

HEADER = "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV "
HEADER_WIDE = "HOST_NAME          STATUS          JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV "


def short_status(status: str) -> str:
    return "closed" if status.startswith("closed") else status


def table(hosts: Iterable[HostView], *, wide: bool = False) -> str:
    hosts = list(hosts)
    if not hosts:
        return ""
    out = [HEADER_WIDE if wide else HEADER]
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
