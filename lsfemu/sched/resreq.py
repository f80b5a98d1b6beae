"""Resource requirement strings (``bsub -R``): LSF's grammar, parsed once here
for everyone -- bsub's validation, the APS MEM and SWAP factors, the memory
the fairshare plug-in and the job report count.

:func:`parse` reads a whole string into a :class:`ResReq` or raises
:class:`ResReqError` (LSF's ``Bad resource requirement syntax``):

* a **simple** requirement: sections ``select[] order[] rusage[] span[] same[]
  cu[] affinity[]`` separated by blanks, in any order, optionally preceded by
  a bare select expression (``"rhel6 || rhel7"``, ``"mem>100 rusage[mem=1]"``);
  a section name LSF does not know, or text between sections, is refused;
* a **compound** requirement ``n1*{simple} + n2*{simple}`` (``n*`` optional,
  n >= 1), and **alternatives** ``{...} || {...}``, each optionally followed by
  a delay ``@D`` (a string with a ``{`` at its top level is read this way);
* ``select[]``: an expression of resource names, numbers (a unit may follow
  one: ``mem>4G``), quoted strings, ``== != < <= > >= && || ! + - * /``,
  parentheses and ``defined(name)``;
* ``order[]``: ``[!][-]name[:[-]name]...``;
* ``rusage[]``: comma-separated blocks of ``name=value`` items joined by
  ``:``, alternatives after ``||``; a value is a number with an optional unit
  (mem, swp and tmp only) and an optional ``/job``, ``/task`` or ``/host``, or
  several phases ``(500 200)`` that never increase; ``duration`` (minutes, or
  with an ``h``/``m``/``s`` suffix), ``decay`` (0 or 1) and ``threshold``
  apply to their block, and take one value per phase (``duration=(10 20)``;
  every phase but the last needs a duration); a resource at most once per
  alternative (LSF: "a given load index cannot appear more than once");
* ``span[]``: ``hosts=N`` (N >= 1, or -1), ``ptile=...``, ``block=N``,
  ``stripe[=N]``; ``same[]``: names joined by ``:``; ``cu[]``: ``key[=value]``
  items joined by ``:``; ``affinity[]``: anything balanced and not empty.

select[] is read by sched/select.py's compiler (the same grammar evaluates
it per host); sched/resmerge.py merges a job's requirement with its queue's
and application's RES_REQ; the placement (sched/placement.py) reads the rest.

Units: a bare mem or swp amount is in ``LSF_UNIT_FOR_LIMITS`` when lsf.conf
sets it, else MB (LSF: the parameter "also controls the resource rusage
attached to the job"); tmp is MB unless ``LSF_ENABLE_TMP_UNIT=Y``
(:func:`units_from_conf`). ``K``/``KB`` ... ``E``/``EB`` after a number name
its unit; every amount is kept in MB. ``swap`` is read as ``swp``.

:func:`rusage_amounts` answers "how much mem / swp / other resource does this
job ask for in all", following the rules of the APS MEM and SWAP factors:

* simple requirement: the amount itself, or ``slots`` × the amount when
  resources are reserved per slot (RESOURCE_RESERVE_PER_SLOT=Y); a ``/job``
  amount is never multiplied, ``/task`` always is, ``/host`` follows the
  per-slot rule like a bare amount;
* compound requirement: ``m1 + m2`` when RESOURCE_RESERVE_PER_SLOT=N,
  ``n1*m1 + n2*m2`` when =Y (a term without ``n*`` counts as 1);
* only the first alternative counts, inside ``rusage[...]`` and between
  alternative requirements; multi-phase reservation: the first phase;
* when a resource appears in several rusage sections (several ``-R``), the
  first one counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsfemu.sched import select

BAD_RESREQ = "Bad resource requirement syntax"

SECTIONS = ("select", "order", "rusage", "span", "same", "cu", "affinity")
_BLOCK_KEYS = {"duration", "decay", "threshold"}
_UNIT_MB = select.UNIT_MB
_MEMORY_KEYS = {"mem", "swp", "tmp"}
_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_AMOUNT_RE = re.compile(rf"^({_NUMBER})\s*([A-Za-z]*)$")
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SECTION_RE = re.compile(r"([A-Za-z_]+)\s*\[")
_TERM_RE = re.compile(r"^\s*(?:([0-9]+)\s*\*\s*)?\{(.*)\}\s*$", re.S)
_DELAY_RE = re.compile(r"^(.*\})\s*@\s*([0-9]+)\s*$", re.S)
_DURATION_RE = re.compile(r"^([0-9]+(?:\.[0-9]*)?)\s*([hms]?)$", re.I)


class ResReqError(ValueError):
    """A resource requirement string LSF would refuse."""

    def __init__(self, detail: str = ""):
        self.detail = detail
        self.lsf_message = BAD_RESREQ
        super().__init__(BAD_RESREQ + (f" ({detail})" if detail else ""))


# --- the parsed form ----------------------------------------------------------


@dataclass(frozen=True)
class RusageItem:
    """``name=value``: the amounts (MB for mem/swp/tmp; several = phases, in order)."""

    name: str
    amounts: tuple[float, ...]
    method: str = ""  # "", "job", "task" or "host"


@dataclass(frozen=True)
class RusageBlock:
    """One comma-separated block: its items and their ``duration`` (minutes,
    one per phase), ``decay`` and ``threshold``."""

    items: tuple[RusageItem, ...]
    durations: tuple[float, ...] = ()
    decays: tuple[int, ...] = ()
    threshold: float | None = None


@dataclass(frozen=True)
class Simple:
    """A simple requirement. *rusage* holds each ``rusage[]`` section's
    alternatives (``||``), each a tuple of blocks; the other sections are kept
    as written (checked, not interpreted)."""

    select: str | None = None
    order: str | None = None
    rusage: tuple[tuple[tuple[RusageBlock, ...], ...], ...] = ()
    span: str | None = None
    same: str | None = None
    cu: str | None = None
    affinity: str | None = None
    # set by the merge (sched/resmerge.py) when nobody gave an order[] and
    # *order* is LSF's default it filled in: shown, not used by placement
    default_order: bool = False


@dataclass(frozen=True)
class Term:
    """``n*{simple}`` of a compound requirement (*count* None when ``n*`` is omitted)."""

    count: int | None
    simple: Simple


@dataclass(frozen=True)
class Alternative:
    """One alternative: a simple requirement (one term, *compound* False) or
    the terms of a compound one; *delay* is its ``@D``."""

    terms: tuple[Term, ...]
    compound: bool = False
    delay: int | None = None


@dataclass(frozen=True)
class ResReq:
    """A parsed requirement: its alternatives, the first one preferred (none when empty)."""

    alternatives: tuple[Alternative, ...] = ()


# --- helpers --------------------------------------------------------------------


def per_slot_from_params(extra: dict[str, str] | None) -> bool:
    """RESOURCE_RESERVE_PER_SLOT from lsb.params (Params.extra): Y/N, default N;
    LSF 10.1's name for it, RESOURCE_RESERVE_PER_TASK, when that is set."""
    extra = extra or {}
    value = extra.get("RESOURCE_RESERVE_PER_TASK", extra.get("RESOURCE_RESERVE_PER_SLOT", "N"))
    return value.strip().upper() in ("Y", "YES")


