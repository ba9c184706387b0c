"""A YCSB bench folder as the lab writes it (docs/contracts.md §4, ISSUE10 result-file contract),
built from the recorded ci-standin-run fixture: per database a load phase (`<db>-load`, inserts)
and a run phase (`<db>`, a read/update mix). The client result files are generated from known
latencies, kept in `RAW` so tests compare the merged figures with an independent computation."""
import json
import os
import random
import shutil

from hdrh.histogram import HdrHistogram

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
BASE = os.path.join(FIXTURES, "ci-standin-run")
SERVER_STATS = {"postgres": os.path.join(FIXTURES, "reconcile", "postgres-clean", "server-stats.json"),
                "mongodb": os.path.join(FIXTURES, "reconcile", "ferretdb-clean", "server-stats.json")}
CLIENTS = 2
RECORDS = 400
OPS = 300  # per client
MIX = {"read": 50, "update": 50}


def _hist(values_us):
    h = HdrHistogram(1, 60_000_000, 3)
    for v in values_us:
        h.record_value(v)
    return h.encode().decode() if isinstance(h.encode(), bytes) else h.encode()


def _client(phase, database, stage, client_id, t0, rng):
    """One client result file and its raw events [(op, t, latency_us, ok)]."""
    if stage == "load":
        n = RECORDS // CLIENTS
        plan = ["insert"] * n
    else:
        n = OPS
        plan = [rng.choices(list(MIX), weights=list(MIX.values()))[0] for _ in range(n)]
    events = []
    for i, op in enumerate(plan):
        t = t0 + i // 50  # 50 operations a second
        base = {"insert": 900, "read": 300, "update": 700}[op] * (2 if database == "postgres" else 1)
        lat = int(rng.lognormvariate(0, 0.5) * base) + 1
        ok = not (op == "update" and i % 97 == 13)  # a few failed updates
        events.append((op, t, lat, ok))
    ops = {}
    for op in dict.fromkeys(plan):
        mine = [e for e in events if e[0] == op]
        oks = [e for e in mine if e[3]]
        # as client/src/runner.js sendOne: a latency is recorded for a successful operation only
        ops[op] = {"ok": len(oks), "errors": len(mine) - len(oks), "dropped": 0,
                   "docs": len(oks), "latency_ms": {},
                   "histograms": {"latency_us": _hist([e[2] for e in oks]),
                                  "service_us": _hist([max(1, e[2] - 50) for e in oks])}}
    seconds = []
    for t in sorted({e[1] for e in events}):
        per = {}
        for op in dict.fromkeys(e[0] for e in events if e[1] == t):
            sel = [e for e in events if e[1] == t and e[0] == op]
            per[op] = {"ok": sum(1 for e in sel if e[3]), "errors": sum(1 for e in sel if not e[3]),
                       "latency_us": _hist([e[2] for e in sel if e[3]])}
        seconds.append({"t": t, "ops": per})
    ok = sum(1 for e in events if e[3])
    result = {
        "bench": "ycsb-fixture", "database": database, "client_id": str(client_id),
        "workload": "ycsb", "stage": stage, "phase": phase, "ops_target": n, "docs_target": n,
        "docs_ok": ok, "errors": n - ok, "dropped": 0, "not_sent": 0,
        "records": RECORDS, "scan_max": 100, "shape": {"name": "flat"},
        "dist": {"name": "zipfian", "theta": 0.99},
        "server": ({"product": "PostgreSQL", "version": "15.14", "stand_in": True} if database == "postgres"
                   else {"product": "FerretDB", "version": "v1.24.0", "stand_in": True}),
        "target_rate": 50, "achieved_rate": 50.0, "target_sustained": True, "interrupted": False,
        "reconnects": 0,
        "histograms": {"latency_us": _hist([e[2] for e in events if e[3]]), "service_us": _hist([e[2] for e in events if e[3]])},
        "operations": ops,
        "timeline": {"interval_s": 1, "seconds": seconds},
    }
    if stage == "run":
        result["mix"] = dict(MIX)
    return result, events


