"""A short query bench through ./runme.sh: a few thousand generated events loaded into the three
databases (MongoDB, PostgreSQL, MySQL), then two query types in their own windows (olap-a, which all
answer, and olap-lookup, whose $lookup sub-pipeline the SecantusDB stand-in refuses), K executions
each. results.json gets runs[].query and the top-level `queries` comparison (MySQL's answers equal
by digest, its figures set against PostgreSQL's), report.md its Queries section with links to the
plan files, and each window holds exactly K executions: counted from the client's result file and
from the server's own counters. Then the same events from a DATASET file (gzip NDJSON): loaded into
MongoDB and PostgreSQL, the same answers as generated."""
import json
import subprocess

import pytest

from conftest import LAB_ROOT, bench_fixture

# 40 executions of a ~4 ms query (PostgreSQL, 3000 events) hold ~0.16 s of CPU: well above what the idle
# rate (0.001-0.005 cores) x the ~14 s window resolves; 5 executions were below it on a CI run, and the
# net figure was then rightly null
K = 40
# The quiet period is the idle reading the net CPU figure needs (2 s of samples at least) with the
# window's first guard: the guard alone (5 s) held only 1.7 s of samples on a busy CI host, and a 3 s
# quiet period with it only 2.0 s once (cAdvisor's samples ~2.5 s apart under load, and a pair counts
# only inside one interval)
QUIET_S = 6
BENCH = f"""\
DESCRIPTION="events queries end to end"
WORKLOAD=events
EVENTS=3000
REPOS=300
ACTORS=600
LOAD_RATE=0
QUERIES="olap-a olap-lookup"
QUERY_RUNS={K}
QUERY_RATE=16
KEY=uuidv7
LAYOUT=clustered
CLIENTS=2
SEED=3
QUIET_S={QUIET_S}
PERF_RECORD_S=0
DATABASES="mongodb postgres mysql"
"""
DBS = ("mongodb", "postgres", "mysql")


@pytest.fixture(scope="module")
def events_run(events_runs):
    benches, proc = events_runs
    bench, results = benches["events-e2e"]
    return bench, proc, results


def run_of(results, phase):
    return next(r for r in results["runs"] if r["phase"] == phase)


def test_the_bench_completes_with_a_load_and_two_query_phases_per_database(events_run):
    bench, proc, results = events_run
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert results is not None and results["complete"], results and results["incomplete"]
    # in the order they ran (plan.txt): per database its load, then its query phases
    assert [r["phase"] for r in results["runs"]] == [
        "mongodb-load", "mongodb-q-olap-a", "mongodb-q-olap-lookup", "postgres-load", "postgres-q-olap-a",
        "postgres-q-olap-lookup", "mysql-load", "mysql-q-olap-a", "mysql-q-olap-lookup"]
    for db in DBS:
        assert run_of(results, f"{db}-load")["docs_in_db"] == 3000
        for q in ("olap-a", "olap-lookup"):
            r = run_of(results, f"{db}-q-{q}")
            assert r["stage"] == "query" and r["clients"] == 1
            # a query phase's own reads are the lab's work: not foreign
            assert r["status"] == "ok", (r["status"], r["reason"])
            assert r["reconciliation"]["verdict"] in ("ok", "unavailable"), r["reconciliation"]["reasons"]


