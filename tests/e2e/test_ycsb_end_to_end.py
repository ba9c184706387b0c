"""A short YCSB-A bench through ./runme.sh on the real stack: a load phase then a run phase per
database, per-operation figures, WAL bytes (PostgreSQL; the SecantusDB stand-in: the reason), the report with
its timeline plot. Figures are checked against the servers' own counters and the clients' files."""
import json
import subprocess

import pytest

from conftest import LAB_ROOT, remove_project, results_of, runme_watched, write_bench
from foreign_load import ForeignLoads, assert_suspect_by, run_entry

CLIENTS, RECORDS, OPS = 2, 400, 300
YCSB_BENCH = f"""\
DESCRIPTION="end-to-end YCSB-A"
KEY=uuidv7
LAYOUT=clustered
FIELDS=10
FIELD_BYTES=100
CLIENTS={CLIENTS}
RATE=50
WORKLOAD=ycsb
MIX=A
RECORDS={RECORDS}
OPS={OPS}
SEED=7
QUIET_S=0
PERF_RECORD_S=0
"""
PHASES = ["mongodb-load", "mongodb", "postgres-load", "postgres"]
# The same YCSB-A, smaller, under foreign work in its run phases (issue 16): a foreign read loop on
# each database; on PostgreSQL also work on another database of the cluster (foreign_load.py).
FOREIGN = "bench-e2e-ycsb-foreign"
FOREIGN_BENCH = YCSB_BENCH.replace(f"RECORDS={RECORDS}", "RECORDS=200").replace(f"OPS={OPS}", "OPS=100") \
    .replace('"end-to-end YCSB-A"', '"end-to-end YCSB-A under foreign work"')
FOREIGN_LOADS = {(FOREIGN, "mongodb"): ("loop",), (FOREIGN, "postgres"): ("loop", "cluster")}


@pytest.fixture(scope="module")
def ycsb_runs(workdir):
    """One runme.sh run of both benches: the clean one, then the one under foreign work."""
    remove_project()
    clean = write_bench(workdir, "bench-e2e-ycsb", YCSB_BENCH)
    foreign = write_bench(workdir, FOREIGN, FOREIGN_BENCH)
    loads = ForeignLoads(FOREIGN_LOADS)
    try:
        proc = runme_watched(workdir, str(clean), str(foreign), log="runme-ycsb.log", on_line=loads.on_line)
    finally:
        loads.close()
    print(loads.out)
    yield (clean, results_of(clean)), (foreign, results_of(foreign)), proc, loads
    remove_project()


@pytest.fixture(scope="module")
def ycsb_run(ycsb_runs):
    (bench, results), _, proc, _ = ycsb_runs
    return bench, proc, results


def runs(results):
    return {r["phase"]: r for r in results["runs"]}


def test_runs_load_then_run_per_database_with_its_own_files(ycsb_run):
    bench, proc, results = ycsb_run
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert results["complete"], results["incomplete"]
    assert [r["phase"] for r in results["runs"]] == PHASES
    for r in results["runs"]:
        assert r["stage"] == ("load" if r["phase"].endswith("-load") else "run") and r["workload"] == "ycsb"
        manifest = json.loads((bench / f"{r['phase']}.phase.json").read_text())
        assert manifest["phase"] == r["phase"] and manifest["stage"] == r["stage"]
        for suffix in (".out", ".server-stats.json", ".count.json", ".metrics.json"):
            assert (bench / f"{r['phase']}{suffix}").exists(), suffix
        for i in range(1, CLIENTS + 1):
            client = json.loads((bench / "clients" / f"{r['phase']}-client-{i}.json").read_text())
            assert client["stage"] == r["stage"]
        assert r["status"] == "ok", (r["phase"], r["reason"])
    # the lab planned the run as data (plan.json, checked against its schema by analysis/bench/plan.py) and
    # ran its phases, each client with the plan's stage
    from analysis.bench import plan
    planned = plan.read(str(bench))
    assert [p["id"] for p in planned["phases"]] == PHASES and planned["settings"]["values"]["OPS"] == OPS
    assert planned["repetitions"] == 1 and [d["name"] for d in planned["databases"]] == ["mongodb", "postgres"]
    # plan.json is the only plan a new run writes; results.json's config.run is its keys as written
    assert not (bench / "run.env").exists() and not (bench / "plan.txt").exists()
    assert results["config"]["run"] == planned["settings"]["given"] and results["config"]["run"]["OPS"] == str(OPS)
    # the load phases' windows come before their run phases' on the same database
    by = runs(results)
    for db in ("mongodb", "postgres"):
        assert by[f"{db}-load"]["window"]["end"] < by[db]["window"]["start"]


