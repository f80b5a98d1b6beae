"""A job's effective resource requirement: bsub -R merged with its application
profile's and its queue's RES_REQ by LSF 10.1's rules, and LSF's normalised
``Combined:`` / ``Effective:`` strings (issue 19), pure.

:func:`merge` takes the three parsed levels (sched.resreq.ResReq; empty for a
level that gives none) and returns one ResReq the placement compiles
(sched.placement.compile_req), each simple requirement holding:

* ``select``: every level's select ANDed, job first, then application, then
  queue, each parenthesised when there are several; when none of them names a
  type (select.names_typed), LSF's ``type == local`` is added; no select at
  all is ``type == local``;
* ``order``: when the job gave -R, its order or LSF's default ``r15s:pg`` (the
  queue's and application's order are ignored then, as LSF documents); else the
  application's, else the queue's, else ``r15s:pg``; ``default_order`` says
  that the default was filled in (nobody gave an order: placement keeps the
  hosts' own order, docs/semantics.md "Order of hosts");
* ``rusage``: merged per resource, the higher level's value winning (job over
  application over queue); a resource's duration and decay come from the level
  that gave its value, or when that level gave none, from the lower level that
  names the same resource with them (LSF's example: queue
  ``rusage[mem=200:duration=20:decay=1]`` and job ``rusage[mem=100]`` make
  ``rusage[mem=100:duration=20:decay=1]``); items with the same duration,
  decay and threshold form one block. Several rusage sections of one level
  (several -R) merge the same way, the first winning;
* ``span``, ``cu``, ``affinity``: the job's, else the application's, else the
  queue's; ``span[hosts=-1]`` at the job level removes the queue's span;
* ``same``: every level's resources together.

Compound (``n*{...} + ...``) and alternative (``{...} || {...}``) levels: the
highest such level (job, application, queue) is the frame; lower compound or
alternative levels are dropped; the simple levels are merged into each of its
terms, with their own rank (a simple job -R wins over a compound queue term).

:func:`combined_text` and :func:`effective_text` write a merged requirement as
bjobs -l and bhist -l show it (lsf-breadth.md section 7.3): sections in the
order ``select order rusage span same cu affinity``, rusage amounts with two
decimals (memory in LSF_UNIT_FOR_LIMITS' unit), ``duration=8h`` and the
``:decay=0`` LSF adds to a block with a duration; the Effective string wraps
each select part once more and ends with a blank (as the captures show).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from lsfemu.sched import resreq, select
from lsfemu.sched.resreq import Alternative, ResReq, RusageBlock, RusageItem, Simple, Term

_LOCAL = select.DEFAULT_SELECT  # "type == local"


# --- merging --------------------------------------------------------------------


def _is_simple(req: ResReq) -> bool:
    return len(req.alternatives) == 1 and not req.alternatives[0].compound


def _blocks(simple: Simple | None, alt: int) -> list[RusageBlock]:
    """The blocks of rusage alternative *alt* of the first section and the first
    alternative of the others (several -R), a resource kept where it first appears."""
    out: list[RusageBlock] = []
    seen: set[str] = set()
    for n, section in enumerate(simple.rusage if simple is not None else ()):
        for block in section[alt if n == 0 and alt < len(section) else 0]:
            items = tuple(i for i in block.items if i.name not in seen)
            seen.update(i.name for i in items)
            if items:
                out.append(replace(block, items=items))
    return out


def _merge_blocks(levels: list[list[RusageBlock]]) -> tuple[RusageBlock, ...]:
    """The highest level's blocks as written; a lower block's resources that
    the higher ones lack join the higher block that overrode one of its
    resources (which then takes its duration and decay if it had none), else
    form a block of their own."""
    out: list[RusageBlock] = []
    for blocks in levels:
        for low in blocks:
            have = {i.name: k for k, b in enumerate(out) for i in b.items}
            new = tuple(i for i in low.items if i.name not in have)
            host = next((have[i.name] for i in low.items if i.name in have), None)
            if host is None:
                if new:
                    out.append(replace(low, items=new))
                continue
            b = out[host]
            if not b.durations and low.durations:
                b = replace(b, durations=low.durations, decays=b.decays or low.decays)
            if b.threshold is None and low.threshold is not None:
                b = replace(b, threshold=low.threshold)
            out[host] = replace(b, items=b.items + new)
    return tuple(out)


def _merge_rusage(levels: list[Simple | None]) -> tuple[tuple[tuple[RusageBlock, ...], ...], ...]:
    """One rusage section: the levels' items merged per resource (highest
    first); the highest level with alternatives (``||``) gives the
    alternatives, the others' first alternative merged into each."""
    driver, count = None, 1
    for i, s in enumerate(levels):
        if s is not None and s.rusage and len(s.rusage[0]) > 1:
            driver, count = i, len(s.rusage[0])
            break
    alternatives = []
    for k in range(count):
        blocks = _merge_blocks([_blocks(s, k if i == driver else 0) for i, s in enumerate(levels)])
        if blocks:
            alternatives.append(blocks)
    return (tuple(alternatives),) if alternatives else ()


