"""The PostgreSQL test fixture (lsfemu.testing, lsfemu.testing_pg): without the
server binaries the PostgreSQL variants are skipped with the reason, and fail
instead when LSFEMU_REQUIRE_POSTGRES=1 (as .ci/run sets)."""

import pytest

import lsfemu.testing_pg

INNER = """
import pytest

@pytest.mark.lsfemu_stores
def test_store(lsfemu_db):
    assert lsfemu_db is None or lsfemu_db.startswith("postgresql+psycopg://")
"""


@pytest.fixture
def no_postgres(monkeypatch):
    monkeypatch.setattr(lsfemu.testing_pg, "find_bindir", lambda: None)


def test_missing_postgres_skips_with_the_reason(pytester, no_postgres, monkeypatch):
    monkeypatch.delenv("LSFEMU_REQUIRE_POSTGRES", raising=False)
    pytester.makepyfile(INNER)
    r = pytester.runpytest_inprocess("-p", "no:xdist", "-p", "no:cacheprovider", "-rs")
    r.assert_outcomes(passed=1, skipped=1)
    r.stdout.fnmatch_lines(["*PostgreSQL unavailable: PostgreSQL's server binaries (initdb, pg_ctl) are not installed*"])


def test_missing_postgres_fails_when_required(pytester, no_postgres, monkeypatch):
    monkeypatch.setenv("LSFEMU_REQUIRE_POSTGRES", "1")
    pytester.makepyfile(INNER)
    r = pytester.runpytest_inprocess("-p", "no:xdist", "-p", "no:cacheprovider")
    r.assert_outcomes(passed=1, errors=1)
    r.stdout.fnmatch_lines(["*PostgreSQL unavailable*(and LSFEMU_REQUIRE_POSTGRES=1)*"])


def test_each_test_gets_a_fresh_database(lsfemu_postgres):
    """Two databases from the template: each holds the schema and no rows, and
    what one test writes the next does not see."""
    from sqlalchemy import create_engine, text

    first, second = lsfemu_postgres.new_database(), lsfemu_postgres.new_database()
    try:
        for url in (first, second):
            engine = create_engine(url)
            with engine.begin() as conn:
                assert conn.execute(text("SELECT count(*) FROM jobs")).scalar() == 0
                assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
                if url == first:
                    conn.execute(text("INSERT INTO counters (name, value) VALUES ('x', 1)"))
                else:
                    assert conn.execute(text("SELECT count(*) FROM counters")).scalar() == 0
            engine.dispose()
    finally:
        lsfemu_postgres.drop_database(first)
        lsfemu_postgres.drop_database(second)
