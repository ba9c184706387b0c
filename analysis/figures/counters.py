"""What each server's operation counters count, by server and version: the one place reconcile.py asks.

A server-stats reading names its server (`server: {name, version}`, name "mongod" | "secantus" |
"postgres" | "mysql"); the database whose manifest names that server (`server_stats_name`) says
what its counters mean. The same counter name means different things on different servers and
versions, so reconciliation reads a counter only through these tables; a counter a server does not
offer, or offers with another meaning, is null with the reason there, never reinterpreted.

Sources, per row: in each database's folder, databases/<db>/analysis.py `counter_semantics`
(mongod and SecantusDB: databases/mongodb; postgres; mysql and MariaDB: databases/mysql).
"""
from ..common import databases

UNKNOWN = ("server unknown: the server-stats reading names no server (server.name); an older run "
           "or FerretDB, whose counters the lab does not interpret")


def semantics(server):
    """(table, None) for a server the lab can read, else (None, reason). server: the reading's
    `server` object ({name, version, ...}) or None."""
    name = (server or {}).get("name") if isinstance(server, dict) else None
    if not name:
        return None, UNKNOWN
    # the database's folder holds its counters' meanings (databases/<db>/analysis.py)
    hook = databases.hook(databases.of_server_stats_name(name), "counter_semantics")
    if hook is not None:
        return hook(server)
    return None, f"no counter semantics recorded for server {name!r} (no databases/<db>/analysis.py names it)"


def of_readings(stats):
    """The semantics of a {start, end} pair of readings; both must name the same server."""
    start, end = (stats or {}).get("start") or {}, (stats or {}).get("end") or {}
    a, b = start.get("server"), end.get("server")
    key = lambda s: (s.get("name"), s.get("version")) if isinstance(s, dict) else None  # noqa: E731
    if a and b and key(a) != key(b):
        return None, f"the readings name different servers ({key(a)} at the start, {key(b)} at the end)"
    return semantics(a or b)
