"""What each server's operation counters count, by server and version: the one place reconcile.py asks.

A server-stats reading names its server (`server: {name, version}`, name "mongod" | "secantus" |
"postgres"). The same counter name means different things on different servers and versions, so
reconciliation reads a counter only through this table; a counter a server does not offer, or
offers with another meaning, is null with the reason here, never reinterpreted.

Sources, per row:
- mongod, opcounters.query and .command: MongoDB 8.0 manual, reference/command/serverStatus
  (mongodb/docs content/manual/v8.0/source/reference/command/serverStatus.txt):
    "opcounters.query: The total number of queries received since the mongod instance last
     started. Starting in MongoDB 7.1, aggregations count as query operations and increment this
     value."
    "opcounters.command counts all commands except the following: insert, update, delete, aggregate"
  (SERVER-66495 "Aggregations should be counted as Query ops, not Command ops", fixed in 7.1).
  Before 7.1 an aggregate counted in opcounters.command. count and distinct are commands in every
  version. Fixture: analysis/tests/fixtures/counters/mongod-8.0-manual.json.
- mongod, opcounters.insert: one per document. The manual's note ("bulk insert ... as a single
  operation") is contradicted by the server's code, which the lab follows:
  src/mongo/db/ops/write_ops_exec.cpp `globalOpCounters.gotInserts(batch.size())` after a batch.
- secantus (SecantusDB 0.7.0b3, the MongoDB stand-in), read with the Node driver against
  secantusd-py (fixture analysis/tests/fixtures/counters/secantus-0.7.0b3.json): an insertMany of
  2,000 documents counted opcounters.insert 1 (commands, not documents); an aggregate and a
  countDocuments counted in opcounters.command, not query; metrics.commands holds no per-command
  totals; there is no wiredTiger section and network.bytesIn/Out stay 0. Its serverStatus says
  version 8.2.11, which is not a mongod version: the table keys on the name only.
- mongod, transactions.totalStarted/.totalCommitted/.totalAborted/.currentOpen (server-stats
  counters txn_total_started, ..., txn_current_open): MongoDB 8.0 manual, same page, section
  transactions: "For the mongod, the total number of transactions started [committed, aborted] on
  this instance since its last startup"; currentOpen: "A transaction is opened when the first
  command is run as a part of that transaction, and stays open until the transaction either
  commits or aborts" (totalCommitted/totalAborted since 4.0.2, SERVER-35295; currentOpen
  SERVER-35294). So one client attempt that reached the server starts one transaction, which ends
  committed or aborted; a write conflict aborts it on the server (the driver's later
  abortTransaction then finds none to abort). Fixture: analysis/tests/fixtures/counters/
  mongod-8.0-manual.json, `transactions`.
- secantus: its serverStatus has no `transactions` section at all, also as a replica set that has
  just committed and aborted transactions (client/test/integration/server-stats.test.js): every
  transaction counter null with that reason.
- postgres, and any further database (mysql): its folder's hooks, databases/<db>/analysis.py
  `counter_semantics`, with their sources.
"""
import re

from . import databases

UNKNOWN = ("server unknown: the server-stats reading names no server (server.name); an older run "
           "or FerretDB, whose counters the lab does not interpret")

# mongod versions whose counters the lab has read from the manual: up to the pinned 8.0. A later
# version may count differently (SERVER-123987 gives aggregates their own opcounter): checked
# first, then added here.
MONGOD_CHECKED_UP_TO = (8, 0)


def _version(text):
    m = re.match(r"\s*v?(\d+)\.(\d+)", str(text or ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def _mongod(version):
    v = _version(version)
    if v is None:
        return None, f"mongod version {version!r} not understood: its counters cannot be interpreted"
    if v > MONGOD_CHECKED_UP_TO:
        return None, (f"no counter semantics recorded for mongod {version}: the table holds versions "
                      f"up to {'.'.join(map(str, MONGOD_CHECKED_UP_TO))} (analysis/counters.py)")
    since_7_1 = v >= (7, 1)
    return {
        "label": f"mongod {version}",
        "inserts": {"counter": "opcounters.insert", "counts": "documents"},
        # a find is `query`; an aggregate is `query` from 7.1, `command` before
        "aggregate_in": "query" if since_7_1 else "command",
        # the read commands opcounters count under `command`, moved to reads by name
        # (metrics.commands.<name>.total)
        "reads_in_command": ("count", "distinct") if since_7_1 else ("aggregate", "count", "distinct"),
        "by_name": True,
        "updates": {"counter": "opcounters.update + .delete", "counts": "statements"},
        "transactions": MONGOD_TRANSACTIONS,
    }, None


# mongod's serverStatus.transactions, the same meaning in every version up to MONGOD_CHECKED_UP_TO
# (the section exists from 4.0; totalCommitted/totalAborted from 4.0.2)
MONGOD_TRANSACTIONS = {
    "started": "transactions.totalStarted: one per transaction begun on the server (its first command)",
    "committed": "transactions.totalCommitted: one per committed transaction",
    "aborted": "transactions.totalAborted: one per transaction aborted on the server (a write conflict, "
               "an abortTransaction, a timeout)",
    "open": "transactions.currentOpen: transactions begun and neither committed nor aborted",
}


SECANTUS = {
    "label": "secantus (SecantusDB stand-in)",
    "inserts": {"counter": None, "reason": "secantus counts insert commands in opcounters.insert, not documents "
                                           "(an insertMany of 2,000 documents counts 1)"},
    "aggregate_in": "command",
    "reads_in_command": ("aggregate", "count", "distinct"),
    "by_name": False,
    "by_name_reason": ("secantus counts aggregates under opcounters.command and has no metrics.commands "
                       "totals to tell them from other commands"),
    # every update the lab sends is one command with one statement, so commands and statements agree
    "updates": {"counter": "opcounters.update + .delete", "counts": "commands (one statement each from the lab)"},
    # read right after a client closed, it still counted that client's connections (4 where the
    # reading holds 2; 2 again two seconds later)
    "transactions": None,
    "transactions_reason": ("secantus (SecantusDB 0.7.0b3) has no serverStatus transactions section, also as a "
                            "replica set running transactions: the server's own transaction counts are unknown"),
    "connections_current_reason": ("secantus's connections.current still counts connections a client has just "
                                   "closed (4 for the reading's own 2 right after a client exited)"),
}

def semantics(server):
    """(table, None) for a server the lab can read, else (None, reason). server: the reading's
    `server` object ({name, version, ...}) or None."""
    name = (server or {}).get("name") if isinstance(server, dict) else None
    version = (server or {}).get("version") if isinstance(server, dict) else None
    if not name:
        return None, UNKNOWN
    if name == "mongod":
        return _mongod(version)
    if name == "secantus":
        return SECANTUS, None
    # the database's folder holds its counters' meanings (databases/<db>/analysis.py)
    hook = databases.hook(databases.of_server_stats_name(name), "counter_semantics")
    if hook is not None:
        return hook(server)
    return None, f"no counter semantics recorded for server {name!r} (analysis/counters.py)"


def of_readings(stats):
    """The semantics of a {start, end} pair of readings; both must name the same server."""
    start, end = (stats or {}).get("start") or {}, (stats or {}).get("end") or {}
    a, b = start.get("server"), end.get("server")
    key = lambda s: (s.get("name"), s.get("version")) if isinstance(s, dict) else None  # noqa: E731
    if a and b and key(a) != key(b):
        return None, f"the readings name different servers ({key(a)} at the start, {key(b)} at the end)"
    return semantics(a or b)
