"""The transaction benches through ./runme.sh on the stand-ins (SecantusDB as a replica set), two
benches in one run so they share the stack's start-up, and the fault in one of their phases (CI's
budget):

- booking: one flight on one day, transactions held open 20 ms from 2 clients x 3 sessions, so the
  audit row is hot and conflicts are retried (PostgreSQL at SERIALIZABLE). The data is loaded by
  init and settled outside the windows. On MongoDB the phase is ok, count checks nothing was lost
  against the clients' committed transactions, and report.md opens with the answer per isolation
  level. On PostgreSQL the container is stopped (`docker stop`) mid-phase: the phase fails with the
  reason, the lab starts the database again after the window and count's nothing-lost check finds
  every booking the clients recorded as committed.
- MySQL (the stand-in, Debian's MySQL 9.7) runs both benches as the third database, between the
  other two (PostgreSQL's stop comes last): its contended booking phase is ok, retried its lock
  conflicts by reason, lost nothing by id and reconciles from InnoDB's and performance_schema's
  counters; its oltp phase likewise.
- oltp: sysbench-style 50/50 mix on a 300-row table, every database: every operation type ran as a
  committed transaction, the table still holds its 300 rows, PostgreSQL's and MySQL's own counters
  reconcile.

Kept short (QUIET_S=2, phases of seconds, no perf record)."""
import json
import re
import subprocess
import sys
import threading
import time

import pytest

from conftest import BIND_ADDRESS, LAB_ROOT, PORTS, PROJECT, lab_env, phases_said, prom_query, prom_query_range, remove_project, runme_watched

# 2 clients x 100 bookings at 20/s each: 5 s of bookings per phase, more than the hot audit row takes
# (MongoDB: a booking holds it about 32 ms, so 40/s collide), which is what makes the conflicts
# certain. No more bookings per client than a client's queue bound (100): one that falls behind the
# rate waits instead of dropping bookings (with 150, SecantusDB under CI's load committed about 6/s,
# client-2 dropped 4 and the phase failed). PostgreSQL is stopped once every client of its phase has
# committed a booking (Prometheus has their commits; not a fixed time after "phase starts": on a
# loaded machine a client started late then met a stopping server at connect, exited 2 without a
# result file, and the test read a file that could not be there), then STOP_AFTER_S more (the first
# client started still has bookings to do: every client must give up; in CI the stop came 3 s after
# the clients started, 65 bookings in); its clients give up RECONNECT_TIMEOUT_S later.
OPS, CLIENTS, STOP_AFTER_S, RECONNECT_TIMEOUT_S = 100, 2, 0.5, 4
# Longest the stop waits for every client's first commit (then it stops anyway: the test says why).
FIRST_COMMITS_S = 90
BOOKING = f"""\
DESCRIPTION="end-to-end booking transactions, PostgreSQL stopped mid-phase"
WORKLOAD=booking
KEY=uuidv7
LAYOUT=clustered
TOPOLOGY=replset
ISOLATION=serializable
FLIGHTS=1
DAY_RANGE=1
BOOKING_SLEEP_MS=20
MAX_ATTEMPTS=100
CLIENTS={CLIENTS}
SESSIONS=3
RATE=20
OPS={OPS}
SEED=7
DATABASES="mongodb mysql postgres"
QUIET_S=2
PERF_RECORD_S=0
"""
OLTP_ROWS, OLTP_OPS = 300, 60
OLTP = f"""\
DESCRIPTION="end-to-end oltp transactions"
WORKLOAD=oltp
KEY=uuidv7
LAYOUT=clustered
TOPOLOGY=replset
OLTP_MIX=50/50
TABLE_ROWS={OLTP_ROWS}
ISOLATION=read-committed
CLIENTS={CLIENTS}
SESSIONS=2
RATE=30
OPS={OLTP_OPS}
SEED=7
DATABASES="mongodb mysql postgres"
QUIET_S=2
PERF_RECORD_S=0
"""