def test_each_window_holds_exactly_k_executions_by_the_client_and_by_the_server(events_run):
    bench, _, results = events_run
    for db in DBS:
        client = json.loads((bench / "clients" / f"{db}-q-olap-a-client-1.json").read_text())
        assert client["query"]["executions"] == K
        assert [e["k"] for e in client["query"]["per_execution"]] == list(range(K))
        assert client["operations"]["olap-a"]["ok"] == K and client["dropped"] == 0
        assert run_of(results, f"{db}-q-olap-a")["query"]["answered"] == K
    # the servers' own counters between the readings that bracket the window
    stats = json.loads((bench / "mongodb-q-olap-a.server-stats.json").read_text())
    if stats["end"].get("commands"):  # FerretDB: metrics.commands; MongoDB: opcounters count aggregate as command
        assert stats["end"]["commands"].get("aggregate", 0) - stats["start"]["commands"].get("aggregate", 0) == K
    stats = json.loads((bench / "postgres-q-olap-a.server-stats.json").read_text())
    c0, c1 = stats["start"]["counters"], stats["end"]["counters"]
    # olap-a scans jsonbench once per execution (index or sequential scan, 3000 rows: no parallel workers)
    assert (c1["user_idx_scan"] - c0["user_idx_scan"]) + (c1["user_seq_scan"] - c0["user_seq_scan"]) == K
    # MySQL: one Com_select per execution besides the session's and the readings' own, exactly; no
    # prepared statement executed (a query is a text-protocol statement)
    checks = run_of(results, "mysql-q-olap-a")["reconciliation"]["checks"]
    assert checks["selects"]["verdict"] == "ok" and checks["selects"]["observed"] == checks["selects"]["expected"], checks["selects"]
    assert checks["statements_executed"]["observed"] == 0
    assert checks["keyed_reads"]["verdict"] == "unavailable" and "queries read rows" in checks["keyed_reads"]["reason"]


def test_queries_section_compares_digests_and_names_the_refusal(events_run):
    bench, _, results = events_run
    qs = results["queries"]
    a = qs["olap-a"]
    assert a["status"] == "ok" and a["answers_equal"] is True, a["reason"]
    assert a["databases"]["mongodb"]["digest"] == a["databases"]["postgres"]["digest"] == a["databases"]["mysql"]["digest"]
    per = {db: a["databases"][db]["per_query"] for db in ("mongodb", "postgres")}
    for f in ("latency_p50_ms", "cpu_us"):
        assert a["ratio"][f] == pytest.approx(per["mongodb"][f] / per["postgres"][f]), f
    my = a["databases"]["mysql"]["per_query"]
    assert a["other_ratios"]["mysql/postgres"]["latency_p50_ms"] == pytest.approx(my["latency_p50_ms"] / per["postgres"]["latency_p50_ms"])
    lookup = qs["olap-lookup"]
    pg = lookup["databases"]["postgres"]
    assert pg["status"] == "ok" and pg["answered"] == K and pg["per_query"]["latency_p50_ms"] > 0
    # MySQL answers the lookup as PostgreSQL does, whatever the MongoDB stand-in does
    my = lookup["databases"]["mysql"]
    assert my["status"] == "ok" and my["answered"] == K and my["digest"] == pg["digest"], my
    if run_of(results, "mongodb-q-olap-lookup")["stand_in"]:
        assert lookup["status"] == "unsupported" and lookup["ratio"] is None
        # SecantusDB 0.7.0b3 refuses the $count stage in $lookup's sub-pipeline (client/test/integration/
        # github-events-queries.test.js pins its words); it explains the pipeline all the same
        assert "Unrecognized expression '$count'" in lookup["reason"], lookup["reason"]
        plan = json.loads((bench / "mongodb-q-olap-lookup.plan.json").read_text())
        assert plan.get("unsupported") is True or plan.get("plan"), plan
    else:
        assert lookup["status"] == "ok" and lookup["answers_equal"] is True


