"""Job dependencies (``bsub -w``), as pure functions: parse the condition,
resolve its job references at submission, evaluate it in a scheduling pass.

The language is LSF's (OpenLava's ``mbd.depend.c`` for the details the
documentation leaves open):

* conditions ``done(j)``, ``ended(j)``, ``exit(j[, [op] code])``,
  ``started(j)``, ``post_done(j)``, ``post_err(j)``; a bare job ``j`` means
  ``done(j)``; array counters ``numdone``, ``numended``, ``numexit``,
  ``numhold``, ``numpend``, ``numrun``, ``numstart`` as ``numrun(ID[, [op]
  N | *])`` (default ``!= 0``; ``*`` = the array's number of elements);
* ``j`` is a job ID (``123``), an element or index list (``123[2]``,
  ``123[1-5:2]``), a job name (``myjob``, ``"99job"``, ``'x'``) with ``*``
  wildcards, or ``name[*]`` / ``ID[*]``: element i of the submitted array
  waits on element i of that array (both arrays of the same indices);
* ``&&``, ``||``, ``!`` (``!`` binds tightest, then ``&&``, then ``||``) and
  parentheses; ``op`` is one of ``> >= < <= == !=``.

Tokens follow OpenLava's scanner: a keyword is only a keyword when no
letter, digit or ``*`` follows it (``done_x`` is the keyword ``done`` then
``_x``; ``donex`` a job name); names consist of letters, digits and
``* _ . : % @ / [ ] -``; a quoted name runs to the matching quote.
``external()`` and time windows are not supported (a syntax error).

Errors (bsub composes ``<object>: <text>. Job not submitted.``):
:class:`DependError` with ``text`` and ``obj`` -- a syntax error names the
whole condition; an unknown job names the reference as OpenLava's scanner
left it (``99``, ``myjob``, ``"99job`` with its opening quote only,
``123[7]`` for a missing element); ``numdone`` on a job that is not an array:
``Job array does not exist``; a ``[*]`` reference whose array differs from
the submitted one: ``Dependent arrays do not have the same size`` (no
object).

Evaluation is three-valued as in mbatchd: TRUE, FALSE (may still become
true: ``Job dependency condition not satisfied``) and INVALID (can never be
met, e.g. ``done()`` of a job that exited: ``Dependency condition invalid or
never satisfied``). ``||`` is TRUE if either side is, else FALSE unless both
are INVALID; ``&&`` is INVALID if either side is, else TRUE only if both
are; ``!`` turns FALSE and INVALID into TRUE. A reference to several jobs
(a name several jobs carry, an array) needs every one of them.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol

from lsfemu.jobstate import FINISHED, ON_HOST
from lsfemu.sched.arrayspec import ArraySpecError, in_ranges, parse_index_list

# Texts (lsberrno, pending reasons).
SYNTAX = "Dependency condition syntax error"
NO_JOB = "No matching job found"
ARRAY_NULL = "Job array does not exist"
ARRAY_SIZE = "Dependent arrays do not have the same size"
NOT_SATISFIED = "Job dependency condition not satisfied"
NEVER = "Dependency condition invalid or never satisfied"

TRUE, FALSE, INVALID = "TRUE", "FALSE", "INVALID"

JOB_CONDS = ("done", "ended", "exit", "started", "post_done", "post_err")
COUNT_CONDS = ("numdone", "numended", "numexit", "numhold", "numpend", "numrun", "numstart")
OPS = (">=", "<=", "==", "!=", "<", ">")
# OpenLava's token table order: punctuation, then keywords, then operators.
_TABLE = ["(", ")", "&&", "||", "exit", "started", "ended", "done", "post_done", "post_err",
          "numpend", "numhold", "numrun", "numexit", "numdone", "numstart", "numended",
          ",", ">=", "<=", "==", "!=", "<", ">", "!"]
_KEYWORDS = set(JOB_CONDS) | set(COUNT_CONDS)
_NAME_CHARS = set("*_.:%@/[]-")


class DependError(ValueError):
    """A condition refused at submission: ``obj: text``."""

    def __init__(self, text: str, obj: str | None = None):
        self.text = text
        self.obj = obj
        super().__init__(f"{obj}: {text}" if obj else text)


# -- the tree -------------------------------------------------------------------
@dataclass(frozen=True)
class Ref:
    """A job reference as written: ``token`` is the scanner's token."""

    token: str
    job_id: int | None  # an unquoted all-digit reference
    name: str | None  # a job name (quotes removed)
    ranges: tuple[tuple[int, int, int], ...] | None  # "[...]" index list
    one_to_one: bool  # "[*]"


