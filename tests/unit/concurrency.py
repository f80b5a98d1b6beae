"""Running one function in several threads at once, for tests of what the
store does under concurrent use."""

from __future__ import annotations

import threading
from typing import Callable


def errors_of_threads(fn: Callable[[], None], n: int) -> list[BaseException]:
    """Run *fn* in *n* threads at once; the exceptions they raised."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - returned to the test
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors
