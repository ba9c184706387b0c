"""MySQL's transaction phases reconciled (databases/mysql/analysis.py `_reconcile_txn`), on readings and
client results taken with `node client server-stats` / `run` / `count` exactly as the lab runs them,
on MySQL 9.7.4-2 (the stand-in image jsonbench-standin/mysql:9.7, strict durability, binary log on):
- mysql97-booking-clean: booking at READ COMMITTED, FLIGHTS=2, DAY_RANGE=1, BOOKING_SLEEP_MS=20,
  4 clients x 50 bookings (the contended audit rows), count's nothing-lost check (booking_check.json);
- mysql97-booking-foreign: the same, 4 x 25 bookings, with a foreign transaction inserting 400 seats
  nobody booked during the window (the issue-25 case: a foreign bulk write in a booking phase);
- mysql97-oltp-clean: OLTP 50/50 on 2,000 rows, 4 clients x 100 operations on 2 sessions each.
Every check is exact on the clean phases; the foreign seats show in the seat table's and InnoDB's
server-wide row counts, not in the audit or transaction checks."""
import copy
import json
import os

from analysis.figures import reconcile
from analysis.tests.test_reconcile import CASES, case


def booking_check(name):
    with open(os.path.join(CASES, name, "booking_check.json")) as f:
        return json.load(f)


def run(name, stats=None, clients=None, check="read"):
    s, c = case(name)
    bc = booking_check(name) if check == "read" else check
    return reconcile.reconcile("mysql", stats or s, clients or c, booking_check=bc)


def test_a_contended_booking_phase_reconciles_exactly_statement_by_statement_and_table_by_table():
    r = run("mysql97-booking-clean")
    assert r["verdict"] == "ok" and r["reasons"] == [] and r["notes"] == [], r
    obs, exp, tol = r["observed"], r["expected"], r["tolerance"]
    # 200 bookings, each one attempt at READ COMMITTED: START TRANSACTION and COMMIT each, no ROLLBACK
    assert obs["transactions_begun"] == obs["transactions_committed"] == 200 and obs["transactions_rolled_back"] == 0
    # the lookup and the three writes of each attempt
    assert obs["statements_executed"] == exp["statements_executed"] == 800
    assert obs["seat_rows"] == obs["payment_rows"] == obs["audit_upserts"] == 200
    # two flights on one day: two audit rows created, the other 198 upserts updated them
    assert obs["audit_rows_created"] == exp["audit_rows_created"] == 2
    # InnoDB's server-wide rows: 200 seats + 200 payments + 2 audit rows inserted, 198 updated
    assert obs["innodb_rows_written"] == 600 and obs["rows_written_elsewhere"] == 0
    assert obs["connections"] == 5  # 4 clients x 1 session and the end reading
    assert all(t == 0 for t in tol.values()), tol
    assert r["deltas"]["redo_lsn"] > 0 and r["deltas"]["binlog_bytes"] > 0


def test_a_foreign_bulk_insert_into_seat_during_a_booking_phase_is_suspect():
    r = run("mysql97-booking-foreign")
    assert r["verdict"] == "suspect"
    c = r["checks"]
    assert c["seat_rows"]["verdict"] == "suspect" and c["seat_rows"]["observed"] - c["seat_rows"]["expected"] == 400
    assert c["innodb_rows_written"]["verdict"] == "suspect" and c["innodb_rows_written"]["observed"] - c["innodb_rows_written"]["expected"] == 400
    # what the clients did is still counted exactly
    for name in ("transactions_begun", "transactions_committed", "statements_executed", "payment_rows", "audit_upserts",
                 "audit_rows_created", "rows_written_elsewhere"):
        assert c[name]["verdict"] == "ok", (name, c[name])
    assert any(x.startswith("seat_rows 500 > expected 100") for x in r["reasons"]), r["reasons"]


def test_a_write_to_a_table_bookings_only_read_is_suspect():
    stats, clients = case("mysql97-booking-clean")
    stats = copy.deepcopy(stats)
    stats["end"]["counters"]["table_schedule_count_update"] += 3
    stats["end"]["counters"]["innodb_rows_updated"] += 3
    r = run("mysql97-booking-clean", stats=stats)
    assert r["verdict"] == "suspect"
    assert r["checks"]["rows_written_elsewhere"]["observed"] == 3 and r["checks"]["rows_written_elsewhere"]["verdict"] == "suspect"


