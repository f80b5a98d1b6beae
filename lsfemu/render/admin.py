"""The administrators' views (issue 21, part 4): `badmin showconf mbd` and
`lsadmin showconf lim` (lsf-breadth.md 3.6, 4.7); data in, text out.
"""

from __future__ import annotations

from typing import Mapping


def showconf(title: str, conf: Mapping[str, str]) -> str:
    """A title line, then `    NAME = value` per parameter, sorted by name:
    clients skip the first line and split the others on ` = `."""
    return "".join([title + "\n"] + [f"    {k} = {conf[k]}\n" for k in sorted(conf)])
