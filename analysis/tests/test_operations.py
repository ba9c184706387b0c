"""Per-operation figures of a YCSB bench (operations, per_op, wal, timeline) against independent
computations from the raw events the fixture's client files were generated from."""
import json
import os

import pytest

from analysis.common import databases
from analysis.figures import operations, results, schema
from analysis.tests import ycsb_fixture


@pytest.fixture
def ycsb(tmp_path):
    raw = ycsb_fixture.build(str(tmp_path / "ycsb"))
    return str(tmp_path / "ycsb"), raw, results.build(str(tmp_path / "ycsb"))


def nearest_rank(values, pct):
    """The value of rank round(pct% of N), HdrHistogram's definition (countAtPercentile)."""
    s = sorted(values)
    return s[max(1, int(pct / 100 * len(s) + 0.5)) - 1]


def close(hdr_ms, exact_us):
    # HdrHistogram with 3 significant digits: within 0.1% (+1 us of unit rounding)
    return abs(hdr_ms * 1000 - exact_us) <= exact_us * 0.001 + 1


def test_phases_in_run_order_with_stage_and_workload(ycsb):
    _, _, res = ycsb
    assert [(r["phase"], r["database"], r["stage"], r["workload"]) for r in res["runs"]] == [
        ("mongodb-load", "mongodb", "load", "ycsb"), ("mongodb", "mongodb", "run", "ycsb"),
        ("postgres-load", "postgres", "load", "ycsb"), ("postgres", "postgres", "run", "ycsb")]
    assert res["complete"], res["incomplete"]
    schema.validate(res)


def test_operation_counts_and_percentiles_equal_an_independent_computation(ycsb):
    _, raw, res = ycsb
    for run in res["runs"]:
        events = raw[run["phase"]]
        assert set(run["operations"]) == {e[1] for e in events}
        for op, o in run["operations"].items():
            mine = [e for e in events if e[1] == op]
            assert o["ok"] == sum(1 for e in mine if e[4])
            assert o["errors"] == sum(1 for e in mine if not e[4])
            # an error records no latency (client/src/runner.js sendOne)
            assert o["latency_count"] == o["ok"] < len(mine) if o["errors"] else o["latency_count"] == len(mine)
            lat = [e[3] for e in mine if e[4]]
            for key, pct in (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9)):
                assert close(o["latency_ms"][key], nearest_rank(lat, pct)), (run["phase"], op, key)
            assert close(o["latency_ms"]["max"], max(lat))
            assert abs(o["latency_ms"]["mean"] * 1000 - sum(lat) / len(lat)) <= sum(lat) / len(lat) * 0.001 + 1


def test_per_op_is_the_phases_resources_over_its_successful_operations(ycsb):
    bench, raw, res = ycsb
    for run in res["runs"]:
        ok = sum(1 for e in raw[run["phase"]] if e[4])
        with open(os.path.join(bench, f"{run['phase']}.metrics.json")) as f:
            counters = json.load(f)["services"][run["service"]]["counters"]
        cpu_s = counters["container_cpu_user_seconds_total"]["delta"] + counters["container_cpu_system_seconds_total"]["delta"]
        net = counters["container_network_receive_bytes_total"]["delta"] + counters["container_network_transmit_bytes_total"]["delta"]
        p = run["per_op"]
        assert p["ops"] == ok
        assert p["cpu_us"] == pytest.approx(cpu_s * 1e6 / ok)
        assert p["net_bytes"] == pytest.approx(net / ok)
        if run["wal"]["bytes"] is not None:
            assert p["wal_bytes"] == pytest.approx(run["wal"]["bytes"] / ok)
        if run["stage"] == "load":
            assert p["op"] == "insert" and p["mix"] is None
        else:
            # a mix: per operation of the mix, and said so
            assert p["op"] is None and p["mix"] == {"read": 50, "update": 50} and "mix" in p["about"]


def test_per_doc_keeps_its_insert_meaning(ycsb):
    _, _, res = ycsb
    for run in res["runs"]:
        if run["stage"] == "load":
            assert run["per_doc"]["cpu_us"] == pytest.approx(run["per_op"]["cpu_us"])  # 400 inserts, 400 in the db
        else:
            assert run["per_doc"]["cpu_us"] is None and "per_op" in run["per_doc"]["reason"]
            assert run["per_doc"]["storage_bytes"] == pytest.approx(run["storage"]["total_bytes"] / 400)


