"""Resource amounts a job reserves (``bsub -R "... rusage[...]"``), as APS reads them.

:func:`rusage_amounts` answers "how much mem / swp / other resource does this
job ask for in all", following the rules of the APS MEM and SWAP factors:

* simple requirement ``rusage[mem=4000:swp=100]`` (``:`` or ``,`` separate
  resources; ``duration``/``decay``/``threshold`` keywords are skipped):
  the amount itself, or ``slots`` × the amount when resources are reserved per
  slot (RESOURCE_RESERVE_PER_SLOT=Y);
* a ``/job`` suffix (``mem=100/job``) is never multiplied, ``/task`` always is,
  ``/host`` follows the per-slot rule like a bare amount;
* compound requirement ``n1*{rusage[mem=m1]} + n2*{rusage[mem=m2]}``:
  ``m1 + m2`` when RESOURCE_RESERVE_PER_SLOT=N, ``n1*m1 + n2*m2`` when =Y
  (a term without ``n*`` counts as 1);
* anything right of ``||`` is ignored - inside ``rusage[...]``
  (``rusage[mem=20 || mem=10]``) and between alternative requirements
  (``{rusage[mem=100]} || {rusage[mem=50]}``, ``@D`` delays dropped);
* multi-phase reservation ``mem=(50 20):duration=(10 5)``: the first phase;
* when a resource appears in several rusage sections, the first one counts.

Units: amounts are MB (LSF's default); ``KB``/``MB``/``GB``/``TB``/``PB``/``EB``
and the one-letter forms are converted to MB. ``swap`` is read as ``swp``.
Other sections (``select[]``, ``order[]``, ``span[]``, ``same[]``, ``cu[]``,
``affinity[]``) and a bare select string are accepted and ignored. Malformed
text (unbalanced brackets, a rusage entry without ``=``, a non-numeric amount)
raises :class:`ResReqError` with LSF's message ``Bad resource requirement syntax``.
"""

from __future__ import annotations

import re

BAD_RESREQ = "Bad resource requirement syntax"

_SKIP_KEYS = {"duration", "dur", "decay", "threshold"}
_UNIT_MB = {
    "": 1.0, "k": 1 / 1024, "kb": 1 / 1024, "m": 1.0, "mb": 1.0, "g": 1024.0, "gb": 1024.0,
    "t": 1024.0**2, "tb": 1024.0**2, "p": 1024.0**3, "pb": 1024.0**3, "e": 1024.0**4, "eb": 1024.0**4,
}
_MEMORY_KEYS = {"mem", "swp", "tmp"}
_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_AMOUNT_RE = re.compile(rf"^({_NUMBER})\s*([A-Za-z]*)$")
_SECTION_RE = re.compile(r"([A-Za-z_]+)\s*\[")
_TERM_RE = re.compile(r"^\s*(?:([0-9]+)\s*\*\s*)?\{(.*)\}\s*$", re.S)


class ResReqError(ValueError):
    """A resource requirement string LSF would refuse."""

    def __init__(self, detail: str = ""):
        self.detail = detail
        self.lsf_message = BAD_RESREQ
        super().__init__(BAD_RESREQ + (f" ({detail})" if detail else ""))


def per_slot_from_params(extra: dict[str, str] | None) -> bool:
    """RESOURCE_RESERVE_PER_SLOT from lsb.params (Params.extra): Y/N, default N."""
    value = (extra or {}).get("RESOURCE_RESERVE_PER_SLOT", "N")
    return value.strip().upper() in ("Y", "YES")


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


