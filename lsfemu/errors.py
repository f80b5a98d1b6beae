"""Typed LSF errors: what an operation (`lsfemu/ops/`) raises when LSF would refuse.

Each error carries LSF's reason (an lsberrno string, taken by the raiser from
the catalogue `lsfemu/render/messages.py`) and what it is about; its text is
made once, by `render/messages.py::error_text`, from its type:

* `LsfError`      ``[subject: ]reason``             (``normal: No such queue``)
* `JobError`      ``Job <subject>: reason``         (bkill, bstop, bresume, bswitch, btop ...)
* `NotSubmitted`  ``[subject: ]reason. Job not submitted.``
* `NotModified`   ``[subject: ]reason. Job not modified.``
* `NoJobFound`    ``Job <name> is not found`` / ``No unfinished job found[ in queue <q>]``
* `BadJobIds`     ``arg: reason`` for each job ID that did not parse
* `WallClockAhead` a wall clock that would take the cluster's time backwards

Standard library only: the client path and every layer may import it.
"""

from __future__ import annotations


class LsfError(Exception):
    """An operation refused: LSF's `reason`, and the `subject` it is about (a job ID
    as typed, a queue or host name), or None."""

    def __init__(self, reason: str, subject: object | None = None):
        super().__init__(reason)
        self.reason = reason
        self.subject = subject


class JobError(LsfError):
    """One job's refusal in a job control command: ``Job <subject>: reason``."""


class NotSubmitted(LsfError):
    """bsub's refusal: ``[subject: ]reason. Job not submitted.``"""


class NotModified(LsfError):
    """bmod's refusal: ``[subject: ]reason. Job not modified.``"""


class NoJobFound(LsfError):
    """A selection (-J, -q, -u, -m, `0`) that matched no job: by `name` when one
    was given, else as `kind` jobs ("unfinished"; bkill -stat: "running",
    "pending", "suspended") in `queue`, on `host`."""

    def __init__(self, name: str | None = None, queue: str | None = None, host: str | None = None,
                 kind: str = "unfinished"):
        super().__init__("no job found", name)
        self.name = name
        self.queue = queue
        self.host = host
        self.kind = kind


class BadJobIds(LsfError):
    """Job IDs that did not parse: `bad` is [(the argument, LSF's reason)]."""

    def __init__(self, bad: list[tuple[str, str]]):
        super().__init__("bad job IDs")
        self.bad = bad


class WallClockAhead(LsfError):
    """LSFEMU_CLOCK=wall on a cluster whose time (`cluster_time`) is ahead of the
    machine's (`wall_time`) by more than the clock may wait."""

    def __init__(self, cluster_time: float, wall_time: float):
        super().__init__("the cluster's clock is ahead of this machine's")
        self.cluster_time = cluster_time
        self.wall_time = wall_time
