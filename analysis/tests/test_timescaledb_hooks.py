"""databases/timescaledb/analysis.py without a server (its reconciliation against the real stand-in:
tests/unit/test_timescaledb_reconcile_real.py): readings that name TimescaleDB's server are read as
PostgreSQL's counters; readings from before TimescaleDB's own (named `postgres`, no catalog apart)
are not reconciled, saying why; the fairness row names the build that ran."""
from analysis.common import databases
from analysis.figures import fairness, reconcile


def reading(counters, name="timescaledb", at=0.0):
    return {"database": "timescaledb", "server": {"name": name, "version": "2.19.3 (PostgreSQL 17.12)"}, "taken_at": at,
            "counters": counters, "unavailable": {}, "reading": {"connections": 1, "statements": 5},
            "run_session": {"connections": 1, "statements": 3}}


BASE = {"xact_commit": 100, "xact_rollback": 0, "tup_returned": 1000, "tup_fetched": 1000, "sessions": 5,
        "user_n_tup_ins": 0, "user_n_tup_upd": 0, "user_n_tup_del": 0, "user_seq_scan": 0, "user_seq_tup_read": 0,
        "user_idx_scan": 0, "user_idx_tup_fetch": 0, "other_client_backends": 0, "wal_bytes": 0,
        "timescaledb_catalog_rows_read": 0, "timescaledb_chunks": 0, "timescaledb_chunk_indexes": 0,
        "timescaledb_jobs_scheduled": 0, "timescaledb_job_runs": 0}


def client(n):
    return {"stage": "run", "docs_ok": n, "errors": 0, "operations": {"insert": {"ok": n, "errors": 0}}}


def window(**end_changes):
    end = dict(BASE, xact_commit=BASE["xact_commit"] + 100 + 4 + 6, tup_returned=9000, tup_fetched=5000,
               sessions=BASE["sessions"] + 2, user_n_tup_ins=100, timescaledb_catalog_rows_read=800,
               timescaledb_chunks=1, timescaledb_chunk_indexes=2, user_seq_scan=2)
    end.update(end_changes)
    return {"start": reading(BASE), "end": reading(end, at=5.0)}


def test_a_timescaledb_window_is_reconciled_with_its_catalog_chunks_and_jobs():
    rec = reconcile.reconcile("timescaledb", window(), [client(100)])
    assert rec["verdict"] == "ok", rec["reasons"]
    c = rec["checks"]
    assert (c["timescaledb_catalog_rows_read"]["expected"], c["timescaledb_catalog_rows_read"]["observed"]) == (800, 800)
    # rows read less the catalog's: (9,000 + 5,000) - (1,000 + 1,000) - 800
    assert c["rows_read"]["observed"] == 11200
    assert (c["user_table_reads"]["observed"], c["user_table_reads"]["tolerance"]) == (2, 2)
    assert rec["tolerance_rule"]["rows_read_per_connection"] == 3000


def test_a_job_run_or_a_scan_of_the_lab_table_is_suspect():
    rec = reconcile.reconcile("timescaledb", window(timescaledb_job_runs=1), [client(100)])
    assert rec["verdict"] == "suspect" and rec["checks"]["timescaledb_job_runs"]["verdict"] == "suspect"
    rec = reconcile.reconcile("timescaledb", window(user_seq_scan=3, user_seq_tup_read=100), [client(100)])
    assert rec["checks"]["user_table_reads"]["verdict"] == "suspect"


def test_readings_of_before_name_postgres_and_are_not_reconciled_saying_why():
    stats = window()
    for edge in ("start", "end"):
        stats[edge]["server"]["name"] = "postgres"
    rec = reconcile.reconcile("timescaledb", stats, [client(100)])
    assert rec["verdict"] == "unavailable" and "the readings name server" in rec["unavailable"]
    # named TimescaleDB's but without its own counters: those checks say why
    old = {k: v for k, v in BASE.items() if not k.startswith("timescaledb_")}
    rec = reconcile.reconcile("timescaledb", {"start": reading(old), "end": reading(dict(old, user_n_tup_ins=100), at=5.0)},
                              [client(100)])
    assert rec["checks"]["rows_read"]["verdict"] == "unavailable"
    assert "do not keep TimescaleDB's catalog apart" in rec["checks"]["rows_read"]["reason"]
    assert "do not count TimescaleDB's jobs" in rec["checks"]["timescaledb_job_runs"]["reason"]


def test_the_fairness_row_names_the_build_that_ran():
    hooks = databases.hooks("timescaledb")
    stand_in = {"command": ["postgres"], "labels": {"jsonbench.stand_in": "TimescaleDB 2.19.3 Apache edition ..."}}
    row = hooks.fairness_rows(stand_in, {}, lambda db, name: None)[0]
    assert row["what"] == "TimescaleDB build" and row["timescaledb"] == "stand-in: TimescaleDB 2.19.3 Apache edition ..."
    official = hooks.fairness_rows({"command": ["postgres"], "labels": {"jsonbench.stand_in": ""}}, {}, lambda db, name: None)[0]
    assert "2.28.3 with its TSL code" in official["timescaledb"] and "Alpine (musl)" in official["timescaledb"]
    rows = fairness.statements({"timescaledb": stand_in}, {"COMPRESS": "after:12h"})
    cells = {r["what"]: r.get("timescaledb") for r in rows}
    assert cells["compression at rest"].startswith("TimescaleDB native compression of the chunks older than 12h")
    assert cells["TimescaleDB build"].startswith("stand-in: ")
