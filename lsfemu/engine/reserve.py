"""Slot and resource reservations kept between passes, and backfill (issue 19, part 4).

`Reservations` is a component of the cluster's passes (lsfemu.engine.passes):
it reads SLOT_RESERVE, RESOURCE_RESERVE and BACKFILL of each queue
(sched.reserve.policy_of), hands each pass a sched.reserve.PassReserve with
the reservations the last pass left (the pure pass renews, drops or makes
them), and answers what bjobs -l and bhosts show of them.

The reservations live in memory only: a daemon restart drops them (each
reserving job reserves again at the next pass, its MAX_RESERVE_TIME clock
started anew). With no queue reserving or backfilling, a pass gets no
PassReserve and none of this runs.
"""

from __future__ import annotations

from lsfemu.sched import reserve


class Reservations:
    """The cluster's reservations (see the module docstring)."""

    def __init__(self, cluster):
        self.cl = cluster
        self.policies: dict[str, reserve.Policy] = {}
        self.holds: dict[tuple[int, int], reserve.Hold] = {}
        self.sleep = 60
        self.cooling: set = set()  # the last pass's jobs whose reservation expired

    def configure(self, cfg) -> None:
        """A (new) configuration: the queues' policies; reservations are made anew."""
        self.policies = {}
        for q in cfg.queues:
            pol = reserve.policy_of(q.extra)
            if pol is not None:
                self.policies[q.name] = pol
        self.sleep = max(1, cfg.params.mbd_sleep_time)
        self.holds.clear()

    @property
    def active(self) -> bool:
        return bool(self.policies)

    def pass_reserve(self, pending: list, held, t: float) -> reserve.PassReserve | None:
        """The pass's PassReserve at instant *t* (None when no queue reserves
        or backfills): the kept reservations of jobs still pending in a
        reserving queue, those held MAX_RESERVE_TIME dropped (their jobs
        reserve nothing this pass), and when the started jobs end by their
        run limits."""
        if not self.policies:
            self.holds.clear()
            return None
        waiting = {pj.key: pj for pj in pending}
        cooldown = set()
        for key, hold in list(self.holds.items()):
            pol = self.policies.get(hold.queue)
            pj = waiting.get(key)
            if pj is None or pol is None or pol.cycles is None or pj.queue != hold.queue:
                del self.holds[key]
            elif t - hold.since >= pol.cycles * self.sleep:
                del self.holds[key]
                cooldown.add(key)
        ends: dict[str, list[tuple[float, int]]] = {}
        for job in held:
            limit = self.cl.effective_run_limit(job)
            if limit is None or job.start_time is None:
                continue  # LSF: a job without a run limit does not count as ending
            hosts = job.exec_hosts.split()
            for h in set(hosts):
                ends.setdefault(h, []).append((job.start_time + limit * 60.0, hosts.count(h)))
        self.cooling = cooldown
        return reserve.PassReserve(self.policies, t, self.holds, ends, self.limit_of, cooldown)

    @property
    def due(self) -> bool:
        """Does the next pass have reservations to renew or expired ones to make again?"""
        return bool(self.holds or self.cooling)

    def limit_of(self, pj) -> float | None:
        """A pending job's run limit in seconds (-W, else its queue's RUNLIMIT; None: none)."""
        job = self.cl.jobs.get(pj.key)
        limit = self.cl.effective_run_limit(job) if job is not None else None
        return None if limit is None else limit * 60.0

    def show(self, hosts: dict, key: tuple[int, int]) -> None:
        """The slots the other jobs' reservations held at the last pass, taken
        off *hosts* (`lsfemu explain pending`: nothing renewed or dropped)."""
        for k, hold in self.holds.items():
            if k != key:
                for name, n in hold.held.items():
                    if name in hosts:
                        hosts[name].used += n

    def of(self, key: tuple[int, int]) -> reserve.Hold | None:
        """The job's reservation (None: it reserves nothing)."""
        hold = self.holds.get(key)
        return hold if hold is not None and hold.held else None

    def on_host(self, host: str) -> int:
        """Slots reserved on *host* (bhosts RSV)."""
        return sum(h.held.get(host, 0) for h in self.holds.values())

    def slots_by(self, attr: str) -> dict[str, int]:
        """Reserved slots per value of the reserving jobs' *attr* ("queue", "user": bqueues and busers RSV)."""
        out: dict[str, int] = {}
        for key, hold in self.holds.items():
            job = self.cl.jobs.get(key)
            if job is not None and hold.held:
                k = getattr(job, attr)
                out[k] = out.get(k, 0) + sum(hold.held.values())
        return out

    def backfill_queues(self) -> bool:
        """Is some queue a backfill queue (LSF predicts reserving jobs' start only then)?"""
        return any(p.backfill for p in self.policies.values())
