"""Preemptive scheduling (lsb.queues PREEMPTION), as pure functions.

`Rules` says which queue's jobs may preempt which queue's: queue H may
preempt queue L when H's PRIORITY is higher and either H is PREEMPTIVE
(naming L, or naming no queue: every lower-priority queue) or L is
PREEMPTABLE (naming H, or naming no queue: every higher-priority queue).
The ``+pref`` of ``PREEMPTIVE[low+pref]`` orders the queues H preempts
from: a higher preference level first.

`choose` picks the running jobs to preempt for one pending job: candidates
in LSF's default order (already-preempted jobs, whose slots are free for a
preemptor; then by preference level, the lowest-priority queue, the lowest
job priority -- not with PREEMPT_FOR=LEAST_RUN_TIME --, the most recently
started), taken until the job fits; then
each one the job can do without is given back, so that no chosen job is
unnecessary (the job never frees more slots than it needs by a whole job's
worth). Whether the job fits is the caller's question (`fits`: the pass's
own placement with the freed slots).

`protected` says whether NO_PREEMPT_RUN_TIME / NO_PREEMPT_FINISH_TIME keep
a running job from being preempted (`NoPreempt`, parsed by lsfemu.config.lsb_params.no_preempt).

`resumable` says which preempted jobs may run again: those whose hosts have
their slots back once no preempted job holds them, taken in order (the
higher-priority queue, the earlier start first).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from lsfemu.config.lsb_params import NoPreempt
from lsfemu.config.lsb_queues import Preemption, parse_preemption


class Rules:
    """The preemption relations of a configuration's queues."""

    def __init__(self, queues: Iterable[tuple[str, int, str | None]]):
        """*queues*: (name, PRIORITY, PREEMPTION text or None) in lsb.queues order."""
        qs = [(name, prio, parse_preemption(text) if text else Preemption()) for name, prio, text in queues]
        self.priority = {name: prio for name, prio, _ in qs}
        self.pairs: dict[str, dict[str, int]] = {}  # preemptive queue -> {queue it preempts: preference level}
        for high, hp, hpre in qs:
            for low, lp, lpre in qs:
                if hp <= lp or high == low:
                    continue
                pref = None
                if hpre.preemptive:
                    if hpre.low is None:
                        pref = 0
                    else:
                        pref = next((p for n, p in hpre.low if n == low), None)
                if pref is None and lpre.preemptable and (lpre.high is None or high in lpre.high):
                    pref = 0
                if pref is not None:
                    self.pairs.setdefault(high, {})[low] = pref
        self.preemptable = {low for lows in self.pairs.values() for low in lows}
        self.preemptive_of = {name: pre.preemptive for name, _, pre in qs}
        self.preemptable_of = {name: pre.preemptable for name, _, pre in qs}

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def can_preempt(self, high: str, low: str) -> bool:
        return low in self.pairs.get(high, ())

    def pref(self, high: str, low: str) -> int:
        return self.pairs.get(high, {}).get(low, 0)

    def policies(self, queue: str) -> list[str]:
        """bqueues -l's SCHEDULING POLICIES words of *queue*."""
        out = []
        if self.preemptive_of.get(queue):
            out.append("PREEMPTIVE")
        if self.preemptable_of.get(queue):
            out.append("PREEMPTABLE")
        return out


def protected(ran: float, duration: float | None, run_time: NoPreempt | None,
              finish_time: NoPreempt | None) -> bool:
    """May a job that has run *ran* minutes, expected to run *duration*
    minutes (its run limit or estimate; None: neither), not be preempted?
    NO_PREEMPT_RUN_TIME: it has run that long already; NO_PREEMPT_FINISH_TIME:
    it finishes within that long (only a job with a duration can tell)."""
    if run_time is not None:
        least = run_time.minutes(duration)
        if least is not None and ran >= least:
            return True
    if finish_time is not None and duration is not None:
        window = finish_time.minutes(duration)
        if window is not None and duration - ran <= window:
            return True
    return False


@dataclass(frozen=True)
class Victim:
    """A started job that a preemptor could take slots from."""

    key: tuple[int, int]
    queue: str
    hosts: tuple[str, ...]  # one per slot
    priority: int  # job priority (0 without user priorities)
    start_time: float
    suspended: bool = False  # preempted already (SSUSP): its slots are free for a preemptor

    def freed(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for h in self.hosts:
            out[h] = out.get(h, 0) + 1
        return out


def order(rules: Rules, preemptor_queue: str, victims: Iterable[Victim],
          least_run_time: bool = False) -> list[Victim]:
    """The jobs *preemptor_queue*'s jobs may preempt, in the order LSF takes them.
    *least_run_time* (lsb.params PREEMPT_FOR=LEAST_RUN_TIME): within a queue,
    the job that has run the shortest (wall-clock) time first, whatever the
    jobs' priorities."""
    pairs = rules.pairs.get(preemptor_queue, {})
    mine = [v for v in victims if v.queue in pairs]
    mine.sort(key=lambda v: (not v.suspended, -pairs[v.queue], rules.priority[v.queue],
                             0 if least_run_time else v.priority, -v.start_time, -v.key[0], -v.key[1]))
    return mine


def choose(candidates: list[Victim], fits: Callable[[dict[str, int]], bool],
           useful: Callable[[str], bool] = lambda h: True) -> list[Victim] | None:
    """The jobs to preempt (in *candidates*' order) so that ``fits(freed)``
    holds, *freed* being the slots they free per host; None when even all of
    them are not enough. Candidates with no host that is *useful* are skipped."""
    chosen: list[Victim] = []
    freed: dict[str, int] = {}
    ok = fits(freed)  # (no job to preempt when it fits already)
    for v in candidates if not ok else ():
        if not any(useful(h) for h in v.hosts):
            continue
        chosen.append(v)
        for h, n in v.freed().items():
            freed[h] = freed.get(h, 0) + n
        if fits(freed):
            ok = True
            break
    if not ok:
        return None
    # Give back each job the others make up for, the least preferred first
    # (the last taken is needed: without it the job did not fit).
    for v in reversed(chosen[:-1]):
        trial = dict(freed)
        for h, n in v.freed().items():
            trial[h] -= n
        if fits(trial):
            chosen.remove(v)
            freed = trial
    return chosen


def resumable(preempted: list[tuple[Victim, int]], room: dict[str, int | None]) -> list[Victim]:
    """Which preempted jobs run again: *preempted* pairs each with its queue's
    priority; *room* is each host's free slots once no preempted job holds
    any (None: no limit). Higher-priority queue, then earlier start, first."""
    left = dict(room)
    out = []
    for v, _ in sorted(preempted, key=lambda p: (-p[1], p[0].start_time, p[0].key)):
        need = v.freed()
        if all(left.get(h) is None or left[h] >= n for h, n in need.items()):
            for h, n in need.items():
                if left.get(h) is not None:
                    left[h] -= n
            out.append(v)
    return out
