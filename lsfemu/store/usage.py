"""The store's fairshare usage rows (`user_usage`): each user's decayed history
per fairshare scope, read for a scope, found or made for a charge, and cleared
when a restarted mbatchd rebuilds the history (lsfemu.engine.fairshare and
lsfemu.engine.jobs hold the arithmetic)."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from lsfemu.store.models import UserUsage


def scope_usage(session: Session, scope: str):
    """The usage rows of every user in fairshare scope *scope*."""
    return session.scalars(select(UserUsage).where(UserUsage.queue == scope))


def usage_row(session: Session, user: str, scope: str, t: float, kept: UserUsage | None = None) -> UserUsage:
    """*user*'s usage row in *scope*, made empty (as of *t*) if it has none yet.
    *kept*: the row as the caller last had it, taken as it is while the
    session still holds it (no look-up: a look-up of a row the session has
    not loaded yet flushes first; one taken back by a rollback, or deleted
    by clear_usage, is looked up again)."""
    if kept is not None and kept in session:
        return kept
    u = session.get(UserUsage, (user, scope))
    if u is None:
        u = UserUsage(user=user, queue=scope, hist_cpu_s=0.0, hist_run_s=0.0, hist_gpu_s=0.0, updated_at=t)
        session.add(u)
    return u


def clear_usage(session: Session) -> None:
    """Forget every user's usage history."""
    session.execute(delete(UserUsage))