def test_plans_are_saved_outside_the_window_and_linked_from_the_report(events_run):
    bench, _, results = events_run
    plan = json.loads((bench / "postgres-q-olap-a.plan.json").read_text())
    assert plan["k"] == 0 and plan["params"] == {"type": "IssuesEvent", "action": "opened", "limit": 10}
    assert "Execution Time" in plan["plan"][0] and plan["command"].startswith("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)")
    assert json.loads((bench / "mongodb-q-olap-a.plan.json").read_text())["plan"]
    assert run_of(results, "postgres-q-olap-a")["query"]["plan_file"] == "postgres-q-olap-a.plan.json"
    report = (bench / "report.md").read_text()
    assert "## Queries" in report and "### olap-a" in report and "### olap-lookup" in report
    assert "(postgres-q-olap-a.plan.json)" in report and "**unsupported**" in report
    # the set's indexes, declared once, as each database created them
    assert "create index jsonbench_type on jsonbench ((data #>> '{type}'))" in results["indexes"]["postgres"]
    assert 'createIndex({"repo.name":1}, {"name": "jsonbench_repo_name"})' in results["indexes"]["mongodb"]
    assert ("CREATE INDEX jsonbench_type ON jsonbench ((CAST(data->>'$.type' AS CHAR(255) CHARACTER SET utf8mb4) "
            "COLLATE utf8mb4_0900_bin))") in results["indexes"]["mysql"]
    my = json.loads((bench / "mysql-q-olap-a.plan.json").read_text())
    assert my["command"].startswith("EXPLAIN ANALYZE SELECT") and "actual time=" in my["plan"], my
    assert "(mysql-q-olap-a.plan.json)" in report


# The same 3000 events written to a DATASET file (the generator's JSON text, one per line, gzip),
# loaded instead of generated: the lines reach both databases as they are, so every answer equals
# the generated run's.
DATASET_BENCH = BENCH.replace('DESCRIPTION="events queries end to end"', 'DESCRIPTION="events queries from a DATASET file"') \
    .replace("EVENTS=3000\nREPOS=300\nACTORS=600\n", "DATASET=events.ndjson.gz\n") \
    .replace('QUERIES="olap-a olap-lookup"', "QUERIES=olap-a").replace(f"QUERY_RUNS={K}", "QUERY_RUNS=2") \
    .replace("QUERY_RATE=16", "QUERY_RATE=0").replace(f"QUIET_S={QUIET_S}", "QUIET_S=0") \
    .replace('DATABASES="mongodb postgres mysql"', 'DATABASES="mongodb postgres"')  # answers only
# Two databases read the file: it is read by the client the same way for every database
# (client/src/workloads/events.js), and MongoDB's binding parses its lines where PostgreSQL takes their
# text; MySQL, which takes the text as PostgreSQL does, is left out (two phases of CI time).
DATASET_DBS = ("mongodb", "postgres")
WRITE_EVENTS = """
const fs = require('fs'); const zlib = require('zlib');
const gh = require(process.argv[1] + '/client/src/datasets/github-events');
const lines = [];
for (const e of gh.events({ seed: 3, count: 3000, repos: 300, actors: 600 })) lines.push(gh.toJson(e));
fs.writeFileSync(process.argv[2], zlib.gzipSync(lines.join('\\n') + '\\n'));
"""


def write_events_file(bench):
    if bench.name == "events-dataset-e2e":
        subprocess.run(["node", "-e", WRITE_EVENTS, str(LAB_ROOT), str(bench / "events.ndjson.gz")], check=True)


# Both benches in one runme.sh run (one stack start, each bench on fresh volumes): generated, then the file.
events_runs = bench_fixture(("events-e2e", BENCH), ("events-dataset-e2e", DATASET_BENCH), log="events-runme.log",
                            before=write_events_file)


@pytest.fixture(scope="module")
def dataset_run(events_runs):
    benches, proc = events_runs
    bench, results = benches["events-dataset-e2e"]
    return bench, proc, results


def test_a_dataset_file_loads_the_same_events_on_both_and_gives_the_generated_answers(dataset_run, events_run):
    bench, proc, results = dataset_run
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert results is not None and results["complete"], results and results["incomplete"]
    assert [r["database"] for r in results["runs"] if r["stage"] == "load"] == list(DATASET_DBS)
    for db in DATASET_DBS:
        assert run_of(results, f"{db}-load")["docs_in_db"] == 3000
    a = results["queries"]["olap-a"]
    assert a["status"] == "ok" and a["answers_equal"] is True, a["reason"]
    generated = events_run[2]["queries"]["olap-a"]["databases"]["postgres"]
    # execution k has the same parameters in both benches: the same answer from the file's events
    first = lambda r: [e["digest"] for e in r["query"]["per_execution"][:2]]  # noqa: E731
    assert first(run_of(results, "postgres-q-olap-a")) == first(run_of(events_run[2], "postgres-q-olap-a"))
    assert a["databases"]["postgres"]["rows_first"] == generated["rows_first"]
    assert first(run_of(results, "mongodb-q-olap-a")) == first(run_of(events_run[2], "postgres-q-olap-a"))


