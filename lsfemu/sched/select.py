"""select[] and order[] of a resource requirement, compiled once and evaluated
per host (issue 19), pure.

:func:`compile_select` reads a selection string into a tree of closures (never
Python's eval) and returns a :class:`Select`, called with the flat mapping a
host offers (:func:`lsfemu.sched.hostres.namespace`) -> bool. LSF 10.1's
"Selection string" semantics:

* operators ``== != < <= > >= && || ! + - * /`` and parentheses (C's
  precedence); a non-zero value is true; numbers may carry a unit
  (``mem>4G``: every memory amount is in MB; a bare amount compared with
  mem/swp/tmp or maxmem/maxswp/maxtmp is in LSF_UNIT_FOR_LIMITS' unit);
* a string resource (``type``, ``model``, ``hname``, a String resource of
  lsf.shared) compared with a bare word or a quoted string: ``type==X86_64``,
  ``model=="Intel_EM64T"``; ``type==any`` / ``model==any`` match every host,
  ``type==local`` the submission host's type;
* ``defined(name)``: the host has the resource; a bare name is its value, so a
  Boolean resource is 1 where the host has it, 0 (false) elsewhere;
* ``swap``, ``idle``, ``login`` and ``cpu`` are LSF's aliases of ``swp``,
  ``it``, ``ls`` and ``r1m``;
* a numeric or string resource the host does not have makes every comparison
  that reads it false (lsfemu's reading, docs/semantics.md);
* no type named (neither ``type`` nor any String or Boolean resource read):
  the submission host's type is required too, as LSF's bsub default
  ``type==local`` (``None`` or blank text is that default alone).

:func:`compile_order` reads an order string (``r15s:pg``, ``-mem``,
``[!]key[:key]...``) into an :class:`Order`, a key function sorting the best
host first.

:data:`UNIT_MB` (the size units, in MB) lives here because select[] is where
LSF reads them first; resreq.py's rusage amounts use the same table.
"""

from __future__ import annotations

import math
import re
from typing import Callable, Collection, Mapping

#: size units after a number, in MB (``mem>4G``; rusage[mem=4G])
UNIT_MB = {
    "k": 1 / 1024, "kb": 1 / 1024, "m": 1.0, "mb": 1.0, "g": 1024.0, "gb": 1024.0,
    "t": 1024.0**2, "tb": 1024.0**2, "p": 1024.0**3, "pb": 1024.0**3, "e": 1024.0**4, "eb": 1024.0**4,
}

#: LSF's aliases of load indices in select[] and order[]
ALIASES = {"swap": "swp", "idle": "it", "login": "ls", "cpu": "r1m"}

#: the built-in resources a select or order may read, by kind (lsinfo's table)
BUILTIN_RESOURCES: dict[str, str] = {
    **{n: "Numeric" for n in ("r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem",
                              "cpuf", "ncpus", "ndisks", "maxmem", "maxswp", "maxtmp", "rexpri",
                              "slots", "maxslots")},
    "hname": "String", "type": "String", "model": "String", "server": "Boolean",
}

#: indices where a larger value is the better host (order[] sorts them descending)
DECREASING = frozenset({"mem", "swp", "tmp", "it", "cpuf", "ncpus", "ndisks", "maxmem", "maxswp", "maxtmp",
                        "slots", "maxslots"})

DEFAULT_SELECT = "type == local"
DEFAULT_ORDER = "r15s:pg"

_MEMORY = {"mem": "mem", "swp": "swp", "tmp": "tmp", "maxmem": "mem", "maxswp": "swp", "maxtmp": "tmp"}
_STRING_BUILTINS = {"hname", "type", "model"}
_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?(?:[KkMmGgTtPpEe][Bb]?)?(?![A-Za-z0-9_]))"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)|(?P<str>\"[^\"]*\"|'[^']*')"
    r"|(?P<op>==|!=|<=|>=|&&|\|\||[<>!()+\-*/,]))")
_NUM_PARTS = re.compile(r"^((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)([A-Za-z]*)$")
_COMPARE = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "/": lambda a, b: a / b if b else math.copysign(math.inf, a) if a else math.nan}


