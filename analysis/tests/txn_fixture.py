"""A booking bench folder as the lab writes it (docs/contracts.md §4, WORKLOAD=booking), built from the
recorded ci-standin-run fixture (its metrics, phase manifests, perf files) with synthetic client
results whose transactions are known: RAW keeps every client's counts and last-attempt latencies so
tests compare the merged figures with an independent computation. count.json's `booking_check` is
what the client's own nothing-lost check (client/src/commands/booking-check.js, run with node) says
of tables that hold the clients' committed bookings, less any the caller has taken away: not a
verdict written here."""
import json
import os
import shutil
import subprocess

from hdrh.histogram import HdrHistogram

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
BASE = os.path.join(FIXTURES, "ci-standin-run")

# per database, per client: committed, aborts {reason: n}, in_doubt, commit_retries, last attempts (us)
RAW = {
    "postgres": [
        {"committed": 30, "aborts": {"serialization_failure": 4, "deadlock_detected": 1}, "in_doubt": 0,
         "commit_retries": 0, "last_us": [900 + 37 * i for i in range(30)], "latency_us": [1000 + 53 * i for i in range(30)]},
        {"committed": 28, "aborts": {"serialization_failure": 2}, "in_doubt": 0, "commit_retries": 0,
         "last_us": [1500 + 101 * i for i in range(28)], "latency_us": [1700 + 97 * i for i in range(28)]},
    ],
    "mongodb": [
        {"committed": 30, "aborts": {"TransientTransactionError:WriteConflict": 7}, "in_doubt": 0, "commit_retries": 1,
         "last_us": [2000 + 71 * i for i in range(30)], "latency_us": [2500 + 89 * i for i in range(30)]},
        {"committed": 30, "aborts": {"TransientTransactionError:WriteConflict": 3}, "in_doubt": 0, "commit_retries": 0,
         "last_us": [2100 + 13 * i for i in range(30)], "latency_us": [2600 + 41 * i for i in range(30)]},
    ],
}
SESSIONS = 3
# each client's elapsed seconds (its committed rate is committed / elapsed_s)
ELAPSED_S = {"postgres": [3.0, 3.5], "mongodb": [3.2, 3.0]}
ISOLATION = "serializable"


def hist(values_us):
    h = HdrHistogram(1, 60_000_000, 3)
    for v in values_us:
        h.record_value(v)
    e = h.encode()
    return e.decode() if isinstance(e, bytes) else e


def client_result(db, i, c):
    aborted = sum(c["aborts"].values())
    server = ({"product": "PostgreSQL", "version": "15.18", "stand_in": False} if db == "postgres"
              else {"product": "SecantusDB", "version": "8.2.11", "stand_in": True})
    return {
        "bench": "txn-fixture", "database": db, "client_id": str(i), "workload": "booking", "stage": "run", "phase": db,
        "key": "uuidv7", "seed": 7,
        "ops_target": c["committed"], "docs_target": c["committed"], "docs_ok": c["committed"], "errors": 0,
        "dropped": 0, "not_sent": 0, "server": server, "target_rate": 10, "achieved_rate": 10.0,
        "target_sustained": True, "interrupted": False, "reconnects": 0, "elapsed_s": ELAPSED_S[db][i - 1],
        "histograms": {"latency_us": hist(c["latency_us"]), "service_us": hist(c["latency_us"])},
        "operations": {"booking": {"ok": c["committed"], "errors": 0, "dropped": 0, "docs": c["committed"],
                                   "histograms": {"latency_us": hist(c["latency_us"]), "service_us": hist(c["latency_us"])}}},
        "transactions": {
            "isolation": ISOLATION if db == "postgres" else "snapshot (read concern snapshot, write concern majority)",
            "day_range": 1, "booking_sleep_ms": 0, "flights": 20, "sessions": SESSIONS, "retry": "backoff",
            "max_attempts": 10, "initial_ms": 5, "growth": 1.5, "max_ms": 500, "jitter": "[0.5, 1) x delay, seeded",
            "committed": c["committed"], "attempts": c["committed"] + aborted, "retries": aborted,
            "aborts": c["aborts"], "gave_up": 0, "in_doubt": c["in_doubt"], "commit_retries": c["commit_retries"],
            "committed_indices": [[0, c["committed"] - 1]], "in_doubt_indices": [],
            # every attempt wrote its seat and payment; the aborted ones' audit upserts were refused
            "writes": {"seat": {"ok": c["committed"] + aborted, "failed": 0},
                       "payment": {"ok": c["committed"] + aborted, "failed": 0},
                       "audit": {"ok": c["committed"], "failed": aborted}},
            "last_attempt_ms": {}, "last_attempt_us": hist(c["last_us"]),
        },
    }


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The client's nothing-lost check over tables holding every committed booking of `outcomes` (seat,
# payment and audit consistent among themselves), less the bookings `lose` names ([client_id, i]).
CHECK_JS = r"""
const [root, input] = process.argv.slice(1);
const { checkBookings } = require(`${root}/client/src/commands/booking-check`);
const { BookingDeriver } = require(`${root}/client/src/workloads/booking`);
const { outcomes, lose, blind } = JSON.parse(input);
const ids = [];
const audit = new Set();
for (const c of outcomes.clients) {
  const d = new BookingDeriver({ key: c.key, seed: c.seed, clientId: c.client_id, flights: c.flights, dayRange: c.day_range });
  for (const [first, last] of c.committed_indices) {
    for (let i = first; i <= last; i++) {
      if (lose.some(([client, k]) => client === c.client_id && k === i)) continue;
      const b = d.booking(i);
      ids.push(b.id.toString('hex'));
      audit.add(`${b.scheduleId}|${b.day}`);
    }
  }
}
const n = ids.length;
const found = { seats: n, payments: n, audit_rows: audit.size, audit_seats: n, seats_without_payment: [],
  payments_without_seat: [], audit_mismatches: [] };
console.log(JSON.stringify(blind ? checkBookings(found, null) : checkBookings(found, outcomes, ids)));
"""


