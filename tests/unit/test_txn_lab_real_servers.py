"""The lab's transaction pieces on a real PostgreSQL and SecantusDB (the client's test servers,
client/test/helpers/postgres-server.js, secantus-server.js) with real booking and oltp clients: the driver's count (lab/driver/phase.py Phase.count)
(`analysis txn-outcomes` writes the clients' committed and in-doubt bookings, `node client count`
looks for each of them by id, a failed check keeps D.count.json with its rows and fails the phase;
only the container wrapper is replaced: the one-shot runs `node client` on the host), and
analysis/figures/reconcile.py's transaction checks against the server's own counters, table by table: a
foreign bulk write during a booking phase is `suspect` on both."""
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from analysis.bench import phase_status
from lab.driver.engine import Engine
from lab.driver.lab import Lab
from lab.driver.phase import Phase
from lab.driver.plan import Phase as PlanPhase

ROOT = Path(__file__).resolve().parents[2]
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


def run_clients(env, result_of, clients=2, during=None):
    """`clients` booking/oltp clients at once (CLIENT_ID 1..clients), each writing result_of(i);
    during(): run while they do; returns their result files' contents."""
    runs = [subprocess.Popen(["node", str(ROOT / "client"), "run"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, env={"PATH": os.environ["PATH"], **env, "CLIENTS": str(clients),
                                             "CLIENT_ID": str(i), "RESULT": str(result_of(i))})
            for i in range(1, clients + 1)]
    try:
        if during:
            during()
    finally:
        for r in runs:
            assert r.wait(timeout=180) == 0, r.stderr.read()
    return [json.loads(result_of(i).read_text()) for i in range(1, clients + 1)]


class HostBench:
    """What the driver's Phase.count needs of its bench, with the one-shot client run on the host
    against the test server (the container wrapper replaced: the rest is the driver's own code)."""

    def __init__(self, bench_dir, uri):
        self.dir, self.uri, self.transactions = str(bench_dir), uri, True
        self.lab = Lab(str(ROOT), Engine(str(ROOT), "p", False, {}), None, {})
        self.engine, self.probe, self.name = self.lab.engine, None, "test"
        self.client_engine = self.engine  # one host: the databases' and the clients' engine

    def db_engine(self, db):
        return self.engine

    def probe_for(self, db):
        return self.probe

    def fetch_results(self):
        """The clients' results are in bench_dir already (one host)."""

    def say(self, msg):
        print(msg)

    def oneshot(self, db, command, stdout="capture", stderr=None, txn_outcomes=None, **_):
        env = {"PATH": os.environ["PATH"], "URI": self.uri, "WORKLOAD": "booking",
               **({"TXN_OUTCOMES": txn_outcomes} if txn_outcomes else {})}
        with open(stdout, "a") as out, open(stderr, "a") as err:
            return subprocess.run(["node", str(ROOT / "client"), command], stdout=out, stderr=err, text=True,
                                  timeout=180, env=env)


def count_phase(bench_dir, uri, clients=2, db="postgres"):
    """Runs the driver's count as a phase does (lab/driver/phase.py Phase.count), then the status
    analysis decides from its outcome as from a D.phase.json's facts, for the phase `db` (its client
    results in bench_dir/clients/<db>-client-<i>.json); returns (status, reason, D.out)."""
    phase = Phase(HostBench(bench_dir, uri), PlanPhase(id=db, database=db, stage="run", ops=1, rate=0.0, expected_s=1.0,
                                                       clients=clients, query=None))
    outcome, problems = phase.count()
    facts = {"client_exit_codes": [0] * clients, "wait": {"expected_s": 1, "limit_s": 122, "timed_out": False},
             "lab_error_exit_code": None,
             "database": {"state": "running", "exit_code": None, "restarted_for_check": False},
             "count": {"outcome": outcome, "problems": problems}, "interrupted": False}
    status, reason = phase_status.decide(facts, [])
    return status, reason, (bench_dir / f"{db}.out").read_text()


def test_count_phase_checks_every_booking_of_the_clients_and_fails_the_phase_on_a_loss(pg_uri, tmp_path):
    assert client(["init"], {**BOOKING, "URI": pg_uri}).returncode == 0
    (tmp_path / "clients").mkdir()
    results = run_clients({**BOOKING, "URI": pg_uri, "OPS": "12", "RATE": "40", "SESSIONS": "2", "DAY_RANGE": "1",
                           "BOOKING_SLEEP_MS": "5"}, lambda i: tmp_path / "clients" / f"postgres-client-{i}.json")
    committed = sum(r["transactions"]["committed"] for r in results)
    assert committed == 24 == sum(r["docs_ok"] for r in results)

    status, reason, out = count_phase(tmp_path, pg_uri)
    assert (status, reason) == ("ok", "")
    assert "count: TXN_OUTCOMES=postgres.txn-outcomes.json" in out
    check = json.loads((tmp_path / "postgres.count.json").read_text())["booking_check"]
    assert check["ok"] and check["committed"] == 24 and check["seats"] == 24 and check["payments"] == 24
    assert check["ids_checked"] == 24 and check["lost_count"] == 0 and check["unexpected_count"] == 0

    # a payment lost: count exits 1, its rows are kept in D.count.json, the phase fails naming them
    subprocess.run(["node", "-e", "const {Client}=require('pg');(async()=>{const c=new Client({connectionString:process.argv[1]});"
                    "await c.connect();await c.query('delete from payment where ctid=(select ctid from payment limit 1)');await c.end()})()",
                    pg_uri], check=True, cwd=ROOT / "client", timeout=60)
    status, reason, out = count_phase(tmp_path, pg_uri)
    assert status == "failed"
    assert reason.startswith("nothing-lost check failed: seats 24 != payments 23"), reason
    check = json.loads((tmp_path / "postgres.count.json").read_text())["booking_check"]
    assert not check["ok"] and len(check["seats_without_payment"]) == 1

    # a client's result missing: its bookings are not known, count checks without any (said in D.out)
    (tmp_path / "clients" / "postgres-client-2.json").unlink()
    status, reason, out = count_phase(tmp_path, pg_uri)
    assert "1 of 2 client result files: committed bookings unknown" in out
    assert not (tmp_path / "postgres.txn-outcomes.json").exists()
    assert json.loads((tmp_path / "postgres.count.json").read_text())["booking_check"]["committed"] is None


# A committed booking deleted behind the clients' backs, and a booking nobody in the lab made put in
# its place (the same flight and day): seat, payment and audit agree among themselves and every count
# equals the committed bookings', so only looking for each booking by id finds it.
FOREIGN_ID = "0e0e0e0e-0e0e-4e0e-8e0e-0e0e0e0e0e0e"
SWAP_PG = """
const { Client } = require('pg');
(async () => {
  const c = new Client({ connectionString: process.argv[1] });
  await c.connect();
  const { rows: [s] } = await c.query('select id::text as id from seat order by id limit 1');
  await c.query('update seat set id = $2 where id = $1', [s.id, process.argv[2]]);
  await c.query('update payment set id = $2 where id = $1', [s.id, process.argv[2]]);
  console.log(s.id);
  await c.end();
})();
"""
SWAP_MONGO = """
const { MongoClient, Binary } = require('mongodb');
(async () => {
  const c = new MongoClient(process.argv[1]);
  await c.connect();
  const db = c.db();
  const foreign = new Binary(Buffer.from(process.argv[2].replace(/-/g, ''), 'hex'), Binary.SUBTYPE_UUID);
  const [s] = await db.collection('seat').find({}).sort({ _id: 1 }).limit(1).toArray();
  const p = await db.collection('payment').findOne({ _id: s._id });
  await db.collection('seat').deleteOne({ _id: s._id });
  await db.collection('payment').deleteOne({ _id: s._id });
  await db.collection('seat').insertOne({ ...s, _id: foreign });
  await db.collection('payment').insertOne({ ...p, _id: foreign });
  console.log(Buffer.from(s._id.buffer).toString('hex'));
  await c.close();
})();
"""


@pytest.mark.parametrize("db", ["postgres", "mongodb"])
def test_a_committed_booking_replaced_behind_the_clients_backs_is_reported_lost_by_id(db, request, tmp_path):
    uri = request.getfixturevalue("pg_uri" if db == "postgres" else "secantus_uri")
    assert client(["init"], {**BOOKING, "URI": uri}).returncode == 0
    (tmp_path / "clients").mkdir()
    results = run_clients({**BOOKING, "URI": uri, "OPS": "15", "RATE": "40", "SESSIONS": "2", "DAY_RANGE": "2"},
                          lambda i: tmp_path / "clients" / f"{db}-client-{i}.json")
    committed = sum(r["transactions"]["committed"] for r in results)
    assert committed == 30
    assert count_phase(tmp_path, uri, db=db)[:2] == ("ok", "")

    r = subprocess.run(["node", "-e", SWAP_PG if db == "postgres" else SWAP_MONGO, uri, FOREIGN_ID],
                       capture_output=True, text=True, check=True, cwd=ROOT / "client", timeout=60)
    gone = r.stdout.strip().replace("-", "")
    status, reason, out = count_phase(tmp_path, uri, db=db)
    check = json.loads((tmp_path / f"{db}.count.json").read_text())["booking_check"]
    # every count agrees: a check of counts would pass
    assert check["seats"] == check["payments"] == check["audit_seats"] == check["committed"] == committed
    assert check["audit_mismatches"] == [] and check["seats_without_payment"] == []
    # by id: the booking is lost, named by client, index and id, and the seat in its place is no one's
    assert not check["ok"] and status == "failed"
    assert check["ids_checked"] == committed and check["lost_count"] == 1 and check["unexpected_count"] == 1
    lost = check["lost"][0]
    assert lost["id"].replace("-", "") == gone
    assert check["unexpected"] == [FOREIGN_ID]
    assert f"committed bookings lost: 1 (client {lost['client_id']} booking {lost['i']} id {lost['id']})" in reason
    assert f"seats of no committed or in-doubt booking: 1 ({FOREIGN_ID})" in reason


def server_stats(uri, workload):
    r = client(["server-stats"], {"URI": uri, "WORKLOAD": workload}, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(next(line for line in r.stdout.splitlines() if line.startswith("{")))


def booking_phase(uri, db, tmp_path, env, clients=2, during=None):
    """A booking phase as the lab runs it: a server-stats reading, the clients (during(): run while they
    do), the end reading, count_phase (the nothing-lost check with the clients' outcomes), then the
    reconciliation with count's check; returns (results, reconciliation, booking_check, phase status)."""
    from analysis.figures import reconcile
    (tmp_path / "clients").mkdir()
    start = server_stats(uri, "booking")
    results = run_clients(env, lambda i: tmp_path / "clients" / f"{db}-client-{i}.json", clients, during)
    time.sleep(1.5)  # PostgreSQL's backends report their statistics when they end: let the last ones arrive
    end = server_stats(uri, "booking")
    status, reason, _ = count_phase(tmp_path, uri, clients, db)
    check = json.loads((tmp_path / f"{db}.count.json").read_text())["booking_check"]
    rec = reconcile.reconcile(db, {"start": start, "end": end}, results, booking_check=check)
    return results, rec, check, (status, reason)


def writes_of(results, table):
    return sum(r["transactions"]["writes"][table]["ok"] for r in results)


def test_reconciliation_counts_every_attempt_and_every_session_of_a_contended_booking_run(pg_uri, tmp_path):
    """Serializable bookings on two flights of one day, held open 10 ms, from 2 clients of 3 sessions:
    serialization failures happen; the server's xact_commit + xact_rollback between two readings
    equal the attempts, the 6 sessions' start-up and set-up statements and the start reading, within
    the stated tolerance, and the rolled-back transactions are the aborted attempts (up to one more
    ROLLBACK each after a failed COMMIT). Table by table, the rows are exactly the write statements
    the clients counted over every attempt, and the audit rows created the two the bookings hold."""
    env = {**BOOKING, "FLIGHTS": "2", "URI": pg_uri}
    assert client(["init"], env).returncode == 0
    clients, rec, check, status = booking_phase(pg_uri, "postgres", tmp_path, {
        **env, "OPS": "40", "RATE": "40", "SESSIONS": "3", "DAY_RANGE": "1", "BOOKING_SLEEP_MS": "10",
        "ISOLATION": "serializable", "MAX_ATTEMPTS": "100"})
    assert status == ("ok", "")
    aborted = sum(sum(c["transactions"]["aborts"].values()) for c in clients)
    attempts = sum(c["transactions"]["attempts"] for c in clients)
    assert aborted > 0, "no conflict: the test does not test retries"
    assert attempts == 80 + aborted
    assert rec["verdict"] == "ok", rec["reasons"]
    assert rec["lab_work"]["client_sessions"] == 6
    assert rec["lab_work"]["statements_per_session"] == 2
    checks = rec["checks"]
    # expected = 6 sessions x (1 start-up + 2 set-up) + the attempts + the start reading's own
    assert checks["transactions"]["expected"] == 6 * 3 + attempts + 1 + 3
    assert checks["transactions_rolled_back"]["verdict"] == "ok"
    assert aborted <= checks["transactions_rolled_back"]["observed"] <= 2 * aborted
    # every attempt wrote its seat and payment (rolled back or not): counted by the clients and by the server
    assert checks["seat_rows"]["expected"] == checks["seat_rows"]["observed"] == writes_of(clients, "seat") == attempts
    assert checks["payment_rows"]["observed"] == attempts and checks["payment_rows"]["tolerance"] == 0
    assert checks["audit_upserts"]["observed"] == writes_of(clients, "audit")
    assert (checks["audit_rows_created"]["expected"], checks["audit_rows_created"]["observed"]) == (2, 2)
    assert checks["rows_written_elsewhere"]["observed"] == 0
    # the allowance for racing audit upserts: bounded by the two rows the bookings created, each raced for by
    # at most the 5 other sessions
    races = checks["audit_speculative_deletes"]
    assert races["tolerance"] <= 2 * (6 - 1) and races["verdict"] == "ok", races
    assert check["ids_checked"] == 80 and check["audit_rows_booked"] == 2
    assert sum(int(n) * k for n, k in check["audit_rows_by_bookings"].items()) == 80
    written = checks["seat_rows"]["observed"] + checks["payment_rows"]["observed"] + checks["audit_upserts"]["observed"]
    print(f"\nPostgreSQL, contended booking run (FLIGHTS=2, 2 clients x 3 sessions, serializable): {attempts} attempts, "
          f"racing-upsert allowance {races['tolerance']} deletions (observed {races['observed']}) against {written} rows "
          f"written; {check['ids_checked']} booking ids checked")


def test_a_foreign_bulk_write_during_a_booking_phase_is_suspect_on_postgres(pg_uri, tmp_path):
    """At the shipped FLIGHTS=14000: a foreign session inserts 20,000 audit rows during the phase and
    rolls them back (nothing is left for the nothing-lost check to see; pg_stat_user_tables counts the
    tuples). The allowance FLIGHTS x DAY_RANGE x (sessions - 1) = 98,000 rows let it through as `ok`."""
    env = {**BOOKING, "FLIGHTS": "14000", "URI": pg_uri}
    assert client(["init"], env).returncode == 0
    foreign = ("const {Client}=require('pg');(async()=>{const c=new Client({connectionString:process.argv[1]});"
               "await c.connect();await c.query('begin');"
               "await c.query(\"insert into audit select 100000 + g, date '2030-01-01', 1 from generate_series(1, 20000) g\");"
               "await c.query('rollback');await c.end()})()")

    def write():
        time.sleep(0.5)
        subprocess.run(["node", "-e", foreign, pg_uri], check=True, cwd=ROOT / "client", timeout=60)
    clients, rec, check, status = booking_phase(pg_uri, "postgres", tmp_path, {
        **env, "OPS": "40", "RATE": "40", "SESSIONS": "4", "DAY_RANGE": "1"}, during=write)
    assert status == ("ok", "") and check["ok"], "the foreign rows were rolled back: the tables are the clients'"
    assert rec["verdict"] == "suspect", rec["checks"]
    created = rec["checks"]["audit_rows_created"]
    assert created["verdict"] == "suspect" and created["observed"] == created["expected"] + 20000, created
    assert any(r.startswith("audit_rows_created") for r in rec["reasons"])


def test_reconciliation_of_an_oltp_run_counts_its_rows_by_operation_type(pg_uri, tmp_path):
    """sysbench-style 50/50 on a real PostgreSQL, 2 clients x 2 sessions: the rows the committed
    updates and delete+inserts wrote are what pg_stat_user_tables counted, and the phase is ok."""
    from analysis.figures import reconcile, transactions
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
    """Contended bookings on SecantusDB (a replica set) between two readings: ok. Its opcounters count
    commands (a booking's inserts are insertOne: one document each) and refused writes too, and `top`
    counts each collection's: every seat and payment insert and audit upsert the clients sent, in any
    attempt, exactly; reads and commands are null with the reason (the booking's aggregate hides among
    the commands), as are the server's own transaction counts (it has none)."""
    env = {**BOOKING, "FLIGHTS": "1", "URI": secantus_uri}
    assert client(["init"], env).returncode == 0
    clients, rec, check, status = booking_phase(secantus_uri, "mongodb", tmp_path, {
        **env, "OPS": "30", "RATE": "30", "SESSIONS": "3", "DAY_RANGE": "1", "BOOKING_SLEEP_MS": "10", "MAX_ATTEMPTS": "100"})
    assert status == ("ok", "") and check["ids_checked"] == 60
    assert rec["verdict"] == "ok", rec["reasons"]
    checks = rec["checks"]
    assert rec["lab_work"]["txn"]["aborted"] > 0, "no write conflict: refused writes are untested"
    sent = {t: sum(c["transactions"]["writes"][t]["ok"] + c["transactions"]["writes"][t]["failed"] for c in clients)
            for t in ("seat", "payment", "audit")}
    assert sent["audit"] > 60, sent
    for name, expected in (("seat_writes", sent["seat"]), ("payment_writes", sent["payment"]),
                           ("audit_writes", sent["audit"]), ("inserts", sent["seat"] + sent["payment"]),
                           ("other_writes", sent["audit"]), ("writes_elsewhere", 0)):
        assert (checks[name]["verdict"], checks[name]["expected"], checks[name]["observed"]) == ("ok", expected, expected), \
            (name, checks[name])
    assert checks["seat_writes"]["tolerance"] == checks["audit_writes"]["tolerance"] == 0
    for name in ("reads", "commands"):
        assert checks[name]["verdict"] == "unavailable" and "secantus" in checks[name]["reason"], checks[name]
    # the stand-in has no serverStatus.transactions: the server's own transaction counts are null, said why
    for name in ("transactions_started", "transactions_committed", "transactions_aborted", "transactions_open_at_end"):
        assert checks[name]["verdict"] == "unavailable", checks[name]
        assert "no serverStatus transactions section" in checks[name]["reason"], checks[name]
    assert checks["transactions_committed"]["expected"] == 60
    assert checks["connections_created"]["verdict"] == "ok", checks["connections_created"]
    written = sent["seat"] + sent["payment"] + sent["audit"]
    print(f"\nSecantusDB, contended booking run (FLIGHTS=1, 2 clients x 3 sessions): allowance "
          f"{sum(checks[n]['tolerance'] for n in ('seat_writes', 'payment_writes', 'audit_writes'))} writes against "
          f"{written} write commands counted by `top`; {check['ids_checked']} booking ids checked")


def test_a_foreign_bulk_insert_during_a_booking_phase_is_suspect_on_the_secantus_stand_in(secantus_uri, tmp_path):
    """A foreign insertMany of 5,000 seats during the phase (then deleted again, so the nothing-lost
    check has nothing to see): one insert and one delete command on the seat collection, beyond what
    the clients sent. Before `top` and the clients' write counts, SecantusDB's inserts were not
    reconciled at all (it counts commands, not documents) and the phase came out ok."""
    env = {**BOOKING, "FLIGHTS": "14000", "URI": secantus_uri}
    assert client(["init"], env).returncode == 0
    foreign = ("const {MongoClient}=require('mongodb');(async()=>{const c=new MongoClient(process.argv[1]);"
               "await c.connect();const s=c.db().collection('seat');"
               "await s.insertMany(Array.from({length:5000},(_,i)=>({_id:'foreign-'+i,schedule_id:1,user_id:0,seat_no:1})));"
               "await s.deleteMany({_id:/^foreign-/});await c.close()})()")

    def write():
        time.sleep(0.5)
        subprocess.run(["node", "-e", foreign, secantus_uri], check=True, cwd=ROOT / "client", timeout=60)
    clients, rec, check, status = booking_phase(secantus_uri, "mongodb", tmp_path, {
        **env, "OPS": "30", "RATE": "30", "SESSIONS": "3", "DAY_RANGE": "1"}, during=write)
    assert status == ("ok", "") and check["ok"], "the foreign seats were deleted: the tables are the clients'"
    assert rec["verdict"] == "suspect", rec["checks"]
    seat = rec["checks"]["seat_writes"]
    assert seat["verdict"] == "suspect" and seat["observed"] == seat["expected"] + 2, seat
    assert rec["checks"]["inserts"]["verdict"] == "suspect"
