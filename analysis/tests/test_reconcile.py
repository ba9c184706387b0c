"""Server counters vs the lab's work (analysis/reconcile.py), on readings taken from real servers.

fixtures/reconcile/<case>/ hold `node client server-stats` readings at both edges and the client
result files (histograms dropped) of 2 clients x 200 docs against PostgreSQL 15 and FerretDB 1.24
(client/test/helpers), clean and with a foreign loop reading the table about once a second
(`select * from jsonbench` on one persistent connection; `find({})` on FerretDB). MongoDB cannot run
here: its case is a serverStatus-shaped reading made from the FerretDB one.
"""
import copy
import glob
import json
import os
import shutil

import pytest

from analysis import reconcile, report, results, schema, summary

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "reconcile")


def case(name):
    d = os.path.join(CASES, name)
    with open(os.path.join(d, "server-stats.json")) as f:
        stats = json.load(f)
    clients = []
    for p in sorted(glob.glob(os.path.join(d, "clients", "*.json"))):
        with open(p) as f:
            clients.append(json.load(f))
    return stats, clients


def test_clean_postgres_phase_is_ok_and_counts_the_labs_work_exactly():
    stats, clients = case("postgres-clean")
    r = reconcile.reconcile("postgres", stats, clients)
    assert r["verdict"] == "ok" and r["reasons"] == []
    assert r["lab_work"] == {"clients": 2, "client_sessions": 2, "docs_ok": 400, "errors": 0,
                             "statements_per_session": 3, "statements_per_reading": 2, "readings": 2,
                             "ops": {"insert": {"ok": 400, "errors": 0}}, "queries": {"ok": 0, "errors": 0}}
    # 400 inserts + 2 sessions x (start-up + show, set, prepare) + the start reading (start-up, show, select)
    assert r["expected"]["transactions"] == 411
    assert r["observed"]["transactions"] - r["expected"]["transactions"] <= r["tolerance"]["transactions"]
    assert r["observed"]["rows_written"] == 400  # user tables: pg_stat_database counted 2800 with TOAST chunks
    assert r["observed"]["user_table_reads"] == 0 and r["tolerance"]["user_table_reads"] == 0
    assert r["observed"]["sessions"] == 3
    assert r["observed"]["other_sessions_at_start"] == 0 and r["observed"]["other_sessions_at_end"] == 0
    assert r["deltas"]["wal_bytes"] > 400 * 10000, "10 x 1000 B documents in the WAL"
    assert r["tolerance_rule"] is reconcile.TOLERANCE["postgres"]


def test_a_foreign_select_loop_on_postgres_is_suspect_with_the_reasons():
    stats, clients = case("postgres-foreign")
    r = reconcile.reconcile("postgres", stats, clients)
    assert r["verdict"] == "suspect"
    checks = r["checks"]
    # 4 full scans of a growing table
    assert checks["user_table_reads"]["verdict"] == "suspect" and checks["user_table_reads"]["observed"] > 400
    # the monitoring session was connected at both edges
    assert checks["other_sessions_at_start"]["observed"] == 1 and checks["other_sessions_at_end"]["verdict"] == "suspect"
    assert any(x.startswith("user_table_reads ") for x in r["reasons"])
    # the inserts themselves reconcile: only the foreign work is flagged
    assert checks["rows_written"]["verdict"] == "ok"
    # the scans also read the TOAST chunks of 10 x 1000 B documents
    assert checks["rows_read"]["verdict"] == "suspect"


def test_clean_ferretdb_phase_is_ok_and_what_it_does_not_offer_is_unavailable_with_the_reason():
    stats, clients = case("ferretdb-clean")
    r = reconcile.reconcile("mongodb", stats, clients)
    assert r["verdict"] == "ok"
    assert r["observed"]["inserts"] == r["expected"]["inserts"] == 400
    assert r["observed"]["reads"] == 0 and r["observed"]["other_writes"] == 0
    assert r["checks"]["connections_created"]["verdict"] == "unavailable"
    assert "FerretDB" in r["checks"]["connections_created"]["reason"]


