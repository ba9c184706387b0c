"""MySQL's analysis (databases/mysql/analysis.py, loaded by folder through analysis/common/databases.py
`hooks`): redo and binary log bytes, counter meanings, reconciliation and fairness cells, on readings
taken with `node client server-stats` / `run` exactly as the lab runs them (fixtures/reconcile/,
2 clients, 10 x 1000 B documents):
- mysql97-*: MySQL 9.7.4-2, Debian's package (the stand-in image jsonbench-standin/mysql:9.7, started
  by its entrypoint with binary log, ROW, binlog_row_image FULL, PARTIAL_JSON, strict durability):
  - mysql97-insert-clean: 2 x 200 inserts, the first phase after `init`;
  - mysql97-insert-foreign: the same after a new `init`, with a foreign connection running
    `SELECT * FROM jsonbench` about once a second through the window;
  - mysql97-ycsb-a-clean / -f-clean / -e-clean: YCSB A (read/update), F (read/rmw, after A: many of
    its updates write the value already there) and E (scan/insert) run stages after a 400-record load;
  - mysql97-events-olap-a-clean / -olap-lookup-clean: query phases of the events set (10 executions
    each, one client) after a 3000-event load and `settle`; -olap-a-foreign: the same with a foreign
    connection's `SELECT COUNT(*) FROM jsonbench` between the readings;
  - mysql97-relational-load: the mysql-load phase of a real lab run of storage-forms/ at its point
    MYSQL_FORM=relational (a table of id and 10 VARCHAR(100) columns: the first phase to open it after
    `init`), RECORDS=3000, CLIENTS=2 on the stand-ins; its clients' `form`, which the client writes
    since that run, added;
  - mysql97-lab-bench1: the mysql phase of a real lab run, `./runme.sh` of bench1's settings with
    `DATABASES="mongodb postgres mysql"`, CLIENTS=2, DOCS=400, RATE=50, QUIET_S=5 on the stand-ins
    (its readings, client results and D.settings.json);
- mariadb-*: MariaDB 10.11.18, the stand-in of earlier runs, whose readings analysis still reads.
"""
import copy
import glob
import json
import os
import shutil

import pytest

from analysis.common import databases
from analysis.figures import counters, fairness, reconcile, results, schema, wal
from analysis.render import report
from analysis.tests.test_reconcile import CASES, case  # the readings and client results of one case
from analysis.tests.three_db_fixture import add_third

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
DOC = 10112  # bytes of JSON text of one 10 x 1000-character document


def as_mysql_84(stats):
    """The same readings named as MySQL 8.4's (what the official mysql:8.4.10's reading would say)."""
    s = copy.deepcopy(stats)
    for edge in ("start", "end"):
        s[edge]["server"] = {"name": "mysql", "version": "8.4.10", "product": "MySQL", "stand_in": False,
                             "version_comment": "MySQL Community Server - GPL"}
    return s


def files(stats, edge):
    """The binary log files' sizes as SHOW BINARY LOGS listed them in one reading (raw)."""
    return sum(f["bytes"] for f in stats[edge]["raw"]["binlog_files"])


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
                              "fairness_rows", "transaction_isolation"}
    # TimescaleDB's WAL is PostgreSQL's counter (its hooks take it from PostgreSQL's), its rules
    # PostgreSQL's with its catalog, chunks and jobs, its fairness cells and row
    assert found["timescaledb"] == {"WAL", "TOLERANCE", "counter_semantics", "reconcile", "fairness_cells", "fairness_rows",
                                    "setting"}
    assert databases.hook("timescaledb", "WAL") == databases.hook("postgres", "WAL")
    assert databases.hooks("no-such-database") is None


# --- redo and binary log ------------------------------------------------------------------

def test_redo_bytes_are_the_lsn_advance_read_independently_from_the_raw_status():
    stats, clients = case("mysql97-insert-clean")
    w = wal.wal("mysql", stats, "mysql")
    raw0, raw1 = stats["start"]["raw"]["status"], stats["end"]["raw"]["status"]
    assert w["source"] == "Innodb_redo_log_current_lsn" and w["reason"] is None
    lsn = int(raw1["Innodb_redo_log_current_lsn"]) - int(raw0["Innodb_redo_log_current_lsn"])
    assert w["bytes"] == lsn == 5502897
    # InnoDB's bytes-written counter: the same redo, and a partly filled 512-byte block written again
    # by the next commit (about 5% more here)
    written = int(raw1["Innodb_os_log_written"]) - int(raw0["Innodb_os_log_written"])
    assert w["bytes"] < written < 1.1 * w["bytes"]
    docs = sum(c["docs_ok"] for c in clients)
    assert docs == 400 and DOC < w["bytes"] / docs < 1.5 * DOC, "each document once in the redo, with its pages' framing"
    assert "redo" in w["about"] and "Innodb_redo_log_current_lsn" in w["about"]
    # MariaDB (earlier runs) names its LSN otherwise
    assert wal.wal("mysql", case("mariadb-insert-clean")[0])["source"] == "Innodb_lsn_current"


