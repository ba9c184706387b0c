"""MySQL's analysis (databases/mysql/analysis.py, loaded by folder through analysis/databases.py
`hooks`): redo and binary log bytes, counter meanings, reconciliation and fairness cells, on readings
taken from the stand-in MariaDB 10.11.18 (the image jsonbench-standin/mysql) with `node client
server-stats` / `run` exactly as the lab runs them (fixtures/reconcile/mariadb-*: 2 clients, 10 x
1000 B documents):
- mariadb-insert-clean: 2 x 200 inserts, the first phase after `init`;
- mariadb-insert-foreign: the same with a foreign connection running `SELECT * FROM jsonbench` about
  once a second through the window;
- mariadb-ycsb-a-clean / -f-clean / -e-clean: YCSB A (read/update), F (read/rmw, after A: many of
  its updates write the value already there) and E (scan/insert) run stages after a 400-record load;
- mariadb-lab-bench1: the mysql phase of a real lab run, `./runme.sh --set DATABASES="mongodb postgres
  mysql" --set DOCS=400 --set CLIENTS=2 --set RATE=50 --set QUIET_S=5 bench1` on the stand-ins
  (its readings, client results and D.settings.json).
"""
import copy
import glob
import json
import os
import shutil

import pytest

from analysis import counters, databases, fairness, reconcile, report, results, schema, wal
from analysis.tests.test_reconcile import CASES, case  # the readings and client results of one case
from analysis.tests.three_db_fixture import add_third

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def as_mysql_84(stats):
    """The same readings named as MySQL 8.4's (what the official image's reading would say)."""
    s = copy.deepcopy(stats)
    for edge in ("start", "end"):
        s[edge]["server"] = {"name": "mysql", "version": "8.4.10", "product": "MySQL", "stand_in": False}
    return s


# --- hooks ----------------------------------------------------------------------------------

ALLOWED_HOOKS = {"WAL", "LOGS", "TOLERANCE", "counter_semantics", "reconcile", "fairness_cells", "fairness_rows",
                 "fairness_terms", "setting", "transaction_isolation", "THP"}


def test_every_hooks_file_defines_only_the_contracts_names_and_is_found_by_its_folder():
    found = {}
    for path in sorted(glob.glob(os.path.join(os.path.dirname(databases.manifests.__file__), "*", "analysis.py"))):
        name = os.path.basename(os.path.dirname(path))
        module = databases.hooks(name)
        assert module is not None, path
        public = {k for k in vars(module) if not k.startswith("_") and k.isidentifier()}
        # upper-case constants and helpers are the file's own; the hooks analysis calls are the contract's
        called = {k for k in public if k in ALLOWED_HOOKS or k.islower() and callable(getattr(module, k))
                  and getattr(getattr(module, k), "__module__", None) == module.__name__}
        found[name] = called & ALLOWED_HOOKS
    pair = {"WAL", "TOLERANCE", "counter_semantics", "reconcile", "fairness_cells", "fairness_terms", "setting",
            "transaction_isolation"}
    assert found["postgres"] == pair
    assert found["mongodb"] == pair | {"THP"}
    assert found["mysql"] == {"WAL", "LOGS", "TOLERANCE", "counter_semantics", "reconcile", "fairness_cells",
                              "fairness_rows"}
    # TimescaleDB's WAL is PostgreSQL's counter (its hooks take it from PostgreSQL's), its rules
    # PostgreSQL's with its catalog, chunks and jobs, its fairness cells and row
    assert found["timescaledb"] == {"WAL", "TOLERANCE", "counter_semantics", "reconcile", "fairness_cells", "fairness_rows",
                                    "setting"}
    assert databases.hook("timescaledb", "WAL") == databases.hook("postgres", "WAL")
    assert databases.hooks("no-such-database") is None


# --- redo and binary log ------------------------------------------------------------------

def test_redo_bytes_are_the_lsn_advance_and_match_innodbs_own_log_written_counter():
    stats, clients = case("mariadb-insert-clean")
    w = wal.wal("mysql", stats, "mysql")
    c0, c1 = stats["start"]["counters"], stats["end"]["counters"]
    raw0, raw1 = stats["start"]["raw"]["status"], stats["end"]["raw"]["status"]
    assert w["source"] == "Innodb_lsn_current" and w["reason"] is None
    # read independently: the raw SHOW GLOBAL STATUS value, and InnoDB's bytes-written counter
    assert w["bytes"] == int(raw1["Innodb_lsn_current"]) - int(raw0["Innodb_lsn_current"]) == 4265049
    assert w["bytes"] == c1["redo_written_bytes"] - c0["redo_written_bytes"]
    docs = sum(c["docs_ok"] for c in clients)
    assert docs == 400 and 10000 < w["bytes"] / docs < 11000, "each 10,112-byte document once in the redo"
    assert "redo" in w["about"] and "Innodb_lsn_current" in w["about"]
    assert wal.wal("mysql", as_mysql_84(stats))["source"] == "Innodb_redo_log_current_lsn"


