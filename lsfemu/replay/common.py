"""What both replay modes share: the error a replay reports, the files in
order (lsb.events and lsb.acct told apart), the progress bar, the reading warnings, the collector's pause, and
the check of a configuration given on the command line (``--conf``,
``--what-if``)."""

from __future__ import annotations

import contextlib
import gc
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from lsfemu.events.log import EventWarning, archive_number

#: rows written (or read) at once: the store's and the what-if table's batches
BATCH = 2000


class ReplayError(Exception):
    """A replay that cannot be done (bad arguments, unusable files); the message is for the user."""


#: ``lsb.acct`` and its archives ``lsb.acct.N``
_ACCT_RE = re.compile(r"lsb\.acct(?:\.(\d+))?\Z")


def acct_number(path: Path) -> int | None:
    """N for ``lsb.acct.N``, 0 for ``lsb.acct``, None for other names."""
    m = _ACCT_RE.match(path.name)
    return None if m is None else int(m.group(1) or 0)


def _is_acct(path: Path) -> bool:
    """An accounting file: named so, or (another name) its first record a JOB_FINISH."""
    if acct_number(path) is not None:
        return True
    if archive_number(path) is not None:
        return False
    with open(path, "rb") as fh:
        for line in fh:
            if line.strip():
                return line.startswith(b'"JOB_FINISH" ')
    return False


def _oldest_first(files: list[Path], number) -> list[Path]:
    """Archives before the current file, higher N first, when every name is numbered so; else as given."""
    if all(number(f) is not None for f in files):
        return sorted(files, key=lambda f: -(number(f) or 0))
    return files


def split_logs(paths: Iterable[str]) -> tuple[list[Path], list[Path]]:
    """The lsb.events files and the lsb.acct files among *paths*, each oldest
    first: a directory stands for both kinds of its files; a file is an
    accounting file by its name (``lsb.acct``, ``lsb.acct.N``) or, named
    otherwise, by its first record (JOB_FINISH); archives (``.N``) come
    before the current file, higher N first; other names keep the order given."""
    events: list[Path] = []
    acct: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            ev = [f for f in path.iterdir() if archive_number(f) is not None]
            ac = [f for f in path.iterdir() if acct_number(f) is not None]
            if not ev and not ac:
                raise ReplayError(f"{path}: no lsb.events or lsb.acct files in this folder")
            events.extend(sorted(ev, key=lambda f: -(archive_number(f) or 0)))
            acct.extend(sorted(ac, key=lambda f: -(acct_number(f) or 0)))
        elif not path.is_file():
            raise ReplayError(f"{path}: No such file")
        elif _is_acct(path):
            acct.append(path)
        else:
            events.append(path)
    return _oldest_first(events, archive_number), _oldest_first(acct, acct_number)


class Progress:
    """A progress bar on stderr (typer's) over *total* units -- the bytes of
    the files, or the jobs -- when stderr is a terminal or when asked."""

    def __init__(self, total: int, label: str, enabled: bool | None = None):
        self.total = max(1, total)
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.bar = None
        self.done = 0
        if enabled:
            import typer  # only for a bar: the replay library needs typer for nothing else

            self.bar = typer.progressbar(length=self.total, label=label, file=sys.stderr)
            self.bar.__enter__()

    def __call__(self, nbytes: int) -> None:
        if self.bar is not None and nbytes > self.done:
            self.bar.update(nbytes - self.done)
            self.done = nbytes

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


@dataclass
class Warnings:
    """Problems met while reading: counted by kind, the first few kept."""

    counts: dict[str, int] = field(default_factory=dict)
    first: list[str] = field(default_factory=list)
    keep: int = 10

    def __call__(self, w: EventWarning) -> None:
        self.counts[w.kind] = self.counts.get(w.kind, 0) + 1
        if len(self.first) < self.keep:
            self.first.append(str(w))

    def lines(self) -> list[str]:
        out = list(self.first)
        total = sum(self.counts.values())
        if total > len(self.first):
            out.append(f"... and {total - len(self.first)} more "
                       f"({', '.join(f'{n} {k}' for k, n in sorted(self.counts.items()))})")
        return out


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic collector paused: reading a log makes and frees a few
    objects per record, none in a cycle (reference counts free them all),
    and the collector would only walk the jobs held again and again."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def checked_config(confdir: Path, option: str) -> Path:
    """*confdir* (an LSF_ENVDIR given with *option*), resolved, when its
    configuration loads; else ReplayError with each error's file and line."""
    from lsfemu.config.semantic import check_all  # the configuration's checker: --conf and --what-if only

    confdir = confdir.expanduser().resolve()
    if not (confdir / "lsf.conf").exists():
        raise ReplayError(f"{confdir}/lsf.conf: No such file ({option} takes an LSF_ENVDIR)")
    cfg, issues = check_all(str(confdir))
    if cfg is None:
        raise ReplayError(f"the {option} configuration has errors:\n"
                          + "\n".join(str(i) for i in issues if i.fatal))
    return confdir

