"""A short time-series ingest bench (WORKLOAD=tsbs, MODEL=bucket) through ./runme.sh on the real
stack: per database one ingest phase of 2 clients x 250 events at 50 events/s (hosts 0, 2 and
1, 3; 120 s apart over 15,000 s: 5 hours, 20 host-hours; buckets of at most 30 events), the buckets counted back (events = the sum
of the buckets' arrays = the acknowledged upserts), per-event figures (per_op) and storage per
event and per host-hour in results.json, and the report's time-series section.
Then two TSBS query phases per database on that data (issue 16): the first clean (ok), the second
under foreign work (a foreign read loop; on PostgreSQL also work on another database of the cluster):
suspect, flagged by what each load did."""
import json

import pytest

from conftest import remove_project, results_of, runme_watched, write_bench
from foreign_load import ForeignLoads, assert_suspect_by, run_entry

CLIENTS, HOSTS, RATE, SPAN_S, INTERVAL_S = 2, 4, 50, 15000, 120
EVENTS = HOSTS * (SPAN_S // INTERVAL_S)
HOST_HOURS = HOSTS * 5
CLEAN_Q, FOREIGN_Q = "single-groupby-1-1-1", "lastpoint"
QUERY_RUNS = 5
TSBS_BENCH = f"""\
DESCRIPTION="end-to-end tsbs bucket ingest"
KEY=uuidv7
LAYOUT=clustered
CLIENTS={CLIENTS}
RATE={RATE}
WORKLOAD=tsbs
MODEL=bucket
HOSTS={HOSTS}
INTERVAL_S={INTERVAL_S}
SPAN_S={SPAN_S}
SEED=3
QUIET_S=0
PERF_RECORD_S=0
QUERIES="{CLEAN_Q} {FOREIGN_Q}"
QUERY_RUNS={QUERY_RUNS}
QUERY_RATE=2
"""
BENCH = "bench-e2e-tsbs"
FOREIGN_LOADS = {(BENCH, f"mongodb-q-{FOREIGN_Q}"): ("loop",), (BENCH, f"postgres-q-{FOREIGN_Q}"): ("loop", "cluster")}


@pytest.fixture(scope="module")
def tsbs_runs(workdir):
    remove_project()
    bench = write_bench(workdir, BENCH, TSBS_BENCH)
    loads = ForeignLoads(FOREIGN_LOADS)
    try:
        proc = runme_watched(workdir, str(bench), log="runme-tsbs.log", on_line=loads.on_line)
    finally:
        loads.close()
    print(loads.out)
    yield bench, proc, results_of(bench), loads
    remove_project()


@pytest.fixture(scope="module")
def tsbs_run(tsbs_runs):
    """The bench with its ingest phases only (the query phases are tested at the end)."""
    bench, proc, results, _ = tsbs_runs
    return bench, proc, results and dict(results, runs=[r for r in results["runs"] if r["stage"] == "run"])


def test_ingest_phase_per_database_counts_back_every_event(tsbs_run):
    bench, proc, results = tsbs_run
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert results["complete"], results["incomplete"]
    assert [r["phase"] for r in results["runs"]] == ["mongodb", "postgres"]
    for r in results["runs"]:
        assert r["status"] == "ok", (r["phase"], r["reason"])
        assert r["workload"] == "tsbs" and r["stage"] == "run"
        assert list(r["operations"]) == ["bucket"]
        assert r["operations"]["bucket"]["ok"] == EVENTS and r["operations"]["bucket"]["errors"] == 0
        count = json.loads((bench / f"{r['phase']}.count.json").read_text())
        # the database's own count: the buckets' arrays hold exactly the acknowledged events
        assert count["model"] == "bucket" and count["documents"] == EVENTS and count["rows"] == HOST_HOURS
        assert r["docs_in_db"] == EVENTS == r["docs_expected_in_db"]
        for i in range(1, CLIENTS + 1):
            c = json.loads((bench / "clients" / f"{r['phase']}-client-{i}.json").read_text())
            assert c["model"] == "bucket" and c["tsbs"]["model"] == "bucket"
            assert c["tsbs"]["host_ids"] == [i - 1, i + 1] and c["tsbs"]["host_hours"] == HOST_HOURS // 2


def test_per_event_and_per_host_hour_figures(tsbs_run):
    _, _, results = tsbs_run
    for r in results["runs"]:
        ing = r["ingest"]
        assert ing["model"] == "bucket" and ing["events"] == EVENTS and ing["host_hours"] == HOST_HOURS
        total = r["storage"]["total_bytes"]
        assert total > 0
        assert ing["storage_bytes_per_event"] == pytest.approx(total / EVENTS)
        assert ing["storage_bytes_per_host_hour"] == pytest.approx(total / HOST_HOURS)
        p = r["per_op"]
        assert p["ops"] == EVENTS and p["op"] == "bucket" and p["cpu_us"] > 0 and p["net_bytes"] > 0
        # a bucket upsert ingests one event: per_doc (documents = events) is the same figure
        assert r["per_doc"]["docs"] == EVENTS and r["per_doc"]["cpu_us"] == pytest.approx(p["cpu_us"])
    pg = next(r for r in results["runs"] if r["database"] == "postgres")
    # each append rewrites the bucket row: more WAL per event than the ~200 B event itself
    assert pg["per_op"]["wal_bytes"] > 200
    assert pg["reconciliation"]["verdict"] == "ok", pg["reconciliation"]["reasons"]
    assert pg["reconciliation"]["checks"]["rows_written"]["observed"] == HOST_HOURS
    mg = next(r for r in results["runs"] if r["database"] == "mongodb")
    if mg["stand_in"]:
        # SecantusDB's serverStatus has no wiredTiger section: no journal bytes, null with the reason.
        assert mg["per_op"]["wal_bytes"] is None and "wiredTiger" in mg["wal"]["reason"], mg["wal"]
    else:
        assert mg["per_op"]["wal_bytes"] > 0


def test_report_has_the_time_series_section(tsbs_run):
    bench, _, results = tsbs_run
    text = (bench / "report.md").read_text()
    assert "## Time-series ingest" in text
    section = text.split("## Time-series ingest", 1)[1].split("\n## ", 1)[0]
    assert "| model | bucket | bucket |" in section
    assert "| storage (B/event) |" in section and "| storage per host-hour |" in section
    assert f"| host-hours / rows or documents | {HOST_HOURS} / {HOST_HOURS} | {HOST_HOURS} / {HOST_HOURS} |" in section


def test_the_query_phases_follow_each_ingest_in_order(tsbs_runs):
    _, _, results, _ = tsbs_runs
    assert [r["phase"] for r in results["runs"]] == [
        "mongodb", f"mongodb-q-{CLEAN_Q}", f"mongodb-q-{FOREIGN_Q}", "postgres", f"postgres-q-{CLEAN_Q}",
        f"postgres-q-{FOREIGN_Q}"]


@pytest.mark.parametrize("db", ["mongodb", "postgres"])
def test_a_clean_tsbs_query_phase_is_ok(tsbs_runs, db):
    _, _, results, _ = tsbs_runs
    r = run_entry(results, f"{db}-q-{CLEAN_Q}")
    assert r["stage"] == "query" and r["query"]["answered"] == QUERY_RUNS, r["query"]
    assert r["status"] == "ok", (r["status"], r["reason"], r["reconciliation"]["reasons"])
    assert r["reconciliation"]["verdict"] in ("ok", "unavailable"), r["reconciliation"]["reasons"]


@pytest.mark.parametrize("db", ["mongodb", "postgres"])
def test_a_tsbs_query_phase_under_foreign_work_is_suspect(tsbs_runs, db):
    bench, proc, results, loads = tsbs_runs
    assert proc.returncode == 0, proc.stdout[-3000:]
    phase = f"{db}-q-{FOREIGN_Q}"
    assert run_entry(results, phase)["query"]["answered"] == QUERY_RUNS
    kinds = FOREIGN_LOADS[(BENCH, phase)]
    if "cluster" in kinds:
        assert loads.out[(BENCH, phase, "cluster")].startswith("done generate_series"), loads.out
    assert_suspect_by(results, phase, proc.stdout, kinds, loads.loop_queries(BENCH, phase))
    assert "**SUSPECT:**" in (bench / "report.md").read_text().split("\n## ")[0]  # above the first section
