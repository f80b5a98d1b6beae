"""In-process mode (LSFEMU_DAEMON=off): the same command functions, run in
the calling process without a socket. For unit tests and the library API.

Each call re-reads the store, so several processes in this mode see one
another's changes (SQLite serialises the writes).

With LSFEMU_FORKSERVER (a test suite's daemon template, lsfemu.daemon.forkserver)
a command's request runs in a child of the template, which has the engine
imported, rather than in a process that imports it all for one request: the
same code on the same store, about a second of CPU less a command.
"""

from __future__ import annotations

import os

from lsfemu.daemon import forkserver

_clusters: dict[tuple[str, str], object] = {}


def get_cluster(envdir: str, home: str):
    # here, not at the top: a request the template runs does not import the engine in this process
    from lsfemu.engine.cluster import Cluster

    key = (os.path.realpath(envdir), os.path.realpath(home))
    cl = _clusters.get(key)
    if cl is None:
        cl = _clusters[key] = Cluster(envdir, home)
    else:
        cl.reload_jobs()
    return cl


def run_request(req: dict) -> tuple[str, str, int]:
    """Run one request in this mode: (out, err, rc)."""
    answer = forkserver.run_request(req)
    return answer if answer is not None else run_here(req)


def run_here(req: dict) -> tuple[str, str, int]:
    """Run one request in this process."""
    # here, not at the top: see get_cluster
    from lsfemu.daemon import dispatch
    from lsfemu.store.db import storage_failure

    env = req.get("env") or {}
    envdir = env.get("LSF_ENVDIR")
    if not envdir:
        return "", "lsfemu: LSF_ENVDIR is not set; run 'lsfemu init DIR' and 'export LSF_ENVDIR=DIR'\n", 255
    home = env.get("LSFEMU_HOME") or os.path.join(os.path.expanduser("~"), ".lsfemu")
    try:
        cluster = get_cluster(envdir, home)
    except Exception as e:  # configuration or store error
        why = storage_failure(e, home)  # full, read-only, locked: one line
        return "", f"lsfemu: {why or e}\n", 255
    r = dispatch.handle(cluster, req, os.getuid())
    return r.out, r.err, r.rc


def reset() -> None:
    """Forget every cached cluster (tests)."""
    for cl in _clusters.values():
        try:
            cl.session.close()
            cl.engine.dispose()
        except Exception:
            pass
    _clusters.clear()