def units_from_conf(lsf_conf: dict[str, str] | None) -> dict[str, str]:
    """The unit of a bare mem / swp / tmp amount: LSF_UNIT_FOR_LIMITS (lsf.conf),
    else MB; tmp follows it only with LSF_ENABLE_TMP_UNIT=Y."""
    conf = lsf_conf or {}
    unit = (conf.get("LSF_UNIT_FOR_LIMITS") or "MB").strip().upper()
    if unit.lower() not in _UNIT_MB:
        unit = "MB"
    tmp = unit if conf.get("LSF_ENABLE_TMP_UNIT", "N").strip().upper() in ("Y", "YES") else "MB"
    return {"mem": unit, "swp": unit, "tmp": tmp}


def _split_top(text: str, sep: str) -> list[str]:
    """Split on *sep* outside [] and {} and (); refuse unbalanced brackets."""
    parts: list[str] = []
    depth: list[str] = []
    pairs = {"[": "]", "{": "}", "(": ")"}
    start = 0
    i = 0
    while i < len(text):
        c = text[i]
        if c in pairs:
            depth.append(pairs[c])
        elif c in "]})":
            if not depth or depth.pop() != c:
                raise ResReqError(f"unbalanced {c!r}")
        elif not depth and text.startswith(sep, i):
            parts.append(text[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    if depth:
        raise ResReqError(f"missing {depth[-1]!r}")
    parts.append(text[start:])
    return parts


def _name(text: str, what: str) -> str:
    text = text.strip()
    if not _NAME_RE.match(text):
        raise ResReqError(f"bad {what} {text!r}")
    return text


# --- select[] -----------------------------------------------------------------

def check_select(text: str) -> None:
    """A select expression (``select[...]``'s body or a bare select string):
    its syntax, as select.py compiles it (the names are the caller's to check)."""
    if not text.strip():
        raise ResReqError("empty select expression")
    try:
        select.compile_select(text, "")
    except select.SelectError as e:
        raise ResReqError(e.detail) from None


# --- order[], span[], same[], cu[], affinity[] ----------------------------------


def _check_order(body: str) -> None:
    text = body.strip()
    if text.startswith("!"):
        text = text[1:]
    for item in text.split(":"):
        _name(item.strip().removeprefix("-"), "order index")


_SPAN_KEYS = re.compile(r":\s*(?=(?:hosts|ptile|block|stripe)\b)")


def _check_span(body: str) -> None:
    if not body.strip():
        raise ResReqError("empty span[]")
    for item in _SPAN_KEYS.split(body):
        key, eq, value = item.strip().partition("=")
        key, value = key.strip(), value.strip()
        if key == "hosts" and eq and re.fullmatch(r"-1|[1-9][0-9]*", value):
            continue
        if key == "block" and eq and re.fullmatch(r"[1-9][0-9]*", value):
            continue
        if key == "stripe" and (not eq or re.fullmatch(r"[1-9][0-9]*", value)):
            continue
        if key == "ptile" and eq and re.fullmatch(r"(?:'!'|!|[1-9][0-9]*|[A-Za-z_][\w.-]*:[1-9][0-9]*)"
                                                  r"(?:\s*,\s*(?:'!'|!|[1-9][0-9]*|[A-Za-z_][\w.-]*:[1-9][0-9]*))*",
                                                  value):
            continue
        raise ResReqError(f"bad span item {item.strip()!r}")


def _check_same(body: str) -> None:
    for item in body.split(":"):
        _name(item, "same[] resource")


def _check_cu(body: str) -> None:
    for item in body.split(":"):
        key, eq, value = item.partition("=")
        _name(key, "cu[] keyword")
        if eq and not re.fullmatch(r"\s*[A-Za-z0-9_.\-]+\s*", value):
            raise ResReqError(f"bad cu[] value {value.strip()!r}")


def _check_affinity(body: str) -> None:
    if not body.strip():
        raise ResReqError("empty affinity[]")


# --- rusage[] -----------------------------------------------------------------


def _amount(key: str, text: str, units: dict[str, str]) -> float:
    m = _AMOUNT_RE.match(text.strip())
    if m is None:
        raise ResReqError(f"bad value {text.strip()!r} for {key}")
    value = float(m.group(1))
    unit = m.group(2).lower()
    if unit and (key not in _MEMORY_KEYS or unit not in _UNIT_MB):
        raise ResReqError(f"bad unit {m.group(2)!r} for {key}")
    if key in _MEMORY_KEYS:
        value *= _UNIT_MB[unit or units.get(key, "MB").lower()]
    if value != value or value in (float("inf"), float("-inf")) or value < 0:
        raise ResReqError(f"bad value {text.strip()!r} for {key}")
    return value


def _phases(text: str) -> list[str]:
    """``(a b c)`` -> [a, b, c]; a plain value -> [value]."""
    text = text.strip()
    if text.startswith("("):
        inner = text[1:-1].split() if text.endswith(")") else []
        if not inner:
            raise ResReqError(f"bad multi-phase value {text!r}")
        return inner
    return [text]


def _duration_minutes(text: str) -> float:
    m = _DURATION_RE.match(text)
    if m is None:
        raise ResReqError(f"bad duration {text!r}")
    value = float(m.group(1))
    return {"h": value * 60, "s": value / 60}.get(m.group(2).lower(), value)


def _rusage_block(block: str, units: dict[str, str]) -> RusageBlock:
    items: list[RusageItem] = []
    durations: tuple[float, ...] = ()
    decays: tuple[int, ...] = ()
    threshold = None
    seen: set[str] = set()
    for item in _split_top(block, ":"):
        item = item.strip()
        if not item:
            raise ResReqError(f"empty rusage item in {block.strip()!r}")
        if "=" not in item:
            raise ResReqError(f"rusage entry {item!r} has no '='")
        key, _, value = item.partition("=")
        key = _name(key, "resource name").lower()
        if key == "dur":
            key = "duration"
        if key in seen:
            raise ResReqError(f"{key} given twice")
        seen.add(key)
        if key == "duration":
            durations = tuple(_duration_minutes(p) for p in _phases(value))
        elif key == "decay":
            parts = _phases(value)
            if any(p not in ("0", "1") for p in parts):
                raise ResReqError(f"bad decay {value.strip()!r}")
            decays = tuple(int(p) for p in parts)
        elif key == "threshold":
            threshold = _amount(key, value, units)
        else:
            method = ""
            value = value.strip()
            m = re.match(r"^(.*?)\s*/\s*(job|task|host)$", value, re.I)
            if m:
                value, method = m.group(1), m.group(2).lower()
            if key == "swap":
                key = "swp"
            amounts = tuple(_amount(key, p, units) for p in _phases(value))
            if any(b > a for a, b in zip(amounts, amounts[1:])):
                raise ResReqError(f"the phases of {key} increase")
            items.append(RusageItem(key, amounts, method))
    if not items:
        raise ResReqError(f"rusage block {block.strip()!r} reserves nothing")
    phases = max(len(i.amounts) for i in items)
    if phases > 1 and not (phases - 1 <= len(durations) <= phases):
        raise ResReqError("every phase but the last needs a duration")
    if len(durations) > max(phases, 1) or len(decays) > max(phases, 1):
        raise ResReqError("more durations or decays than phases")
    return RusageBlock(tuple(items), durations, decays, threshold)


def _rusage_section(body: str, units: dict[str, str]) -> tuple[tuple[RusageBlock, ...], ...]:
    alternatives = []
    for alt in _split_top(body, "||"):
        blocks = tuple(_rusage_block(b, units) for b in _split_top(alt, ","))
        names = [i.name for b in blocks for i in b.items]
        if len(names) != len(set(names)):
            raise ResReqError("a resource appears twice in one rusage string")
        alternatives.append(blocks)
    return tuple(alternatives)


# --- simple, compound, alternatives ----------------------------------------------


def _sections(simple: str) -> tuple[str, list[tuple[str, str]]]:
    """The leading bare select text and the name[body] sections of a simple
    requirement; an unknown section, or text between or after sections, is
    refused."""
    out: list[tuple[str, str]] = []
    bare = ""
    i = 0
    while True:
        m = _SECTION_RE.search(simple, i)
        text = simple[i:m.start()] if m else simple[i:]
        if text.strip():
            if out:
                raise ResReqError(f"text outside a section: {text.strip()!r}")
            bare = text
        if m is None:
            return bare, out
        name = m.group(1).lower()
        if name not in SECTIONS:
            raise ResReqError(f"unknown section {m.group(1)}[")
        depth = 0
        j = m.end() - 1
        while j < len(simple):
            if simple[j] == "[":
                depth += 1
            elif simple[j] == "]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if depth != 0:
            raise ResReqError(f"section {m.group(1)}[ is not closed")
        out.append((name, simple[m.end():j]))
        i = j + 1


_CHECKS = {"order": _check_order, "span": _check_span, "same": _check_same, "cu": _check_cu,
           "affinity": _check_affinity}


def _simple(text: str, units: dict[str, str]) -> Simple:
    if "{" in text or "}" in text:
        raise ResReqError("braces inside a simple requirement")
    bare, sections = _sections(text)
    fields: dict[str, object] = {}
    rusage: list[tuple[tuple[RusageBlock, ...], ...]] = []
    if bare.strip():
        check_select(bare)
        fields["select"] = bare.strip()
    for name, body in sections:
        if name == "rusage":
            rusage.append(_rusage_section(body, units))
            continue
        if name == "select":
            check_select(body)
        else:
            _CHECKS[name](body)
        if name == "select" and "select" in fields:  # a bare select and select[]: both must hold
            fields["select"] = f"({fields['select']}) && ({body.strip()})"
        else:
            fields.setdefault(name, body.strip())
    return Simple(rusage=tuple(rusage), **fields)  # type: ignore[arg-type]


def _alternative(text: str, units: dict[str, str]) -> Alternative:
    delay = None
    m = _DELAY_RE.match(text.strip())
    if m:
        text, delay = m.group(1), int(m.group(2))
    terms = _split_top(text, "+")
    if len(terms) == 1:
        m = _TERM_RE.match(terms[0])
        if m is None:
            raise ResReqError(f"text outside {{...}}: {terms[0].strip()!r}")
        if m.group(1) is None:
            inner = m.group(2)
            if "{" in inner:  # {n*{..} + ..}: a compound requirement written in braces
                alt = _alternative(inner, units)
                if alt.delay is not None:
                    raise ResReqError("a delay inside braces")
                return Alternative(alt.terms, alt.compound, delay)
            return Alternative((Term(None, _simple(inner, units)),), False, delay)
    out: list[Term] = []
    for term in terms:
        m = _TERM_RE.match(term)
        if m is None or "{" in m.group(2):
            raise ResReqError(f"bad compound term {term.strip()!r}")
        n = int(m.group(1)) if m.group(1) is not None else None
        if n is not None and n < 1:
            raise ResReqError("compound multiplier must be positive")
        out.append(Term(n, _simple(m.group(2), units)))
    return Alternative(tuple(out), True, delay)


def parse(res_req: str | None, units: dict[str, str] | None = None) -> ResReq:
    """The whole requirement (see the module doc); *units* from :func:`units_from_conf`
    (MB for every bare amount when None)."""
    if res_req is None or not res_req.strip():
        return ResReq()
    units = units or {}
    _split_top(res_req, "\x00")  # balance check of the whole text
    top = "".join(p for i, p in enumerate(re.split(r"(\[[^\[\]]*\])", res_req)) if i % 2 == 0)
    if "{" not in top:
        return ResReq((Alternative((Term(None, _simple(res_req, units)),)),))
    alternatives = []
    for alt in _split_top(res_req, "||"):
        if not alt.strip():
            raise ResReqError("empty alternative")
        alternatives.append(_alternative(alt, units))
    return ResReq(tuple(alternatives))


def check(res_req: str | None, units: dict[str, str] | None = None) -> None:
    """Raise :class:`ResReqError` unless LSF would take the string."""
    parse(res_req, units)


# --- what APS and accounting read ---------------------------------------------------


def _simple_amounts(simple: Simple, slots: int, per_slot: bool) -> dict[str, float]:
    out: dict[str, float] = {}
    for section in simple.rusage:
        for block in section[0]:  # the first alternative inside rusage[] counts
            for item in block.items:
                if item.name in out:
                    continue
                times = slots if item.method == "task" or (per_slot and item.method != "job") else 1
                out[item.name] = item.amounts[0] * times  # the first phase
    return out


def amounts_of(req: ResReq, slots: int = 1, per_slot: bool = False) -> dict[str, float]:
    """:func:`rusage_amounts` of a parsed requirement."""
    if not req.alternatives:
        return {}
    alt = req.alternatives[0]
    if not alt.compound:
        return _simple_amounts(alt.terms[0].simple, max(1, int(slots)), per_slot)
    total: dict[str, float] = {}
    for term in alt.terms:
        n = term.count if term.count is not None else 1
        for key, value in _simple_amounts(term.simple, 1, False).items():
            total[key] = total.get(key, 0.0) + (n * value if per_slot else value)
    return total


def rusage_amounts(res_req: str | None, slots: int = 1, per_slot: bool = False,
                   units: dict[str, str] | None = None) -> dict[str, float]:
    """Total amounts requested per resource (MB for mem/swp/tmp), see the module doc.

    *slots* is the job's slot count (used for simple requirements when
    *per_slot*); *per_slot* is RESOURCE_RESERVE_PER_SLOT; *units* the unit of
    bare amounts (:func:`units_from_conf`; MB when None).
    """
    return amounts_of(parse(res_req, units), slots, per_slot)


def reserved_names(req: ResReq) -> list[str]:
    """Every resource a rusage[] of *req* names (all alternatives, all terms), in
    order, once each: bsub refuses the shared ones placement does not pool yet."""
    names: list[str] = []
    for alt in req.alternatives:
        for term in alt.terms:
            for section in term.simple.rusage:
                for blocks in section:
                    for block in blocks:
                        names += [i.name for i in block.items if i.name not in names]
    return names