@pytest.fixture(scope="module")
def txn_runs(workdir):
    remove_project()
    benches = {}
    for name, text in (("booking", BOOKING), ("oltp", OLTP)):
        benches[name] = workdir / f"bench-e2e-txn-{name}"
        benches[name].mkdir()
        (benches[name] / "bench.env").write_text(text)
    started = time.monotonic()
    env = dict(lab_env(), RECONNECT_TIMEOUT_S=str(RECONNECT_TIMEOUT_S))
    stopper, dashboard, first_commits = [], {}, {}

    def act(line):
        if "bench-e2e-txn-booking] postgres: phase starts" in line and not stopper:
            stopper.append(threading.Thread(target=stop_postgres_after_first_commits, args=(first_commits,)))
            stopper[0].start()
        # The dashboard is read while the stack is up: the run fails (PostgreSQL stopped) and a failed
        # run removes the lab's containers, Prometheus included, as it ends.
        if " bench-e2e-txn-oltp] " in line and "empty" not in dashboard:  # the driver says: [HH:MM:SS bench]
            try:
                dashboard.update(txn_row(benches["booking"]))
            except Exception as e:  # noqa: BLE001  (the run goes on; the dashboard test shows why)
                dashboard.update(queries=[], empty=[f"could not be read: {e!r}"])
    try:
        proc = runme_watched(workdir, *map(str, benches.values()), log="runme-txn.log", on_line=act,
                             env=env, timeout=900)
    finally:
        for t in stopper:
            t.join()
    out = proc.stdout
    lines = out.splitlines(keepends=True)
    print(f"booking and oltp benches through runme.sh: {time.monotonic() - started:.0f} s")
    # where the time went (CI's budget): the benches' and phases' starts and ends
    print("".join(x for x in lines if re.search(r"\] (starting: |fresh database|\S+: (phase starts|phase \w+|quiet)"
                                                 r"|\S+: the database stopped)", x)))
    print(f"PostgreSQL stopped after every client's first commit: {first_commits}")
    yield benches, proc.returncode, out, first_commits, dashboard
    remove_project()


def stop_postgres_after_first_commits(said):
    """Stops the booking bench's PostgreSQL once each of its CLIENTS clients has committed a booking
    (their jsonbench_client_txn_commits_total in Prometheus), STOP_AFTER_S later; said: what it saw."""
    url = f"http://{BIND_ADDRESS}:{PORTS['PROMETHEUS_PORT']}"
    expr = ('count(jsonbench_client_txn_commits_total{bench="bench-e2e-txn-booking", database="postgres"} > 0)')
    started = time.monotonic()
    while time.monotonic() - started < FIRST_COMMITS_S:
        try:
            got = prom_query(url, expr, time.time())
        except Exception:  # noqa: BLE001  (Prometheus busy: ask again)
            got = []
        said["clients_with_a_commit"] = int(float(got[0]["value"][1])) if got else 0
        if said["clients_with_a_commit"] >= CLIENTS:
            break
        time.sleep(0.5)
    said["waited_s"] = round(time.monotonic() - started, 1)
    time.sleep(STOP_AFTER_S)
    subprocess.run(["docker", "stop", f"{PROJECT}-postgres-1"], capture_output=True, timeout=60)


def results(bench):
    return json.loads((bench / "results.json").read_text())


def run_of(bench, database):
    return next(r for r in results(bench)["runs"] if r["database"] == database)


def test_the_run_fails_only_for_the_stopped_database(txn_runs):
    benches, code, out, stopped, _ = txn_runs
    assert stopped, out[-4000:]
    assert code == 1, out[-4000:]  # the stopped phase failed
    booking = results(benches["booking"])
    assert [r["phase"] for r in booking["runs"]] == ["mongodb", "mysql", "postgres"]
    assert [r["status"] for r in booking["runs"]] == ["ok", "ok", "failed"], \
        f"{phases_said([benches['booking']])}\n{out[-3000:]}"
    assert results(benches["oltp"])["complete"], out[-4000:]