class SelectError(ValueError):
    """A selection or order string LSF refuses: bad syntax, or (*unknown*) a
    name that is no resource."""

    def __init__(self, detail: str, unknown: str | None = None):
        super().__init__(detail)
        self.detail = detail
        self.unknown = unknown


class _Missing:
    """The value of a resource the host does not have: false, and every
    comparison or sum reading it is false / missing."""

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()

Fn = Callable[[Mapping[str, object]], object]


def tokens(text: str) -> list[tuple[str, str]]:
    """The tokens of a selection string: (kind, text), kind num/name/str/op."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        if not text[i:].strip():
            break
        m = _TOKEN.match(text, i)
        if m is None:
            raise SelectError(f"bad select expression near {text[i:].strip()[:20]!r}")
        kind = m.lastgroup or "op"
        out.append((kind, m.group(kind)))
        i = m.end()
    return out


def _truth(v: object) -> bool:
    if isinstance(v, str):
        return v != ""
    return bool(v) and not (isinstance(v, float) and math.isnan(v))


def _number(v: object) -> object:
    """A value as arithmetic reads it: numbers stay, numeric strings become
    floats, anything else is missing."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)) or v is MISSING:
        return v
    try:
        return float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return MISSING


class _Parser:
    """Recursive descent over the tokens, building closures; records the names read."""

    def __init__(self, text: str, local_type: str, resources: Mapping[str, str] | None,
                 units: Mapping[str, str] | None, local_model: str | None = None):
        self.text = text
        self.toks = tokens(text)
        self.pos = 0
        self.local_type = local_type
        self.local_model = local_model
        self.resources = resources
        self.units = units or {}
        self.names: set[str] = set()
        self.typed = False  # the expression names a type (or a String/Boolean resource)

    # -- token access
    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok is None or (value is not None and tok != ("op", value)):
            raise SelectError(f"bad select expression {self.text.strip()!r}")
        self.pos += 1
        return tok

    def at_op(self, ops: Collection[str]) -> bool:
        tok = self.peek()
        return tok is not None and tok[0] == "op" and tok[1] in ops

    # -- names
    def kind(self, name: str) -> str | None:
        if name in BUILTIN_RESOURCES:
            return BUILTIN_RESOURCES[name]
        return (self.resources or {}).get(name)

    def resource(self, raw: str) -> str:
        name = ALIASES.get(raw, raw)
        if self.resources is not None and self.kind(name) is None:
            raise SelectError(f"unknown resource {raw!r}", unknown=raw)
        self.names.add(name)
        return name

    # -- grammar: or > and > comparison > sum > product > unary
    def parse(self) -> Fn:
        if not self.toks:
            raise SelectError("empty select expression")
        fn = self.disjunction()
        if self.pos != len(self.toks):
            raise SelectError(f"bad select expression {self.text.strip()!r}")
        return fn

    def disjunction(self) -> Fn:
        parts = [self.conjunction()]
        while self.at_op(("||",)):
            self.take()
            parts.append(self.conjunction())
        if len(parts) == 1:
            return parts[0]
        return lambda ns: any(_truth(p(ns)) for p in parts)

    def conjunction(self) -> Fn:
        parts = [self.comparison()]
        while self.at_op(("&&",)):
            self.take()
            parts.append(self.comparison())
        if len(parts) == 1:
            return parts[0]
        return lambda ns: all(_truth(p(ns)) for p in parts)

    def comparison(self) -> Fn:
        start = self.pos
        left = self.sum()
        if not self.at_op(_COMPARE):
            return left
        op = self.take()[1]
        lhs_name = self.toks[start][1] if self.pos - start == 2 and self.toks[start][0] == "name" else None
        if lhs_name is not None and self._is_string(ALIASES.get(lhs_name, lhs_name)):
            return self.string_compare(ALIASES.get(lhs_name, lhs_name), op)
        right = self.sum(unit_of=_MEMORY.get(ALIASES.get(lhs_name or "", lhs_name or "")))
        return self.numeric_compare(left, op, right)

    def _is_string(self, name: str) -> bool:
        """A string resource on the left: what follows is a literal value. An
        undeclared name is taken as one when a bare word or a quoted string follows."""
        kind = self.kind(name)
        if kind is not None:
            return kind == "String"
        nxt = self.peek()
        after = self.toks[self.pos + 1] if self.pos + 1 < len(self.toks) else None
        return nxt is not None and (nxt[0] == "str" or (nxt[0] == "name" and nxt[1] != "defined"
                                                         and (after is None or after[0] == "op" and after[1] in
                                                              (")", "&&", "||"))
                                                         and self.kind(ALIASES.get(nxt[1], nxt[1])) is None))

    def string_compare(self, name: str, op: str) -> Fn:
        kind, value = self.take()
        if kind == "str":
            value = value[1:-1]
        elif kind != "name":
            raise SelectError(f"bad value for {name} in {self.text.strip()!r}")
        self.names.add(name)
        self.typed = True
        cmp = _COMPARE[op]
        if name in ("type", "model") and value == "any":
            result = op in ("==", "<=", ">=")
            return lambda ns: result
        if name == "type" and value == "local":
            value = self.local_type
        elif name == "model" and value == "local":
            if self.local_model is None:  # the submission host's model unknown: any model
                return lambda ns: op in ("==", "<=", ">=")
            value = self.local_model

        def fn(ns: Mapping[str, object]) -> bool:
            have = ns.get(name, MISSING)
            return have is not MISSING and cmp(str(have), value)
        return fn

    def numeric_compare(self, left: Fn, op: str, right: Fn) -> Fn:
        cmp = _COMPARE[op]

        def fn(ns: Mapping[str, object]) -> bool:
            a, b = _number(left(ns)), _number(right(ns))
            if a is MISSING or b is MISSING:
                return False
            return bool(cmp(a, b))
        return fn

    def sum(self, unit_of: str | None = None) -> Fn:
        fn = self.product(unit_of)
        while self.at_op(("+", "-")):
            fn = self.arith(fn, self.take()[1], self.product(unit_of))
        return fn

    def product(self, unit_of: str | None) -> Fn:
        fn = self.unary(unit_of)
        while self.at_op(("*", "/")):
            fn = self.arith(fn, self.take()[1], self.unary(unit_of))
        return fn

    @staticmethod
    def arith(left: Fn, op: str, right: Fn) -> Fn:
        f = _ARITH[op]

        def fn(ns: Mapping[str, object]) -> object:
            a, b = _number(left(ns)), _number(right(ns))
            return MISSING if a is MISSING or b is MISSING else f(a, b)
        return fn

    def unary(self, unit_of: str | None) -> Fn:
        if self.at_op(("!",)):
            self.take()
            inner = self.unary(unit_of)
            return lambda ns: not _truth(inner(ns))
        if self.at_op(("-",)):
            self.take()
            inner = self.unary(unit_of)

            def neg(ns: Mapping[str, object]) -> object:
                v = _number(inner(ns))
                return MISSING if v is MISSING else -v  # type: ignore[operator]
            return neg
        return self.atom(unit_of)

    def atom(self, unit_of: str | None) -> Fn:
        kind, value = self.take()
        if kind == "op" and value == "(":
            fn = self.disjunction()
            self.take(")")
            return fn
        if kind == "num":
            number = self.number(value, unit_of)
            return lambda ns: number
        if kind == "str":
            text = value[1:-1]
            return lambda ns: text
        if kind == "name" and value == "defined" and self.at_op(("(",)):
            self.take("(")
            k, raw = self.take()
            if k != "name":
                raise SelectError("defined() needs a resource name")
            self.take(")")
            name = self.resource(raw)
            self.typed = True  # defined() reads a host's resource list, as a Boolean does
            return lambda ns: 1 if ns.get(name, MISSING) is not MISSING else 0
        if kind == "name":
            name = self.resource(value)
            if self.kind(name) in ("Boolean", "String") or (self.kind(name) is None and not self.at_op(_COMPARE)):
                self.typed = True
            return lambda ns: ns.get(name, MISSING)
        raise SelectError(f"bad select expression {self.text.strip()!r}")

    def number(self, text: str, unit_of: str | None) -> float:
        m = _NUM_PARTS.match(text)
        if m is None:  # the token pattern only lets numbers through
            raise SelectError(f"bad number {text!r}")
        value, unit = float(m.group(1)), m.group(2).lower()
        if unit:
            return value * UNIT_MB[unit]
        if unit_of is not None:
            return value * UNIT_MB.get(self.units.get(unit_of, "MB").lower(), 1.0)
        return value


