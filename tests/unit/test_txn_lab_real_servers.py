"""The lab's transaction pieces on a real PostgreSQL and SecantusDB (the client's test servers,
client/test/helpers/postgres-server.js, secantus-server.js) with real booking and oltp clients: lab/phase.sh count_phase
(`analysis txn-totals` sums the clients' committed and in-doubt transactions, `node client count`
checks nothing was lost against them, a failed check keeps D.count.json with its rows and fails the
phase; only the container wrapper is replaced: client_oneshot runs `node client` on the host), and
analysis/reconcile.py's transaction checks against the server's own counters."""
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from analysis import phase_status

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
START_SERVER = """
const helper = require(process.argv[1]);
helper.START.then((pg) => {
  console.log(pg.uri);
  process.stdin.resume();
  process.stdin.on('end', () => pg.cleanup().then(() => process.exit(0)));
}, (err) => { console.error(err); process.exit(1); });
"""
BOOKING = {"WORKLOAD": "booking", "KEY": "uuidv7", "LAYOUT": "heap", "SEED": "7", "FLIGHTS": "20"}


def _test_server(helper, start, scheme):
    """Starts one of the client's test servers (a real process, no Docker) for the module; its URI."""
    if not shutil.which("node") or not (ROOT / "client" / "node_modules").exists():
        pytest.skip("needs node and client/node_modules")
    proc = subprocess.Popen(["node", "-e", START_SERVER.replace("START", start),
                             str(ROOT / "client" / "test" / "helpers" / helper)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        uri = proc.stdout.readline().strip()
        assert uri.startswith(scheme), f"the test server ({helper}) did not start"
        yield uri
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


@pytest.fixture(scope="module")
def pg_uri():
    yield from _test_server("postgres-server.js", "startPostgres()", "postgres://")


@pytest.fixture(scope="module")
def secantus_uri():
    # SecantusDB as a one-member replica set: the MongoDB stand-in runs multi-document transactions
    yield from _test_server("secantus-server.js", "startSecantus({ replset: true })", "mongodb://")


def client(args, env, timeout=120):
    return subprocess.run(["node", str(ROOT / "client"), *args], capture_output=True, text=True, timeout=timeout,
                          env={"PATH": os.environ["PATH"], **env})


def run_clients(env, result_of, clients=2):
    """`clients` booking/oltp clients at once (CLIENT_ID 1..clients), each writing result_of(i);
    returns their result files' contents."""
    runs = [subprocess.Popen(["node", str(ROOT / "client"), "run"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, env={"PATH": os.environ["PATH"], **env, "CLIENTS": str(clients),
                                             "CLIENT_ID": str(i), "RESULT": str(result_of(i))})
            for i in range(1, clients + 1)]
    for r in runs:
        assert r.wait(timeout=120) == 0, r.stderr.read()
    return [json.loads(result_of(i).read_text()) for i in range(1, clients + 1)]


def count_phase(bench_dir, uri, clients=2):
    """Runs count_phase as the lab does (finish_phase's locals it fills in, then the status analysis
    decides from them as from a D.phase.json's facts); returns (status, reason, D.out)."""
    script = f"""
set -u
LAB_ROOT={ROOT}
. "$LAB_ROOT/lab/phase.sh"; . "$LAB_ROOT/lab/bench.sh"
analysis() {{ (cd "$LAB_ROOT" && {PYTHON} -m analysis "$@"); }}
client_oneshot() {{ shift; URI="$PG_URI" node "$LAB_ROOT/client" "$@"; }}
BENCH_DIR={bench_dir} PHASE_CLIENTS={clients} BENCH_NAME=test
export WORKLOAD=booking
WORKLOAD_TRANSACTIONS=true  # what load_run_env reads from the plan (its workload `transactions`)
count_outcome=unset count_problems=null
count_phase postgres postgres "$BENCH_DIR/postgres.out"
echo "$count_outcome"
echo "$count_problems"
"""
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=180,
                       env={"PATH": os.environ["PATH"], "PG_URI": uri})
    assert r.returncode == 0, r.stderr
    outcome, problems = r.stdout.strip().splitlines()[-2:]
    facts = {"client_exit_codes": [0] * clients, "wait": {"expected_s": 1, "limit_s": 122, "timed_out": False},
             "lab_error_exit_code": None,
             "database": {"state": "running", "exit_code": None, "restarted_for_check": False},
             "count": {"outcome": outcome, "problems": json.loads(problems)}, "interrupted": False}
    status, reason = phase_status.decide(facts, [])
    return status, reason, (bench_dir / "postgres.out").read_text()


def test_count_phase_checks_against_the_clients_sums_and_fails_the_phase_on_a_loss(pg_uri, tmp_path):
    assert client(["init"], {**BOOKING, "URI": pg_uri}).returncode == 0
    (tmp_path / "clients").mkdir()
    results = run_clients({**BOOKING, "URI": pg_uri, "OPS": "12", "RATE": "40", "SESSIONS": "2", "DAY_RANGE": "1",
                           "BOOKING_SLEEP_MS": "5"}, lambda i: tmp_path / "clients" / f"postgres-client-{i}.json")
    committed = sum(r["transactions"]["committed"] for r in results)
    assert committed == 24 == sum(r["docs_ok"] for r in results)

    status, reason, out = count_phase(tmp_path, pg_uri)
    assert (status, reason) == ("ok", "")
    assert "count: COMMITTED=24 IN_DOUBT=0" in out
    check = json.loads((tmp_path / "postgres.count.json").read_text())["booking_check"]
    assert check["ok"] and check["committed"] == 24 and check["seats"] == 24 and check["payments"] == 24

    # a payment lost: count exits 1, its rows are kept in D.count.json, the phase fails naming them
    subprocess.run(["node", "-e", "const {Client}=require('pg');(async()=>{const c=new Client({connectionString:process.argv[1]});"
                    "await c.connect();await c.query('delete from payment where ctid=(select ctid from payment limit 1)');await c.end()})()",
                    pg_uri], check=True, cwd=ROOT / "client", timeout=60)
    status, reason, out = count_phase(tmp_path, pg_uri)
    assert status == "failed"
    assert reason.startswith("nothing-lost check failed: seats 24 != payments 23"), reason
    check = json.loads((tmp_path / "postgres.count.json").read_text())["booking_check"]
    assert not check["ok"] and len(check["seats_without_payment"]) == 1

    # a client's result missing: the sums are not known, count checks without them (said in D.out)
    (tmp_path / "clients" / "postgres-client-2.json").unlink()
    status, reason, out = count_phase(tmp_path, pg_uri)
    assert "1 of 2 client result files: committed bookings unknown" in out
    assert json.loads((tmp_path / "postgres.count.json").read_text())["booking_check"]["committed"] is None


def server_stats(uri, workload):
    r = client(["server-stats"], {"URI": uri, "WORKLOAD": workload}, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(next(line for line in r.stdout.splitlines() if line.startswith("{")))


def test_reconciliation_counts_every_attempt_and_every_session_of_a_contended_booking_run(pg_uri, tmp_path):
    """Serializable bookings on two flights of one day, held open 10 ms, from 2 clients of 3 sessions:
    serialization failures happen; the server's xact_commit + xact_rollback between two readings
    equal the attempts, the 6 sessions' start-up and set-up statements and the start reading, within
    the stated tolerance, and the rolled-back transactions are the aborted attempts (up to one more
    ROLLBACK each after a failed COMMIT)."""
    from analysis import reconcile
    env = {**BOOKING, "FLIGHTS": "2", "URI": pg_uri}
    assert client(["init"], env).returncode == 0
    start = server_stats(pg_uri, "booking")
    clients = run_clients({**env, "OPS": "40", "RATE": "40", "SESSIONS": "3", "DAY_RANGE": "1", "BOOKING_SLEEP_MS": "10",
                           "ISOLATION": "serializable", "MAX_ATTEMPTS": "100"}, lambda i: tmp_path / f"c{i}.json")
    time.sleep(1.5)  # backends report their statistics when they end: let the last ones arrive
    end = server_stats(pg_uri, "booking")
    aborted = sum(sum(c["transactions"]["aborts"].values()) for c in clients)
    attempts = sum(c["transactions"]["attempts"] for c in clients)
    assert aborted > 0, "no conflict: the test does not test retries"
    assert attempts == 80 + aborted
    rec = reconcile.reconcile("postgres", {"start": start, "end": end}, clients)
    assert rec["verdict"] == "ok", rec["reasons"]
    # two audit rows (FLIGHTS=2, DAY_RANGE=1) each raced for by up to 5 other sessions: a speculative
    # insert taken back counts as a deletion (heapam.c heap_abort_speculative)
    assert rec["checks"]["rows_changed"]["tolerance"] == 2 * (2 * 3 - 1), rec["checks"]["rows_changed"]
    assert rec["lab_work"]["client_sessions"] == 6
    assert rec["lab_work"]["statements_per_session"] == 2
    checks = rec["checks"]
    # expected = 6 sessions x (1 start-up + 2 set-up) + the attempts + the start reading's own
    assert checks["transactions"]["expected"] == 6 * 3 + attempts + 1 + start["reading"]["statements"]
    observed = end["counters"]["xact_rollback"] - start["counters"]["xact_rollback"]
    assert aborted <= observed <= 2 * aborted, (aborted, observed)
    assert checks["transactions_rolled_back"]["verdict"] == "ok"
    assert checks["rows_written"]["expected"] == 3 * 80 and checks["rows_written"]["verdict"] == "ok"


def test_reconciliation_of_an_oltp_run_counts_its_rows_by_operation_type(pg_uri, tmp_path):
    """sysbench-style 50/50 on a real PostgreSQL, 2 clients x 2 sessions: the rows the committed
    updates and delete+inserts wrote are what pg_stat_user_tables counted, and the phase is ok."""
    from analysis import reconcile, transactions
    env = {"WORKLOAD": "oltp", "KEY": "uuidv7", "LAYOUT": "heap", "SEED": "7", "TABLE_ROWS": "1000", "URI": pg_uri}
    assert client(["init"], env).returncode == 0
    start = server_stats(pg_uri, "oltp")
    clients = run_clients({**env, "OPS": "60", "RATE": "60", "SESSIONS": "2", "OLTP_MIX": "50/50"},
                          lambda i: tmp_path / f"o{i}.json")
    time.sleep(1.5)
    end = server_stats(pg_uri, "oltp")
    ok = lambda op: sum(c["operations"].get(op, {}).get("ok", 0) for c in clients)  # noqa: E731
    rec = reconcile.reconcile("postgres", {"start": start, "end": end}, clients)
    assert rec["verdict"] == "ok", rec["reasons"]
    checks = rec["checks"]
    assert checks["rows_written"]["expected"] == ok("delete-insert") > 0
    assert checks["rows_changed"]["expected"] == ok("index-update") + ok("non-index-update") + ok("delete-insert")
    d = lambda k: end["counters"][k] - start["counters"][k]  # noqa: E731
    aborted = transactions.merge([("o", c) for c in clients])["aborted_attempts"]
    assert d("user_n_tup_ins") - ok("delete-insert") <= aborted
    assert checks["transactions"]["observed"] == checks["transactions"]["expected"]


def test_on_the_secantus_stand_in_a_booking_run_reconciles_what_its_counters_mean(secantus_uri, tmp_path):
    """Bookings on SecantusDB (a replica set) between two readings: not suspect; its update counter
    holds one audit upsert per committed booking (aborted attempts' within the tolerance); inserts,
    reads and commands are null with the reason (it counts insert commands, and the booking's
    aggregate hides among the commands)."""
    from analysis import reconcile
    env = {**BOOKING, "FLIGHTS": "1", "URI": secantus_uri}
    assert client(["init"], env).returncode == 0
    start = server_stats(secantus_uri, "booking")
    clients = run_clients({**env, "OPS": "30", "RATE": "30", "SESSIONS": "3", "DAY_RANGE": "1", "BOOKING_SLEEP_MS": "10",
                           "MAX_ATTEMPTS": "100"}, lambda i: tmp_path / f"s{i}.json")
    end = server_stats(secantus_uri, "booking")
    rec = reconcile.reconcile("mongodb", {"start": start, "end": end}, clients)
    assert rec["verdict"] != "suspect", rec["reasons"]
    checks = rec["checks"]
    assert rec["lab_work"]["txn"]["aborted"] > 0, "no write conflict: the tolerance for aborted attempts is untested"
    assert checks["other_writes"]["verdict"] == "ok" and checks["other_writes"]["expected"] == 60
    for name in ("inserts", "reads", "commands"):
        assert checks[name]["verdict"] == "unavailable" and "secantus" in checks[name]["reason"], checks[name]
    # the stand-in has no serverStatus.transactions: the server's own transaction counts are null, said why
    for name in ("transactions_started", "transactions_committed", "transactions_aborted", "transactions_open_at_end"):
        assert checks[name]["verdict"] == "unavailable", checks[name]
        assert "no serverStatus transactions section" in checks[name]["reason"], checks[name]
    assert checks["transactions_committed"]["expected"] == 60
    assert checks["connections_created"]["verdict"] == "ok", checks["connections_created"]
