"""lsb.resources: the Limit sections (resource allocation limits, issue 19).

Each `Begin Limit` section becomes one `LimitConf` per limit: the
horizontal form (`NAME = …`, one `KEY = value` per line, one limit per
section) or the vertical tabular form (a header line of keywords, then one
limit per row; `-` or `()` for a default; several names in parentheses),
both as IBM's lsb.resources(5) describes them. A consumer is kept as
configured (`Consumer`: PER_ or not, its words with `all`, groups and
`~exclusions`); the scheduler resolves the words (lsfemu.engine.limitpass).

Kept as configured too (`LimitConf.items`): what `blimits -c` prints.
LSF's other Limit keys (LIC_PROJECTS, INELIGIBLE, ELIGIBLE_PEND_JOBS,
JOBS_PER_SCHED_CYCLE, LICENSE, …) and the other sections of the file
(HostExport, SharedResourceExport, ResourceReservation, GuaranteedResourcePool,
ReservationUsage, …) are warned about, naming the file, the line and the key,
and not used. A MEM/SWP/TMP percentage is of each host's maxmem, maxswp or
maxtmp, and needs PER_HOST (as lsb.resources(5) says).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lsfemu.config.lexer import Reporter, Section, inner, is_default, keyword_pairs, read_table, show
from lsfemu.config.values import INT_MAX, bad_keyword, dedupe, not_built, read_sections, unsupported

#: consumer keywords: (the plain one, its PER_ form) -> the consumer kind
CONSUMERS = {"USERS": "users", "PER_USER": "users", "QUEUES": "queues", "PER_QUEUE": "queues",
             "HOSTS": "hosts", "PER_HOST": "hosts", "PROJECTS": "projects", "PER_PROJECT": "projects",
             "APPS": "apps", "PER_APP": "apps"}
#: the built-in resources a limit counts
AMOUNTS = ("MEM", "SWP", "TMP")
RESOURCE_KEYS = ("SLOTS", "SLOTS_PER_PROCESSOR", "JOBS") + AMOUNTS + ("RESOURCE",)
#: LSF 10.1's other Limit keys: warned about, not used
UNBUILT = ("LIC_PROJECTS", "PER_LIC_PROJECT", "LICENSE", "INELIGIBLE", "ELIGIBLE_PEND_JOBS",
           "JOBS_PER_SCHED_CYCLE", "PER_SLA", "SLAS", "FWD_SLOTS", "FWD_JOBS", "FWD_MEM")

_WORD = re.compile(r"^~?[A-Za-z0-9_][A-Za-z0-9_.@/+-]*$")
_RESOURCE = re.compile(r"^\[\s*([A-Za-z_][A-Za-z0-9_]*)\s*,\s*([0-9]+(?:\.[0-9]+)?)\s*\]$")
_AMOUNT = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(%?)$")


@dataclass(frozen=True)
class Consumer:
    """One consumer keyword of a limit: `per` for PER_USER and its kin (the
    limit holds for each member apart), else for the listed ones together;
    `words` as configured (`all`, names, groups, `~name`)."""

    per: bool
    words: tuple[str, ...]


@dataclass
class LimitConf:
    """One resource allocation limit."""

    name: str  # NAME, or NONAMEnnn for an unnamed one (nnn: its rank among the unnamed)
    line: int
    consumers: dict[str, Consumer] = field(default_factory=dict)  # kind (users, queues, hosts, projects, apps) ->
    slots: int | None = None
    slots_per_processor: int | None = None
    jobs: int | None = None
    amounts: dict[str, float] = field(default_factory=dict)  # mem / swp / tmp -> amount (LSF_UNIT_FOR_LIMITS)
    percents: dict[str, float] = field(default_factory=dict)  # mem / swp / tmp -> % of each host's max (PER_HOST)
    resources: dict[str, float] = field(default_factory=dict)  # RESOURCE=[name,value]
    items: list[tuple[str, str]] = field(default_factory=list)  # (KEY, value) as configured, for blimits -c


def parse_resources(text: str, rep: Reporter) -> list[LimitConf]:
    """The limits of lsb.resources, in file order (see the module docstring)."""
    out: list[LimitConf] = []
    for sec in read_sections(text, rep):
        if sec.key != "LIMIT":
            unsupported(sec, rep, "lsb.resources")
            continue
        if sec.lines and "=" not in sec.lines[0].text:
            out.extend(_vertical(sec, rep))
        else:
            lim = _horizontal(sec, rep)
            if lim is not None:
                out.append(lim)
    unnamed = 0
    seen: dict[str, int] = {}
    for lim in out:
        if not lim.name:
            lim.name = f"NONAME{unnamed:03d}"
            unnamed += 1
        elif lim.name in seen:
            rep.fatal(lim.line, f"limit {lim.name} is defined twice (first at line {seen[lim.name]})")
        seen.setdefault(lim.name, lim.line)
    return out


def _horizontal(sec: Section, rep: Reporter) -> LimitConf | None:
    lim = LimitConf(name="", line=sec.begin)
    given: dict[str, int] = {}
    for key, value, line in dedupe(keyword_pairs(sec.lines, rep, "Limit"), rep, {}):
        if key == "NAME":
            if len(value.split()) != 1 or not _WORD.match(value) or value.startswith("~"):
                rep.fatal(line, f"NAME: expected a limit name, got {show(value)}")
                continue
            lim.name = value
            lim.items.append((key, value))
            continue
        if _value(lim, key, value, line, rep, given):
            lim.items.append((key, value))
    return _complete(lim, given, sec.begin, rep)


def _vertical(sec: Section, rep: Reporter) -> list[LimitConf]:
    known = ("NAME",) + tuple(CONSUMERS) + RESOURCE_KEYS
    tab = read_table(sec, rep, required=(), known=known, unused=UNBUILT)
    out = []
    for line, row in tab.rows if tab else ():
        lim = LimitConf(name="", line=line)
        given: dict[str, int] = {}
        for col in tab.columns:
            raw = row[col]
            if col not in known or is_default(raw):
                continue
            value = inner(raw)
            if col == "NAME":
                if not _WORD.match(value) or value.startswith("~"):
                    rep.fatal(line, f"NAME: expected a limit name, got {show(value)}")
                    continue
                lim.name = value
            elif not _value(lim, col, value, line, rep, given):
                continue
            lim.items.append((col, value))
        done = _complete(lim, given, line, rep)
        if done is not None:
            out.append(done)
    return out


def _value(lim: LimitConf, key: str, value: str, line: int, rep: Reporter, given: dict[str, int]) -> bool:
    """Read one keyword's value into *lim* (False: not used, after saying why)."""
    if key in CONSUMERS:
        kind = CONSUMERS[key]
        if kind in lim.consumers:
            other = next(k for k, v in CONSUMERS.items() if v == kind and k != key)
            rep.fatal(line, f"{key}: {other} is also set in this Limit section (use one of {key} and {other})")
            return False
        words = tuple(value.split())
        bad = [w for w in words if not _WORD.match(w)]
        if not words or bad:
            rep.fatal(line, f"{key}: expected names, groups, all or ~name, got {show(value)}")
            return False
        lim.consumers[kind] = Consumer(key.startswith("PER_"), words)
        given[key] = line
        return True
    if key in ("SLOTS", "SLOTS_PER_PROCESSOR", "JOBS"):
        v = value.strip()
        if not re.match(r"^[0-9]+$", v) or int(v) > INT_MAX:
            rep.fatal(line, f"{key}: expected a non-negative integer, got {show(v)}")
            return False
        setattr(lim, key.lower(), int(v))
        given[key] = line
        return True
    if key in AMOUNTS:
        m = _AMOUNT.match(value.strip())
        if m is None:
            rep.fatal(line, f"{key}: expected an amount in MB or a percentage (e.g. 4096 or 10%), got {show(value)}")
            return False
        if m.group(2):
            if float(m.group(1)) > 100:
                rep.fatal(line, f"{key}: expected a percentage up to 100%, got {show(value)}")
                return False
            lim.percents[key.lower()] = float(m.group(1))
        else:
            lim.amounts[key.lower()] = float(m.group(1))
        given[key] = line
        return True
    if key == "RESOURCE":
        pairs = re.findall(r"\[[^\]]*\]", value)
        if not pairs or re.sub(r"\[[^\]]*\]", "", value).strip():
            rep.fatal(line, f"RESOURCE: expected [resource_name,value] ..., got {show(value)}")
            return False
        for p in pairs:
            m = _RESOURCE.match(p)
            if m is None:
                rep.fatal(line, f"RESOURCE: expected [resource_name,value], got {show(p)}")
                return False
            lim.resources[m.group(1)] = float(m.group(2))
        given[key] = line
        return True
    if key in UNBUILT:
        not_built(key, line, rep)
    else:
        bad_keyword(key, "Limit", line, rep)
    return False


