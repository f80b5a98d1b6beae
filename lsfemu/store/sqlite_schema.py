"""A new SQLite store made in one transaction from the schema the migrations
make, instead of running them (Alembic's import and its run are ~0.4 s, paid
by every new store: `lsfemu init`, `lsfemu replay --into`, each test's
cluster).

STATEMENTS are the `sql` texts of the store's catalog (sqlite_master, in
creation order) after `alembic upgrade head` on an empty SQLite database;
SQLite keeps a statement's text as it was given, so running them again
gives the same catalog, byte for byte (tests/unit/test_store_schema.py holds
the two ways equal and fails, naming the command below, once a migration is
added and this file is not made again). The Alembic migrations stay the
truth: every existing store is upgraded by them, and PostgreSQL always is.

Made by ``python -m lsfemu.store.sqlite_schema`` (writes this file anew).
"""

from __future__ import annotations

HEAD = "0010"

STATEMENTS = (
    'CREATE TABLE alembic_version (\n\tversion_num VARCHAR(32) NOT NULL, \n\tCONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)\n)',
    'CREATE TABLE clock (\n\tid INTEGER NOT NULL, \n\tvirtual_now FLOAT NOT NULL, \n\tlast_pass FLOAT, \n\tPRIMARY KEY (id)\n)',
    'CREATE TABLE counters (\n\tname VARCHAR(64) NOT NULL, \n\tvalue INTEGER NOT NULL, \n\tPRIMARY KEY (name)\n)',
    'CREATE TABLE job_events (\n\tid INTEGER NOT NULL, \n\tjob_id INTEGER NOT NULL, \n\tarray_index INTEGER NOT NULL, \n\ttime FLOAT NOT NULL, \n\tkind VARCHAR(32) NOT NULL, \n\tactor VARCHAR(256), \n\tdata TEXT NOT NULL, \n\tPRIMARY KEY (id)\n)',
    'CREATE INDEX ix_job_events_job_id ON job_events (job_id)',
    'CREATE TABLE queue_state (\n\tname VARCHAR(256) NOT NULL, \n\topen BOOLEAN NOT NULL, \n\tactive BOOLEAN NOT NULL, \n\tPRIMARY KEY (name)\n)',
    'CREATE TABLE "host_state" (\n\tname VARCHAR(256) NOT NULL, \n\topen BOOLEAN NOT NULL, \n\tfailed BOOLEAN DEFAULT 0 NOT NULL, \n\tPRIMARY KEY (name)\n)',
    'CREATE TABLE "user_usage" (\n\tuser VARCHAR(256) NOT NULL, \n\tqueue VARCHAR(256) NOT NULL, \n\thist_cpu_s FLOAT NOT NULL, \n\thist_run_s FLOAT NOT NULL, \n\tupdated_at FLOAT NOT NULL, \n\thist_gpu_s FLOAT DEFAULT 0 NOT NULL, \n\tPRIMARY KEY (user, queue)\n)',
    'CREATE TABLE "jobs" (\n\tid INTEGER NOT NULL, \n\tarray_index INTEGER NOT NULL, \n\tuser VARCHAR(256) NOT NULL, \n\tstatus VARCHAR(8) NOT NULL, \n\tqueue VARCHAR(256) NOT NULL, \n\tfrom_host VARCHAR(256) NOT NULL, \n\tcommand TEXT NOT NULL, \n\tname TEXT, \n\tproject VARCHAR(256) NOT NULL, \n\tuser_group VARCHAR(256), \n\tcwd TEXT NOT NULL, \n\thome TEXT NOT NULL, \n\tspecified_cwd TEXT, \n\toutput_file TEXT, \n\terror_file TEXT, \n\toutput_overwrite BOOLEAN NOT NULL, \n\terror_overwrite BOOLEAN NOT NULL, \n\tnum_processors INTEGER NOT NULL, \n\tmax_processors INTEGER, \n\tres_req TEXT, \n\tmem_req_mb FLOAT, \n\trun_limit_min FLOAT, \n\tsubmit_priority INTEGER, \n\tpriority INTEGER, \n\tdefault_queue_used BOOLEAN NOT NULL, \n\tsubmit_time FLOAT NOT NULL, \n\tposition FLOAT NOT NULL, \n\tstart_time FLOAT, \n\tfinish_time FLOAT, \n\texec_hosts TEXT NOT NULL, \n\texit_code INTEGER, \n\texit_reason TEXT, \n\tpend_reasons TEXT NOT NULL, \n\tsusp_reason TEXT, \n\tsim_runtime FLOAT NOT NULL, \n\tsim_cputime FLOAT NOT NULL, \n\tsim_exit_code INTEGER NOT NULL, \n\twork_done FLOAT NOT NULL, \n\tsegment_start FLOAT, \n\tenv_json TEXT NOT NULL, \n\tpriority_base_time FLOAT, \n\tpend_since FLOAT, \n\taps_system FLOAT, \n\taps_admin FLOAT, \n\trerunnable BOOLEAN DEFAULT 0 NOT NULL, \n\tmigrated BOOLEAN DEFAULT 0 NOT NULL, \n\tngpus INTEGER DEFAULT 0 NOT NULL, \n\treal_run BOOLEAN DEFAULT 0 NOT NULL, \n\tusage_json TEXT, \n\tarray_spec TEXT, \n\tarray_limit INTEGER, \n\tdependency TEXT, \n\tdepend_json TEXT, \n\tmem_limit_kb INTEGER, \n\tmem_limit_hard BOOLEAN DEFAULT 0 NOT NULL, \n\tdescription TEXT, \n\tenv_spec TEXT, \n\toutdir TEXT, \n\tpre_exec TEXT, \n\tpost_exec TEXT, \n\tlogin_shell TEXT, \n\tinput_file TEXT, \n\tmail_user TEXT, \n\tjob_group TEXT, \n\tasked_hosts TEXT, \n\test_runtime_min FLOAT, \n\tbegin_time FLOAT, \n\tterm_time FLOAT, \n\trerun_never BOOLEAN DEFAULT 0 NOT NULL, \n\tinput_spooled BOOLEAN DEFAULT 0 NOT NULL, \n\t"exclusive" BOOLEAN DEFAULT 0 NOT NULL, \n\tnotify VARCHAR(16) DEFAULT \'\' NOT NULL, \n\tapp_profile VARCHAR(256), \n\tinteractive VARCHAR(4), kill_reason TEXT, suspend_reason TEXT, resume_reason TEXT, cpu_limit_host TEXT, clean_time FLOAT, cpu_limit_min FLOAT, ipend_time FLOAT DEFAULT \'0\' NOT NULL, ipend_since FLOAT, pend_limit_min FLOAT, epend_limit_min FLOAT, \n\tPRIMARY KEY (id, array_index)\n)',
    'CREATE INDEX ix_jobs_user_status ON jobs (user, status)',
    'CREATE INDEX ix_jobs_user ON jobs (user)',
    'CREATE INDEX ix_jobs_finish_time ON jobs (finish_time)',
    'CREATE INDEX ix_jobs_queue ON jobs (queue)',
    'CREATE INDEX ix_jobs_position ON jobs (position)',
    'CREATE INDEX ix_jobs_status ON jobs (status)',
    'CREATE TABLE job_groups (\n\tpath TEXT NOT NULL, \n\towner VARCHAR(256) NOT NULL, \n\tjob_limit INTEGER, \n\tcreated FLOAT NOT NULL, \n\tPRIMARY KEY (path)\n)',
)