def _amount(key: str, text: str) -> float:
    text = text.strip()
    if text.startswith("("):  # multi-phase: (50 20) -> first phase
        inner = text[1:-1].split() if text.endswith(")") else []
        if not inner:
            raise ResReqError(f"bad multi-phase value {text!r}")
        text = inner[0]
    m = _AMOUNT_RE.match(text)
    if m is None:
        raise ResReqError(f"bad value {text!r} for {key}")
    value = float(m.group(1))
    unit = m.group(2).lower()
    if unit:
        if key not in _MEMORY_KEYS or unit not in _UNIT_MB:
            raise ResReqError(f"bad unit {m.group(2)!r} for {key}")
        value *= _UNIT_MB[unit]
    if value != value or value in (float("inf"), float("-inf")):
        raise ResReqError(f"bad value {text!r} for {key}")
    return value


def _rusage_entries(body: str) -> list[tuple[str, float, str]]:
    """The (key, amount, method) entries of one rusage[...] body, left of ``||``."""
    body = _split_top(body, "||")[0]
    out: list[tuple[str, float, str]] = []
    for chunk in _split_top(body, ","):
        for item in _split_top(chunk, ":"):
            item = item.strip()
            if not item:
                continue
            if "=" not in item:
                raise ResReqError(f"rusage entry {item!r} has no '='")
            key, _, value = item.partition("=")
            key = key.strip().lower()
            if not re.match(r"^[a-z_][a-z0-9_]*$", key):
                raise ResReqError(f"bad resource name {key!r}")
            if key in _SKIP_KEYS:
                continue
            method = ""
            value = value.strip()
            m = re.match(r"^(.*?)\s*/\s*(job|task|host)$", value, re.I)
            if m:
                value, method = m.group(1), m.group(2).lower()
            if key == "swap":
                key = "swp"
            out.append((key, _amount(key, value), method))
    return out


def _sections(simple: str) -> list[tuple[str, str]]:
    """The name[body] sections of a simple requirement (bare text ignored)."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(simple):
        m = _SECTION_RE.search(simple, i)
        if m is None:
            break
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
        out.append((m.group(1).lower(), simple[m.end():j]))
        i = j + 1
    return out


def _simple_amounts(simple: str, slots: int, per_slot: bool) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, body in _sections(simple):
        if name != "rusage":
            continue
        for key, value, method in _rusage_entries(body):
            if key in out:
                continue
            times = slots if method == "task" or (per_slot and method != "job") else 1
            out[key] = value * times
    return out


def _strip_delay(alt: str) -> str:
    return re.sub(r"\}\s*@\s*[0-9]+\s*$", "}", alt.strip())


def rusage_amounts(res_req: str | None, slots: int = 1, per_slot: bool = False) -> dict[str, float]:
    """Total amounts requested per resource (MB for mem/swp/tmp), see the module doc.

    *slots* is the job's slot count (used for simple requirements when
    *per_slot*); *per_slot* is RESOURCE_RESERVE_PER_SLOT.
    """
    if res_req is None or not res_req.strip():
        return {}
    slots = max(1, int(slots))
    _split_top(res_req, "\x00")  # balance check of the whole text
    alt = _strip_delay(_split_top(res_req, "||")[0])
    if not alt:
        raise ResReqError("empty alternative")
    if "{" not in alt:
        return _simple_amounts(alt, slots, per_slot)
    terms = _split_top(alt, "+")
    if len(terms) == 1:
        m = _TERM_RE.match(terms[0])
        if m is None:
            raise ResReqError("text outside {...} in a compound requirement")
        if m.group(1) is None:
            # {simple} or {n*{..} + ..}: an alternative written in braces
            return rusage_amounts(m.group(2), slots, per_slot)
    total: dict[str, float] = {}
    for term in terms:
        m = _TERM_RE.match(term)
        if m is None or "{" in m.group(2):
            raise ResReqError(f"bad compound term {term.strip()!r}")
        n = int(m.group(1)) if m.group(1) is not None else 1
        if n < 1:
            raise ResReqError("compound multiplier must be positive")
        amounts = _simple_amounts(m.group(2), 1, False)
        for key, value in amounts.items():
            total[key] = total.get(key, 0.0) + (n * value if per_slot else value)
    return total