def test_binlog_bytes_are_the_growth_of_the_binary_log_files_and_an_update_logs_the_document_once():
    stats, clients = case("mysql97-insert-clean")
    logs = wal.further_logs("mysql", stats, "mysql")
    assert list(logs) == ["binlog"]
    b = logs["binlog"]
    assert b["bytes"] == files(stats, "end") - files(stats, "start") == 4182798
    assert b["source"] == "SHOW BINARY LOGS" and b["reason"] is None
    # ROW events: each document once (no rows-query events), plus each transaction's framing
    assert DOC < b["bytes"] / 400 < 1.05 * DOC
    # YCSB A's updates (one 1000-character field by JSON_SET): with binlog_row_image=FULL the
    # before-image holds the whole document, PARTIAL_JSON makes the after-image the change only:
    # between one and 1.5 documents per update (reads write no binary log)
    a, _ = case("mysql97-ycsb-a-clean")
    assert a["end"]["raw"]["variables"] == {"log_bin": "1", "binlog_format": "ROW", "binlog_row_image": "FULL",
                                            "binlog_row_value_options": "PARTIAL_JSON"}
    per_update = wal.further_logs("mysql", a)["binlog"]["bytes"] / 200
    assert DOC < per_update < 1.5 * DOC, per_update
    # MariaDB (earlier runs) has no partial logging: both images whole, more than two documents
    assert wal.further_logs("mysql", case("mariadb-ycsb-a-clean")[0])["binlog"]["bytes"] / 200 > 2 * 10000
    assert wal.further_logs("postgres", stats) == {} and wal.further_logs("mongodb", stats) == {}


def test_a_missing_or_lower_reading_leaves_the_logs_null_with_the_reason():
    stats, _ = case("mysql97-insert-clean")
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
    stats, _ = case("mysql97-insert-clean")
    sem, why = counters.of_readings(stats)
    # the server as it says it is (VERSION(), @@version_comment), and the binding's stand-in flag
    assert why is None and sem["label"] == "MySQL 9.7.4-2 (Debian) (stand-in)"
    assert sem["innodb_rows"] is True and sem["status_rows_counted"] is True and sem["unmeasured"] == {}
    sem, why = counters.of_readings(case("mariadb-insert-clean")[0])
    assert why is None and sem["label"] == "MariaDB 10.11.18-MariaDB-0+deb12u1-log (MySQL stand-in)"
    assert sem["innodb_rows"] is False and sem["status_rows_counted"] is False
    sem, why = counters.semantics({"name": "mysql", "version": "11.4.2-MariaDB", "product": "MariaDB"})
    assert sem is None and "measured on 10.11 only" in why
    sem, why = counters.semantics({"name": "mysql", "version": "9.1.0", "product": "MySQL"})
    assert sem is None and "MySQL 9.1.0" in why and "9.7 (measured)" in why
    # the official image of 9.7: the meanings measured on Debian's build of the same line
    sem, _ = counters.semantics({"name": "mysql", "version": "9.7.1", "product": "MySQL", "stand_in": False,
                                 "version_comment": "MySQL Community Server - GPL"})
    assert sem["label"] == "MySQL 9.7.1 (MySQL Community Server - GPL)" and sem["unmeasured"] == {}