def _first(levels: list[Simple | None], attr: str) -> str | None:
    for s in levels:
        if s is not None and getattr(s, attr):
            return getattr(s, attr)
    return None


def _merge_simple(levels: list[Simple | None], job_given: bool) -> Simple:
    """*levels*: job, application, queue (None where a level gives nothing)."""
    parts = [s.select.strip() for s in levels if s is not None and s.select and s.select.strip()]
    if not parts:
        sel = _LOCAL
    else:
        if not any(select.names_typed(p) for p in parts):
            parts.append(_LOCAL)
        sel = parts[0] if len(parts) == 1 else " && ".join(f"({p})" for p in parts)
    if job_given:
        order = levels[0].order if levels[0] is not None else None
    else:
        order = _first(levels, "order")
    span = _first(levels, "span")
    if span is not None and span.replace(" ", "") == "hosts=-1":
        span = None
    same: list[str] = []
    for s in levels:
        for name in (s.same or "").split(":") if s is not None else ():
            if name.strip() and name.strip() not in same:
                same.append(name.strip())
    return Simple(select=sel, order=order or select.DEFAULT_ORDER, rusage=_merge_rusage(levels), span=span,
                  same=":".join(same) or None, cu=_first(levels, "cu"), affinity=_first(levels, "affinity"),
                  default_order=not order)


def merge(job: ResReq, app: ResReq | None = None, queue: ResReq | None = None) -> ResReq:
    """The effective requirement of a job (see the module doc)."""
    levels = [job, app or ResReq(), queue or ResReq()]
    simples: list[Simple | None] = [r.alternatives[0].terms[0].simple if _is_simple(r) else None for r in levels]
    frame_at = next((i for i, r in enumerate(levels) if r.alternatives and not _is_simple(r)), None)
    job_given = bool(job.alternatives)
    if frame_at is None:
        return ResReq((Alternative((Term(None, _merge_simple(simples, job_given)),)),))
    alts = []
    for alt in levels[frame_at].alternatives:
        terms = []
        for t in alt.terms:
            ranked = [s for i, s in enumerate(simples) if i < frame_at] + [t.simple] + \
                     [s for i, s in enumerate(simples) if i > frame_at]
            terms.append(Term(t.count, _merge_simple(ranked, job_given)))
        alts.append(Alternative(tuple(terms), alt.compound, alt.delay))
    return ResReq(tuple(alts))


def parse_level(text: str | None, units: Mapping[str, str] | None = None) -> ResReq:
    """A queue's or application's RES_REQ; one LSF would refuse is ignored
    (badadmin ckconfig reports it: lsfemu's configuration check keeps the text)."""
    try:
        return resreq.parse(text, dict(units or {}))
    except resreq.ResReqError:
        return ResReq()


def effective(job_text: str | None, app_text: str | None = None, queue_text: str | None = None,
              units: Mapping[str, str] | None = None) -> ResReq:
    """:func:`merge` of the three texts (the job's must parse: bsub checked it)."""
    return merge(resreq.parse(job_text, dict(units or {})), parse_level(app_text, units),
                 parse_level(queue_text, units))


# --- LSF's normalised text ------------------------------------------------------------


def _num(value: float) -> str:
    return f"{value:.2f}"