def make(dbapi_conn) -> bool:
    """Make the schema in the empty database of *dbapi_conn* (a sqlite3
    connection in autocommit mode) and mark it as at HEAD, in one
    transaction that holds the write lock from the start; False (nothing
    done) when the database is not empty by then (another process made it)."""
    cur = dbapi_conn.cursor()
    try:
        cur.execute("BEGIN IMMEDIATE")
        try:
            if cur.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                cur.execute("ROLLBACK")
                return False
            for statement in STATEMENTS:
                cur.execute(statement)
            cur.execute("INSERT INTO alembic_version (version_num) VALUES (?)", (HEAD,))
            cur.execute("COMMIT")
            return True
        except BaseException:
            cur.execute("ROLLBACK")
            raise
    finally:
        cur.close()


def _generate() -> str:
    """This module's text, with the catalog of a store the migrations made."""
    # the generator only (python -m lsfemu.store.sqlite_schema); store.db imports this module
    import os
    import tempfile
    from pathlib import Path

    from lsfemu.store.db import SCHEMA_HEAD, make_engine, upgrade

    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{os.path.join(tmp, 'schema.db')}")
        try:
            upgrade(engine, snapshot=False)
            with engine.connect() as conn:
                rows = [r[0] for r in conn.exec_driver_sql(
                    "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")]
        finally:
            engine.dispose()
    text = Path(__file__).read_text()
    head, rest = text.split('HEAD = "', 1)
    rest = rest.split('"', 1)[1]
    before, after = rest.split("STATEMENTS = (\n", 1)
    after = after.split("\n)\n", 1)[1]
    body = "\n".join(f"    {row!r}," for row in rows)
    return f'{head}HEAD = "{SCHEMA_HEAD}"{before}STATEMENTS = (\n{body}\n)\n{after}'


if __name__ == "__main__":
    from pathlib import Path  # (the generator, as above)

    Path(__file__).write_text(_generate())