def test_booking_on_mongodb_retried_its_conflicts_and_lost_nothing(txn_runs):
    bench = txn_runs[0]["booking"]
    run = run_of(bench, "mongodb")
    t, check = run["transactions"], run["booking_check"]
    assert run["status"] == "ok", (run["phase"], run["reason"], run["reconciliation"]["reasons"])
    committed = sum(json.loads((bench / "clients" / f"mongodb-client-{i}.json").read_text())["docs_ok"]
                    for i in range(1, CLIENTS + 1))
    assert committed == CLIENTS * OPS == t["committed"]
    assert check["ok"] and check["seats"] == check["payments"] == committed == check["committed"]
    assert check["audit_seats"] == committed and check["audit_mismatches"] == []
    # every booking looked for by id (D.txn-outcomes.json passed to count): all there, none foreign
    assert check["ids_checked"] == committed and check["lost_count"] == check["unexpected_count"] == 0
    assert (bench / "mongodb.txn-outcomes.json").exists()
    # the stand-in's counters, table by table: exactly the writes the clients sent, nothing elsewhere
    rec = run["reconciliation"]
    sent = sum(w["ok"] + w["failed"] for w in t["writes"].values())
    for name in ("seat_writes", "payment_writes", "audit_writes", "writes_elsewhere", "inserts"):
        assert rec["checks"][name]["verdict"] == "ok", (name, rec["checks"][name])
    allowance = sum(rec["checks"][n]["tolerance"] for n in ("seat_writes", "payment_writes", "audit_writes"))
    print(f"mongodb (SecantusDB) booking phase: allowance {allowance} writes against {sent} write commands sent; "
          f"{check['ids_checked']} booking ids checked")
    # the audit row was contended: conflicts happened, were retried and every attempt counted
    assert t["retries"] > 0, t
    assert t["attempts"] == t["committed"] + t["aborted_attempts"] and t["gave_up"] == 0
    assert t["sessions"] == 3 and run["reconciliation"]["lab_work"]["client_sessions"] == CLIENTS * 3
    assert t["cpu_us_per_committed"] > 0 and t["last_attempt_count"] == committed
    # net of idle: the phase's own cpu.usage reading over the commits, or null saying why
    usage = run["cpu"]["usage"]
    if usage["net_s"] is not None:
        assert t["cpu_us_per_committed_net"] == pytest.approx(usage["net_s"] * 1e6 / committed)
    else:
        assert t["cpu_us_per_committed_net"] is None and t["cpu_net_reason"] == usage["reason"], usage
    # the stand-in has no serverStatus.transactions: its transaction checks are null with the reason
    assert run["reconciliation"]["checks"]["transactions_committed"]["verdict"] == "unavailable"
    # settled after init, outside the windows
    for db in ("mongodb", "postgres"):
        assert "settle: " in (bench / f"{db}.out").read_text()
    assert "vacuum (analyze) aircraft, schedule, seat, payment, audit; CHECKPOINT" in (bench / "postgres.out").read_text()


def test_booking_on_mysql_retried_its_lock_conflicts_lost_nothing_and_reconciles(txn_runs):
    bench = txn_runs[0]["booking"]
    run = run_of(bench, "mysql")
    t, check, rec = run["transactions"], run["booking_check"], run["reconciliation"]
    assert run["status"] == "ok", (run["phase"], run["reason"], rec["reasons"])
    assert t["committed"] == CLIENTS * OPS and t["gave_up"] == 0
    assert t["attempts"] == t["committed"] + t["aborted_attempts"]
    # InnoDB's conflicts, by reason: only deadlocks (1213) and lock wait timeouts (1205) are retried
    assert set(t["aborts"]) <= {"deadlock", "lock_wait_timeout"}, t["aborts"]
    assert check["ok"] and check["ids_checked"] == t["committed"] and check["lost_count"] == check["unexpected_count"] == 0
    assert check["seats"] == check["payments"] == check["audit_seats"] == t["committed"]
    assert rec["verdict"] == "ok", rec["reasons"]
    for name in ("transactions_begun", "transactions_committed", "transactions_rolled_back", "statements_executed",
                 "seat_rows", "payment_rows", "audit_upserts", "rows_written_elsewhere", "connections"):
        assert rec["checks"][name]["verdict"] == "ok", (name, rec["checks"][name])
    assert rec["checks"]["transactions_committed"]["observed"] == t["committed"]
    assert "settle: FLUSH TABLES aircraft, schedule, seat, payment, audit FOR EXPORT" in (bench / "mysql.out").read_text()
    assert run["wal"]["bytes"] > 0 and run["binlog"]["bytes"] > 0
    print(f"mysql booking phase: aborts {t['aborts']}, {check['ids_checked']} booking ids checked, redo "
          f"{run['wal']['bytes'] / t['committed']:.0f} B and binary log {run['binlog']['bytes'] / t['committed']:.0f} B "
          f"per committed booking, CPU {t['cpu_us_per_committed']:.0f} us per committed booking")


