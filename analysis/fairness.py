"""results.json `fairness`: every difference between the two sides that the lab states rather than
aligns, and the aligned settings a reader must know, read from what actually ran (D.settings.json:
the compose command lines; run.env: the bench keys). README.md's fairness table says why."""
from . import databases

PG_DEFAULT_WORK_MEM = "4MB"          # PostgreSQL's default, unchanged by the official image
PG_DEFAULT_CHECKPOINT_TIMEOUT = "300s"
MONGO_DEFAULT_SYNCDELAY = "60"       # storage.syncPeriodSecs
MONGO_BLOCKING_STAGE_MB = 100        # internalQueryMaxBlockingSortMemoryUsageBytes, $group's limit
# a further database's cell where its folder's hooks (databases/<db>/analysis.py `fairness_cells`)
# state nothing for a row (docs/layout.md step 5)
NOT_STATED = "not stated yet (the lab reads no fairness settings of this database)"


def _command(settings, db):
    cmd = ((settings or {}).get(db) or {}).get("command")
    return [str(a) for a in cmd] if isinstance(cmd, list) else None


def _flag(cmd, name):
    """mongod's `--name value` / `--name=value`."""
    for i, a in enumerate(cmd or []):
        if a == name and i + 1 < len(cmd):
            return cmd[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def _pg_setting(cmd, name):
    """postgres's `-c name=value`."""
    for a in cmd or []:
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def _stand_in(settings, db):
    labels = ((settings or {}).get(db) or {}).get("labels") or {}
    return labels.get("jsonbench.stand_in")


def statements(settings, run_env):
    """[{what, mongodb, postgres, aligned, note}] for one bench's run."""
    run_env = run_env or {}
    mcmd, pcmd = _command(settings, "mongodb"), _command(settings, "postgres")
    m_si = _stand_in(settings, "mongodb")

    def mongo(value, default):
        if m_si:
            return f"stand-in ({m_si}): mongod's behaviour does not apply"
        if mcmd is None:
            return "not run in this bench"
        return value if value is not None else default

    def pg(value, default):
        return "not run in this bench" if pcmd is None else (value if value is not None else default)

    syncdelay = _flag(mcmd, "--syncdelay")
    timeout = _pg_setting(pcmd, "checkpoint_timeout")
    work_mem = run_env.get("WORK_MEM") or PG_DEFAULT_WORK_MEM
    repl = _flag(mcmd, "--replSet")
    rows = _transactions(run_env, pg, m_si, bool((settings or {}).get("mongodb"))) + [
        {"what": "checkpoint interval",
         "mongodb": mongo(syncdelay and f"{syncdelay} s (--syncdelay)", f"{MONGO_DEFAULT_SYNCDELAY} s (default)"),
         "postgres": pg(timeout and f"checkpoint_timeout={timeout}", f"checkpoint_timeout={PG_DEFAULT_CHECKPOINT_TIMEOUT} (default)"),
         "aligned": syncdelay is not None and timeout is not None and timeout.rstrip("s") == syncdelay,
         "note": "CHECKPOINT_INTERVAL_S (.env, default 60 = MongoDB's own); the original study ran PostgreSQL at 300 s"},
        {"what": "settle between phases",
         "mongodb": mongo(None, "{fsync: 1} after each load phase, before each query phase and before each storage read"),
         "postgres": "VACUUM (ANALYZE) + CHECKPOINT after each load phase and before each query phase; CHECKPOINT before each storage read",
         "aligned": not m_si,
         "note": "outside the windows; storage.before_settle keeps the sizes read before the flush (a server "
                 "refusing {fsync: 1} is named in storage.settle_reason)"},
        {"what": "replication log",
         "mongodb": mongo(repl and f"replica set {repl}: oplog written", "standalone: no oplog"),
         "postgres": pg(_pg_setting(pcmd, "wal_level") and f"wal_level={_pg_setting(pcmd, 'wal_level')}",
                        "wal_level=replica (default)"),
         "aligned": bool(repl),
         "note": "a standalone mongod writes no oplog while PostgreSQL's WAL carries what a replica needs"},
        {"what": "compression at rest",
         "mongodb": mongo(None, "WiredTiger: snappy on every collection block, prefix compression of indexes"),
         "postgres": "TOAST (pglz) only for rows over ~2 kB; heap and index pages uncompressed",
         "aligned": False, "note": "stated, not aligned: storage and disk bytes include it"},
        {"what": "sort / hash memory",
         "mongodb": mongo(None, f"{MONGO_BLOCKING_STAGE_MB} MB per blocking stage, spilling beyond"),
         "postgres": f"work_mem={work_mem} per sort/hash node" + (" (default)" if work_mem == PG_DEFAULT_WORK_MEM else " (WORK_MEM)"),
         "aligned": work_mem == f"{MONGO_BLOCKING_STAGE_MB}MB",
         "note": "query benches may set WORK_MEM"},
        {"what": "idle CPU",
         "mongodb": mongo(None, "always-on FTDC (1 s diagnostic sampling) and WiredTiger's threads"),
         "postgres": "background writer, checkpointer, WAL writer, autovacuum launcher",
         "aligned": False,
         "note": "in gross CPU; per-query CPU net of idle subtracts each side's own idle rate (analysis/idle.py)"},
    ]
    return rows + _further(settings, run_env, rows)


def setting(settings):
    """`setting(db, name)` for a further database's hooks: the value of a command-line setting the
    database ran with (mongod's `--name value`, postgres's `-c name=value`), "" when it ran without
    it (or with its image's own command), None when it did not run in this bench."""
    def get(name_db, name):
        if not (settings or {}).get(name_db):
            return None
        cmd = _command(settings, name_db)
        return (_flag(cmd, name) if name.startswith("--") else _pg_setting(cmd, name)) or ""
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


PG_ISOLATION = {"read-committed": "READ COMMITTED", "repeatable-read": "REPEATABLE READ", "serializable": "SERIALIZABLE"}


def _transactions(run_env, pg, m_si, mongo_ran):
    """WORKLOAD=booking/oltp: the isolation each side ran, the retry policy (the same client code on
    both: client/src/targets/txn-retry.js) and the sessions per client; [] for other workloads."""
    if run_env.get("WORKLOAD") not in ("booking", "oltp"):
        return []
    iso = run_env.get("ISOLATION") or "read-committed"
    retry = run_env.get("RETRY") or "backoff"
    attempts = run_env.get("MAX_ATTEMPTS") or "10"
    sessions = run_env.get("SESSIONS") or "4"
    on_stand_in = f" (as the stand-in {m_si} implements it)" if m_si else ""

    def mongo(text):
        return text + on_stand_in if mongo_ran else "not run in this bench"
    policy = ("backoff: 5 ms x1.5 per retry up to 500 ms, times a seeded jitter in [0.5, 1) (MongoDB's drivers "
              "specification)" if retry == "backoff" else "immediate: no delay (the original study's client)")
    return [
        {"what": "transaction isolation",
         "mongodb": mongo("snapshot read concern, majority write concern, on a one-member replica set"),
         "postgres": pg(None, f"{PG_ISOLATION.get(iso, iso)} (ISOLATION={iso})"),
         "aligned": iso == "repeatable-read",
         "note": "PostgreSQL's REPEATABLE READ is snapshot isolation, as MongoDB's snapshot read concern; READ "
                 "COMMITTED takes a new snapshot per statement (fewer conflicts); SERIALIZABLE adds SSI's checks. "
                 "The study ran READ COMMITTED and SERIALIZABLE: --sweep ISOLATION=... runs each"},
        {"what": "retries",
         "mongodb": mongo(f"TransientTransactionError: the whole transaction; UnknownTransactionCommitResult: the "
                          f"commit; RETRY={retry}, MAX_ATTEMPTS={attempts}"),
         "postgres": pg(None, f"40001 serialization_failure and 40P01 deadlock_detected: the whole transaction; "
                               f"RETRY={retry}, MAX_ATTEMPTS={attempts}"),
         "aligned": True,
         "note": f"{policy}; every attempt and abort counted (runs[].transactions). The study retried at once, "
                 "and on PostgreSQL only serialization failures"},
        {"what": "sessions per client",
         "mongodb": mongo(f"SESSIONS={sessions} connections, one session each"),
         "postgres": pg(None, f"SESSIONS={sessions} connections"),
         "aligned": True,
         "note": "a transaction due while the others are open or retrying starts on a free one; each session's "
                 "set-up statements are counted in reconciliation"},
    ]


def report_lines(result):
    """report.md's fairness statements (empty without them)."""
    rows = result.get("fairness") or []
    if not rows:
        return []
    # a database beyond the pair ran: its column holds what its folder's hooks read from what ran, or
    # says that nothing is stated for it (never a guess)
    others = databases.others(r["database"] for r in result.get("runs") or [])
    aligned = "aligned" if not others else "aligned (mongodb, postgres)"
    lines = ["## Fairness: differences stated", "",
             "| what | mongodb | postgres | " + "".join(f"{db} | " for db in others) + f"{aligned} | note |",
             "|---|---|---|" + "---|" * len(others) + "---|---|"]
    for r in rows:
        lines.append(f"| {r['what']} | {r['mongodb']} | {r['postgres']} | "
                     + "".join(f"{r.get(db, NOT_STATED)} | " for db in others)
                     + f"{'yes' if r['aligned'] else 'no'} | {r['note']} |")
    return lines + [""]
