"""lsfemu.clock: the cluster's time never runs backwards."""

import lsfemu.clock as clock_mod
from lsfemu.clock import MAX_WALL_WAIT, Clock, wall_refusal
from lsfemu.render.messages import error_text


def test_a_wall_clock_stays_on_its_latest_instant_when_the_machine_clock_steps_back(monkeypatch):
    machine = [1000.0]
    monkeypatch.setattr(clock_mod.time, "time", lambda: machine[0])
    c = Clock("wall", 500.0)  # the store's instant is behind: real time it is
    assert c.now() == 1000.0
    machine[0] = 990.0  # the machine's clock steps back
    assert c.now() == 1000.0 and c.virtual_now == 1000.0  # kept (and stored at the next commit)
    machine[0] = 1001.5
    assert c.now() == 1001.5
    ahead = Clock("wall", 1100.0)  # a restart behind the stored instant, within MAX_WALL_WAIT
    assert ahead.now() == 1100.0


def test_wall_refusal_only_beyond_the_wait():
    assert wall_refusal(1000.0 + MAX_WALL_WAIT, 1000.0) is None
    assert wall_refusal(999.0, 1000.0) is None
    why = wall_refusal(1000.0 + MAX_WALL_WAIT + 1, 1000.0)
    assert why is not None and error_text(why).startswith("LSFEMU_CLOCK=wall: the cluster's clock is at ")
    assert "\n" not in error_text(why)