@dataclass(frozen=True)
class Target:
    """One job a resolved reference needs: a plain job (``ranges`` None), the
    elements of an array in ``ranges``, or (one_to_one) the element of the same
    index as the dependent element."""

    job_id: int
    ranges: tuple[tuple[int, int, int], ...] | None = None
    one_to_one: bool = False


@dataclass
class Cond:
    kind: str  # one of JOB_CONDS
    ref: Ref
    op: str | None = None  # exit: comparison of the exit code (None = any)
    value: int | None = None
    targets: tuple[Target, ...] = ()  # filled by resolve()


@dataclass
class Count:
    kind: str  # one of COUNT_CONDS
    token: str
    job_id: int | None
    op: str = "!="
    value: int | None = 0  # None = "*", the number of elements


@dataclass
class Not:
    arg: object


@dataclass
class And:
    """``a && b && ...``: kept flat, so a long chain needs no deep recursion."""

    items: list


@dataclass
class Or:
    items: list


# -- scanning -------------------------------------------------------------------
def tokens(text: str) -> list[tuple[str, str]]:
    """(kind, token) pairs; kind is the token itself for punctuation, keywords
    and operators, ``NAME`` otherwise."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return out
        t = next((t for t in _TABLE if text.startswith(t, i)), None)
        if t is not None:
            j = i + len(t)
            # a keyword followed by a letter, digit or "*" starts a name instead
            if not (t in _KEYWORDS and j < n and (_alnum(text[j]) or text[j] == "*")):
                out.append((t, t))
                i = j
                continue
        if text[i] in "\"'":
            j = text.find(text[i], i + 1)
            j = n if j < 0 else j + 1
            out.append(("NAME", text[i:j]))
            i = j
            continue
        j = i
        while j < n and (_alnum(text[j]) or text[j] in _NAME_CHARS):
            j += 1
        if j == i:
            raise DependError(SYNTAX)  # a character that starts no token
        out.append(("NAME", text[i:j]))
        i = j


def _alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


# -- parsing --------------------------------------------------------------------
class _Parser:
    def __init__(self, toks: list[tuple[str, str]]):
        self.toks = toks
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i][0] if self.i < len(self.toks) else None

    def take(self, kind: str | None = None) -> str:
        if self.i >= len(self.toks) or (kind is not None and self.toks[self.i][0] != kind):
            raise DependError(SYNTAX)
        tok = self.toks[self.i][1]
        self.i += 1
        return tok

    def expr(self):
        items = [self.conj()]
        while self.peek() == "||":
            self.take()
            items.append(self.conj())
        return items[0] if len(items) == 1 else Or(items)

    def conj(self):
        items = [self.unary()]
        while self.peek() == "&&":
            self.take()
            items.append(self.unary())
        return items[0] if len(items) == 1 else And(items)

    def unary(self):
        nots = 0
        while self.peek() == "!":
            self.take()
            nots += 1
        node = self.primary()
        for _ in range(nots):
            node = Not(node)
        return node

    def primary(self):
        kind = self.peek()
        if kind == "(":
            self.take()
            node = self.expr()
            self.take(")")
            return node
        if kind in JOB_CONDS:
            self.take()
            self.take("(")
            ref = parse_ref(self.take("NAME"))
            cond = Cond(kind, ref)
            if kind == "exit" and self.peek() == ",":
                self.take()
                cond.op = self.take() if self.peek() in OPS else "=="
                cond.value = _int(self.take("NAME"))
            self.take(")")
            return cond
        if kind in COUNT_CONDS:
            self.take()
            self.take("(")
            token = self.take("NAME")
            jid = int(token) if re.fullmatch(r"[0-9]{1,10}", token) and int(token) <= 2147483647 else None
            count = Count(kind, token, jid)
            if self.peek() == ",":
                self.take()
                count.op = self.take() if self.peek() in OPS else "=="
                v = self.take("NAME")
                count.value = None if v == "*" else _int(v)
            self.take(")")
            return count
        if kind == "NAME":
            return Cond("done", parse_ref(self.take()))
        raise DependError(SYNTAX)


def _int(text: str) -> int:
    if not re.fullmatch(r"[-+]?[0-9]{1,10}", text) or abs(int(text)) > 2147483647:
        raise DependError(SYNTAX)
    return int(text)


def parse_ref(token: str) -> Ref:
    """A job reference token -> Ref (DependError on a bad index list)."""
    body, one = token, False
    if "[*]" in body:
        body, one = body.split("[*]", 1)[0], True
    ranges = None
    if "[" in body:
        base, _, rest = body.partition("[")
        if not rest.endswith("]"):
            raise DependError(SYNTAX)
        try:
            ranges = parse_index_list(rest[:-1])
        except ArraySpecError:
            raise DependError(SYNTAX) from None
        body = base
    if body[:1] in ("\"", "'"):
        q = body[0]
        inner = body[1:]
        inner = inner[:inner.index(q)] if q in inner else inner
        return Ref(token, None, inner, ranges, one)
    if re.fullmatch(r"[0-9]+", body):
        if int(body) < 1 or int(body) > 2147483647:
            raise DependError(SYNTAX)
        return Ref(token, int(body), None, ranges, one)
    if not body:
        raise DependError(SYNTAX)
    return Ref(token, None, body, ranges, one)


def parse(text: str):
    """The condition's tree, or DependError(SYNTAX) -- nothing else, whatever the text."""
    toks = tokens(text)
    if not toks:
        raise DependError(SYNTAX)
    p = _Parser(toks)
    try:
        node = p.expr()
    except RecursionError:  # parentheses nested hundreds deep
        raise DependError(SYNTAX) from None
    if p.i != len(toks):
        raise DependError(SYNTAX)
    return node


