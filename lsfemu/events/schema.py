"""The machinery of the ``lsb.events`` record types: the field spec, the base record, the registry.

A record type is a dataclass deriving from :class:`Record` whose ``_SCHEMA``
names its fields as LSF writes them, each an :class:`_F`; :func:`_register`
checks that the two agree and adds the class to :data:`RECORD_TYPES`. Import
the registry from :mod:`lsfemu.events.records`: it is complete only once
every record type's module is imported, which that module does (it and
:mod:`lsfemu.events.submitrecords` hold the types). Also here: each type's
field defaults (the codec's and the generated decoders' neutral values),
the job ID text of JOB_MODIFY2, and :func:`fields_from_schema`, which makes
a class's attributes from its schema so that its field list is written once
(every record type, :func:`_schema_fields`; lsb.acct's JOB_FINISH record,
:class:`lsfemu.events.acct.AcctRecord`).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator

#: the version string lsfemu writes into every record
VERSION = "10.1"

# ---------------------------------------------------------------------------
# schema machinery
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _F:
    """One field of a record type: ``kind`` is ``i`` (int), ``f`` (float,
    written with ``fmt``), ``s`` (string), ``slist`` (count + strings),
    ``ints`` / ``floats`` (exactly ``size`` bare numbers), ``xf`` (count +
    (subFn, execFn, options) triples). ``when`` gates the field on values
    that come before it; ``optional`` fields may be missing at the end of a
    line (older writers)."""

    name: str
    kind: str
    fmt: str = "%.2f"
    size: int = 0
    when: Callable[[dict[str, Any]], bool] | None = None
    optional: bool = False
    # for a class made from its schema (:func:`fields_from_schema`): the
    # items of a list kind, and the attribute's default when it is not its kind's
    shape: tuple = ()
    default: Any = None  # (None: its kind's)


def fields_from_schema(schema: tuple[_F, ...], kinds: dict[str, tuple[type, Any]]):
    """A class decorator: the class's dataclass fields made from *schema*, so
    that a record's field list is written once (the schema gives each
    field's name and kind; *kinds* maps a kind to its type and default; a
    field's own ``default`` wins). Fields the class body annotates itself
    (what no schema position holds, or a field without a default) come
    first, as written there; the schema's follow in its order. The
    decorator gives the class its annotations and defaults only: apply
    ``dataclass`` after it."""

    def make(cls: type) -> type:
        own = dict(cls.__dict__.get("__annotations__", {}))
        notes: dict[str, Any] = dict(own)
        for spec in schema:
            if spec.name in own:
                continue
            typ, default = kinds[spec.kind]
            notes[spec.name] = typ
            setattr(cls, spec.name, default if spec.default is None else spec.default)
        cls.__annotations__ = notes
        return cls

    return make


#: each lsb.events kind's attribute type and default (a field's own ``default`` wins)
_KINDS: dict[str, tuple[type, Any]] = {
    "i": (int, 0), "f": (float, 0.0), "s": (str, ""), "slist": (tuple, ()), "xf": (tuple, ()), "ints": (tuple, ()),
    "floats": (tuple, ()),
}


def _schema_fields(cls: type) -> type:
    """An lsb.events record class's attributes made from its ``_SCHEMA``
    (:func:`fields_from_schema`): each field is written once, there."""
    return fields_from_schema(cls._SCHEMA, _KINDS)(cls)


def _gate(source: str, *words: str) -> Callable[[dict[str, Any]], bool]:
    """A field's ``when``: the test *source* (an expression of ``v``, the
    values decoded so far) as a function, marked with its source (generated
    decoders inline it) and the fields it reads (a decoder of some fields
    only, :func:`~lsfemu.events.fastdecode.reader`, converts those too)."""
    test = eval(f"lambda v: bool({source})", {})  # noqa: S307 -- our own schema's expressions
    test.source = source
    test.words = words
    return test


def _opt(bit: int, word: str = "options") -> Callable[[dict[str, Any]], bool]:
    return _gate(f"v[{word!r}] & {bit}", word)



@dataclass(kw_only=True)
class Record:
    """Fields every record has. ``extra`` holds trailing fields this module
    does not know (raw text, written back verbatim)."""

    TYPE: ClassVar[str] = ""
    _SCHEMA: ClassVar[tuple[_F, ...]] = ()
    #: its gated fields are seldom present (the fast decoder's shape may then read a run of them)
    _RARE_GATES: ClassVar[bool] = False

    event_time: int = 0
    version: str = VERSION
    extra: tuple[str, ...] = ()

    @property
    def job_key(self) -> tuple[int, int] | None:
        """``(job_id, array_index)`` for job records, else None."""
        jid = getattr(self, "job_id", None)
        if jid is None:
            return None
        return (jid, getattr(self, "idx", 0))


RECORD_TYPES: dict[str, type[Record]] = {}


def _register(cls: type[Record]) -> type[Record]:
    names = {f.name for f in dataclasses.fields(cls)}
    for spec in cls._SCHEMA:
        assert spec.name in names, (cls.__name__, spec.name)
    RECORD_TYPES[cls.TYPE] = cls
    return cls




_DEFAULTS: dict[type, dict[str, Any]] = {}


def _default(cls: type[Record], name: str) -> Any:
    table = _DEFAULTS.get(cls)
    if table is None:
        table = {}
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                table[f.name] = f.default
            elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                table[f.name] = f.default_factory()  # type: ignore[misc]
        _DEFAULTS[cls] = table
    return table[name]


def _all_defaults(cls: type[Record]) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(cls):
        out[f.name] = _default(cls, f.name)
    return out



def iter_types() -> Iterator[type[Record]]:
    """Every record class, in registration order."""
    return iter(RECORD_TYPES.values())



def parse_job_id_str(text: str) -> tuple[int, int]:
    """``"108"`` -> (108, 0); ``"108[3]"`` -> (108, 3). Raises ValueError."""
    m = re.fullmatch(r"[ \t]*([0-9]+)(?:\[([0-9]+)\])?[ \t]*", text)
    if not m:
        raise ValueError(f"bad job ID {text!r}")
    return int(m.group(1)), int(m.group(2) or 0)