def test_wal_from_the_server_stats_readings_and_ferretdb_reason(ycsb):
    from analysis.figures import wal
    bench, _, res = ycsb
    by = {r["phase"]: r for r in res["runs"]}
    with open(os.path.join(bench, "postgres.server-stats.json")) as f:
        s = json.load(f)
    pg = by["postgres"]["wal"]
    assert pg == {"bytes": s["end"]["counters"]["wal_bytes"] - s["start"]["counters"]["wal_bytes"],
                  "source": "pg_current_wal_lsn", "reason": None, "about": databases.hook("postgres", "WAL")["about"]}
    # the figure says what it is: the WAL write position, not the insert position nor bytes flushed
    assert pg["about"].startswith("advance of the WAL write position, pg_current_wal_lsn()")
    mg = by["mongodb"]["wal"]
    assert mg["bytes"] is None and mg["source"] is None and "FerretDB" in mg["reason"]


def test_wal_of_real_mongodb_journal_counter():
    from analysis.figures import wal
    reading = lambda n: {"counters": {"wt_log_bytes_written": n}, "unavailable": {}}  # noqa: E731
    assert wal.wal("mongodb", {"start": reading(1000), "end": reading(5096)}) == {
        "bytes": 4096, "source": "wiredTiger.log", "reason": None, "about": databases.hook("mongodb", "WAL")["about"]}
    assert "restarted" in wal.wal("mongodb", {"start": reading(5096), "end": reading(10)})["reason"]


def test_timeline_merges_clients_per_second_exactly(ycsb):
    _, raw, res = ycsb
    for run in res["runs"]:
        events = raw[run["phase"]]
        tl = run["timeline"]
        assert tl["interval_s"] == 1 and tl["reason"] is None
        assert [s["t"] for s in tl["seconds"]] == sorted({e[2] for e in events})
        for sec in tl["seconds"]:
            for op, cell in sec["ops"].items():
                mine = [e for e in events if e[2] == sec["t"] and e[1] == op]
                assert cell["ok"] == sum(1 for e in mine if e[4]) and cell["errors"] == sum(1 for e in mine if not e[4])
                lat = [e[3] for e in mine if e[4]]
                assert close(cell["p99_ms"], nearest_rank(lat, 99)) if lat else cell["p99_ms"] is None


def test_insert_workload_without_operations_counts_its_inserts(fixture_benches):
    """Client files older than per-operation results: the insert workload's only type is insert."""
    res = results.build(fixture_benches["ci-standin-run"])
    for run in res["runs"]:
        assert list(run["operations"]) == ["insert"] and run["stage"] == "run" and run["phase"] == run["database"]
        assert run["operations"]["insert"]["ok"] == run["docs_ok"]
        assert run["operations"]["insert"]["latency_ms"]["p99"] == run["latency_ms"]["p99"]
        assert run["per_op"]["op"] == "insert"
        assert run["timeline"]["seconds"] == [] and run["timeline"]["reason"]
        # one note for all client containers created in the window
        assert sum("created in the window" in n for n in run["notes"]) == 1


def test_ratios_compare_run_phases_and_load_phases_apart(ycsb):
    _, _, res = ycsb
    by = {r["phase"]: r for r in res["runs"]}
    assert res["ratios"]["per_op"]["cpu_us"] == pytest.approx(by["mongodb"]["per_op"]["cpu_us"] / by["postgres"]["per_op"]["cpu_us"])
    assert res["load_ratios"]["cpu_us"] == pytest.approx(by["mongodb-load"]["per_doc"]["cpu_us"] / by["postgres-load"]["per_doc"]["cpu_us"])
    assert res["ratios"]["latency"]["read"]["p99"] == pytest.approx(
        by["mongodb"]["operations"]["read"]["latency_ms"]["p99"] / by["postgres"]["operations"]["read"]["latency_ms"]["p99"])


def test_a_missing_run_phase_makes_the_bench_incomplete(ycsb):
    bench, _, _ = ycsb
    os.remove(os.path.join(bench, "postgres.phase.json"))
    res = results.build(bench)
    assert "postgres: no phase file (phase never ran)" in res["incomplete"]


def test_documents_expected_include_the_load_phase(ycsb):
    bench, _, res = ycsb
    assert all(r["docs_expected_in_db"] == 400 for r in res["runs"])
    with open(os.path.join(bench, "postgres.count.json")) as f:
        count = json.load(f)
    count["documents"] = 399
    with open(os.path.join(bench, "postgres.count.json"), "w") as f:
        json.dump(count, f)
    res = results.build(bench)
    assert any("postgres: 399 documents in the database but 400" in x for x in res["incomplete"])


