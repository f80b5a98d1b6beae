"""Fairshare's configuration: the USER_SHARES syntax (a queue's
``FAIRSHARE=USER_SHARES[[name, shares] ...]``, a group's USER_SHARES in
lsb.users and a HostPartition's USER_SHARES) and the adjustment plug-in that
lsb.params' FAIRSHARE_ADJUSTMENT_PLUGIN names.

Parsed and loaded here, once, for the configuration checks (``badmin
ckconfig``), the share trees (:func:`lsfemu.sched.fairshare.build_tree`), the
bqueues texts and the engine; :class:`ShareSyntaxError` says what LSF would
have expected. The plug-in's interface (what it receives) is in
:mod:`lsfemu.sched.fairshare_plugins`.
"""

from __future__ import annotations

import importlib
import math
import re
from typing import Callable

class ShareSyntaxError(ValueError):
    """A USER_SHARES text LSF would refuse; the message says what was expected."""


_NAME = re.compile(r"[^\s,\[\]()]+")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


def _show(text: str, pos: int) -> str:
    rest = text[pos:pos + 20]
    return repr(rest) if rest else "the end of the text"


def parse_user_shares(text: str) -> list[tuple[str, float]]:
    """``USER_SHARES[[a, 1] [b, 2]]`` or ``[a, 1] [b, 2]`` -> ``[("a", 1.0), ("b", 2.0)]``.

    Spaces are free around brackets and commas (``USER_SHARES [ [a,1] [b , 2] ]``);
    a parenthesised list (lsb.users style, ``([a, 1])``) is accepted too.
    Shares must be positive numbers; a name may appear once. Empty text -> [].
    """
    if not isinstance(text, str):
        raise ShareSyntaxError(f"USER_SHARES: expected text, got {type(text).__name__}")
    s = text
    pos = 0
    end = len(s)

    def skip(p: int) -> int:
        while p < end and s[p].isspace():
            p += 1
        return p

    def rskip(e: int) -> int:
        while e > pos and s[e - 1].isspace():
            e -= 1
        return e

    pos = skip(pos)
    end = rskip(end)
    m = re.match(r"USER_SHARES", s[pos:end], re.IGNORECASE)
    if m:
        pos = skip(pos + m.end())
        if pos >= end or s[pos] != "[":
            raise ShareSyntaxError(f"USER_SHARES: expected '[' after USER_SHARES "
                                   f"(USER_SHARES[[name, shares] ...]), got {_show(s, pos)}")
        if s[end - 1] != "]":
            raise ShareSyntaxError("USER_SHARES: expected the list to end with ']' "
                                   "(USER_SHARES[[name, shares] ...])")
        pos, end = skip(pos + 1), rskip(end - 1)
    elif pos < end and s[pos] == "(":
        if s[end - 1] != ")":
            raise ShareSyntaxError("USER_SHARES: expected ')' to close the share list that starts with '('")
        pos, end = skip(pos + 1), rskip(end - 1)
    elif pos < end and s[pos] == "[" and skip(pos + 1) < end and s[skip(pos + 1)] == "[":
        # outer brackets without the keyword: [[a, 1] [b, 2]]
        if s[end - 1] != "]":
            raise ShareSyntaxError("USER_SHARES: expected ']' to close the share list that starts with '[['")
        pos, end = skip(pos + 1), rskip(end - 1)

    out: list[tuple[str, float]] = []
    seen: set[str] = set()
    while True:
        pos = skip(pos)
        if pos >= end:
            break
        if s[pos] != "[":
            raise ShareSyntaxError(f"USER_SHARES: expected '[' to open a share assignment [name, shares] "
                                   f"at character {pos + 1}, got {_show(s, pos)}")
        pos = skip(pos + 1)
        nm = _NAME.match(s, pos, end)
        if nm is None:
            raise ShareSyntaxError(f"USER_SHARES: expected a user or group name after '[' "
                                   f"at character {pos + 1}, got {_show(s, pos)}")
        name = nm.group(0)
        pos = skip(nm.end())
        if pos >= end or s[pos] != ",":
            raise ShareSyntaxError(f"USER_SHARES: expected ',' between the name {name!r} and its number of shares "
                                   f"at character {pos + 1}, got {_show(s, pos)}")
        pos = skip(pos + 1)
        num = _NUMBER.match(s, pos, end)
        if num is None:
            raise ShareSyntaxError(f"USER_SHARES: expected a positive number of shares for {name!r} "
                                   f"at character {pos + 1}, got {_show(s, pos)}")
        value = float(num.group(0))
        pos = skip(num.end())
        if pos >= end or s[pos] != "]":
            raise ShareSyntaxError(f"USER_SHARES: expected ']' to close [{name}, {num.group(0)}] "
                                   f"at character {pos + 1}, got {_show(s, pos)}")
        pos += 1
        if not (value > 0 and math.isfinite(value)):
            raise ShareSyntaxError(f"USER_SHARES: expected a positive number of shares for {name!r}, "
                                   f"got {num.group(0)}")
        if name in seen:
            raise ShareSyntaxError(f"USER_SHARES: {name!r} is given shares twice")
        seen.add(name)
        out.append((name, value))
    return out


def load_plugin(spec: str) -> Callable[..., float]:
    """Import ``"module:callable"`` (dots allowed on both sides: ``pkg.mod:Class.method``).

    Raises ValueError with a message saying what is wrong: no colon, module
    not importable, attribute missing, not callable.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError('FAIRSHARE_ADJUSTMENT_PLUGIN: expected "module:callable", got an empty value')
    text = spec.strip().strip('"').strip()
    if text.count(":") != 1:
        raise ValueError(f'FAIRSHARE_ADJUSTMENT_PLUGIN: expected "module:callable" (one colon), got {text!r}')
    mod_name, attr_path = (p.strip() for p in text.split(":"))
    if not mod_name or not attr_path:
        raise ValueError(f'FAIRSHARE_ADJUSTMENT_PLUGIN: expected "module:callable" with both parts, got {text!r}')
    try:
        obj = importlib.import_module(mod_name)
    except Exception as e:  # ImportError, or the module itself failing
        raise ValueError(f"FAIRSHARE_ADJUSTMENT_PLUGIN: cannot import module {mod_name!r}: "
                         f"{type(e).__name__}: {e}") from None
    for part in attr_path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"FAIRSHARE_ADJUSTMENT_PLUGIN: module {mod_name!r} has no {attr_path!r}") from None
    if not callable(obj):
        raise ValueError(f"FAIRSHARE_ADJUSTMENT_PLUGIN: {text!r} is not callable")
    return obj  # type: ignore[return-value]
