"""badmin's state of the queues and hosts: open or closed, active or inactive, failed.

`AdminState` is a component of the cluster (lsfemu.engine.cluster): it holds
the store's QueueState and HostState rows by name (a queue or host without a
row is open, active and not failed), changes them for badmin qopen, qclose,
qact, qinact, hopen and hclose, staging the QUEUE_CTRL / HOST_CTRL record,
and reads them again when the cluster reloads. Host failures are set by
`Transitions.fail_host` / `recover_host` (lsfemu.engine.jobs) in the same
`host_state` mapping.
"""

from __future__ import annotations

from lsfemu.events import emit
from lsfemu.store import jobs as stored
from lsfemu.store.models import HostState, QueueState


class AdminState:
    """The queues' and hosts' badmin states, by name (see the module)."""

    def __init__(self, cl) -> None:
        self.cl = cl
        self.queue_state: dict[str, QueueState] = {}
        self.host_state: dict[str, HostState] = {}

    def load(self) -> None:
        """Read the states from the store again (the mappings kept, emptied first)."""
        self.queue_state.clear()
        self.host_state.clear()
        for qs in stored.queue_states(self.cl.session):
            self.queue_state[qs.name] = qs
        for hs in stored.host_states(self.cl.session):
            self.host_state[hs.name] = hs

    def queue_active(self, name: str) -> bool:
        qs = self.queue_state.get(name)
        return qs.active if qs else True

    def queue_open(self, name: str) -> bool:
        qs = self.queue_state.get(name)
        return qs.open if qs else True

    def set_queue_state(self, name: str, action: str, actor: str, comment: str = "") -> None:
        """badmin qopen/qclose/qact/qinact (-C comment: in the QUEUE_CTRL record)."""
        qs = self.queue_state.get(name)
        if qs is None:
            qs = self.queue_state[name] = QueueState(name=name, open=True, active=True)
            self.cl.session.add(qs)
        if action in ("qopen", "qclose"):
            qs.open = action == "qopen"
        else:
            qs.active = action == "qact"
        self.cl.events.stage(emit.queue_ctrl(self.cl.now(), name, action, actor, comment=comment))
        self.cl.mark_dirty()

    def set_host_state(self, name: str, is_open: bool, actor: str, comment: str = "") -> None:
        """badmin hopen/hclose (-C comment: in the HOST_CTRL record)."""
        hs = self.host_state.get(name)
        if hs is None:
            hs = self.host_state[name] = HostState(name=name, open=True)
            self.cl.session.add(hs)
        hs.open = is_open
        self.cl.events.stage(emit.host_ctrl(self.cl.now(), name, "hopen" if is_open else "hclose", actor,
                                         comment=comment))
        self.cl.mark_dirty()

    def host_failed(self, name: str) -> bool:
        hs = self.host_state.get(name)
        return hs.failed if hs else False

    def host_open(self, name: str) -> bool:
        hs = self.host_state.get(name)
        return hs.open if hs else True