def test_a_clean_insert_phase_is_ok_and_every_statement_row_and_connection_is_counted():
    stats, clients = case("mysql97-insert-clean")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok" and r["reasons"] == [] and r["notes"] == [], r
    assert r["server"] == "MySQL 9.7.4-2 (Debian) (stand-in)"
    obs, exp = r["observed"], r["expected"]
    # 400 prepared INSERT executions: counted in Com_stmt_execute and (measured) in Com_insert
    assert obs["statements_executed"] == obs["inserts"] == obs["innodb_rows_inserted"] == 400
    # Handler_write: the documents and the 23 rows of a reading's SHOW GLOBAL STATUS (its temporary table)
    assert obs["rows_written"] == exp["rows_written"] == 423
    # 2 sessions x 2 set-up SELECTs + the start reading's 2 after its status read + the end reading's 1
    assert exp["selects"] == obs["selects"] == 7
    # 400 executions + 4 set-up + 5 readings' statements + 3 COM_QUITs (2 clients, the start reading)
    assert exp["questions"] == obs["questions"] == 412
    # the two clients and the end reading; only the reading itself connected at each edge
    assert obs["connections"] == 3 and obs["threads_connected_at_start"] == obs["threads_connected_at_end"] == 1
    # the first phase after init: the 23 names the reading asks for, and the reads of opening the
    # table (12 by key, 9 next: tolerated)
    assert exp["keyed_reads"] == 23 and obs["keyed_reads"] == 35 and r["tolerance"]["keyed_reads"] == 12
    assert obs["rows_read_next"] == 9 and r["tolerance"]["rows_read_next"] == 9
    assert all(c["verdict"] == "ok" for c in r["checks"].values()), r["checks"]
    assert r["tolerance_rule"] is databases.hook("mysql", "TOLERANCE")
    assert r["deltas"]["redo_lsn"] == 5502897


def test_a_foreign_select_loop_is_suspect_with_the_reasons():
    stats, clients = case("mysql97-insert-foreign")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "suspect"
    c = r["checks"]
    assert c["selects"]["verdict"] == "suspect" and c["selects"]["observed"] > c["selects"]["expected"]
    assert c["connections"]["verdict"] == "suspect"
    assert c["inserts"]["verdict"] == "ok" and c["rows_written"]["verdict"] == "ok"
    assert any(x.startswith("selects ") for x in r["reasons"])


def test_ycsb_reads_updates_and_scans_are_reconciled_and_what_cannot_be_decided_says_why():
    stats, clients = case("mysql97-ycsb-a-clean")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok" and r["notes"] == []
    obs = r["observed"]
    assert obs["updates"] == obs["rows_changed"] == obs["innodb_rows_updated"] == 200
    # 200 reads + 200 updates + the reading's 23 names, exactly (the table was opened by the load)
    assert obs["keyed_reads"] == r["expected"]["keyed_reads"] == 423 and obs["rows_written"] == 23
    # F after A: a read-modify-write that writes the value already there changes no row; fewer is fine
    stats, clients = case("mysql97-ycsb-f-clean")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok" and r["notes"] == []
    assert r["observed"]["updates"] == 200 and r["observed"]["rows_changed"] == r["observed"]["innodb_rows_updated"] < 200
    assert r["observed"]["statements_executed"] == 600  # reads, and two executions per rmw
    stats, clients = case("mysql97-ycsb-e-clean")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok"
    c = r["checks"]["rows_read_next"]
    assert c["verdict"] == "unavailable" and "scans read a number of rows the clients do not report" in c["reason"]
    assert r["observed"]["inserts"] == 10 and r["observed"]["keyed_reads"] == 190 + 23


def test_a_query_phase_counts_one_select_per_execution_and_says_why_the_row_counters_are_not_checked():
    for name in ("mysql97-events-olap-a-clean", "mysql97-events-olap-lookup-clean"):
        stats, clients = case(name)
        r = reconcile.reconcile("mysql", stats, clients)
        assert r["verdict"] == "ok" and r["notes"] == [], (name, r["reasons"], r["notes"])
        obs, exp = r["observed"], r["expected"]
        assert r["lab_work"]["queries"] == {"ok": 10, "errors": 0}
        # a query is a text-protocol statement: no prepared execution; one Com_select each, plus the
        # session's 2 set-up SELECTs and the readings' 2 + 1, exactly
        assert exp["statements_executed"] == obs["statements_executed"] == 0
        assert exp["selects"] == obs["selects"] == 10 + 2 + 3
        assert exp["questions"] == obs["questions"]
        assert obs["inserts"] == obs["innodb_rows_inserted"] == obs["innodb_rows_updated"] == 0
        for c in ("rows_written", "rows_changed", "keyed_reads", "rows_read_next"):
            assert r["checks"][c]["verdict"] == "unavailable", (name, c, r["checks"][c])
            assert "the phase's own 10 queries read rows" in r["checks"][c]["reason"]
        assert r["deltas"]["handler_read_key"] > 0  # the queries did read: the counters are kept


def test_a_foreign_select_in_a_query_window_is_suspect():
    stats, clients = case("mysql97-events-olap-a-foreign")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "suspect"
    assert r["checks"]["selects"]["verdict"] == "suspect" and r["checks"]["selects"]["over"] == 1
    assert r["checks"]["connections"]["verdict"] == "suspect"