def build(dest):
    """Writes the bench into dest; returns RAW: {phase: [(client, op, t, latency_us, ok), ...]}."""
    os.makedirs(os.path.join(dest, "clients"), exist_ok=True)
    os.makedirs(os.path.join(dest, "timeseries"), exist_ok=True)
    rng = random.Random(10)
    raw = {}
    shutil.copy(os.path.join(BASE, "host.json"), dest)
    env = ('DESCRIPTION="ycsb fixture"\nKEY=uuidv7\nLAYOUT=clustered\nFIELDS=10\nFIELD_BYTES=100\nCLIENTS=2\n'
           f'RATE=50\nWORKLOAD=ycsb\nMIX=A\nRECORDS={RECORDS}\nOPS={OPS}\nQUIET_S=3\nPERF_RECORD_S=5\n')
    for name in ("bench.env", "run.env"):
        with open(os.path.join(dest, name), "w") as f:
            f.write(env)
    for db in ("mongodb", "postgres"):
        shutil.copy(os.path.join(BASE, f"{db}.settings.json"), dest)
        for phase, stage in ((f"{db}-load", "load"), (db, "run")):
            for ext in ("metrics.json", "perfstat.csv", "out"):
                shutil.copy(os.path.join(BASE, f"{db}.{ext}"), os.path.join(dest, f"{phase}.{ext}"))
            # the profile of a clean recording: ci-standin-run's holds a healthcheck's samples
            shutil.copy(os.path.join(FIXTURES, "bench1", f"{db}.perf"), os.path.join(dest, f"{phase}.perf"))
            shutil.copy(os.path.join(BASE, "timeseries", f"{db}.csv.gz"),
                        os.path.join(dest, "timeseries", f"{phase}.csv.gz"))
            with open(SERVER_STATS[db]) as f:
                stats = json.load(f)
            with open(os.path.join(BASE, f"{db}.phase.json")) as f:
                manifest = json.load(f)
            manifest.update(phase=phase, stage=stage)
            with open(os.path.join(dest, f"{phase}.phase.json"), "w") as f:
                json.dump(manifest, f)
            with open(os.path.join(BASE, f"{db}.count.json")) as f:
                count = json.load(f)
            count["documents"] = RECORDS  # a read/update mix inserts nothing
            with open(os.path.join(dest, f"{phase}.count.json"), "w") as f:
                json.dump(count, f)
            t0 = int(manifest["window"]["start"]) + 5
            raw[phase] = []
            for c in range(1, CLIENTS + 1):
                result, events = _client(phase, db, stage, c, t0, rng)
                raw[phase] += [(c,) + e for e in events]
                with open(os.path.join(dest, "clients", f"{phase}-client-{c}.json"), "w") as f:
                    json.dump(result, f)
            if stage == "run":
                _as_mix(db, stats, raw[phase])
            if db == "mongodb":
                _as_mongod(stats)
            with open(os.path.join(dest, f"{phase}.server-stats.json"), "w") as f:
                json.dump(stats, f)
    return raw


def _as_mix(db, stats, events):
    """The recorded insert phase's server counters turned into a read/update phase's: the
    recorded inserts become the mix's reads and updates (same number of statements)."""
    start, end = stats["start"], stats["end"]
    reads = sum(1 for e in events if e[1] == "read" and e[4])
    updates = sum(1 for e in events if e[1] == "update" and e[4])
    if db == "postgres":
        c0, c1 = start["counters"], end["counters"]
        inserted = c1["user_n_tup_ins"] - c0["user_n_tup_ins"]
        c1["user_n_tup_ins"] = c0["user_n_tup_ins"]
        c1["user_n_tup_upd"] = c0["user_n_tup_upd"] + updates
        # one transaction per operation (failed updates roll back)
        c1["xact_commit"] += reads + updates - inserted
        c1["xact_rollback"] += sum(1 for e in events if not e[4])
    else:
        m0, m1 = start["commands"], end["commands"]
        m1["insert"] = m0.get("insert", 0)
        m1["find"] = m0.get("find", 0) + reads
        m1["update"] = m0.get("update", 0) + updates


def _as_mongod(stats):
    """The FerretDB readings (per-command totals only) as mongod 8.0 reports them: opcounters with
    the same work (insert per document, find as query, update per statement, the rest as command),
    connections, and the server's name (counters are read by server: databases/<db>/analysis.py). Its journal
    bytes stay unavailable with FerretDB's reason."""
    for edge in ("start", "end"):
        r = stats[edge]
        m = r["commands"]
        r["server"] = {"name": "mongod", "version": "8.0.4"}
        r["counters"].update({
            "opcounters_insert": m.get("insert", 0), "opcounters_query": m.get("find", 0),
            "opcounters_update": m.get("update", 0), "opcounters_delete": 0, "opcounters_getmore": 0,
            "opcounters_command": sum(v for k, v in m.items() if k not in ("insert", "find", "update")),
            "connections_current": 2, "connections_total_created": 100 + (9 if edge == "end" else 0)})
        # what the recorded FerretDB reading lacks beyond these (its journal bytes) stays unavailable
        r["unavailable"] = {k: v for k, v in r["unavailable"].items() if not k.startswith(("opcounters_", "connections_"))}
