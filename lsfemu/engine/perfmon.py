"""mbatchd's performance metrics (`badmin perfmon`, issue 21, part 4): real
counters of the daemon, kept only while sampling is started, per sample
period, on the cluster's clock (virtual or wall).

What each counts (LSF 10.1's metric names, lsf-breadth.md 4.6):

- the requests the daemon serves as mbatchd (every command but LIM's lshosts,
  lsload, lsinfo, lsclusters, lsid, lsadmin and lsfemu's own), and among them
  job queries (bjobs, bjdepinfo), host queries (bhosts), queue queries
  (bqueues) and submission requests (bsub), when they arrive;
- jobs submitted (JOB_NEW records; an array counts its elements), dispatched
  (JOB_START) and completed (JOB_STATUS to DONE or EXIT), at their records'
  event time, as they are committed;
- the scheduling pass's time: each pass's duration in seconds (the wall time
  the pass took), a period's value being its longest pass, rounded;
- jobs sent to / accepted from a remote cluster, matching host criteria, job
  buckets and jobs reordered: lsfemu has no MultiCluster, no buckets and no
  reordering, so they stay 0.

A period k covers [start + k * period, start + (k + 1) * period). The view
(`summary`) reads the complete periods only: Last is the latest one's value,
Max, Min, Avg (integer, rounded down) and Total over all of them, as the
reference's sample (32, 39, 32, 35, 71) shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lsfemu.events import lsbatch
from lsfemu.events.history import array_spec_of
from lsfemu.sched.arrayspec import count_of

METRICS = (
    "Processed requests: mbatchd", "Job information queries", "Host information queries",
    "Queue information queries", "Job submission requests", "Jobs submitted", "Jobs dispatched",
    "Jobs completed", "Jobs sent to remote cluster", "Jobs accepted from remote cluster",
    "Scheduling interval in second(s)", "Matching host criteria", "Job buckets", "Jobs reordered",
)
#: the commands that are LIM's (or lsfemu's), not mbatchd's requests
NOT_MBATCHD = frozenset({"lshosts", "lsload", "lsinfo", "lsclusters", "lsid", "lsadmin", "lsfemu"})
#: command -> the query metric its request counts in
QUERY_KIND = {"bjobs": "Job information queries", "bjdepinfo": "Job information queries",
              "bhosts": "Host information queries", "bqueues": "Queue information queries",
              "bsub": "Job submission requests"}
SCHED_TIME = "Scheduling interval in second(s)"
DEFAULT_PERIOD = 60  # SCHED_METRIC_SAMPLE_PERIOD's default (seconds)


def sample_period(params_extra: dict[str, str]) -> int:
    """lsb.params' SCHED_METRIC_SAMPLE_PERIOD (seconds), else LSF's default."""
    value = params_extra.get("SCHED_METRIC_SAMPLE_PERIOD", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else DEFAULT_PERIOD


@dataclass
class Summary:
    """The complete periods' figures: metric -> (last, max, min, avg, total)."""

    start: float
    end: float
    period: int
    rows: dict[str, tuple[int, int, int, int, int]]


@dataclass
class Perfmon:
    start: float | None = None
    period: int = DEFAULT_PERIOD
    counts: dict[str, dict[int, float]] = field(default_factory=dict)

    def begin(self, t: float, period: int) -> None:
        """badmin perfmon start / setperiod: a new collection from *t*."""
        self.start, self.period, self.counts = t, period, {}

    def configure(self, params_extra: dict[str, str], t: float) -> None:
        """At the daemon's start: lsb.params' SCHED_METRIC_ENABLE=Y starts sampling."""
        if params_extra.get("SCHED_METRIC_ENABLE", "").strip().upper() in ("Y", "YES"):
            self.begin(t, sample_period(params_extra))

    def end(self) -> None:
        self.start, self.counts = None, {}

    def _period(self, t: float) -> int | None:
        if self.start is None or t < self.start:
            return None
        return int((t - self.start) // self.period)

    def _add(self, metric: str, t: float, n: float = 1) -> None:
        k = self._period(t)
        if k is not None:
            per = self.counts.setdefault(metric, {})
            per[k] = per.get(k, 0) + n

    def request(self, cmd: str, t: float) -> None:
        """A request the daemon serves."""
        if self.start is None or cmd in NOT_MBATCHD:
            return
        self._add("Processed requests: mbatchd", t)
        if cmd in QUERY_KIND:
            self._add(QUERY_KIND[cmd], t)

    def records(self, records) -> None:
        """The lsb.events records of a commit: jobs submitted, dispatched, completed."""
        if self.start is None:
            return
        for r in records:
            if r.TYPE == "JOB_NEW":
                spec = array_spec_of(r)
                self._add("Jobs submitted", r.event_time, count_of(spec.ranges) if spec is not None else 1)
            elif r.TYPE == "JOB_START":
                self._add("Jobs dispatched", r.event_time)
            elif r.TYPE == "JOB_STATUS" and r.status in (lsbatch.JOB_STAT_DONE, lsbatch.JOB_STAT_EXIT):
                self._add("Jobs completed", r.event_time)

    def scheduled(self, t: float, seconds: float) -> None:
        """A scheduling pass at *t* that took *seconds*: the period keeps its longest."""
        k = self._period(t)
        if k is not None:
            per = self.counts.setdefault(SCHED_TIME, {})
            per[k] = max(per.get(k, 0.0), seconds)

    def summary(self, now: float) -> Summary | None:
        """The complete periods' figures at *now*; None before the first ends."""
        k = self._period(now)
        if not k:
            return None
        rows = {}
        for metric in METRICS:
            per = self.counts.get(metric, {})
            values = [int(round(per.get(i, 0))) for i in range(k)]
            rows[metric] = (values[-1], max(values), min(values), sum(values) // k, sum(values))
        return Summary(self.start, self.start + k * self.period, self.period, rows)