def test_a_foreign_find_loop_on_ferretdb_is_suspect():
    stats, clients = case("ferretdb-foreign")
    r = reconcile.reconcile("mongodb", stats, clients)
    assert r["verdict"] == "suspect"
    assert r["checks"]["reads"]["verdict"] == "suspect" and r["checks"]["reads"]["observed"] >= 4
    assert r["checks"]["inserts"]["verdict"] == "ok"


def mongodb_shaped(stats, finds=0, extra_connections=0):
    """serverStatus as MongoDB answers it: opcounters (documents for insert), connections."""
    out = copy.deepcopy(stats)
    base = {"insert": 1000, "query": 20, "update": 3, "delete": 1, "getmore": 0, "command": 5000}
    # the reading itself holds 2 connections (its pool and the driver's monitor)
    for edge, inserted, commands, created, current in (("start", 0, 0, 0, 2), ("end", 400, 40, 9, 2)):
        c = out[edge]["counters"]
        c.update({f"opcounters_{k}": v for k, v in base.items()})
        c["opcounters_insert"] += inserted
        c["opcounters_command"] += commands
        c["connections_total_created"] = 100 + created
        c["connections_current"] = current
        out[edge]["unavailable"] = {}
        out[edge]["commands"] = {"insert": inserted, "find": 0, "aggregate": 0}
    out["end"]["counters"]["opcounters_query"] += finds
    out["end"]["counters"]["connections_current"] += extra_connections
    return out


def test_mongodb_opcounters_clean_then_foreign_finds_and_a_lingering_connection():
    stats, clients = case("ferretdb-clean")
    r = reconcile.reconcile("mongodb", mongodb_shaped(stats), clients)
    assert r["verdict"] == "ok", r["reasons"]
    assert r["observed"]["inserts"] == 400 and r["observed"]["connections_created"] == 9
    r = reconcile.reconcile("mongodb", mongodb_shaped(stats, finds=5, extra_connections=2), clients)
    assert r["verdict"] == "suspect"
    assert {x.split()[0] for x in r["reasons"]} == {"reads", "connections_at_end"}
    # one extra connection hides within the driver's up to 3 per reading: a stated limit
    r = reconcile.reconcile("mongodb", mongodb_shaped(stats, extra_connections=1), clients)
    assert r["verdict"] == "ok"


def test_foreign_processes_in_the_container_make_the_phase_suspect_even_with_clean_counters():
    stats, clients = case("postgres-clean")
    phase = {"status": "ok", "cgroup_processes": {"foreign": ["pg_isready", "bash", "pg_isready"]}}
    r = reconcile.reconcile("postgres", stats, clients, phase)
    assert r["verdict"] == "suspect"
    assert r["reasons"] == ["processes other than the server ran in the database container during the window: "
                            "bash, pg_isready"]
    assert reconcile.reconcile("postgres", stats, clients, {"cgroup_processes": {"foreign": []}})["verdict"] == "ok"


def test_no_readings_is_unavailable_not_suspect():
    _, clients = case("postgres-clean")
    r = reconcile.reconcile("postgres", None, clients)
    assert r["verdict"] == "unavailable" and r["unavailable"] == "postgres.server-stats.json missing"
    r = reconcile.reconcile("postgres", {"start": None, "end": {"counters": {}}}, clients)
    assert r["verdict"] == "unavailable" and "reading failed" in r["unavailable"]


@pytest.fixture
def standin_bench(fixture_benches):
    return fixture_benches["ci-standin-run"]