def test_stopped_postgres_fails_the_phase_and_loses_no_committed_booking(txn_runs):
    bench = txn_runs[0]["booking"]
    run = run_of(bench, "postgres")
    assert run["status"] == "failed"
    assert "the database container stopped during the phase" in run["reason"], run["reason"]
    assert "restarted after the window for the nothing-lost check" in run["reason"], run["reason"]
    # the stop came after every client's first commit (else a client could meet it at connect)
    assert txn_runs[3].get("clients_with_a_commit") == CLIENTS, txn_runs[3]
    clients = [json.loads((bench / "clients" / f"postgres-client-{i}.json").read_text())
               for i in range(1, CLIENTS + 1)]
    committed = sum(c["transactions"]["committed"] for c in clients)
    in_doubt = sum(c["transactions"]["in_doubt"] for c in clients)
    # some bookings committed before the stop, not all of them; the clients gave up reconnecting
    assert 0 < committed < CLIENTS * OPS, committed
    assert all(c["gave_up"] for c in clients), [c["gave_up"] for c in clients]
    # after the restart every booking the clients recorded as committed is in the database
    check = run["booking_check"]
    assert check is not None, (bench / "postgres.out").read_text()[-3000:]
    assert check["ok"], check["problems"]
    assert check["committed"] == committed and check["in_doubt"] == in_doubt
    # by id: every committed booking there, every seat a committed or in-doubt booking's
    assert check["ids_checked"] == committed + in_doubt and check["lost_count"] == check["unexpected_count"] == 0
    assert check["seats"] == committed + check["in_doubt_landed"]
    assert check["seats"] == check["payments"] == check["audit_seats"] and check["audit_mismatches"] == []
    print(f"postgres stopped mid-phase: {committed} committed, {in_doubt} in doubt, {check['seats']} seats")
    out = (bench / "postgres.out").read_text()
    assert "restart: postgres container started again after the window" in out
    # the restarted server's counters do not bracket the window: no end reading, no reconciliation
    assert json.loads((bench / "postgres.server-stats.json").read_text())["end"] is None
    assert run["reconciliation"]["verdict"] == "unavailable"


def test_the_booking_report_opens_with_the_answer_per_isolation_level(txn_runs):
    report = (txn_runs[0]["booking"] / "report.md").read_text()
    answer = report[report.index("## The answer"):]
    lines = answer.splitlines()
    assert lines[2] == "### Transactions (booking) per isolation level"
    rows = [x for x in lines[:14] if x.startswith("| mongodb") or x.startswith("| postgres")]
    assert rows[0].startswith("| mongodb (stand-in) (snapshot read concern, majority write concern) | ok |") or \
        rows[0].startswith("| mongodb (snapshot read concern, majority write concern) | ok |")
    assert f"committed {CLIENTS * OPS} |" in rows[0], rows
    assert "(SERIALIZABLE) | failed |" in rows[1] and "| yes: seats " in rows[1], rows
    assert "| transaction isolation |" in report and "ISOLATION=serializable" in report


OLTP_OPS_TYPES = {"point-select", "simple-range", "sum-range", "order-range", "distinct-range", "index-update",
                  "non-index-update", "delete-insert"}