def test_binlog_bytes_are_the_growth_of_the_binary_log_files():
    stats, clients = case("mariadb-insert-clean")
    logs = wal.further_logs("mysql", stats, "mysql")
    assert list(logs) == ["binlog"]
    b = logs["binlog"]
    files = lambda edge: sum(f["bytes"] for f in stats[edge]["raw"]["binlog_files"])  # noqa: E731
    assert b["bytes"] == files("end") - files("start") == 4120398
    assert b["source"] == "SHOW BINARY LOGS" and b["reason"] is None
    # ROW events: each document once (no annotate events), plus each transaction's framing
    assert 10000 < b["bytes"] / 400 < 10500
    # the stand-in's updates log the whole row twice (before and after images): YCSB A's updates
    a, _ = case("mariadb-ycsb-a-clean")
    assert wal.further_logs("mysql", a)["binlog"]["bytes"] / 200 > 2 * 10000
    assert wal.further_logs("postgres", stats) == {} and wal.further_logs("mongodb", stats) == {}


def test_a_missing_or_lower_reading_leaves_the_logs_null_with_the_reason():
    stats, _ = case("mariadb-insert-clean")
    assert wal.wal("mysql", None, "mysql")["reason"] == "mysql.server-stats.json missing"
    assert wal.further_logs("mysql", {"start": stats["start"], "end": None}, "mysql")["binlog"] == {
        "bytes": None, "source": None, "reason": "a server-stats reading failed (see mysql.out)"}
    purged = copy.deepcopy(stats)
    purged["end"]["counters"]["binlog_bytes"] = 500
    b = wal.further_logs("mysql", purged)["binlog"]
    assert b["bytes"] is None and "binlog_bytes went down" in b["reason"] and "purged" in b["reason"]
    off = copy.deepcopy(stats)
    off["end"]["counters"]["binlog_bytes"] = None
    off["end"]["unavailable"]["binlog_bytes"] = "binary logging is off on this server (log_bin=0)"
    b = wal.further_logs("mysql", off)["binlog"]
    assert b["bytes"] is None and b["reason"].startswith("binary logging is off")


# --- counter meanings and reconciliation ---------------------------------------------------------

def test_counter_semantics_are_found_by_the_server_name_through_the_folder():
    stats, _ = case("mariadb-insert-clean")
    sem, why = counters.of_readings(stats)
    assert why is None and sem["label"] == "MariaDB 10.11.18-MariaDB-0+deb12u1-log (MySQL stand-in)"
    assert sem["innodb_rows"] is False
    sem, why = counters.semantics({"name": "mysql", "version": "11.4.2-MariaDB", "product": "MariaDB"})
    assert sem is None and "measured on 10.11 only" in why
    sem, why = counters.semantics({"name": "mysql", "version": "9.1.0", "product": "MySQL"})
    assert sem is None and "MySQL 9.1.0" in why


def test_a_clean_insert_phase_is_ok_and_every_statement_row_and_connection_is_counted():
    stats, clients = case("mariadb-insert-clean")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok" and r["reasons"] == [] and r["notes"] == []
    obs = r["observed"]
    # 400 prepared INSERT executions: counted in Com_stmt_execute and (measured) in Com_insert
    assert obs["statements_executed"] == obs["inserts"] == obs["rows_written"] == 400
    # 2 sessions x 2 set-up SELECTs + the start reading's 2 after its status read + the end reading's 1
    assert r["expected"]["selects"] == obs["selects"] == 7
    # 400 executions + 4 set-up + 5 readings' statements + 3 COM_QUITs (2 clients, the start reading)
    assert r["expected"]["questions"] == obs["questions"] == 412
    # the two clients and the end reading; only the reading itself connected at each edge
    assert obs["connections"] == 3 and obs["threads_connected_at_start"] == obs["threads_connected_at_end"] == 1
    # the first phase after init: the table's persistent statistics read when opened (4, tolerated)
    assert obs["keyed_reads"] == 4 and r["checks"]["keyed_reads"]["verdict"] == "ok"
    for k in ("innodb_rows_inserted", "innodb_rows_updated"):
        c = r["checks"][k]
        assert c["verdict"] == "unavailable" and "has no Innodb_rows_" in c["reason"] and "MariaDB" in c["reason"]
    assert r["tolerance_rule"] is databases.hook("mysql", "TOLERANCE")
    assert r["deltas"]["redo_lsn"] == 4265049


