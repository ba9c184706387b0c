"""results.json `fairness`: every difference between the databases that the lab states rather than
aligns, and the aligned settings a reader must know, read from what actually ran (D.settings.json:
the compose command lines; run.env: the bench keys). README.md's fairness table says why.

Each database's cells come from its folder (databases/<db>/analysis.py, docs/contracts.md "A
database's analysis hooks"): `fairness_cells` (its cell of each row), `fairness_terms` (what the
`aligned` column compares: a row is aligned when the baseline's pair state the same term),
`fairness_rows` (rows only it brings) and `setting` (a command-line setting it ran with, for another
database's rows). Here: which rows there are, their notes (the baseline pair's comparison, as the
original study drew it) and the retry policy the client shares (client/src/targets/txn-retry.js)."""
from ..common import databases

# a database's cell where its folder's hooks state nothing for a row (docs/layout.md step 5)
NOT_STATED = "not stated yet (the lab reads no fairness settings of this database)"
# the transaction bench keys' defaults (client/src/bench-schema.js), given to every database's hooks
TRANSACTION_DEFAULTS = {"ISOLATION": "read-committed", "RETRY": "backoff", "MAX_ATTEMPTS": "10", "SESSIONS": "4"}

# (what, note) of the rows every database states, in the table's order
ROWS = (
    ("checkpoint interval",
     "CHECKPOINT_INTERVAL_S (.env, default 60 = MongoDB's own); the original study ran PostgreSQL at 300 s"),
    ("settle between phases",
     "outside the windows; storage.before_settle keeps the sizes read before the flush (a server "
     "refusing {fsync: 1} is named in storage.settle_reason)"),
    ("replication log", "a standalone mongod writes no oplog while PostgreSQL's WAL carries what a replica needs"),
    ("compression at rest", "stated, not aligned: storage and disk bytes include it"),
    ("sort / hash memory", "query benches may set WORK_MEM"),
    ("idle CPU", "in gross CPU; per-query CPU net of idle subtracts each side's own idle rate (analysis/collect/idle.py)"),
)


def _transaction_rows(run_env):
    """WORKLOAD=booking/oltp: the isolation each side ran, the retry policy (the same client code on
    all: client/src/targets/txn-retry.js) and the sessions per client; () for other workloads."""
    if run_env.get("WORKLOAD") not in ("booking", "oltp"):
        return ()
    policy = ("backoff: 5 ms x1.5 per retry up to 500 ms, times a seeded jitter in [0.5, 1) (MongoDB's drivers "
              "specification)" if run_env["RETRY"] == "backoff" else "immediate: no delay (the original study's client)")
    return (
        ("transaction isolation",
         "PostgreSQL's REPEATABLE READ is snapshot isolation, as MongoDB's snapshot read concern; READ "
         "COMMITTED takes a new snapshot per statement (fewer conflicts); SERIALIZABLE adds SSI's checks. "
         "The study ran READ COMMITTED and SERIALIZABLE: --sweep ISOLATION=... runs each"),
        ("retries", f"{policy}; every attempt and abort counted (runs[].transactions). The study retried at once, "
                    "and on PostgreSQL only serialization failures"),
        ("sessions per client",
         "a transaction due while the others are open or retrying starts on a free one; each session's "
         "set-up statements are counted in reconciliation"),
    )


def _hook(db, name, fallback):
    return databases.hook(db, name) or fallback


def statements(settings, run_env):
    """[{what, <numerator>, <denominator>, aligned, note}] for one bench's run, and a column per
    further database that ran."""
    settings = settings or {}
    run_env = {**(run_env or {}), **{k: (run_env or {}).get(k) or v for k, v in TRANSACTION_DEFAULTS.items()}}
    pair = databases.baseline()
    cells = {db: _hook(db, "fairness_cells", lambda s, e: {})(settings.get(db), run_env) for db in pair}
    terms = {db: _hook(db, "fairness_terms", lambda s, e: {})(settings.get(db), run_env) for db in pair}
    rows = []
    for what, note in _transaction_rows(run_env) + ROWS:
        stated = [terms[db].get(what) for db in pair]
        rows.append({"what": what, **{db: cells[db].get(what, NOT_STATED) for db in pair},
                     "aligned": None not in stated and len(set(stated)) == 1, "note": note})
    return rows + _further(settings, run_env, rows)


def setting(settings):
    """`setting(db, name)` for a further database's hooks: the value of a command-line setting the
    database ran with (its hooks' `setting`: mongod's `--name value`, postgres's `-c name=value`), ""
    when it ran without it (or with its image's own command, or states no `setting`), None when it
    did not run in this bench."""
    def get(name_db, name):
        if not settings.get(name_db):
            return None
        return _hook(name_db, "setting", lambda s, n: None)(settings[name_db], name) or ""
    return get