def test_the_labs_own_mysql_phase_reconciles_exactly_and_gives_bench1s_redo_and_binlog_per_document():
    stats, clients = case("mysql97-lab-bench1")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok" and r["notes"] == [] and r["unavailable"] is None
    # every check decided, every one exact but the reads of opening the table after init
    assert all(c["verdict"] == "ok" for c in r["checks"].values()), r["checks"]
    assert all(c["observed"] == c["expected"] for k, c in r["checks"].items()
               if k not in ("keyed_reads", "rows_read_next")), r["checks"]
    assert r["observed"]["inserts"] == r["observed"]["innodb_rows_inserted"] == 800
    assert r["observed"]["rows_written"] == 800 + 23
    assert r["observed"]["connections"] == 3  # 2 clients + the end reading: nothing else of the lab's
    docs = sum(c["docs_ok"] for c in clients)
    redo, binlog = wal.wal("mysql", stats)["bytes"], wal.further_logs("mysql", stats)["binlog"]["bytes"]
    # 10 x 1000-character documents (10,112 B of JSON text): about their size once in each log
    assert round(redo / docs) == 13557 and round(binlog / docs) == 10457
    assert binlog == files(stats, "end") - files(stats, "start")


def test_opening_a_relational_table_reads_the_dictionary_per_column_and_is_allowed_for_its_width():
    """MYSQL_FORM=relational: the first phase after init opens a table of 11 columns, whose data
    dictionary reads (one Handler_read_key and two Handler_read_next per column, measured at 2, 5, 11
    and 31 columns) exceed the two-column table's allowance: allowed for the table's width, which the
    clients' form and FIELDS give; without them (a json table's allowance) the same readings are suspect."""
    stats, clients = case("mysql97-relational-load")
    assert {(c["form"], c["fields"]) for c in clients} == {("relational", 10)}
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok", r["checks"]
    keyed, nxt = r["checks"]["keyed_reads"], r["checks"]["rows_read_next"]
    assert (keyed["expected"], keyed["observed"], keyed["tolerance"]) == (29, 50, 21)
    assert (nxt["expected"], nxt["observed"], nxt["tolerance"]) == (0, 27, 27)
    assert "12 for the two-column table, 1 per further column: 21 for 11 columns" in keyed["about"]
    assert r["lab_work"]["form"] == {"form": "relational", "fields": 10}
    # the same readings judged as a two-column (json) table's: the dictionary reads look foreign
    as_json = [{k: v for k, v in c.items() if k != "form"} for c in clients]
    r = reconcile.reconcile("mysql", stats, as_json)
    assert r["verdict"] == "suspect"
    assert (r["checks"]["keyed_reads"]["tolerance"], r["checks"]["rows_read_next"]["tolerance"]) == (12, 9)


def test_earlier_runs_on_mariadb_still_reconcile_as_before():
    for name in ("mariadb-insert-clean", "mariadb-ycsb-a-clean", "mariadb-ycsb-f-clean", "mariadb-ycsb-e-clean",
                 "mariadb-lab-bench1"):
        stats, clients = case(name)
        r = reconcile.reconcile("mysql", stats, clients)
        assert r["verdict"] == "ok" and r["notes"] == [], name
        for k in ("innodb_rows_inserted", "innodb_rows_updated"):
            assert r["checks"][k]["verdict"] == "unavailable" and "MariaDB" in r["checks"][k]["reason"]
    stats, clients = case("mariadb-insert-clean")
    r = reconcile.reconcile("mysql", stats, clients)
    # MariaDB's SHOW GLOBAL STATUS writes no row; its table opening reads 4 statistics rows by key
    assert r["observed"]["rows_written"] == r["expected"]["rows_written"] == 400
    assert r["observed"]["keyed_reads"] == 4 and r["tolerance"]["keyed_reads"] == 4
    assert reconcile.reconcile("mysql", *case("mariadb-insert-foreign"))["verdict"] == "suspect"


def test_on_mysql_84_the_checks_resting_on_a_measurement_are_null_with_the_reason():
    stats, clients = case("mysql97-insert-clean")
    r = reconcile.reconcile("mysql", as_mysql_84(stats), clients)
    for k in ("questions", "rows_written", "keyed_reads", "rows_read_next"):
        assert r["checks"][k]["verdict"] == "unavailable"
        assert r["checks"][k]["reason"].startswith("not measured on MySQL 8.4.10")
    assert r["checks"]["inserts"]["verdict"] == "ok"  # the manual decides it
    assert r["checks"]["innodb_rows_inserted"]["observed"] == 400


# --- fairness ------------------------------------------------------------------------------------

with open(os.path.join(CASES, "mysql97-lab-bench1", "settings.json")) as _f:
    LAB_MYSQL = json.load(_f)  # the lab's D.settings.json: compose's mysqld command line, the stand-in's label
