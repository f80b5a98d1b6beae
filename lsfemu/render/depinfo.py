"""bjdepinfo's output: with -l, one sentence per queried job on its
condition, then the table (lsf-breadth.md 8.5: `JOBID PARENT PARENT_STATUS
PARENT_NAME LEVEL`, columns 15, 15, 15 and 13 wide; -c: CHILD for PARENT).
Plain data in, text out."""

from __future__ import annotations

#: how -l says a condition stands (TRUE, FALSE, INVALID as lsfemu.sched.depend evaluates it)
_SAID = {"TRUE": "satisfied", "FALSE": "not satisfied", "INVALID": "invalid or never satisfied"}
_WIDTHS = (15, 15, 15, 13)


def _col(text: str, width: int) -> str:
    return text + " " * max(1, width - len(text))


def condition_line(job: str, state: str, condition: str) -> str:
    """`The dependency condition of job <N> is not satisfied: done(122)`."""
    return f"The dependency condition of job <{job}> is {_SAID[state]}: {condition}"


def table(rows, children: bool) -> list[str]:
    """The header and one line per DepRow (lsfemu.ops.depinfo)."""
    word = "CHILD" if children else "PARENT"
    head = ("JOBID", word, f"{word}_STATUS", f"{word}_NAME")
    lines = ["".join(_col(h, w) for h, w in zip(head, _WIDTHS)) + "LEVEL"]
    for r in rows:
        lines.append("".join(_col(v, w) for v, w in zip((r.job, r.other, r.status, r.name), _WIDTHS)) + str(r.level))
    return lines