class Select:
    """A compiled selection string: ``sel(ns) -> bool``; *names* are the
    resources it reads (a host's answer changes only when those do)."""

    __slots__ = ("text", "names", "_fn")

    def __init__(self, text: str, names: frozenset[str], fn: Callable[[Mapping[str, object]], bool]):
        self.text = text
        self.names = names
        self._fn = fn

    def __call__(self, ns: Mapping[str, object]) -> bool:
        return self._fn(ns)

    def __repr__(self) -> str:
        return f"Select({self.text!r})"


def compile_select(text: str | None, local_type: str, *, resources: Mapping[str, str] | None = None,
                   units: Mapping[str, str] | None = None, local_model: str | None = None) -> Select:
    """Compile a selection string (see the module doc). *local_type* is the
    submission host's type; *resources* (name -> "Numeric"/"Boolean"/"String",
    beyond the built-ins) makes an unknown name an error (:class:`SelectError`
    with *unknown*), None accepts any name; *units* is resreq.units_from_conf's
    mapping for bare memory amounts (MB when None); *local_model* the
    submission host's model for ``model==local`` (any model when None)."""
    if text is None or not text.strip():
        text = DEFAULT_SELECT
    p = _Parser(text, local_type, resources, units, local_model)
    fn = p.parse()
    names = set(p.names)
    if not p.typed:  # LSF's bsub default: the submission host's type as well
        names.add("type")
        user = fn

        def fn(ns: Mapping[str, object]) -> bool:
            return ns.get("type") == local_type and _truth(user(ns))
        return Select(text, frozenset(names), fn)
    final = fn
    return Select(text, frozenset(names), lambda ns: _truth(final(ns)))


