"""What analysis knows of TimescaleDB (loaded by analysis/databases.py `hooks`; the names it may
define: docs/contracts.md "A database's analysis hooks"). TimescaleDB is PostgreSQL with an
extension: its server-stats readings are PostgreSQL's (server.name "postgres", the same client code),
so its WAL figure is PostgreSQL's, the same counter read the same way: taken from PostgreSQL's hooks
rather than written twice. Its storage figures (chunks, compression) reach results.json through
count.json's fields, which analysis/ingest.py reads by name."""
import importlib.util
import os


def _postgres_hooks():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "postgres", "analysis.py")
    spec = importlib.util.spec_from_file_location("jsonbench_database_hooks_postgres_for_timescaledb", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# runs[].wal: pg_current_wal_lsn()'s advance between the readings that bracket the window
WAL = _postgres_hooks().WAL