def test_oltp_commits_every_operation_and_keeps_the_table_whole(txn_runs):
    bench = txn_runs[0]["oltp"]
    res = results(bench)
    assert [r["phase"] for r in res["runs"]] == ["mongodb", "mysql", "postgres"]
    for run in res["runs"]:
        assert run["status"] == "ok", (run["phase"], run["reason"], run["reconciliation"]["reasons"])
        t = run["transactions"]
        clients = [json.loads((bench / "clients" / f"{run['phase']}-client-{i}.json").read_text())
                   for i in range(1, CLIENTS + 1)]
        # one transaction per operation: every one committed, on the sessions asked for
        assert t["committed"] == CLIENTS * OLTP_OPS == sum(c["transactions"]["committed"] for c in clients)
        assert t["attempts"] == t["committed"] + t["aborted_attempts"] and t["gave_up"] == 0
        assert t["sessions"] == 2 and t["cpu_us_per_committed"] > 0
        # the 50/50 mix ran every shape, and the merged counts are the clients' sums
        ops = run["operations"]
        assert set(ops) == OLTP_OPS_TYPES, set(ops)
        for op in OLTP_OPS_TYPES:
            assert ops[op]["ok"] == sum(c["operations"][op]["ok"] for c in clients) > 0, op
            assert ops[op]["errors"] == 0, (op, ops[op])
        assert sum(o["ok"] for o in ops.values()) == CLIENTS * OLTP_OPS
        # the consistency check: a delete+insert keeps its id, so the table still holds TABLE_ROWS
        assert run["docs_in_db"] == run["docs_expected_in_db"] == OLTP_ROWS, (run["docs_in_db"], run["notes"])
    pg = next(r for r in res["runs"] if r["database"] == "postgres")
    for name in ("transactions", "transactions_rolled_back", "rows_written", "rows_changed"):
        assert pg["reconciliation"]["checks"][name]["verdict"] == "ok", (name, pg["reconciliation"]["checks"][name])
    my = next(r for r in res["runs"] if r["database"] == "mysql")
    for name in ("transactions_begun", "transactions_committed", "transactions_rolled_back", "statements_executed",
                 "rows_inserted", "rows_deleted", "rows_updated", "connections"):
        assert my["reconciliation"]["checks"][name]["verdict"] == "ok", (name, my["reconciliation"]["checks"][name])
    report = (bench / "report.md").read_text()
    assert "### Transactions (oltp) per isolation level" in report


def test_no_database_or_client_container_left_after_the_run(txn_runs):
    left = subprocess.run(["docker", "ps", "-a", "--format", "{{.Names}}", "--filter",
                           f"label=com.docker.compose.project={PROJECT}"],
                          capture_output=True, text=True, check=True).stdout.split()
    assert [n for n in left if "client" in n or "mongodb" in n or "postgres" in n or "mysql" in n] == [], left


def txn_row(bench):
    """{queries, empty}: the Clients dashboard's Transactions row queries (attempts, commits, aborts by
    reason: jsonbench_client_txn_*) over MongoDB's contended booking window, and the panels without data."""
    window = json.loads((bench / "mongodb.phase.json").read_text())["window"]
    listing = subprocess.run(
        [sys.executable, str(LAB_ROOT / "grafana" / "dashboard_queries.py"), "--var", "service=mongodb",
         "--var", f"project={PROJECT}", "--var", "database=mongodb", "--var", f"bench={bench.name}",
         "--var", f"__range={int(window['end'] - window['start']) + 1}s"],
        check=True, capture_output=True, text=True).stdout
    txn = [q for q in (json.loads(line) for line in listing.splitlines() if line.strip())
           if "jsonbench_client_txn_" in q["expr"]]
    url = f"http://{BIND_ADDRESS}:{PORTS['PROMETHEUS_PORT']}"
    return {"queries": txn, "empty": [q["panel"] for q in txn if not prom_query_range(url, q["expr"], window["start"],
                                                                                       window["end"])]}


def test_the_clients_dashboard_transactions_row_has_data_over_the_booking(txn_runs):
    """Every query of the Transactions row returns data over MongoDB's contended booking window, which
    retried its conflicts (test above): the series the clients export reach Prometheus under the
    bench's labels. Read while the OLTP bench ran (the fixture), the stack still up."""
    dashboard = txn_runs[4]
    assert "empty" in dashboard, "the OLTP bench never started: the dashboard was not read"
    assert {m for q in dashboard["queries"] for m in re.findall(r"jsonbench_client_txn_\w+", q["expr"])} == {
        "jsonbench_client_txn_attempts_total", "jsonbench_client_txn_commits_total", "jsonbench_client_txn_aborts_total"}
    assert not dashboard["empty"], dashboard["empty"]