def test_a_suspect_phase_shows_in_results_report_and_summary(standin_bench, tmp_path):
    unflagged = {r["database"]: r["cpu"]["user_s"] for r in results.write(standin_bench)["runs"]}
    assert unflagged["postgres"] > 0
    shutil.copy(os.path.join(CASES, "postgres-foreign", "server-stats.json"),
                os.path.join(standin_bench, "postgres.server-stats.json"))
    shutil.copy(os.path.join(CASES, "ferretdb-clean", "server-stats.json"),
                os.path.join(standin_bench, "mongodb.server-stats.json"))
    res = results.write(standin_bench)
    schema.validate(res)
    by_db = {r["database"]: r for r in res["runs"]}
    pg = by_db["postgres"]
    assert pg["status"] == "suspect" and "user_table_reads" in pg["reason"]
    assert pg["reconciliation"]["verdict"] == "suspect"
    assert pg["cpu"]["user_s"] == unflagged["postgres"], "figures are kept, only flagged"
    assert res["complete"] is True
    report.bench_report(standin_bench)
    text = open(os.path.join(standin_bench, "report.md")).read()
    top = text.split("## Per-document cost")[0]
    assert "**SUSPECT:**" in top and "user_table_reads" in top
    assert "## Server counters vs the lab's work" in text
    line = [x for x in summary.lines(standin_bench).splitlines() if "postgres" in x][0]
    assert "status SUSPECT (" in line and "user_table_reads" in line


def test_failed_phase_keeps_its_status_when_also_suspect(standin_bench):
    shutil.copy(os.path.join(CASES, "postgres-foreign", "server-stats.json"),
                os.path.join(standin_bench, "postgres.server-stats.json"))
    path = os.path.join(standin_bench, "postgres.phase.json")
    phase = json.load(open(path))
    phase.update(status="failed", reason="client-1 exited with code 1")
    json.dump(phase, open(path, "w"))
    pg = {r["database"]: r for r in results.build(standin_bench)["runs"]}["postgres"]
    assert pg["status"] == "failed" and pg["reason"] == "client-1 exited with code 1"
    assert pg["reconciliation"]["verdict"] == "suspect"
    assert any(n.startswith("SUSPECT:") for n in pg["notes"])


def test_counters_below_the_acknowledged_work_are_noted_not_suspect():
    stats, clients = case("postgres-clean")
    more = copy.deepcopy(clients)
    more[0]["docs_ok"] += 50  # the clients claim 50 documents the server never counted
    r = reconcile.reconcile("postgres", stats, more)
    assert r["checks"]["rows_written"]["verdict"] == "low"
    assert r["verdict"] == "ok"
    assert r["notes"] == ["rows_written 400 < expected 450 - tolerance 0: the readings do not cover all of the "
                          "clients' work"]


def query_phase(stats, clients, aggregates, k=5):
    """The ferretdb-clean readings as a query phase: one client (stage query) that ran K executions
    of olap-a, and `aggregates` aggregate commands counted by the server between the readings."""
    out = copy.deepcopy(stats)
    out["end"]["commands"]["aggregate"] = out["start"]["commands"].get("aggregate", 0) + aggregates
    # nothing inserted in a query phase
    out["end"]["commands"]["insert"] = out["start"]["commands"].get("insert", 0)
    c = copy.deepcopy(clients[0])
    c.update({"stage": "query", "docs_ok": k, "errors": 0,
              "operations": {"olap-a": {"ok": k, "errors": 0, "dropped": 0, "docs": 10 * k}}})
    return out, [c]


def test_a_query_phase_own_aggregates_are_the_labs_work_and_foreign_reads_are_still_caught():
    stats, clients = case("ferretdb-clean")
    s, c = query_phase(stats, clients, aggregates=5)
    r = reconcile.reconcile("mongodb", s, c)
    assert r["lab_work"]["queries"] == {"ok": 5, "errors": 0}
    assert r["checks"]["reads"]["expected"] == 5 and r["checks"]["reads"]["observed"] == 5
    assert r["checks"]["reads"]["verdict"] == "ok", r["reasons"]
    # a foreign loop of finds/aggregates during the query window is still over the lab's K
    s, c = query_phase(stats, clients, aggregates=5 + 4)
    r = reconcile.reconcile("mongodb", s, c)
    assert r["checks"]["reads"]["verdict"] == "suspect"
    assert any(x.startswith("reads 9 > expected 5") for x in r["reasons"]), r["reasons"]