# the same with the buffer pool of the ci run's postgres (shared_buffers=256MB)
STANDIN_MYSQL = {**LAB_MYSQL, "command": [a.replace("=4G", "=256M") for a in LAB_MYSQL["command"]]}
with open(os.path.join(CASES, "mariadb-lab-bench1", "settings.json")) as _f:
    MARIADB_MYSQL = json.load(_f)  # an earlier run's, on MariaDB


def _settings(mysql=STANDIN_MYSQL):
    d = os.path.join(FIXTURES, "ci-standin-run")
    s = {db: json.load(open(os.path.join(d, f"{db}.settings.json"))) for db in ("mongodb", "postgres")}
    return {**s, "mysql": mysql}


def test_fairness_reads_mysqls_column_from_its_command_line():
    rows = {r["what"]: r for r in fairness.statements(_settings(), {"DURABILITY": "strict"})}
    assert rows["checkpoint interval"]["mysql"].startswith("none: InnoDB's page cleaner")
    assert rows["replication log"]["mysql"] == ("binary log on (--log-bin=binlog), ROW format "
                                               "(stand-in: MySQL 9.7.4 (Debian package))")
    # the ci run's postgres ran shared_buffers=256MB: aligned with the 256M buffer pool
    assert rows["cache"]["mysql"] == "innodb_buffer_pool_size=256M" and rows["cache"]["postgres"] == "shared_buffers=256MB"
    assert rows["durability"]["aligned"] is True
    assert rows["torn pages"]["mysql"] == "innodb_doublewrite=ON" and rows["torn pages"]["aligned"]
    # the real MySQL has partial JSON logging; binlog_row_image FULL keeps the before-image whole
    assert rows["partial update logging"]["mysql"] == (
        "binlog_row_value_options=PARTIAL_JSON, binlog_row_image=FULL: the before-image holds the whole document")
    assert "before-image holds the whole document" in rows["partial update logging"]["note"]
    assert rows["log before forced checkpoints"]["mysql"] == "innodb_redo_log_capacity=2G"
    assert rows["log before forced checkpoints"]["aligned"] is True  # postgres's max_wal_size=2GB
    lab = {r["what"]: r for r in fairness.statements(_settings(LAB_MYSQL), {})}
    assert lab["cache"]["mysql"] == "innodb_buffer_pool_size=4G" and lab["cache"]["aligned"] is False
    relaxed = {r["what"]: r for r in fairness.statements(_settings(), {"DURABILITY": "relaxed"})}
    assert relaxed["durability"]["aligned"] is False, "1/1 on the server while the bench asked for relaxed"
    # an earlier run's MariaDB: no partial logging, redo capacity as its log file size
    old = {r["what"]: r for r in fairness.statements(_settings(MARIADB_MYSQL), {})}
    assert old["partial update logging"]["mysql"].startswith("absent on the stand-in: MariaDB has no binlog_row_value_options")
    assert old["log before forced checkpoints"]["mysql"].endswith("(stand-in: as innodb_log_file_size)")
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
    shutil.copy(os.path.join(CASES, "mysql97-insert-clean", "server-stats.json"), dst / "mysql.server-stats.json")
    json.dump(STANDIN_MYSQL, open(dst / "mysql.settings.json", "w"))
    return str(dst)


def test_results_and_report_carry_redo_and_binlog_per_operation(bench, tmp_path):
    res = results.write(bench)
    schema.validate(res)  # results.write validates too: the new fields are in the schema
    by = {r["database"]: r for r in res["runs"]}
    m = by["mysql"]
    assert m["wal"]["bytes"] == 5502897 and m["wal"]["source"] == "Innodb_redo_log_current_lsn"
    assert m["binlog"]["bytes"] == 4182798 and m["binlog"]["source"] == "SHOW BINARY LOGS"
    ops = m["per_op"]["ops"]
    assert m["per_op"]["wal_bytes"] == pytest.approx(5502897 / ops)
    assert m["per_op"]["binlog_bytes"] == pytest.approx(4182798 / ops)
    assert "binlog" not in by["postgres"] and "binlog_bytes" not in by["postgres"]["per_op"]
    report.run([bench], str(tmp_path))
    text = open(os.path.join(bench, "report.md")).read()
    assert "| phase | per | binary log (phase) | binary log B |" in text
    assert f"| mysql | insert | 4.0 MiB (SHOW BINARY LOGS) | {4182798 / ops:,.0f} |" in text
    assert "| cache | " in text and "innodb_buffer_pool_size=256M" in text