def test_query_cpu_is_reported_net_of_idle_beside_the_gross_and_the_linger_is_outside_the_window(events_run):
    """Issue 16: a query window ends when the last query returns (plus the guard), not after the
    client's 8 s metrics linger; per-query CPU is given net of the idle rate read just before the
    clients started, with the gross figure beside it."""
    import datetime
    bench, _, results = events_run
    netted = []
    for db in DBS:
        ph = f"{db}-q-olap-a"
        phase = json.loads((bench / f"{ph}.phase.json").read_text())
        client = json.loads((bench / "clients" / f"{ph}-client-1.json").read_text())
        ended = datetime.datetime.fromisoformat(client["ended_at"].replace("Z", "+00:00")).timestamp()
        # guard (5 s) and the polling second; the linger alone is 8 s
        assert phase["window"]["end"] - ended < 5 + 2.5, (phase["window"], client["ended_at"])
        assert phase["idle"]["guard"]["end"] > phase["idle"]["guard"]["start"] == phase["window"]["start"]
        pq = run_of(results, ph)["query"]["per_query"]
        usage = run_of(results, ph)["cpu"]["usage"]
        assert usage["gross_s"] is not None and usage["idle"]["rate_cores"] is not None, usage
        assert pq["cpu_us_gross"] > 0
        print(f"{ph}: latency p50 {pq['latency_p50_ms']} ms, CPU per query gross {pq['cpu_us_gross']:.0f} us, "
              f"net {pq['cpu_us_net']} us, ticks {pq['cpu_us']} us, idle {usage['idle']['rate_cores']} cores "
              f"over {usage['idle']['seconds']:.1f} s, window {phase['window']['end'] - phase['window']['start']:.1f} s")
        if pq["cpu_us_net"] is not None:
            # a server idle at exactly 0 ns (a Go server whose scheduler sleeps) has net = gross
            assert pq["cpu_us_net"] <= pq["cpu_us_gross"]
            if usage["idle"]["rate_cores"] > 0:
                assert pq["cpu_us_net"] < pq["cpu_us_gross"]
                netted.append(db)
        else:
            assert "cpu_us_net" in pq["reason"], pq
    # PostgreSQL's background processes (writer, checkpointer, WAL writer) always tick: its idle rate is
    # above 0 and its net figure below the gross one
    assert "postgres" in netted, run_of(results, "postgres-q-olap-a")["query"]["per_query"]
    report = (bench / "report.md").read_text()
    assert "CPU per query, net of idle (µs)" in report and "CPU per query, gross (µs)" in report


def test_each_load_phase_is_settled_and_storage_is_read_before_and_after_the_flush(events_run):
    bench, _, results = events_run
    for db in DBS:
        phase = json.loads((bench / f"{db}-load.phase.json").read_text())
        storage = run_of(results, f"{db}-load")["storage"]
        assert storage["before_settle"]["total_bytes"] > 0, storage
        if db == "postgres":
            assert phase["settled_after"] == "vacuum (analyze) jsonbench; CHECKPOINT"
            assert storage["settle"] == "CHECKPOINT"
        elif db == "mysql":
            # ANALYZE TABLE: the optimizer's statistics from the loaded rows, before the query windows
            assert phase["settled_after"] == "FLUSH TABLES jsonbench FOR EXPORT; UNLOCK TABLES; ANALYZE LOCAL TABLE jsonbench"
        else:
            assert phase["settled_after"], phase
            assert storage["settle"] == "{fsync: 1}" or storage["settle_reason"], storage
    settings = json.loads((bench / "postgres.settings.json").read_text())
    assert "checkpoint_timeout=60s" in settings["command"]
