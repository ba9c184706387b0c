"""WAL / journal / redo bytes a database wrote during a phase, from its own counters (results.json
runs[].wal), and any further log a database keeps (MySQL's binary log: runs[].binlog).

D.server-stats.json holds two `node client server-stats` readings that bracket the window (just
before it opens, after the clients have exited): a log's bytes are the difference of one counter
between them. Which counter, and what it is, each database says in its folder's hooks
(databases/<db>/analysis.py: `WAL`, and `LOGS` for further logs such as MySQL's binary log), so no
database is named here. A database without such a counter, a stand-in that lacks it (SecantusDB: no
`wiredTiger` section in serverStatus), a failed reading or a counter that went down (a restart) is
null with the reason. Whatever else the server logged between the readings (a checkpoint record,
autovacuum, a purge) is included: the readings are as close to the window as the lab can take them.
"""
from ..common import databases


def _spec(spec, stats):
    """A hooks spec may depend on the server the readings name (MySQL, or MariaDB of earlier runs)."""
    if callable(spec):
        end = (stats or {}).get("end") or (stats or {}).get("start") or {}
        return spec(end.get("server") if isinstance(end.get("server"), dict) else {})
    return spec


def delta(spec, stats, phase_id, what="WAL/journal"):
    """{bytes, source, reason[, about]}: the change of spec["counter"] between the two readings."""
    none = {"bytes": None, "source": None}
    if stats is None:
        return {**none, "reason": f"{phase_id}.server-stats.json missing"}
    start, end = stats.get("start"), stats.get("end")
    if not start or not end:
        return {**none, "reason": f"a server-stats reading failed (see {phase_id}.out)"}
    spec = _spec(spec, stats)
    key, source = spec["counter"], spec["source"]
    a, b = (start.get("counters") or {}).get(key), (end.get("counters") or {}).get(key)
    if a is None or b is None:
        why = ((end.get("unavailable") or {}).get(key) or (start.get("unavailable") or {}).get(key)
               or f"the server reports no {key}")
        server = ((end.get("server") or {}) if isinstance(end.get("server"), dict) else {})
        if server.get("stand_in"):
            # Named by the server the reading came from (SecantusDB, FerretDB: neither has the counter).
            name = server.get("product") or server.get("name") or "the stand-in"
            why = f"{why}: {name} offers no {what} figure"
        return {**none, "reason": why}
    if b < a:
        return {"bytes": None, "source": source,
                "reason": f"{key} went down between the readings ({a} -> {b}): {spec.get('down', 'the server restarted')}"}
    return {"bytes": b - a, "source": source, "reason": None, "about": spec["about"]}


def wal(database, stats, phase_id=None):
    phase_id = phase_id or database
    spec = databases.hook(database, "WAL")
    if spec is None:
        return {"bytes": None, "source": None, "reason": f"no WAL/journal counter known for {database}"}
    return delta(spec, stats, phase_id)


def further_logs(database, stats, phase_id=None):
    """{name: {bytes, source, reason[, about]}} of the logs a database keeps beside its WAL (its
    hooks' LOGS: MySQL's `binlog`); {} for a database with none (its runs carry no such field)."""
    phase_id = phase_id or database
    return {name: delta(spec, stats, phase_id, spec_what)
            for name, (spec_what, spec) in (databases.hook(database, "LOGS") or {}).items()}


def of_phase(ph):
    """(wal, further logs) of a phase (bench/folder.py Phase): its server's readings at the window's edges."""
    stats = ph.server_stats()
    return wal(ph.database(), stats, ph.id), further_logs(ph.database(), stats, ph.id)
