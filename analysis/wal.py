"""WAL / journal bytes a database wrote during a phase, from its own counters (results.json runs[].wal).

D.server-stats.json holds two `node client server-stats` readings that bracket the window (just
before it opens, after the clients have exited): the difference of
- PostgreSQL `wal_bytes` = pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0'): WAL inserted, full-page
  images and TOAST included (source "pg_current_wal_lsn");
- MongoDB `wt_log_bytes_written` = serverStatus().wiredTiger.log["log bytes written"]: the journal
  (source "wiredTiger.log").
The stand-ins have no such counter (FerretDB: SQLite/PostgreSQL behind it; SecantusDB: no
`wiredTiger` section in serverStatus): null with the reader's reason and the server's name. Whatever else the server logged between the readings (a checkpoint record, autovacuum) is
included: the readings are as close to the window as the lab can take them.
"""
COUNTER = {"postgres": ("wal_bytes", "pg_current_wal_lsn"), "mongodb": ("wt_log_bytes_written", "wiredTiger.log")}


def wal(database, stats, phase_id=None):
    phase_id = phase_id or database
    if database not in COUNTER:
        return {"bytes": None, "source": None, "reason": f"no WAL/journal counter known for {database}"}
    key, source = COUNTER[database]
    if stats is None:
        return {"bytes": None, "source": None, "reason": f"{phase_id}.server-stats.json missing"}
    start, end = stats.get("start"), stats.get("end")
    if not start or not end:
        return {"bytes": None, "source": None,
                "reason": f"a server-stats reading failed (see {phase_id}.out)"}
    a, b = (start.get("counters") or {}).get(key), (end.get("counters") or {}).get(key)
    if a is None or b is None:
        why = ((end.get("unavailable") or {}).get(key) or (start.get("unavailable") or {}).get(key)
               or f"the server reports no {key}")
        server = ((end.get("server") or {}) if isinstance(end.get("server"), dict) else {})
        if server.get("stand_in") or "FerretDB" in str(why):
            # Named by the server the reading came from (FerretDB, SecantusDB: neither has the counter).
            name = server.get("product") or server.get("name") or "the stand-in"
            why = f"{why}: {name} offers no WAL/journal figure"
        return {"bytes": None, "source": None, "reason": why}
    if b < a:
        return {"bytes": None, "source": source,
                "reason": f"{key} went down between the readings ({a} -> {b}): the server restarted"}
    return {"bytes": b - a, "source": source, "reason": None}
