"""What analysis knows of TimescaleDB (loaded by analysis/common/databases.py `hooks`; the names it may
define: docs/contracts.md "A database's analysis hooks"). TimescaleDB is PostgreSQL with an
extension: its server-stats readings are PostgreSQL's counters read the same way (databases/
timescaledb/client/timescaledb-stats.js), named `timescaledb` with the extension's version, its
catalog tables kept apart from the user tables, its chunks and jobs counted. So its WAL figure,
counter meanings and reconciliation rules are PostgreSQL's (taken from PostgreSQL's hooks rather
than written twice), with what the extension changes, measured on the stand-in (TimescaleDB 2.19.3,
Apache edition, on PostgreSQL 17.12; tests/unit/test_timescaledb_reconcile_real.py reads them from the
real server). Its storage figures (chunks, compression) reach results.json through count.json's
fields, which analysis/figures/ingest.py reads by name."""
import importlib.util
import os


def _postgres_hooks():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "postgres", "analysis.py")
    spec = importlib.util.spec_from_file_location("jsonbench_database_hooks_postgres_for_timescaledb", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_pg = _postgres_hooks()

# runs[].wal: pg_current_wal_lsn()'s advance between the readings that bracket the window
WAL = _pg.WAL
# runs[].read_io: PostgreSQL's (blks_read x block_size)
READ_IO = _pg.READ_IO


def counter_semantics(server):
    """PostgreSQL's counters (pg_stat_database, pg_stat_user_tables), in a reading that names the
    TimescaleDB server (its version: `<extension> (PostgreSQL <server_version>)`)."""
    return {"label": f"timescaledb {server.get('version')}", "sessions_from": _pg.SESSIONS_FROM}, None


# --- reconciliation (analysis/figures/reconcile.py asks `reconcile`) ------------------------------------
# PostgreSQL's rules and allowances, and what TimescaleDB adds. Measured on the stand-in (2.19.3
# Apache edition, PostgreSQL 17.12), a reading before and after `node client run` sessions inserting
# TSBS rows one INSERT each (624 to 3,120 rows, 1 to 8 sessions, 2 to 20 chunks created):
# - TimescaleDB's catalog (its schemas' tables that are not chunks, counted apart by the reading):
#   every INSERT into the hypertable reads exactly 8 of its rows (the hypertable and chunk looked up
#   per statement: 5,000 for 624 inserts, 18,440 for 2,304, 23,048 for 2,880 into 20 chunks), a client
#   session about 28 more (its first insert), a pair of readings 6 to 8 (their own select of the jobs);
#   creating a chunk reads no more of it;
# - the rest of the database's rows read (pg_stat_database tup_returned + tup_fetched, the catalog's
#   taken out): a pair of readings about 5,500 (PostgreSQL's alone: 2,870), each client session about
#   1,300, each chunk created about 1,875 (the table, its constraints and indexes made in pg_catalog);
# - the user tables: a chunk created in the window builds each of the hypertable's indexes on its
#   empty table, one sequential scan of it per index (no row read): 4 for 2 chunks with TSBS's two
#   indexes, 40 for 20;
# - with no job scheduled the job scheduler reads and runs nothing (a pair of readings 31 s apart
#   read what a pair 1 s apart did).
TOLERANCE = {
    **_pg.TOLERANCE,
    "rows_read_per_connection": 3000,  # PostgreSQL's 1000: a session with TimescaleDB loaded reads more
    "rows_read_per_chunk_created": 2500,
    "catalog_rows_read_per_insert": 8,  # the expectation: 8 per INSERT (timescaledb_catalog_rows_read)
    "catalog_rows_read_per_connection": 50,
    "user_table_reads_per_chunk_index_built": 1,
    "jobs_scheduled_at_start": 0,  # the lab unscheduled every job before (client/workloads/tsbs/jobs.js)
    "job_runs": 0,
}


def reconcile(checks, w, start, end, seconds, sem, helpers):
    # PostgreSQL's checks (transactions, rows written and changed, sessions, the cluster's), then its
    # two reads checks again with what TimescaleDB adds, then TimescaleDB's own.
    _pg.reconcile(checks, w, start, end, seconds, sem, helpers)
    _reads(checks, w, start, end, seconds, helpers)
    _jobs(checks, start, end, helpers)


def _older(end):
    c = end.get("counters") or {}
    return (None if "timescaledb_catalog_rows_read" in c else
            "the readings do not keep TimescaleDB's catalog apart (a client before timescaledb-stats.js): its "
            "catalog reads and chunk builds cannot be told from foreign ones")


def _reads(checks, w, start, end, seconds, h):
    t = TOLERANCE
    ops = w.get("ops") or {}
    reading = [op for op in ops if op != "insert" and ops[op]["ok"] + ops[op]["errors"]]
    cannot = (f"the phase's own {', '.join(reading)} operations read rows: these counters cannot tell them "
              "from foreign reads" if reading else None) or _older(end)
    sessions_in = w["client_sessions"] + 1  # the clients' sessions and the start reading's own
    inserts = w["docs_ok"] + w["errors"]
    chunks = h.delta(start, end, "timescaledb_chunks")
    catalog = h.delta(start, end, "timescaledb_catalog_rows_read")
    read = h.total(h.delta(start, end, "tup_returned"), h.delta(start, end, "tup_fetched"))
    h.check(checks, "rows_read", 0,
            None if cannot or read is None or catalog is None else read - catalog,
            t["rows_read_per_connection"] * (sessions_in + 1) + t["rows_read_per_chunk_created"] * (chunks or 0)
            + t["rows_read_per_s"] * seconds,
            "tup_returned + tup_fetched less TimescaleDB's catalog rows read (timescaledb_catalog_rows_read, judged "
            "apart): the lab's inserts read no rows (tolerance: catalog reads per session incl. the readings, the "
            "catalog work of each chunk created, autovacuum)", cannot)
    h.check(checks, "timescaledb_catalog_rows_read", t["catalog_rows_read_per_insert"] * inserts,
            None if cannot else catalog,
            t["catalog_rows_read_per_connection"] * (sessions_in + 1),
            "rows of TimescaleDB's catalog read (its schemas' tables that are not chunks: seq_tup_read, idx_tup_read, "
            "idx_tup_fetch): 8 per INSERT into the hypertable, its hypertable and chunk looked up (tolerance: a "
            "session's first insert, the readings' select of the jobs)", cannot)
    h.check(checks, "user_table_reads", 0,
            None if cannot else h.total(h.delta(start, end, "user_seq_tup_read"), h.delta(start, end, "user_idx_tup_fetch"),
                                        h.delta(start, end, "user_seq_scan"), h.delta(start, end, "user_idx_scan")),
            t["user_table_reads_per_chunk_index_built"] * (h.delta(start, end, "timescaledb_chunk_indexes") or 0),
            "seq_scan + seq_tup_read + idx_scan + idx_tup_fetch of the hypertable and its chunks (TimescaleDB's "
            "catalog left out): inserts read no user table (tolerance: a chunk created in the window scans its "
            "empty table once per index it builds, timescaledb_chunk_indexes)", cannot)


def _jobs(checks, start, end, h):
    t = TOLERANCE
    older = None if "timescaledb_jobs_scheduled" in (start.get("counters") or {}) else \
        "the readings do not count TimescaleDB's jobs (a client before timescaledb-stats.js)"
    h.check(checks, "timescaledb_jobs_scheduled_at_start", 0,
            None if older else (start.get("counters") or {}).get("timescaledb_jobs_scheduled"),
            t["jobs_scheduled_at_start"],
            "TimescaleDB background jobs scheduled in the database when the window opened (timescaledb_information."
            "jobs): the lab unscheduled every one outside the windows", older)
    h.check(checks, "timescaledb_job_runs", 0, None if older else h.delta(start, end, "timescaledb_job_runs"),
            t["job_runs"], "runs of TimescaleDB background jobs in the database (job_stats.total_runs): none in "
            "the window", older)


# --- fairness (analysis/figures/fairness.py asks `fairness_cells`, `fairness_rows`, `setting`) ------------
# TimescaleDB runs with the PostgreSQL service's settings (databases/timescaledb/compose.yaml), so
# its cells are PostgreSQL's, read from its own command line, but where the extension differs.
setting = _pg.setting
OFFICIAL = ("timescale/timescaledb:2.28.3-pg17: TimescaleDB 2.28.3 with its TSL code (compression), on Alpine "
            "(musl), PostgreSQL 17 of a floating minor")


def _stand_in(settings):
    return ((settings or {}).get("labels") or {}).get("jsonbench.stand_in")


def fairness_cells(settings, run_env):
    cells = _pg.fairness_cells(settings, run_env)
    compress = (run_env or {}).get("COMPRESS") or "none"
    cells["compression at rest"] = (
        f"TimescaleDB native compression of the chunks older than {compress.split(':', 1)[1]} (COMPRESS={compress}), "
        "after the ingest window" if compress != "none" else
        "as PostgreSQL (COMPRESS=none: chunks are PostgreSQL heaps and B-trees; TOAST for rows over ~2 kB)")
    cells["idle CPU"] = (cells["idle CPU"] + "; TimescaleDB's background worker launcher and a job scheduler per "
                         "database with the extension (every job unscheduled by the lab)")
    return cells


def fairness_rows(settings, run_env, setting_of):
    """The build that ran: the official image's, or what stood in for it (its container's label)."""
    stand_in = _stand_in(settings)
    return [{"what": "TimescaleDB build", "timescaledb": f"stand-in: {stand_in}" if stand_in else OFFICIAL,
             "mongodb": "no TimescaleDB", "postgres": "no TimescaleDB", "aligned": False,
             "note": f"the official image is {OFFICIAL}; a stand-in's edition, version, C library and PostgreSQL minor "
                     "are its own (the Apache edition has no compression: COMPRESS is refused on it)"}]


# --- the cache (analysis/figures/memory.py): shared_buffers, as PostgreSQL's -------------------------------
cache_asked = _pg.cache_asked
cache_expected = _pg.cache_expected
