"""`lsfemu plot priority|slots`: pictures of a cluster's history, from its
lsb.events (the log the daemon keeps in step with the store), with no
scheduling re-run.

The log gives each job's runs: when it started, on how many slots, when it
was suspended and resumed, when it ended and with how much CPU time. From
them, at any instant of the log:

* **slots**: the slots each user (or queue) held: running and suspended
  jobs hold theirs, as bhosts counts them;
* **priority**: each user's dynamic fairshare priority in a queue, by the
  daemon's own arithmetic (lsfemu.sched.fairshare: `job_usage` of the runs
  going on, `History` of the runs ended, the share tree): what `lsfemu
  explain priority USER -q QUEUE` showed at that instant, as long as the
  configuration was the one in force now (it is applied over the whole
  interval) and the daemon was not restarted (a restart forgets the runs of
  jobs older than CLEAN_PERIOD: docs/semantics.md, "Plots").

The series are plain data (`Plot`), rendered as a text table
(lsfemu.render.plot) or an SVG chart (lsfemu.render.svgchart)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from lsfemu.config.parser import load
from lsfemu.engine.fairshare import scopes
from lsfemu.events.history import build_histories
from lsfemu.events.log import event_files, read_events
from lsfemu.sched import fairshare as fs

#: the states in which a started job holds its slots
HOLDING = ("RUN", "USUSP", "SSUSP", "UNKWN")


class PlotError(Exception):
    """Why there is no plot (the message says it in full)."""


@dataclass
class Run:
    """One run of a job: dispatch to its end (finish, requeue, rerun; None: still
    going at the end of the log), and the intervals it ran in (suspensions left out)."""

    job: str
    user: str
    queue: str
    hosts: frozenset
    slots: int
    start: float
    end: float | None = None
    cpu: float | None = None  # seconds, as the finish record says
    running: list = field(default_factory=list)  # [start, end or None] pairs

    def work(self, t: float) -> float:
        """Seconds run by *t*."""
        return sum(max(0.0, min(t, b if b is not None else t) - a) for a, b in self.running if a < t)

    def cpu_at(self, t: float) -> float:
        """CPU seconds by *t*: used evenly over the run (its finish record's total, else
        one CPU second per slot and second, as lsfemu's simulated jobs use)."""
        done = self.work(t)
        if self.cpu is None or self.end is None:
            return done * self.slots
        total = self.work(self.end)
        return self.cpu * done / total if total > 0 else 0.0


@dataclass
class Plot:
    """Series over an interval: `columns` (users or queues), `rows` as
    (instant, {column: value}), and the job starts and ends as (instant, text)."""

    title: str
    columns: list
    rows: list
    marks: list
    unit: str


def runs_of(histories) -> list[Run]:
    """Every run in the histories, in start order."""
    out = []
    for h in histories:
        run = None
        for c in h.changes:
            if c.kind == "DISPATCH":
                hosts = list(c.data.get("hosts") or [])
                run = Run(h.display_id, h.user, h.queue, frozenset(hosts), max(1, len(hosts)), c.time)
                out.append(run)
                run.running.append([c.time, None])
            elif run is None:
                continue
            elif c.kind == "STATUS" and c.data.get("status") in ("USUSP", "SSUSP", "UNKWN", "PEND", "PSUSP"):
                if run.running and run.running[-1][1] is None:
                    run.running[-1][1] = c.time
                if c.data.get("status") in ("PEND", "PSUSP"):  # requeued or rerun: this run is over
                    run.end, run = c.time, None
            elif c.kind == "STATUS" and c.data.get("status") == "RUN":
                if not run.running or run.running[-1][1] is not None:
                    run.running.append([c.time, None])
            elif c.kind in ("FINISH", "REQUEUE"):
                if run.running and run.running[-1][1] is None:
                    run.running[-1][1] = c.time
                run.end = c.time
                if c.kind == "FINISH" and c.data.get("cpu_time") is not None:
                    run.cpu = float(c.data["cpu_time"])
                run = None
    return sorted(out, key=lambda r: (r.start, r.job))


class History:
    """A cluster's configuration and the runs of its log (LSF_ENVDIR, LSFEMU_HOME)."""

    def __init__(self, envdir: str, home: str):
        self.config = load(envdir)
        files = event_files(Path(home) / "logdir")
        if not files:
            raise PlotError(f"no lsb.events in {Path(home) / 'logdir'}: the cluster has no history yet")
        self.histories = build_histories(r for _, r in read_events(files))
        self.runs = runs_of(self.histories)
        times = [h.submit_time for h in self.histories] + [r.end or r.start for r in self.runs]
        self.first, self.last = (min(times), max(times)) if times else (0.0, 0.0)

    @classmethod
    def from_env(cls) -> History:
        envdir = os.environ.get("LSF_ENVDIR")
        if not envdir:
            raise PlotError("LSF_ENVDIR is not set; run 'lsfemu init DIR' and 'export LSF_ENVDIR=DIR'")
        return cls(envdir, os.environ.get("LSFEMU_HOME") or os.path.join(os.path.expanduser("~"), ".lsfemu"))

    def marks(self, t0: float, t1: float) -> list[tuple[float, str]]:
        """The starts and ends of runs in [t0, t1], in time order."""
        out = [(r.start, f"start {r.job} ({r.user})") for r in self.runs if t0 <= r.start <= t1]
        out += [(r.end, f"end {r.job} ({r.user})") for r in self.runs if r.end is not None and t0 <= r.end <= t1]
        return sorted(out)

    # -- slots ----------------------------------------------------------------
    def slots(self, by: str, t0: float, t1: float) -> Plot:
        """Slots held per user (`by` "user") or queue, at each instant they change in [t0, t1]."""
        key = (lambda r: r.user) if by == "user" else (lambda r: r.queue)
        instants = sorted({t0, *(t for r in self.runs for t in (r.start, r.end) if t is not None and t0 < t <= t1)})
        columns = sorted({key(r) for r in self.runs})
        rows = []
        for t in instants:
            held = dict.fromkeys(columns, 0)
            for r in self.runs:
                if r.start <= t and (r.end is None or t < r.end):
                    held[key(r)] += r.slots
            rows.append((t, held))
        return Plot(f"job slots per {by}", columns, rows, self.marks(t0, t1), "slots")

    # -- priority -------------------------------------------------------------
    def fairshare_queue(self, queue: str | None) -> str:
        """The queue to plot: the one named (a fairshare queue), or the only fairshare queue."""
        by_queue, _ = scopes(self.config)
        if queue is not None:
            if self.config.queue(queue) is None:
                raise PlotError(f"{queue}: No such queue")
            if queue not in by_queue:
                raise PlotError(f"{queue}: the queue has no fairshare (FAIRSHARE in lsb.queues)")
            return queue
        fair = [q.name for q in self.config.queues if q.name in by_queue]
        if len(fair) != 1:
            raise PlotError("no fairshare queue in lsb.queues" if not fair else
                            f"several fairshare queues ({', '.join(fair)}): name one with -q QUEUE")
        return fair[0]

    def priority(self, queue: str, users: list[str] | None, t0: float, t1: float, step: float) -> Plot:
        """Each user's dynamic priority in *queue*'s fairshare every *step* seconds of [t0, t1]."""
        scope = scopes(self.config)[0][queue]
        factors, _ = fs.effective_factors(self.config.params, scope.queue)
        mine = [r for r in self.runs if (r.queue == queue if scope.hosts is None else r.hosts & scope.hosts)]
        known = {h.user for h in self.histories} | {u for g in self.config.user_groups.values() for u in g.members}
        tree = fs.build_tree(scope.shares_text, self.config.user_groups, known)
        columns = users or sorted({r.user for r in mine})
        rows = []
        n = int((t1 - t0) // step) if step > 0 else 0
        for t in [t0 + k * step for k in range(n + 1)] + ([t1] if t0 + n * step < t1 else []):
            state = fs.FairshareState(tree, factors, usage_at(mine, factors, t))
            rows.append((t, {u: state.user_priority(u) for u in columns}))
        marks = [(t, text) for t, text in self.marks(t0, t1) if any(f"({u})" in text for u in columns)]
        return Plot(f"dynamic user priority in queue {queue}", columns, rows, marks, "priority")


def usage_at(runs: list[Run], factors, t: float) -> dict[str, fs.Usage]:
    """Each user's usage at *t*: the runs ended by then as the daemon charges them
    (lsfemu.engine.fairshare.Accounts.charge), the runs going on as it counts them."""
    hist: dict[str, fs.History] = {}
    usage: dict[str, fs.Usage] = {}
    hh = factors.hist_hours
    for r in sorted((r for r in runs if r.end is not None and r.end <= t), key=lambda r: r.end):
        end = fs.job_usage(slots=r.slots, start_s=r.start, now_s=r.end, end_s=r.end, run_s=r.work(r.end),
                           cpu_s=r.cpu_at(r.end), factors=factors)
        hist[r.user] = hist.get(r.user, fs.History(at=r.end)).add(end, r.end, hh)
    for user, h in hist.items():
        usage[user] = h.usage(t, hh)
    for r in runs:
        if r.start <= t and (r.end is None or t < r.end):
            now = fs.job_usage(slots=r.slots, start_s=r.start, now_s=t, run_s=r.work(t), cpu_s=r.cpu_at(t),
                               factors=factors)
            usage[r.user] = usage.get(r.user, fs.Usage()) + now
    return usage