def test_load_phase_is_reported_as_insert_costs(ycsb_run):
    _, _, results = ycsb_run
    for db in ("mongodb", "postgres"):
        load = runs(results)[f"{db}-load"]
        assert list(load["operations"]) == ["insert"]
        assert load["operations"]["insert"]["ok"] == RECORDS == load["docs_in_db"]
        assert load["per_doc"]["cpu_us"] > 0 and load["per_op"]["op"] == "insert"
    mongo, pg = runs(results)["mongodb-load"], runs(results)["postgres-load"]
    assert results["load_ratios"]["cpu_us"] == pytest.approx(mongo["per_doc"]["cpu_us"] / pg["per_doc"]["cpu_us"])


def test_run_phase_per_operation_figures(ycsb_run):
    _, _, results = ycsb_run
    for db in ("mongodb", "postgres"):
        r = runs(results)[db]
        ops = r["operations"]
        assert set(ops) == {"read", "update"}
        total = sum(o["ok"] + o["errors"] + o["dropped"] for o in ops.values())
        assert total == CLIENTS * OPS
        for op, o in ops.items():
            assert o["ok"] > 0 and o["errors"] == 0
            assert o["ok"] == o["latency_count"]  # an error records no latency (client/src/runner.js)
            assert 0 < o["latency_ms"]["p50"] <= o["latency_ms"]["p99"] <= o["latency_ms"]["max"]
        # A = read 50 / update 50 over 600 operations: well within 40..60%
        assert 0.4 < ops["read"]["ok"] / total < 0.6
        assert r["docs_in_db"] == RECORDS  # reads and updates insert nothing
        p = r["per_op"]
        assert p["ops"] == sum(o["ok"] for o in ops.values()) and p["op"] is None and p["mix"]
        assert p["cpu_us"] > 0 and p["net_bytes"] > 0
        assert r["per_doc"]["cpu_us"] is None and r["per_doc"]["reason"]


def test_operation_counts_match_the_servers_own_counters(ycsb_run):
    """Independent of the clients: PostgreSQL's n_tup_upd moved by exactly the acknowledged updates;
    the MongoDB side's finds and updates by the reads and updates."""
    _, _, results = ycsb_run
    pg = runs(results)["postgres"]
    rec = pg["reconciliation"]
    assert rec["checks"]["rows_changed"]["observed"] == pg["operations"]["update"]["ok"], rec["checks"]
    assert rec["verdict"] == "ok", rec["reasons"]
    mg = runs(results)["mongodb"]["reconciliation"]
    assert mg["verdict"] == "ok", mg["reasons"]
    assert mg["checks"]["other_writes"]["observed"] >= runs(results)["mongodb"]["operations"]["update"]["ok"]


def test_wal_bytes_postgres_and_the_mongodb_side(ycsb_run):
    bench, _, results = ycsb_run
    for phase in ("postgres-load", "postgres"):
        r = runs(results)[phase]
        stats = json.loads((bench / f"{phase}.server-stats.json").read_text())
        assert r["wal"]["source"] == "pg_current_wal_lsn"
        assert r["wal"]["bytes"] == stats["end"]["counters"]["wal_bytes"] - stats["start"]["counters"]["wal_bytes"] > 0
        assert r["per_op"]["wal_bytes"] == pytest.approx(r["wal"]["bytes"] / r["per_op"]["ops"])
    # the load writes ~1.1 KB documents: at least that much WAL per insert
    assert runs(results)["postgres-load"]["per_op"]["wal_bytes"] > 1000
    mg = runs(results)["mongodb"]
    if mg["stand_in"]:
        # SecantusDB's serverStatus has no wiredTiger section: no journal bytes, null with the reason.
        assert mg["wal"]["bytes"] is None and "wiredTiger" in mg["wal"]["reason"], mg["wal"]
    else:
        assert mg["wal"]["source"] == "wiredTiger.log" and mg["wal"]["bytes"] > 0


