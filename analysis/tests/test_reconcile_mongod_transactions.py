"""mongod's serverStatus.transactions against the clients' attempts (databases/mongodb/analysis.py
_mongodb_transactions, and its counter meanings from the MongoDB 8.0 manual). No mongod
can run here (shared OFFLINE-CI.md): the readings are the FerretDB case's, shaped as mongod 8.0
answers (tests/test_reconcile.py mongodb_shaped), with a transactions section; the stand-in's own
readings (no such section) are tested on a real SecantusDB in tests/unit/test_txn_lab_real_servers.py."""
import copy
import json
import os

from analysis.figures import counters, reconcile
from analysis.tests.test_reconcile import MANUAL, case, mongodb_shaped

# 2 clients: 80 bookings committed in 92 attempts; 10 write conflicts retried, 2 attempts ended by a
# lost connection, one of them during its commit (in doubt)
CLIENT_TXN = [
    {"committed": 50, "attempts": 57, "aborts": {"TransientTransactionError:WriteConflict": 6, "error:MongoNetworkError": 1},
     "in_doubt": 1, "commit_retries": 0, "sessions": 3},
    {"committed": 30, "attempts": 35, "aborts": {"TransientTransactionError:WriteConflict": 4, "error:MongoNetworkError": 1},
     "in_doubt": 0, "commit_retries": 0, "sessions": 3},
]


def readings(started, committed, aborted, open_at_end=0):
    stats, _ = case("ferretdb-clean")
    s = mongodb_shaped(stats)
    base = {"txn_total_started": 700, "txn_total_committed": 650, "txn_total_aborted": 50, "txn_current_open": 0}
    for edge in ("start", "end"):
        s[edge]["counters"].update(base)
    end = s["end"]["counters"]
    end["txn_total_started"] += started
    end["txn_total_committed"] += committed
    end["txn_total_aborted"] += aborted
    end["txn_current_open"] = open_at_end
    return s


def clients():
    _, cs = case("ferretdb-clean")
    out = []
    for c, t in zip(cs, CLIENT_TXN):
        c = copy.deepcopy(c)
        c["workload"], c["transactions"] = "booking", dict(t)
        out.append(c)
    return out


def txn_checks(stats):
    r = reconcile.reconcile("mongodb", stats, clients())
    return r, {k: v for k, v in r["checks"].items() if k.startswith("transactions")}


def test_the_server_counted_what_the_clients_attempted():
    # 91 attempts reached the server (one lost connection before its first command); 81 committed
    # there (the in-doubt commit landed), 10 aborted
    r, checks = txn_checks(readings(started=91, committed=81, aborted=10))
    assert {k: v["verdict"] for k, v in checks.items()} == {
        "transactions_started": "ok", "transactions_committed": "ok", "transactions_aborted": "ok",
        "transactions_open_at_start": "ok", "transactions_open_at_end": "ok"}
    assert checks["transactions_started"]["expected"] == 92 and checks["transactions_started"]["tolerance"] == 2
    assert checks["transactions_committed"]["expected"] == 80 and checks["transactions_committed"]["tolerance"] == 1
    assert checks["transactions_aborted"]["expected"] == 12
    assert r["lab_work"]["txn"]["aborted_on_errors"] == 2
    assert not [x for x in r["reasons"] if x.startswith("transactions")]


def test_a_foreign_transaction_makes_the_phase_suspect():
    # somebody else committed 3 transactions in the window
    r, checks = txn_checks(readings(started=95, committed=84, aborted=11))
    assert checks["transactions_started"]["verdict"] == "suspect"
    assert checks["transactions_committed"]["verdict"] == "suspect"
    assert r["verdict"] == "suspect"
    assert any(x.startswith("transactions_committed 84 > expected 80 + tolerance 1") for x in r["reasons"]), r["reasons"]


def test_fewer_commits_than_the_clients_saw_is_low_and_an_open_transaction_at_the_end_suspect():
    r, checks = txn_checks(readings(started=70, committed=60, aborted=10, open_at_end=1))
    assert checks["transactions_committed"]["verdict"] == "low"
    assert any(n.startswith("transactions_committed 60 < expected 80") for n in r["notes"]), r["notes"]
    assert checks["transactions_open_at_end"]["verdict"] == "suspect"


def test_without_a_transactions_section_the_checks_are_null_with_the_reason():
    stats = readings(0, 0, 0)
    for edge in ("start", "end"):
        for k in ("txn_total_started", "txn_total_committed", "txn_total_aborted", "txn_current_open"):
            stats[edge]["counters"][k] = None
    stats["start"]["server"] = stats["end"]["server"] = {"name": "secantus", "version": "8.2.11"}
    _, checks = txn_checks(stats)
    for c in checks.values():
        assert c["verdict"] == "unavailable" and "no serverStatus transactions section" in c["reason"], c


def test_the_table_says_what_the_8_0_manual_says_about_transactions():
    manual = json.load(open(MANUAL))["transactions"]
    sem, _ = counters.semantics({"name": "mongod", "version": "8.0.4"})
    assert set(sem["transactions"]) == {"started", "committed", "aborted", "open"}
    for key, field in (("started", "totalStarted"), ("committed", "totalCommitted"), ("aborted", "totalAborted"),
                       ("open", "currentOpen")):
        assert sem["transactions"][key].startswith(f"transactions.{field}:")
        assert f"transactions.{field}" in manual and field in manual["fields_read"]
    assert "since its last startup" in manual["transactions.totalStarted"]
    assert "until the transaction either commits or aborts" in manual["transactions.currentOpen"]
    sec, _ = counters.semantics({"name": "secantus", "version": "8.2.11"})
    assert sec["transactions"] is None and "no serverStatus transactions section" in sec["transactions_reason"]
    # the client reads exactly these fields (databases/mongodb/client/mongodb-stats.js TRANSACTIONS)
    src = open(os.path.join(os.path.dirname(MANUAL), "..", "..", "..", "..", "databases", "mongodb", "client",
                            "mongodb-stats.js")).read()
    for field in manual["fields_read"]:
        assert f"'{field}'" in src, field