def test_a_foreign_select_loop_is_suspect_with_the_reasons():
    stats, clients = case("mariadb-insert-foreign")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "suspect"
    c = r["checks"]
    assert c["selects"]["verdict"] == "suspect" and c["selects"]["observed"] > c["selects"]["expected"]
    assert c["connections"]["verdict"] == "suspect" and c["threads_connected_at_end"]["observed"] == 2
    assert c["inserts"]["verdict"] == "ok"
    assert any(x.startswith("selects ") for x in r["reasons"])


def test_ycsb_reads_updates_and_scans_are_reconciled_and_what_cannot_be_decided_says_why():
    stats, clients = case("mariadb-ycsb-a-clean")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok" and r["notes"] == []
    assert r["observed"]["updates"] == r["observed"]["rows_changed"] == 200
    assert r["observed"]["keyed_reads"] == r["expected"]["keyed_reads"] == 400
    # F after A: a read-modify-write that writes the value already there changes no row; fewer is fine
    stats, clients = case("mariadb-ycsb-f-clean")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok" and r["notes"] == []
    assert r["observed"]["updates"] == 200 and r["observed"]["rows_changed"] < 200
    assert r["observed"]["statements_executed"] == 600  # reads, and two executions per rmw
    stats, clients = case("mariadb-ycsb-e-clean")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok"
    c = r["checks"]["rows_read_next"]
    assert c["verdict"] == "unavailable" and "scans read a number of rows the clients do not report" in c["reason"]
    assert r["observed"]["inserts"] == 10 and r["observed"]["keyed_reads"] == 190


def test_the_labs_own_mysql_phase_reconciles_exactly_and_gives_bench1s_redo_and_binlog_per_document():
    stats, clients = case("mariadb-lab-bench1")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok" and r["notes"] == []
    decided = {k: c for k, c in r["checks"].items() if c["verdict"] != "unavailable"}
    assert set(r["checks"]) - set(decided) == {"innodb_rows_inserted", "innodb_rows_updated"}
    # every decided check exact but the table-opening statistics reads
    assert all(c["observed"] == c["expected"] for k, c in decided.items() if k != "keyed_reads")
    assert r["observed"]["inserts"] == r["observed"]["rows_written"] == 800
    assert r["observed"]["connections"] == 3  # 2 clients + the end reading: nothing else of the lab's
    docs = sum(c["docs_ok"] for c in clients)
    redo, binlog = wal.wal("mysql", stats)["bytes"], wal.further_logs("mysql", stats)["binlog"]["bytes"]
    # 10 x 1000-character documents (10,112 B of JSON text): about their size once in each log
    assert round(redo / docs) == 10670 and round(binlog / docs) == 10301
    files = lambda edge: sum(f["bytes"] for f in stats[edge]["raw"]["binlog_files"])  # noqa: E731
    assert binlog == files("end") - files("start")


def test_on_mysql_84_the_checks_resting_on_a_measurement_are_null_with_the_reason():
    stats, clients = case("mariadb-insert-clean")
    r = reconcile.reconcile("mysql", as_mysql_84(stats), clients)
    for k in ("questions", "rows_written", "keyed_reads"):
        assert r["checks"][k]["verdict"] == "unavailable"
        assert r["checks"][k]["reason"].startswith("not measured on MySQL 8.4.10")
    assert r["checks"]["inserts"]["verdict"] == "ok"  # the manual decides it
    # the stand-in's reading holds no Innodb_rows_*: on MySQL they would be read, here they are null
    assert r["checks"]["innodb_rows_inserted"]["observed"] is None


# --- fairness ------------------------------------------------------------------------------------

with open(os.path.join(CASES, "mariadb-lab-bench1", "settings.json")) as _f:
    LAB_MYSQL = json.load(_f)  # the lab's D.settings.json: compose's mysqld command line, 4G buffer pool