def test_timeline_adds_up_to_the_operations(ycsb_run):
    _, _, results = ycsb_run
    for r in results["runs"]:
        seconds = r["timeline"]["seconds"]
        assert seconds, r["timeline"].get("reason")
        for op, o in r["operations"].items():
            assert sum(s["ops"].get(op, {}).get("ok", 0) for s in seconds) == o["ok"], (r["phase"], op)
        # at 2 x 50 ops/s for 6 s the clients' seconds lie inside the window
        assert r["window"]["start"] - 1 <= seconds[0]["t"] and seconds[-1]["t"] <= r["window"]["end"]


def test_report_opens_with_the_answer_and_has_the_timeline_plot(ycsb_run):
    bench, _, results = ycsb_run
    text = (bench / "report.md").read_text()
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections[0] == "## The answer", sections
    assert "- **read**:" in text and "- **update**:" in text and "**WAL/journal**" in text
    assert "(plots/timeline.png)" in text
    png = bench / "plots" / "timeline.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    # the check table has the new rows, each with a figure or a reason
    out = subprocess.run([str(LAB_ROOT / ".venv" / "bin" / "python"), "-m", "analysis", "check", "--bench-dir", str(bench)],
                         cwd=LAB_ROOT, capture_output=True, text=True)
    assert "WAL/journal bytes" in out.stdout and "timeline per second" in out.stdout
    assert "PASS" in out.stdout.splitlines()[-1], out.stdout[-3000:]


@pytest.mark.parametrize("db", ["mongodb", "postgres"])
def test_a_ycsb_run_phase_under_foreign_work_is_suspect(ycsb_runs, db):
    """Clean, the run phases above are ok; with a foreign read loop (and on PostgreSQL work on
    another database of the cluster) during the run phase, that phase is suspect, flagged by what
    each load did, while its load phase, without foreign work, stays ok."""
    _, (bench, results), proc, loads = ycsb_runs
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert results["complete"], results["incomplete"]
    assert run_entry(results, f"{db}-load")["status"] == "ok", run_entry(results, f"{db}-load")["reason"]
    kinds = FOREIGN_LOADS[(FOREIGN, db)]
    if "cluster" in kinds:
        assert loads.out[(FOREIGN, db, "cluster")].startswith("done generate_series"), loads.out
    assert_suspect_by(results, db, proc.stdout, kinds, loads.loop_queries(FOREIGN, db))
    assert "**SUSPECT:**" in (bench / "report.md").read_text().split("\n## ")[0]  # above the first section


def test_read_io_per_operation_from_the_servers_and_the_kernel(ycsb_run):
    """runs[].read_io (analysis/figures/read_io.py) on the lab's own run: the probe read every process
    of each database container at the window's marks (phase.json process_io), so the kernel's figures
    are there; PostgreSQL's blks_read x block_size is the readings' difference; SecantusDB has no
    WiredTiger counter (null with the reason)."""
    bench, _, results = ycsb_run
    for phase, r in runs(results).items():
        doc = json.loads((bench / f"{phase}.phase.json").read_text())
        io = r["read_io"]
        assert io["ops"] == r["per_op"]["ops"] > 0
        k = io["kernel"]
        assert k["reason"] is None, (phase, k)
        marks = doc["process_io"]
        assert marks["start"]["processes"] and marks["end"]["processes"], phase
        # the figures are the sums' difference (no process of the container ended in these windows)
        assert k["processes"]["ended"] == [], (phase, k["processes"])
        for f in ("read_bytes", "rchar"):
            want = sum(p[f] for p in marks["end"]["processes"]) - sum(p[f] for p in marks["start"]["processes"])
            assert k[f]["bytes"] == want >= 0, (phase, f, k)
            assert k[f]["per_op"] == pytest.approx(want / io["ops"])
    pg = runs(results)["postgres"]
    stats = json.loads((bench / "postgres.server-stats.json").read_text())
    blks = pg["read_io"]["server"]["blks_read"]
    assert blks["source"] == "pg_stat_database.blks_read x block_size" and blks["reason"] is None
    assert blks["bytes"] == (stats["end"]["counters"]["blks_read"] - stats["start"]["counters"]["blks_read"]) \
        * stats["end"]["counters"]["block_size_bytes"]
    assert pg["read_io"]["reads"] == pg["operations"]["read"]["ok"]
    mg = runs(results)["mongodb"]["read_io"]["server"]["wt_cache_read"]
    if runs(results)["mongodb"]["stand_in"]:
        assert mg["bytes"] is None and "wiredTiger.cache" in mg["reason"], mg
    else:
        assert mg["bytes"] is not None and mg["reason"] is None, mg