#: what may stand next to a comparison of a consumable resource (a monotone's edges)
_EDGE_BEFORE = (None, "(", "&&", "||")
_EDGE_AFTER = (None, ")", "&&", "||")


def monotone(text: str | None, consumable: Collection[str]) -> bool:
    """Whether a selection false on a host stays false while the host's
    *consumable* resources (what the pass reserves: mem, swp, tmp, numeric
    resources) only decrease: every consumable resource it reads is compared
    as ``name > N`` / ``name >= N`` (or ``N < name``, ``N <= name``) or read
    by ``defined(name)``, under ``&&``, ``||`` and parentheses only. A
    conservative reading of the text (no ``!``, no arithmetic: those may turn
    false into true as a value drops); the pass relies on it to stop looking
    at a kind of job the hosts refused (lsfemu.sched.shapes)."""
    if text is None or not text.strip():
        return True
    try:
        toks = tokens(text)
    except SelectError:
        return False
    if not any(k == "name" and ALIASES.get(v, v) in consumable for k, v in toks):
        return True
    n = len(toks)

    def op(i: int) -> str | None:
        return toks[i][1] if 0 <= i < n and toks[i][0] == "op" else (None if not 0 <= i < n else "")

    for i, (kind, value) in enumerate(toks):
        if kind == "op" and value in ("!", "+", "-", "*", "/", ","):
            return False
        if kind == "op" and value == "(" and op(i - 1) not in _EDGE_BEFORE \
                and not (i > 0 and toks[i - 1] == ("name", "defined")):
            return False
        if kind == "op" and value == ")" and op(i + 1) not in _EDGE_AFTER:
            return False
        if kind != "name" or ALIASES.get(value, value) not in consumable:
            continue
        if op(i - 1) == "(" and op(i + 1) == ")" and i > 1 and toks[i - 2] == ("name", "defined"):
            continue
        if (op(i - 1) in _EDGE_BEFORE and op(i + 1) in (">", ">=") and i + 2 < n and toks[i + 2][0] == "num"
                and op(i + 3) in _EDGE_AFTER):
            continue
        if (op(i + 1) in _EDGE_AFTER and op(i - 1) in ("<", "<=") and i >= 2 and toks[i - 2][0] == "num"
                and op(i - 3) in _EDGE_BEFORE):
            continue
        return False
    return True