def _complete(lim: LimitConf, given: dict[str, int], line: int, rep: Reporter) -> LimitConf | None:
    """The limit when it limits something; LSF's rules across keys."""
    if "SLOTS" in given and "SLOTS_PER_PROCESSOR" in given:
        rep.fatal(given["SLOTS_PER_PROCESSOR"], "SLOTS_PER_PROCESSOR: SLOTS is also set in this Limit section "
                                                "(use one of SLOTS and SLOTS_PER_PROCESSOR)")
        return None
    if "SLOTS_PER_PROCESSOR" in given and not (lim.consumers.get("hosts") and lim.consumers["hosts"].per):
        rep.fatal(given["SLOTS_PER_PROCESSOR"], "SLOTS_PER_PROCESSOR: needs PER_HOST in the same Limit section "
                                                "(slots per processor of each host)")
        return None
    per_host = lim.consumers.get("hosts") is not None and lim.consumers["hosts"].per
    for res in lim.percents:
        if not per_host:
            rep.fatal(given[res.upper()], f"{res.upper()}: a percentage needs PER_HOST in the same Limit section "
                                          f"(a share of each host's max{res})")
            return None
    if lim.slots is None and lim.slots_per_processor is None and lim.jobs is None and not lim.amounts \
            and not lim.percents and not lim.resources:
        rep.warn(line, f"Limit section{' ' + lim.name if lim.name else ''} limits no resource "
                       "(expected SLOTS, SLOTS_PER_PROCESSOR, MEM, SWP, TMP, JOBS or RESOURCE); ignored")
        return None
    return lim


def check_names(limits: list[LimitConf], rep: Reporter, queues: set[str] | None, hosts: set[str] | None,
                host_groups: dict[str, list[str]]) -> None:
    """Warn about queues and hosts a limit names that the configuration does not have
    (LSF ignores them too; the limit holds for the others)."""
    for lim in limits:
        for kind, known, what in (("queues", queues, "a queue of lsb.queues"),
                                  ("hosts", hosts, "a host of lsf.cluster nor a host group")):
            c = lim.consumers.get(kind)
            if c is None or known is None:
                continue
            for w in c.words:
                name = w.lstrip("~")
                if name != "all" and name not in known and name not in (host_groups if kind == "hosts" else ()):
                    rep.warn(lim.line, f"limit {lim.name}: {name} is not {what}; ignored")
