"""Alembic migrations of the lsfemu store (installed as lsfemu.migrations)."""