def names_typed(text: str) -> bool:
    """Whether a selection string names a type itself (type, a String or a
    Boolean resource, defined()): LSF then adds no ``type == local``."""
    p = _Parser(text, "", None, None)
    p.parse()
    return p.typed


# --- order[] ------------------------------------------------------------------


class Order:
    """A compiled order string: ``order(ns) -> tuple``, smaller = better host;
    *keys* are (name, descending) in priority order, *names* what it reads."""

    __slots__ = ("text", "keys", "names")

    def __init__(self, text: str, keys: tuple[tuple[str, bool], ...]):
        self.text = text
        self.keys = keys
        self.names = frozenset(k for k, _ in keys)

    def __call__(self, ns: Mapping[str, object]) -> tuple:
        out: list[object] = []
        for name, descending in self.keys:
            v = _number(ns.get(name, MISSING))
            if v is MISSING or (isinstance(v, float) and math.isnan(v)):
                out.append((1, 0.0))  # a host without the index sorts after those with it
            else:
                out.append((0, -v if descending else v))  # type: ignore[operator]
        return tuple(out)

    def __repr__(self) -> str:
        return f"Order({self.text!r})"


_ORDER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def compile_order(text: str | None, *, decreasing: Collection[str] = DECREASING,
                  resources: Mapping[str, str] | None = None) -> Order:
    """Compile an order string: ``[!]key[:key]...``, each key ``[-]name``.
    LSF's default (``None`` or blank) is ``r15s:pg``. A key sorts ascending
    (least loaded first) unless the index is one where more is better
    (*decreasing*: mem, swp, tmp, it, ... and lsf.shared's INCREASING=N
    resources); ``-`` reverses it. The leading ``!`` (re-sort after each
    dispatch) changes nothing here: lsfemu evaluates the order for each job."""
    if text is None or not text.strip():
        text = DEFAULT_ORDER
    body = text.strip().removeprefix("!")
    keys: list[tuple[str, bool]] = []
    for item in body.split(":"):
        item = item.strip()
        reverse = item.startswith("-")
        raw = item.removeprefix("-").strip()
        if not _ORDER_NAME.match(raw):
            raise SelectError(f"bad order key {item!r}")
        name = ALIASES.get(raw, raw)
        if resources is not None and name not in BUILTIN_RESOURCES and name not in resources:
            raise SelectError(f"unknown resource {raw!r}", unknown=raw)
        keys.append((name, (name in decreasing) != reverse))
    return Order(text, tuple(keys))


# --- the names a cluster knows ------------------------------------------------------


def cluster_resources(cfg: object) -> dict[str, str]:
    """The resources a select[] may name in this cluster beyond the built-ins
    (name -> "Boolean"/"Numeric"/"String"), for bsub's and bmod's check:
    lsf.shared's Resource section (``cfg.shared.resources``, its built-ins
    included) and what lsf.cluster's Host section gives a host (its
    ``booleans`` and ``values``)."""
    out: dict[str, str] = {}
    for name, spec in (getattr(getattr(cfg, "shared", None), "resources", None) or {}).items():
        kind = getattr(spec, "type", "Numeric")
        out[name] = kind if kind in ("Boolean", "Numeric", "String") else "Numeric"
    for host in getattr(cfg, "cluster_hosts", None) or ():
        for name in getattr(host, "booleans", None) or ():
            out.setdefault(name, "Boolean")
        for name, value in (getattr(host, "values", None) or {}).items():
            out.setdefault(name, "String" if isinstance(value, str) else "Numeric")
    return out