def _minutes(m: float) -> str:
    """A duration as LSF writes it back: whole hours as ``8h``, else minutes."""
    if m and m % 60 == 0:
        return f"{int(m // 60)}h"
    if m == int(m):
        return f"{int(m)}m"
    return f"{int(round(m * 60))}s"


def _phases(values: list[str]) -> str:
    return values[0] if len(values) == 1 else "(" + " ".join(values) + ")"


def _block_text(block: RusageBlock, units: Mapping[str, str]) -> str:
    items = []
    for item in block.items:
        scale = select.UNIT_MB.get(units.get(item.name, "MB").lower(), 1.0) if item.name in ("mem", "swp", "tmp") else 1.0
        amount = _phases([_num(a / scale) for a in item.amounts])
        items.append(f"{item.name}={amount}" + (f"/{item.method}" if item.method else ""))
    text = ":".join(items)
    if block.durations:
        text += ":duration=" + _phases([_minutes(d) for d in block.durations])
        decays = list(block.decays) + [0] * (len(block.durations) - len(block.decays))
        text += ":decay=" + _phases([str(d) for d in decays])
    elif block.decays:
        text += ":decay=" + _phases([str(d) for d in block.decays])
    if block.threshold is not None:
        text += f":threshold={_num(block.threshold)}"
    return text


def _simple_text(s: Simple, units: Mapping[str, str], effective: bool) -> str:
    sel = s.select or _LOCAL
    if effective and " && " in sel:
        sel = " && ".join(p if p == f"({_LOCAL})" else f"({p})" for p in _top_and_parts(sel))
    out = [f"select[{sel}]", f"order[{s.order or select.DEFAULT_ORDER}]"]
    if s.rusage:
        out.append("rusage[" + "||".join(",".join(_block_text(b, units) for b in alt) for alt in s.rusage[0]) + "]")
    for name in ("span", "same", "cu", "affinity"):
        value = getattr(s, name)
        if value:
            out.append(f"{name}[{value}]")
    return " ".join(out)


def _top_and_parts(text: str) -> list[str]:
    """``(a) && (b)`` -> ["(a)", "(b)"]: the parts a merged select joined."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c == "("
        depth -= c == ")"
        if depth == 0 and text.startswith(" && ", i):
            parts.append(text[start:i])
            start = i + 4
    parts.append(text[start:])
    return parts


def _alternative_text(alt: Alternative, units: Mapping[str, str], effective: bool) -> str:
    if not alt.compound:
        return _simple_text(alt.terms[0].simple, units, effective)
    return " + ".join(f"{t.count}*{{{_simple_text(t.simple, units, effective)}}}" if t.count is not None
                      else f"{{{_simple_text(t.simple, units, effective)}}}" for t in alt.terms)


def combined_text(req: ResReq, units: Mapping[str, str] | None = None) -> str:
    """bjobs -l's ``Combined:`` string of a merged requirement."""
    u = units or {}
    if not req.alternatives:
        return _simple_text(Simple(), u, False)
    if len(req.alternatives) == 1:
        return _alternative_text(req.alternatives[0], u, False)
    return " || ".join(f"{{{_alternative_text(a, u, False)}}}" + (f"@{a.delay}" if a.delay is not None else "")
                       for a in req.alternatives)


def effective_text(req: ResReq, units: Mapping[str, str] | None = None, chosen: int = 0) -> str:
    """bjobs -l's ``Effective:`` and bhist -l's ``Effective RES_REQ`` string: the
    alternative the job was placed with (*chosen*), ending with a blank."""
    u = units or {}
    if not req.alternatives:
        return _simple_text(Simple(), u, True) + " "
    alt = req.alternatives[min(max(chosen, 0), len(req.alternatives) - 1)]
    return _alternative_text(replace(alt, delay=None), u, True) + " "


def unknown_name(req: ResReq, resources: Mapping[str, str]) -> str | None:
    """The first name a select[] of *req* reads that is neither built in nor in
    *resources* (select.cluster_resources), or None: bsub and bmod refuse it."""
    for alt in req.alternatives:
        for term in alt.terms:
            if term.simple.select:
                try:
                    select.compile_select(term.simple.select, "", resources=resources)
                except select.SelectError as e:
                    if e.unknown is not None:
                        return e.unknown
    return None
