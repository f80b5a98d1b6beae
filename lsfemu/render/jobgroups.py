"""bjgroup's table (lsf-breadth 8.1, measured on the bjgroup(1) sample of LSF
10.1's English page): GROUP_NAME left in 19 columns, the counts left in 8, 8,
7, 7, 7 and 8, SLA left in 6 (`()` for none), JLIMIT `started/limit`
right-justified in 6 (`-`: no limit), two blanks, OWNER. Pure: rows in, text out.
"""

from __future__ import annotations

HEADER = "GROUP_NAME         NJOBS   PEND    RUN    SSUSP  USUSP  FINISH  SLA   JLIMIT  OWNER"


def bjgroup_table(rows) -> str:
    """The table of `rows` (ops.jobgroups.GroupRow), ending with a newline."""
    lines = [HEADER]
    for r in rows:
        limit = f"{r.started}/{'-' if r.limit is None else r.limit}"
        lines.append(f"{r.path:<19}{r.njobs:<8}{r.pend:<8}{r.run:<7}{r.ssusp:<7}{r.ususp:<7}{r.finish:<8}"
                     f"{'()':<6}{limit:>6}  {r.owner}")
    return "\n".join(lines) + "\n"
