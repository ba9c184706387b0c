"""Server counters vs the lab's work (analysis/figures/reconcile.py), on readings taken from real servers.

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

from analysis.common import databases
from analysis.figures import counters, reconcile, results, schema
from analysis.render import report, summary

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
    assert r["tolerance_rule"] is databases.hook("postgres", "TOLERANCE")


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


def test_postgres_rows_read_by_its_autovacuum_on_the_lab_s_tables_are_explained_not_suspect():
    """postgres-globalsign-1mb-autoanalyze: globalsign-1mb's run phase on PostgreSQL 17 (the stand-in;
    2 clients x 240 inserts of people with 1 MiB of padding, a partial index on data->'age'). Its
    autoanalyze ran on the lab's table in the window and read each sampled document whole from TOAST
    for the index's expression: hundreds of thousands of rows pg_stat_database counts, none from a
    user-table scan. The check is ok, explained, and said in the notes; the same readings without the
    autovacuum counters (a client before them) stay suspect, and so do readings where it did not run."""
    stats, clients = case("postgres-globalsign-1mb-autoanalyze")
    r = reconcile.reconcile("postgres", stats, clients)
    rows = r["checks"]["rows_read"]
    assert r["verdict"] == "ok" and r["reasons"] == [], r["reasons"]
    assert rows["observed"] > 100 * rows["tolerance"] and rows["verdict"] == "ok", rows
    assert rows["explained_by"].startswith("autovacuum ran "), rows
    assert r["checks"]["user_table_reads"]["observed"] == 0
    assert any(n.startswith("rows_read ") and "autovacuum ran" in n for n in r["notes"]), r["notes"]
    for gone in ("user_autovacuum_count", "user_autoanalyze_count"):
        older = copy.deepcopy(stats)
        for edge in ("start", "end"):
            del older[edge]["counters"][gone]
        r = reconcile.reconcile("postgres", older, clients)
        assert r["verdict"] == "suspect" and "explained_by" not in r["checks"]["rows_read"], gone
    still = copy.deepcopy(stats)
    for k in ("user_autovacuum_count", "user_autoanalyze_count"):
        still["end"]["counters"][k] = still["start"]["counters"][k]
    r = reconcile.reconcile("postgres", still, clients)
    assert r["verdict"] == "suspect" and any(x.startswith("rows_read ") for x in r["reasons"])


def test_ferretdb_readings_name_no_server_and_are_not_reconciled():
    """FerretDB's readings (and any older run's) carry no server.name: its counters are not
    interpreted, the reconciliation is null with the reason."""
    for name in ("ferretdb-clean", "ferretdb-foreign"):
        stats, clients = case(name)
        r = reconcile.reconcile("mongodb", stats, clients)
        assert r["verdict"] == "unavailable" and r["checks"] == {}
        assert r["unavailable"].startswith("server unknown"), r["unavailable"]


def mongodb_shaped(stats, finds=0, extra_connections=0, version="8.0.4"):
    """serverStatus as MongoDB answers it: opcounters (documents for insert), connections."""
    out = copy.deepcopy(stats)
    for edge in ("start", "end"):
        out[edge]["server"] = {"name": "mongod", "version": version}
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


def query_phase(stats, clients, aggregates, k=5, version="8.0.4"):
    """The readings as a mongod query phase: one client (stage query) that ran K executions of
    olap-a, and `aggregates` aggregate commands the server received between the readings, counted
    where that version counts them (opcounters.query from 7.1, opcounters.command before; always
    metrics.commands.aggregate)."""
    out = mongodb_shaped(stats, version=version)
    out["end"]["counters"]["opcounters_insert"] = out["start"]["counters"]["opcounters_insert"]
    # one client session's and the readings' own commands
    out["end"]["counters"]["opcounters_command"] = out["start"]["counters"]["opcounters_command"] + 10
    out["end"]["commands"]["aggregate"] = out["start"]["commands"].get("aggregate", 0) + aggregates
    out["end"]["commands"]["insert"] = out["start"]["commands"].get("insert", 0)
    since_7_1 = tuple(int(x) for x in version.split(".")[:2]) >= (7, 1)
    out["end"]["counters"]["opcounters_query" if since_7_1 else "opcounters_command"] += aggregates
    c = copy.deepcopy(clients[0])
    c.update({"stage": "query", "docs_ok": k, "errors": 0,
              "operations": {"olap-a": {"ok": k, "errors": 0, "dropped": 0, "docs": 10 * k}}})
    return out, [c]


@pytest.mark.parametrize("version", ["8.0.4", "7.0.14"])
def test_a_query_phase_own_aggregates_count_once_and_foreign_reads_are_still_caught(version):
    """On 8.0 an aggregate counts in opcounters.query (not command): adding
    metrics.commands.aggregate to the reads counted each twice and took them from the commands."""
    stats, clients = case("ferretdb-clean")
    s, c = query_phase(stats, clients, aggregates=5, version=version)
    r = reconcile.reconcile("mongodb", s, c)
    assert r["server"] == f"mongod {version}"
    assert r["lab_work"]["queries"] == {"ok": 5, "errors": 0}
    assert r["checks"]["reads"]["expected"] == 5 and r["checks"]["reads"]["observed"] == 5
    assert r["checks"]["commands"]["observed"] == 10, "the readings' and sessions' commands, no aggregate"
    assert r["verdict"] == "ok", r["reasons"]
    # a foreign loop of aggregates during the query window is still over the lab's K
    s, c = query_phase(stats, clients, aggregates=5 + 4, version=version)
    r = reconcile.reconcile("mongodb", s, c)
    assert r["checks"]["reads"]["verdict"] == "suspect"
    assert any(x.startswith("reads 9 > expected 5") for x in r["reasons"]), r["reasons"]


MANUAL = os.path.join(os.path.dirname(CASES), "counters", "mongod-8.0-manual.json")


def test_the_counter_table_says_what_the_8_0_manual_says():
    manual = json.load(open(MANUAL))
    assert "Starting in MongoDB 7.1, aggregations count as query operations" in manual["opcounters.query"]
    sem, _ = counters.semantics({"name": "mongod", "version": "8.0.4"})
    assert sem["aggregate_in"] == "query" and "aggregate" in manual["opcounters.command_except"]
    # what `command` still holds of the reads: count and distinct are not in the manual's exceptions
    assert set(sem["reads_in_command"]).isdisjoint(manual["opcounters.command_except"])
    old, _ = counters.semantics({"name": "mongod", "version": "7.0.14"})
    assert old["aggregate_in"] == "command" and "aggregate" in old["reads_in_command"]


def test_a_server_or_version_without_recorded_semantics_is_not_reconciled():
    stats, clients = case("ferretdb-clean")
    for server, why in (({"name": "mongod", "version": "8.2.1"}, "no counter semantics recorded for mongod 8.2.1"),
                        ({"name": "mongod", "version": "garbage"}, "mongod version 'garbage' not understood"),
                        ({"name": "cockroach", "version": "1"}, "no counter semantics recorded for server 'cockroach'"),
                        ({"name": "postgres", "version": "15"}, "the readings name server 'postgres 15' for the mongodb")):
        s = mongodb_shaped(stats)
        s["start"]["server"] = s["end"]["server"] = server
        r = reconcile.reconcile("mongodb", s, clients)
        assert r["verdict"] == "unavailable" and r["unavailable"].startswith(why), r["unavailable"]
    s = mongodb_shaped(stats)
    s["end"]["server"] = {"name": "mongod", "version": "7.0.14"}
    assert "different servers" in reconcile.reconcile("mongodb", s, clients)["unavailable"]


SECANTUS = os.path.join(os.path.dirname(CASES), "counters", "secantus-0.7.0b3.json")


def secantus(work):
    """The real secantus readings (fixture), named as the client now names them."""
    stats = json.load(open(SECANTUS))
    for edge in ("start", "end"):
        stats[edge]["server"] = {"name": "secantus", "version": "0.7.0b3"}
    client = {"stage": work, "client_id": "1", "docs_ok": 0, "errors": 0, "reconnects": 0, "operations": {}}
    return stats, client


def test_secantus_counters_are_read_for_what_they_mean_and_null_where_they_mean_something_else():
    stats, client = secantus("run")
    assert stats["work_between"]["insert_documents"] == 2000
    d = {k: stats["end"]["counters"][k] - stats["start"]["counters"][k] for k in ("opcounters_insert", "opcounters_query")}
    assert d["opcounters_insert"] <= 2, "insert commands, not the 2,000 documents"
    assert d["opcounters_query"] == stats["work_between"]["finds"], "aggregates are not in query"
    assert stats["end"]["counters"]["wt_log_bytes_written"] is None and stats["end"]["commands"] == {}
    client.update(docs_ok=2000, operations={"insert": {"ok": 2000, "errors": 0}, "read": {"ok": 3, "errors": 0}})
    r = reconcile.reconcile("mongodb", stats, [client])
    assert r["server"].startswith("secantus")
    ins = r["checks"]["inserts"]
    assert ins["verdict"] == "unavailable" and "not documents" in ins["reason"] and ins["observed"] is None
    assert r["checks"]["connections_at_end"]["verdict"] == "unavailable"
    # finds are read for what they are: 3 findOne against the lab's 3 reads
    assert r["checks"]["reads"]["observed"] == 3 and r["checks"]["reads"]["verdict"] == "ok"
    # a query phase's aggregates hide among secantus's commands: reads and commands cannot be told apart
    q, qc = secantus("query")
    qc["operations"] = {"olap-a": {"ok": 5, "errors": 0}}
    r = reconcile.reconcile("mongodb", q, [qc])
    for name in ("reads", "commands"):
        assert r["checks"][name]["verdict"] == "unavailable" and "metrics.commands" in r["checks"][name]["reason"]




def test_foreign_work_on_another_database_of_the_cluster_is_suspect():
    """Real readings (PostgreSQL 15, lab database jsonbench, 2 clients x 200 docs; databases/postgres/
    client/postgres-stats.js readClusterStats): in the foreign case a session on database `postgres` ran
    generate_series(1, 2e7) and a CHECKPOINT during the window. The lab database's own counters
    reconcile in both: only the whole cluster shows it."""
    stats, clients = case("postgres-cluster-clean")
    r = reconcile.reconcile("postgres", stats, clients)
    assert r["verdict"] == "ok", r["reasons"]
    assert r["observed"]["other_databases_sessions"] == 0 and r["observed"]["checkpoints_requested"] == 0
    stats, clients = case("postgres-cluster-foreign")
    r = reconcile.reconcile("postgres", stats, clients)
    assert r["verdict"] == "suspect"
    assert {x.split()[0] for x in r["reasons"]} == {"other_databases_sessions", "other_databases_active_ms",
                                                      "checkpoints_requested"}
    assert r["observed"]["other_databases_active_ms"] > 1000, "the generate_series ran for seconds"
    for name in ("transactions", "rows_written", "user_table_reads", "sessions"):
        assert r["checks"][name]["verdict"] == "ok", name


def test_autovacuum_in_the_other_databases_is_not_foreign_work():
    """A clean e2e window (PostgreSQL 15, about 40 s, no client on another database) saw 28
    transactions and 8,117 rows read in the other databases: autovacuum workers' catalog scans. They
    must not make the phase suspect; sessions and active time stay the judges."""
    stats, clients = case("postgres-cluster-clean")
    s = copy.deepcopy(stats)
    for key, extra in (("cluster_other_databases_xacts", 28), ("cluster_other_databases_rows_read", 8117)):
        s["end"]["counters"][key] = s["start"]["counters"][key] + extra
    r = reconcile.reconcile("postgres", s, clients)
    assert r["verdict"] == "ok", r["reasons"]
    assert r["checks"]["other_databases_sessions"]["verdict"] == "ok"


def test_checkpoints_the_wal_forces_are_tolerated():
    stats, clients = case("postgres-cluster-foreign")
    s = copy.deepcopy(stats)
    # a window that wrote 2 x max_wal_size / (1 + 0.9) of WAL may see 2 forced checkpoints
    size, target = s["end"]["counters"]["cluster_max_wal_size_bytes"], s["end"]["counters"]["cluster_checkpoint_completion_target"]
    s["end"]["counters"]["wal_bytes"] = s["start"]["counters"]["wal_bytes"] + int(2 * size / (1 + target)) + 1
    assert reconcile.reconcile("postgres", s, clients)["checks"]["checkpoints_requested"]["tolerance"] == 2


def test_readings_without_cluster_counters_say_so():
    stats, clients = case("postgres-clean")
    r = reconcile.reconcile("postgres", stats, clients)
    c = r["checks"]["other_databases_sessions"]
    assert c["verdict"] == "unavailable" and "no cluster counters" in c["reason"]
    assert r["verdict"] == "ok"


def test_a_process_watch_that_could_not_read_the_cgroup_is_unavailable_not_ok():
    stats, clients = case("postgres-clean")
    why = "no sample could read the container's cgroup: no readable cgroup directory for pid 7"
    for foreign in (None, []):  # the lab's summary now, and an older summary
        r = reconcile.reconcile("postgres", stats, clients, {"cgroup_processes": {"foreign": foreign, "reason": why}})
        c = r["checks"]["container_processes"]
        assert c["verdict"] == "unavailable" and c["reason"] == why
    r = reconcile.reconcile("postgres", stats, clients, {"cgroup_processes": {"foreign": [], "reason": None}})
    assert r["checks"]["container_processes"]["verdict"] == "ok"


def test_perf_samples_of_another_process_in_the_container_make_the_phase_suspect(fixture_benches):
    """ci-standin-run's recorded profiles hold samples of a healthcheck (pg_isready) and a shell in
    the database containers: parsed before, now counted."""
    from analysis.figures import profile_samples
    bench = fixture_benches["ci-standin-run"]
    foreign = profile_samples.foreign(bench, "postgres", "postgres")
    assert foreign and "pg_isready" in foreign
    stats, clients = case("postgres-clean")
    r = reconcile.reconcile("postgres", stats, clients, None, foreign)
    assert r["verdict"] == "suspect" and r["checks"]["container_perf_samples"]["observed"] == sum(foreign.values())
    assert any(x.startswith("perf record sampled processes other than the server") and "pg_isready (" in x
               for x in r["reasons"])
    assert profile_samples.foreign(fixture_benches["bench1"], "postgres", "postgres") == {}
    assert reconcile.reconcile("postgres", stats, clients, None, {})["verdict"] == "ok"