# -- resolving at submission ----------------------------------------------------
class JobInfo(Protocol):
    """What resolution and evaluation read of a job (an element, or a plain job)."""

    job_id: int
    index: int  # 0 for a plain job
    user: str
    name: str | None  # -J name (the array's base name for elements)
    status: str
    exit_code: int | None
    started: bool
    submit_time: float


@dataclass
class JobState:
    job_id: int
    index: int
    user: str
    name: str | None
    status: str
    exit_code: int | None = None
    started: bool = False
    submit_time: float = 0.0
    post: bool | None = None  # how its post-execution command (bsub -Ep) ended; None: none ran


@dataclass
class Known:
    """The jobs a submission may refer to: job ID -> its rows (one for a plain
    job, the elements for an array), plus each array's index ranges."""

    jobs: dict[int, list[JobInfo]] = field(default_factory=dict)
    array_ranges: dict[int, tuple[tuple[int, int, int], ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, rows: Iterable[JobInfo], array_ranges: dict[int, tuple] | None = None) -> "Known":
        k = cls(array_ranges=dict(array_ranges or {}))
        for r in rows:
            k.jobs.setdefault(r.job_id, []).append(r)
        return k

    def is_array(self, jid: int) -> bool:
        return jid in self.array_ranges


def _object_of(ref: Ref) -> str:
    """The reference as bsub names it in `No matching job found` (OpenLava cuts
    the token at `[` and at the closing quote)."""
    t = ref.token.split("[", 1)[0]
    if t[:1] in ("\"", "'") and t[0] in t[1:]:
        t = t[:1 + t[1:].index(t[0])]
    return t


def _name_match(pattern: str, name: str | None) -> bool:
    if name is None:
        return False
    if "*" not in pattern:
        return name == pattern
    return fnmatch.fnmatchcase(name, pattern.replace("[", "[[]").replace("?", "[?]"))


def resolve(node, known: Known, user: str, *, submitting_ranges=None, last_sub: bool = False) -> None:
    """Bind every reference to the jobs it names now (in place), or raise
    DependError. ``user``: job names match only this user's jobs;
    ``submitting_ranges``: the index ranges of the array being submitted (for
    ``[*]``); ``last_sub``: JOB_DEP_LAST_SUB=1, a name means the most recently
    submitted job of that name (wildcards still mean all)."""
    for leaf in leaves(node):
        if isinstance(leaf, Count):
            if leaf.job_id is None or leaf.job_id not in known.jobs or not known.is_array(leaf.job_id):
                raise DependError(ARRAY_NULL, leaf.token)
            continue
        ref = leaf.ref
        if ref.job_id is not None:
            ids = [ref.job_id] if ref.job_id in known.jobs else []
        else:
            ids = sorted({jid for jid, rows in known.jobs.items()
                          if rows and rows[0].user == user and _name_match(ref.name, rows[0].name)
                          and (ref.ranges is None or known.is_array(jid))})
            if last_sub and ids and "*" not in ref.name:
                ids = [max(ids, key=lambda j: (known.jobs[j][0].submit_time, j))]
        if not ids:
            raise DependError(NO_JOB, _object_of(ref))
        targets = []
        for jid in ids:
            if ref.one_to_one:
                if not known.is_array(jid) or submitting_ranges is None \
                        or tuple(known.array_ranges[jid]) != tuple(submitting_ranges):
                    raise DependError(ARRAY_SIZE)
                targets.append(Target(jid, None, True))
                continue
            if known.is_array(jid):
                ranges = ref.ranges or known.array_ranges[jid]
                have = {r.index for r in known.jobs[jid]}
                for s, e, st in ranges:
                    for i in range(s, e + 1, st):
                        if i not in have:
                            raise DependError(NO_JOB, f"{jid}[{i}]")
                targets.append(Target(jid, tuple(ranges)))
            else:
                if ref.ranges is not None:
                    raise DependError(NO_JOB, f"{jid}[{ref.ranges[0][0]}]")
                targets.append(Target(jid))
        leaf.targets = tuple(targets)


def leaves(node) -> list:
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        if isinstance(n, (And, Or)):
            todo.extend(reversed(n.items))
        elif isinstance(n, Not):
            todo.append(n.arg)
        else:
            out.append(n)
    return out


# -- evaluation ------------------------------------------------------------------


def _compare(op: str, a: int, b: int) -> bool:
    return {">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b, "==": a == b, "!=": a != b}[op]


def _job_ok(kind: str, job: JobInfo, op: str | None, value: int | None) -> bool:
    st = job.status
    if kind == "done":
        return st == "DONE"
    if kind == "ended":
        return st in FINISHED
    if kind == "exit":
        return st == "EXIT" and (op is None or _compare(op, job.exit_code or 0, value or 0))
    if kind == "started":
        return job.started
    post = getattr(job, "post", None)
    if kind == "post_done":  # post-processing ended without error: a DONE job's (LSF logs PDONE for it), or -Ep's
        return (st == "DONE" and post is not False) or (st == "EXIT" and post is True)
    if kind == "post_err":  # the post-execution command (bsub -Ep) failed
        return st in FINISHED and post is False
    return False


def _count(kind: str, rows: list[JobInfo]) -> int:
    states = {
        "numdone": ("DONE",), "numexit": ("EXIT",), "numended": FINISHED,
        "numhold": ("PSUSP",), "numpend": ("PEND",), "numrun": ("RUN",),
        "numstart": ON_HOST,
    }[kind]
    return sum(1 for r in rows if r.status in states)


def evaluate(node, lookup: Callable[[int], list[JobInfo]], index: int = 0,
             element: Callable[[int, int], list[JobInfo]] | None = None) -> str:
    """TRUE, FALSE or INVALID. ``lookup(job_id)`` gives the job's rows as they
    are now (empty when the job is gone); ``index`` is the dependent job's own
    array index (for ``[*]``); ``element(job_id, index)``, if given, the rows of
    one element (a faster ``[r for r in lookup(job_id) if r.index == index]``)."""
    if isinstance(node, Or):  # mbatchd's binary rule, folded from the left
        value = evaluate(node.items[0], lookup, index, element)
        for item in node.items[1:]:
            if value == TRUE:
                return TRUE
            right = evaluate(item, lookup, index, element)
            value = (TRUE if right == TRUE else FALSE) if value == FALSE else right
        return value
    if isinstance(node, And):
        value = evaluate(node.items[0], lookup, index, element)
        for item in node.items[1:]:
            if value == INVALID:
                return INVALID
            right = evaluate(item, lookup, index, element)
            value = (INVALID if right == INVALID else FALSE) if value == FALSE else right
        return value
    if isinstance(node, Not):
        return FALSE if evaluate(node.arg, lookup, index, element) == TRUE else TRUE
    if isinstance(node, Count):
        rows = lookup(node.job_id) if node.job_id is not None else []
        if not rows:
            return INVALID
        want = len(rows) if node.value is None else node.value
        return TRUE if _compare(node.op, _count(node.kind, rows), want) else FALSE
    # a job condition: every target, every element, must satisfy it
    for t in node.targets:
        if t.one_to_one:
            rows = element(t.job_id, index) if element is not None else \
                [r for r in lookup(t.job_id) if r.index == index]
        elif t.ranges is not None:
            rows = [r for r in lookup(t.job_id) if in_ranges(r.index, t.ranges)]
        else:
            rows = lookup(t.job_id)
        if not rows:
            return INVALID
        for r in rows:
            if _job_ok(node.kind, r, node.op, node.value):
                continue
            return INVALID if r.status in FINISHED else FALSE
    return TRUE


def reason(value: str) -> str | None:
    """The pending reason of a job whose condition evaluates to ``value``."""
    return None if value == TRUE else (NOT_SATISFIED if value == FALSE else NEVER)


# -- storing the resolved condition ------------------------------------------------
def to_data(node) -> dict:
    """A JSON-ready form of a resolved tree (the store keeps it)."""
    if isinstance(node, (And, Or)):
        return {"op": "and" if isinstance(node, And) else "or", "items": [to_data(i) for i in node.items]}
    if isinstance(node, Not):
        return {"op": "not", "a": to_data(node.arg)}
    if isinstance(node, Count):
        return {"op": "count", "kind": node.kind, "token": node.token, "id": node.job_id,
                "cmp": node.op, "v": node.value}
    return {"op": "cond", "kind": node.kind, "cmp": node.op, "v": node.value, "token": node.ref.token,
            "t": [[t.job_id, [list(r) for r in t.ranges] if t.ranges is not None else None, t.one_to_one]
                  for t in node.targets]}


def from_data(d: dict):
    op = d["op"]
    if op in ("and", "or"):
        items = [from_data(i) for i in d["items"]] if "items" in d else [from_data(d["l"]), from_data(d["r"])]
        return (And if op == "and" else Or)(items)
    if op == "not":
        return Not(from_data(d["a"]))
    if op == "count":
        return Count(d["kind"], d["token"], d["id"], d["cmp"], d["v"])
    ref = Ref(d["token"], None, None, None, False)
    targets = tuple(Target(jid, tuple(tuple(r) for r in rg) if rg is not None else None, bool(one))
                    for jid, rg, one in d["t"])
    return Cond(d["kind"], ref, d["cmp"], d["v"], targets)


def uses_index(node) -> bool:
    """Whether the value depends on the dependent element's index (``[*]``)."""
    return any(isinstance(leaf, Cond) and any(t.one_to_one for t in leaf.targets) for leaf in leaves(node))


def referenced_ids(node) -> set[int]:
    out: set[int] = set()
    for leaf in leaves(node):
        if isinstance(leaf, Count):
            if leaf.job_id is not None:
                out.add(leaf.job_id)
        else:
            out.update(t.job_id for t in leaf.targets)
    return out
