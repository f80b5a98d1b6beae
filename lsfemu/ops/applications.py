"""bapp's view of the application profiles (lsb.applications): each profile's
settings and its jobs' counts (tasks: a job's slots), from the jobs the
cluster holds (unfinished, and finished within CLEAN_PERIOD)."""

from __future__ import annotations

from dataclasses import dataclass

from lsfemu.errors import LsfError
from lsfemu.render import messages as M


@dataclass
class AppRow:
    name: str
    description: str | None
    run_limit: float | None  # minutes
    mem_limit_kb: int | None
    pend: int = 0
    run: int = 0
    ssusp: int = 0
    ususp: int = 0

    @property
    def njobs(self) -> int:
        return self.pend + self.run + self.ssusp + self.ususp


_FIELD = {"PEND": "pend", "PSUSP": "pend", "RUN": "run", "SSUSP": "ssusp", "USUSP": "ususp"}


def profiles(cl, names: list[str] | None) -> list[AppRow]:
    """The profiles named (all, in file order, when none are): LsfError
    `name: No such application` for a name lsb.applications does not have."""
    apps = cl.config.applications
    for n in names or ():
        if n not in apps:
            raise LsfError(M.NO_SUCH_APP, n)
    chosen = [apps[n] for n in dict.fromkeys(names)] if names else list(apps.values())
    unit = cl.limits_unit()
    power = {"K": 0, "M": 1, "G": 2, "T": 3, "P": 4, "E": 5}.get(unit[:1], 0)
    rows = {a.name: AppRow(a.name, a.description, a.run_limit,
                           a.mem_limit * 1024 ** power if a.mem_limit is not None else None) for a in chosen}
    for j in cl.jobs.values():
        r = rows.get(j.app_profile) if j.app_profile is not None else None
        f = _FIELD.get(j.status) if r is not None else None
        if f is not None:
            setattr(r, f, getattr(r, f) + j.num_processors)
    return list(rows.values())