def test_the_audit_rows_created_need_counts_derivation_and_say_so_without_it():
    r = run("mysql97-booking-clean", check=None)
    c = r["checks"]["audit_rows_created"]
    assert c["verdict"] == "unavailable" and "audit_rows_booked" in c["reason"]
    assert r["verdict"] == "ok"


def test_retried_attempts_are_rolled_back_and_executed_statements_counted_with_them():
    """Two of the clients' bookings deadlocked once after their seat insert (synthetic: the counters
    moved as a deadlocked attempt moves them: START, the lookup, the seat insert, ROLLBACK)."""
    stats, clients = case("mysql97-booking-clean")
    stats, clients = copy.deepcopy(stats), copy.deepcopy(clients)
    t = clients[0]["transactions"]
    t["attempts"] += 2
    t["retries"] += 2
    t["aborts"] = {"deadlock": 2}
    t["writes"]["seat"]["ok"] += 2
    end = stats["end"]["counters"]
    for k, v in (("com_begin", 2), ("com_rollback", 2), ("com_stmt_execute", 4), ("table_seat_count_insert", 2),
                 ("innodb_rows_inserted", 2)):
        end[k] += v
    r = run("mysql97-booking-clean", stats=stats, clients=clients)
    assert r["verdict"] == "ok", r["reasons"]
    assert r["observed"]["transactions_rolled_back"] == r["expected"]["transactions_rolled_back"] == 2
    assert r["expected"]["statements_executed"] == 804
    # a ROLLBACK nobody's attempt accounts for is not hidden by the retries
    end["com_rollback"] += 1
    assert run("mysql97-booking-clean", stats=stats, clients=clients)["checks"]["transactions_rolled_back"]["verdict"] == "suspect"


def test_an_oltp_phase_reconciles_exactly():
    stats, clients = case("mysql97-oltp-clean")
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "ok" and r["reasons"] == [] and r["notes"] == [], r
    obs = r["observed"]
    assert obs["transactions_begun"] == obs["transactions_committed"] == 400
    di = sum(c["operations"]["delete-insert"]["ok"] for c in clients)
    assert obs["statements_executed"] == 400 + di
    assert obs["rows_inserted"] == obs["rows_deleted"] == di
    assert obs["innodb_rows_written"] == r["expected"]["innodb_rows_written"]
    assert obs["connections"] == 9  # 4 clients x 2 sessions and the end reading
    # a foreign update of sbtest shows
    stats = copy.deepcopy(stats)
    stats["end"]["counters"]["table_sbtest_count_update"] += 50
    stats["end"]["counters"]["innodb_rows_updated"] += 50
    r = reconcile.reconcile("mysql", stats, clients)
    assert r["verdict"] == "suspect"
    assert r["checks"]["rows_updated"]["verdict"] == r["checks"]["innodb_rows_written"]["verdict"] == "suspect"


def test_readings_without_per_table_counters_leave_those_checks_unavailable_with_the_reason():
    stats, clients = case("mysql97-booking-clean")
    stats = copy.deepcopy(stats)
    for edge in ("start", "end"):
        for k in [k for k in stats[edge]["counters"] if k.startswith("table_seat_")]:
            stats[edge]["counters"][k] = None
            stats[edge]["unavailable"][k] = "performance_schema is off on this server (performance_schema=0)"
    r = run("mysql97-booking-clean", stats=stats)
    for name in ("seat_rows", "payment_rows", "audit_upserts", "rows_written_elsewhere"):
        assert r["checks"][name]["verdict"] == "unavailable"
        assert r["checks"][name]["reason"] == "performance_schema is off on this server (performance_schema=0)"
    # the server-wide checks still judge
    assert r["checks"]["innodb_rows_written"]["verdict"] == "ok" and r["checks"]["transactions_begun"]["verdict"] == "ok"


def test_on_mysql_84_the_transaction_checks_resting_on_a_measurement_are_null_with_the_reason():
    from analysis.tests.test_mysql_analysis import as_mysql_84
    stats, clients = case("mysql97-booking-clean")
    r = reconcile.reconcile("mysql", as_mysql_84(stats), clients, booking_check=booking_check("mysql97-booking-clean"))
    for k in ("audit_upserts", "audit_rows_created", "innodb_rows_written"):
        assert r["checks"][k]["verdict"] == "unavailable", k
        assert r["checks"][k]["reason"].startswith("not measured on MySQL 8.4.10"), r["checks"][k]["reason"]
    # what the manual decides is still judged
    for k in ("transactions_begun", "transactions_committed", "statements_executed", "seat_rows", "payment_rows"):
        assert r["checks"][k]["verdict"] == "ok", k