def _further(settings, run_env, rows):
    """Each further database that ran (a settings file, beyond the baseline's pair): its cell of
    every row from its hooks' `fairness_cells` (NOT_STATED where it states none), and the rows only it
    brings (`fairness_rows`). Nothing is added to a run of the pair alone."""
    ran = [db for db, s in (settings or {}).items() if s]
    extra = []
    for db in databases.others(ran):
        cells = (databases.hook(db, "fairness_cells") or (lambda s, e: {}))(settings[db], run_env)
        for r in rows:
            r[db] = cells.get(r["what"], NOT_STATED)
        extra += (databases.hook(db, "fairness_rows") or (lambda s, e, g: []))(settings[db], run_env,
                                                                             setting(settings))
    return extra


# --- what the servers and the kernel held (runs[] `cache`, `memory_limit`: analysis/figures/memory.py) ---------
# Rows of readings, not of settings: each database's cell is what its server (or its container's
# cgroup) reported in this bench's phases. Added only when some run recorded the reading: a run
# recorded before it would get a row of "not recorded" cells that says nothing of its own.
READ_ROWS = (
    ("cache", "cache as the server holds it",
     "read by each server itself at the window's edges (server-stats `cache`: shared_buffers x block_size, "
     "@@innodb_buffer_pool_size, WiredTiger's maximum bytes configured); asked: CACHE_MB, else each database's "
     ".env setting; a server holding another size fails its phase (runs[].cache)"),
    ("memory_limit", "memory limit as the cgroup holds it",
     "read from each database container's own cgroup before the window (memory.limit_in_bytes on cgroup v1, "
     "memory.max on v2); asked: DB_MEMORY_MB, else .env's DB_MEMORY; another limit fails its phase "
     "(runs[].memory_limit)"),
)
MIB = 1 << 20


def _size(b):
    return f"{b // MIB} MiB" if b % MIB == 0 else f"{b} B"


def _read_cell(key, c):
    """One phase's cell of a reading row."""
    if c is None:
        return "not recorded"
    where = c["setting"] if key == "cache" else f"{c['file']}, cgroup {c['cgroup']}"
    asked = f"{_size(c['asked_bytes'])} ({c['asked_from']})" if c["asked_bytes"] is not None else "nothing known"
    if c["read_bytes"] is None:
        why = (c["reason"] or "").removeprefix("not checked: ")
        return f"not read: {why}; asked {asked}" if c["agrees"] is None else f"none; asked {asked}: NOT as asked"
    cell = f"{_size(c['read_bytes'])} ({where})"
    if c["agrees"] is True:
        return cell + f", as asked: {c['asked_from']}" + (f" ({c['rounding']})" if c["rounding"] and c["expected_bytes"] != c["asked_bytes"] else "")
    if c["agrees"] is False:
        return cell + f"; asked {asked}: NOT as asked"
    return cell + f"; not checked: {c['reason']}"


def read_rows(runs):
    """The reading rows ({what, <db>: cell, ..., aligned, note}) of the databases that ran, a cell per
    database (its phases' cells, each named when they differ); a database of the baseline's pair that
    did not run: "not run in this bench". [] when no run recorded either reading."""
    dbs = list(dict.fromkeys(r["database"] for r in runs))
    rows = []
    for key, what, note in READ_ROWS:
        if not any(key in r for r in runs):
            continue
        row = {"what": what}
        values = []
        for db in list(databases.baseline()) + databases.others(dbs):
            phases = [r for r in runs if r["database"] == db]
            if not phases:
                row[db] = "not run in this bench"
                continue
            cells = {r["phase"]: _read_cell(key, r.get(key)) for r in phases}
            distinct = list(dict.fromkeys(cells.values()))
            row[db] = distinct[0] if len(distinct) == 1 else "; ".join(f"{ph}: {c}" for ph, c in cells.items())
            values += [(r.get(key) or {}).get("read_bytes") for r in phases]
        # aligned: every database that ran held the same size, each one read
        row.update(aligned=None not in values and len(set(values)) == 1, note=note)
        rows.append(row)
    return rows


def report_lines(result):
    """report.md's fairness statements (empty without them)."""
    rows = result.get("fairness") or []
    if not rows:
        return []
    # a database beyond the pair ran: its column holds what its folder's hooks read from what ran, or
    # says that nothing is stated for it (never a guess)
    others = databases.others(r["database"] for r in result.get("runs") or [])
    pair = list(databases.baseline())
    aligned = "aligned" if not others else f"aligned ({', '.join(pair)})"
    lines = ["## Fairness: differences stated", "",
             "| what | " + "".join(f"{db} | " for db in pair + others) + f"{aligned} | note |",
             "|---|" + "---|" * len(pair + others) + "---|---|"]
    for r in rows:
        lines.append(f"| {r['what']} | " + "".join(f"{r[db]} | " for db in pair)
                     + "".join(f"{r.get(db, NOT_STATED)} | " for db in others)
                     + f"{'yes' if r['aligned'] else 'no'} | {r['note']} |")
    return lines + [""]