def test_reconciliation_of_a_mix_counts_its_reads_and_updates(ycsb):
    _, raw, res = ycsb
    by = {r["phase"]: r for r in res["runs"]}
    pg = by["postgres"]["reconciliation"]
    assert pg["verdict"] == "ok", pg["reasons"]
    assert pg["checks"]["rows_changed"]["expected"] == sum(1 for e in raw["postgres"] if e[1] == "update" and e[4])
    assert pg["checks"]["rows_read"]["verdict"] == "unavailable"
    mg = by["mongodb"]["reconciliation"]
    assert mg["verdict"] == "ok", mg["reasons"]
    assert mg["checks"]["reads"]["expected"] == sum(1 for e in raw["mongodb"] if e[1] == "read" and e[4])


def test_merge_refuses_a_corrupt_histogram():
    from analysis.common.errors import AnalysisError
    with pytest.raises(AnalysisError, match=r"c1.json: operations.read.histograms.latency_us"):
        operations.merge([("c1.json", {"operations": {"read": {"ok": 1, "histograms": {"latency_us": "garbage"}}}})])


def test_check_has_a_row_per_new_figure_and_passes_the_ycsb_bench(ycsb):
    from analysis.render import check
    bench, _, res = ycsb
    results.write(bench)
    table, cols = check.evaluate(bench)
    assert cols == ["mongodb-load", "mongodb", "postgres-load", "postgres"]
    rows = dict(table)
    for label in ("operations per type (= latencies)", "CPU per operation", "instructions per operation",
                  "network per operation", "WAL/journal bytes", "WAL/journal bytes per operation", "timeline per second"):
        assert label in rows
    assert rows["WAL/journal bytes"]["postgres"].state == check.OK
    assert rows["WAL/journal bytes"]["mongodb"].state == check.UNAVAILABLE
    assert check.run(bench)[1]


def test_check_fails_a_wal_figure_without_reason_and_a_miscounted_operation(ycsb):
    from analysis.render import check
    bench, _, res = ycsb
    run = next(r for r in res["runs"] if r["phase"] == "postgres")
    run["wal"] = {"bytes": None, "source": None, "reason": None}
    run["operations"]["read"]["latency_count"] += 1
    with open(os.path.join(bench, "results.json"), "w") as f:
        json.dump(res, f)
    rows = dict(check.evaluate(bench)[0])
    assert rows["WAL/journal bytes"]["postgres"].state == check.MISSING
    assert rows["operations per type (= latencies)"]["postgres"].state == check.MISSING
    assert not check.run(bench)[1]


def test_per_doc_of_an_insert_phase_after_a_load_divides_by_its_own_documents(ycsb):
    """A run phase that only inserts, after a load: its documents are the count minus the load's."""
    bench, _, _ = ycsb
    for i in (1, 2):
        path = os.path.join(bench, "clients", f"postgres-client-{i}.json")
        with open(path) as f:
            c = json.load(f)
        c["operations"] = {"insert": dict(c["operations"]["update"], ok=100, errors=0, dropped=0, docs=100)}
        del c["operations"]["insert"]["histograms"]["latency_us"]
        with open(path, "w") as f:
            json.dump(c, f)
    with open(os.path.join(bench, "postgres.count.json")) as f:
        count = json.load(f)
    count["documents"] = 600
    with open(os.path.join(bench, "postgres.count.json"), "w") as f:
        json.dump(count, f)
    run = next(r for r in results.build(bench)["runs"] if r["phase"] == "postgres")
    assert run["docs_expected_in_db"] == 600 and run["per_doc"]["docs"] == 200
    assert run["per_doc"]["cpu_us"] == pytest.approx(run["per_op"]["cpu_us"])
    assert run["per_doc"]["storage_bytes"] == pytest.approx(run["storage"]["total_bytes"] / 600)


def test_wal_of_a_stand_in_names_the_server_it_read():
    """The SecantusDB stand-in has no wiredTiger section: the reason names it, not another stand-in."""
    from analysis.figures import wal
    reading = {"counters": {"wt_log_bytes_written": None},
               "unavailable": {"wt_log_bytes_written": "SecantusDB serverStatus has no wiredTiger.log section"},
               "server": {"product": "SecantusDB", "version": "0.7.0b3", "stand_in": True}}
    got = wal.wal("mongodb", {"start": reading, "end": reading})
    assert got["bytes"] is None and got["reason"].endswith(": SecantusDB offers no WAL/journal figure")
    assert "FerretDB" not in got["reason"]