def booking_check(db, lose=(), blind=False):
    """count.json's booking_check for db's clients, as `node client count` with TXN_OUTCOMES computes it
    (blind: as count computes it without TXN_OUTCOMES)."""
    from analysis.figures import transactions
    clients = [(f"{db}-client-{i}.json", client_result(db, i, c)) for i, c in enumerate(RAW[db], 1)]
    outcomes, reason = transactions.outcomes(clients, len(clients), db)
    assert outcomes is not None, reason
    r = subprocess.run(["node", "-e", CHECK_JS, ROOT, json.dumps({"outcomes": outcomes, "lose": [list(x) for x in lose], "blind": blind})],
                       capture_output=True, text=True, timeout=60, check=True)
    return json.loads(r.stdout)


def build(dest, ok=True):
    """Writes the bench into dest (ok=False: one of PostgreSQL's committed bookings, client 1's
    booking 7, is not in its tables, and count's nothing-lost check says so)."""
    os.makedirs(os.path.join(dest, "clients"), exist_ok=True)
    shutil.copy(os.path.join(BASE, "host.json"), dest)
    env = ('DESCRIPTION="booking fixture"\nWORKLOAD=booking\nKEY=uuidv7\nLAYOUT=clustered\nTOPOLOGY=replset\n'
           f'ISOLATION={ISOLATION}\nSESSIONS={SESSIONS}\nFLIGHTS=20\nDAY_RANGE=1\nCLIENTS=2\nRATE=10\nOPS=30\n'
           'DATABASES="mongodb postgres"\nQUIET_S=3\nPERF_RECORD_S=5\n')
    for name in ("bench.env", "run.env"):
        with open(os.path.join(dest, name), "w") as f:
            f.write(env)
    with open(os.path.join(dest, "plan.txt"), "w") as f:
        for db in ("mongodb", "postgres"):
            f.write(f"phase={db} database={db} stage=run ops=30 rate=10 expected_s=3 clients=2 query=-\n")
    for db in ("mongodb", "postgres"):
        for ext in ("metrics.json", "perfstat.csv", "out", "phase.json", "settings.json"):
            shutil.copy(os.path.join(BASE, f"{db}.{ext}"), os.path.join(dest, f"{db}.{ext}"))
        shutil.copy(os.path.join(FIXTURES, "bench1", f"{db}.perf"), os.path.join(dest, f"{db}.perf"))
        with open(os.path.join(BASE, f"{db}.count.json")) as f:
            count = json.load(f)
        check = booking_check(db, () if ok or db == "mongodb" else [("1", 7)])
        count.update(documents=check["seats"], booking_check=check)
        with open(os.path.join(dest, f"{db}.count.json"), "w") as f:
            json.dump(count, f)
        for i, c in enumerate(RAW[db], 1):
            with open(os.path.join(dest, "clients", f"{db}-client-{i}.json"), "w") as f:
                json.dump(client_result(db, i, c), f)