# the same with the buffer pool of the ci run's postgres (shared_buffers=256MB)
STANDIN_MYSQL = {**LAB_MYSQL, "command": [a.replace("=4G", "=256M") for a in LAB_MYSQL["command"]]}


def _settings(mysql=STANDIN_MYSQL):
    d = os.path.join(FIXTURES, "ci-standin-run")
    s = {db: json.load(open(os.path.join(d, f"{db}.settings.json"))) for db in ("mongodb", "postgres")}
    return {**s, "mysql": mysql}


def test_fairness_reads_mysqls_column_from_its_command_line():
    rows = {r["what"]: r for r in fairness.statements(_settings(), {"DURABILITY": "strict"})}
    assert rows["checkpoint interval"]["mysql"].startswith("none: InnoDB's page cleaner")
    assert rows["replication log"]["mysql"] == "binary log on (--log-bin=binlog), ROW format (stand-in: MariaDB 10.11)"
    # the ci run's postgres ran shared_buffers=256MB: aligned with the 256M buffer pool
    assert rows["cache"]["mysql"] == "innodb_buffer_pool_size=256M" and rows["cache"]["postgres"] == "shared_buffers=256MB"
    assert rows["durability"]["aligned"] is True
    assert rows["torn pages"]["mysql"] == "innodb_doublewrite=ON" and rows["torn pages"]["aligned"]
    assert rows["partial update logging"]["mysql"].startswith("absent on the stand-in: MariaDB has no binlog_row_value_options")
    assert rows["log before forced checkpoints"]["mysql"].startswith("innodb_redo_log_capacity=2G")
    assert rows["log before forced checkpoints"]["aligned"] is True  # postgres's max_wal_size=2GB
    lab = {r["what"]: r for r in fairness.statements(_settings(LAB_MYSQL), {})}
    assert lab["cache"]["mysql"] == "innodb_buffer_pool_size=4G" and lab["cache"]["aligned"] is False
    relaxed = {r["what"]: r for r in fairness.statements(_settings(), {"DURABILITY": "relaxed"})}
    assert relaxed["durability"]["aligned"] is False, "1/1 on the server while the bench asked for relaxed"
    # the pair alone: no mysql cell, no mysql row (its outputs as before)
    pair = fairness.statements({k: v for k, v in _settings().items() if k != "mysql"}, {})
    assert all("mysql" not in r for r in pair) and "cache" not in {r["what"] for r in pair}
    # another command line (the three-database fixture's copy of postgres's) is not read as mysqld's
    fake = fairness.statements({**_settings(), "mysql": _settings()["postgres"]}, {})
    assert fake[0]["mysql"] == fairness.NOT_STATED and "cache" not in {r["what"] for r in fake}


# --- a bench with a mysql phase: results.json and report.md --------------------------------

@pytest.fixture
def bench(tmp_path):
    """bench2 with a third database whose readings are the stand-in's real ones."""
    dst = tmp_path / "bench2"
    shutil.copytree(os.path.join(FIXTURES, "bench2"), dst)
    add_third(str(dst))
    shutil.copy(os.path.join(CASES, "mariadb-insert-clean", "server-stats.json"), dst / "mysql.server-stats.json")
    json.dump(STANDIN_MYSQL, open(dst / "mysql.settings.json", "w"))
    return str(dst)


def test_results_and_report_carry_redo_and_binlog_per_operation(bench, tmp_path):
    res = results.write(bench)
    schema.validate(res)  # results.write validates too: the new fields are in the schema
    by = {r["database"]: r for r in res["runs"]}
    m = by["mysql"]
    assert m["wal"]["bytes"] == 4265049 and m["wal"]["source"] == "Innodb_lsn_current"
    assert m["binlog"]["bytes"] == 4120398 and m["binlog"]["source"] == "SHOW BINARY LOGS"
    ops = m["per_op"]["ops"]
    assert m["per_op"]["wal_bytes"] == pytest.approx(4265049 / ops)
    assert m["per_op"]["binlog_bytes"] == pytest.approx(4120398 / ops)
    assert "binlog" not in by["postgres"] and "binlog_bytes" not in by["postgres"]["per_op"]
    report.run([bench], str(tmp_path))
    text = open(os.path.join(bench, "report.md")).read()
    assert "| phase | per | binary log (phase) | binary log B |" in text
    assert f"| mysql | insert | 3.9 MiB (SHOW BINARY LOGS) | {4120398 / ops:,.0f} |" in text
    assert "| cache | " in text and "innodb_buffer_pool_size=256M" in text
