"""results.json from the fixture benches: every figure recomputed here from the raw files."""
from analysis.tests.helpers import hardware_bench, stand_in_bench
import glob
import json
import os

import pytest
from hdrh.histogram import HdrHistogram

from analysis.bench import perfstat
from analysis.figures import hdr, resources, results, schema
from analysis.common.errors import AnalysisError


def raw(bench, name):
    with open(os.path.join(bench, name)) as f:
        return json.load(f)


def test_every_fixture_bench_gives_a_valid_results_json(fixture_benches):
    assert fixture_benches, "no fixture bench folders"
    for name, bench in fixture_benches.items():
        res = results.write(bench)
        schema.validate(json.load(open(os.path.join(bench, "results.json"))))
        assert res["schema_version"] == 1 and res["bench"] == name
        assert res["runs"], name


@pytest.mark.parametrize("field", ["cpu", "disk", "network", "per_doc", "latency", "ratios"])
def test_figures_match_the_raw_files(fixture_benches, field):
    for bench in fixture_benches.values():
        res = results.build(bench)
        for run in res["runs"]:
            db = run["database"]
            m = raw(bench, f"{db}.metrics.json")["services"][run["service"]]["counters"]
            clients = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(bench, "clients", f"{db}-client-*.json")))]
            count = raw(bench, f"{db}.count.json")
            docs = count["documents"]
            if field == "cpu":
                # the delta is the sum over containers of end - start (no resets in the fixtures)
                per = m["container_cpu_user_seconds_total"]["per_container"]
                assert run["cpu"]["user_s"] == pytest.approx(sum(c["end_value"] - c["start_value"] for c in per.values()))
                events = perfstat.parse(open(os.path.join(bench, f"{db}.perfstat.csv")).read())
                ins = events.get("instructions:u", {}).get("value")
                assert run["cpu"]["instructions"] == ins
                assert run["cpu"]["perf_events"]["task-clock"] == events["task-clock"]["value"]
            elif field == "disk":
                assert run["disk"]["write_bytes"] == m["container_fs_writes_bytes_total"]["delta"]
                assert run["disk"]["read_ops"] == m["container_fs_reads_total"]["delta"]
            elif field == "network":
                assert run["network"]["rx_bytes"] == m["container_network_receive_bytes_total"]["delta"]
            elif field == "per_doc":
                assert run["docs_in_db"] == docs
                assert run["docs_ok"] == sum(c["docs_ok"] for c in clients)
                assert run["per_doc"]["cpu_us"] == pytest.approx((run["cpu"]["user_s"] + run["cpu"]["system_s"]) * 1e6 / docs)
                # a figure the host could not account (block I/O here) stays None per document too
                write = run["disk"]["write_bytes"]
                assert run["per_doc"]["write_bytes"] == (None if write is None else pytest.approx(write / docs))
                assert run["per_doc"]["net_bytes"] == pytest.approx((run["network"]["rx_bytes"] + run["network"]["tx_bytes"]) / docs)
                assert run["per_doc"]["storage_bytes"] == pytest.approx(count["total_bytes"] / docs)
                if run["cpu"]["instructions"] is None:
                    assert run["per_doc"]["instructions"] is None
                else:
                    assert run["per_doc"]["instructions"] == pytest.approx(run["cpu"]["instructions"] / docs)
            elif field == "latency":
                # reference: one histogram into which every value recorded by any client is recorded
                ref = HdrHistogram(1, 3600 * 10**6, 3)
                for c in clients:
                    h = HdrHistogram.decode(c["histograms"]["latency_us"])
                    for item in h.get_recorded_iterator():
                        ref.record_value(item.value_iterated_to, item.count_at_value_iterated_to)
                assert ref.get_total_count() == sum(c["docs_ok"] for c in clients)
                for k, p in hdr.PERCENTILES.items():
                    assert run["latency_ms"][k] == ref.get_value_at_percentile(p) / 1000
                assert run["latency_ms"]["max"] == ref.get_max_value() / 1000
            elif field == "ratios":
                by = {r["database"]: r for r in res["runs"]}
                # a side that is not ok (ci-standin-run: healthcheck samples in its profiles) gives no ratio
                flagged = any(by[d]["status"] != "ok" for d in ("mongodb", "postgres"))
                assert ("reason" in res["ratios"]) == flagged
                for f in results.PER_DOC_FIELDS:
                    a, b = by["mongodb"]["per_doc"][f], by["postgres"]["per_doc"][f]
                    assert res["ratios"][f] == (pytest.approx(a / b) if a is not None and b and not flagged else None)


def test_stand_in_and_instructions_flags(fixture_benches):
    b1 = results.build(fixture_benches[stand_in_bench(fixture_benches)])
    mongo = next(r for r in b1["runs"] if r["database"] == "mongodb")
    assert mongo["stand_in"] is True and "FerretDB" in mongo["stand_in_what"]
    assert b1["ratios"]["stand_in"] is True
    assert any("instructions not counted" in n for n in mongo["notes"])
    b2 = results.build(fixture_benches[hardware_bench(fixture_benches)])
    assert b2["ratios"]["stand_in"] is False
    assert all(r["cpu"]["instructions"] > 0 for r in b2["runs"])


def test_merge_equals_a_histogram_of_all_values():
    import random
    rnd = random.Random(7)
    parts, everything = [], HdrHistogram(1, 3600 * 10**6, 3)
    for _ in range(3):
        h = HdrHistogram(1, 3600 * 10**6, 3)
        for _ in range(2000):
            v = int(rnd.lognormvariate(7, 1)) + 1
            h.record_value(v)
            everything.record_value(v)
        parts.append(HdrHistogram.decode(h.encode()))
    merged = hdr.merge(parts)
    assert merged.get_total_count() == 6000
    for p in (50, 90, 99, 99.9, 100):
        assert merged.get_value_at_percentile(p) == everything.get_value_at_percentile(p)
    # averaging the clients' p99 would not give the merged p99 in general: the merge must not do that
    avg = sum(x.get_value_at_percentile(99) for x in parts) / 3
    assert hdr.summary_ms(merged)["p99"] == everything.get_value_at_percentile(99) / 1000
    assert avg != everything.get_value_at_percentile(99), "the data must tell a merge from an average"
    assert hdr.summary_ms(merged)["p99"] != avg / 1000


def test_perfstat_parses_cgroup_and_not_supported_lines():
    text = ("# started on x\n\n"
            "<not supported>,,instructions:u,docker/abc,0,100.00,,\n"
            "1234.5,msec,task-clock,docker/abc,1234000,100.00,0.1,CPUs utilized\n"
            "10,,context-switches,docker/abc,1234000,100.00,,\n"
            "5,,context-switches,docker/def,1234000,100.00,,\n")
    ev = perfstat.parse(text)
    assert ev["instructions:u"] == {"value": None, "unit": "", "status": "not supported", "running_pct": None,
                                    "run_ns": 0.0, "enabled_ns": 0.0}
    assert ev["task-clock"]["running_pct"] == 100.0
    assert ev["task-clock"]["value"] == 1234.5 and ev["task-clock"]["unit"] == "msec"
    assert ev["context-switches"]["value"] == 15
    assert perfstat.instructions(ev) == (None, "instructions:u")


def test_missing_phase_makes_the_run_incomplete(fixture_benches):
    bench = fixture_benches[stand_in_bench(fixture_benches)]
    os.unlink(os.path.join(bench, "postgres.phase.json"))
    res = results.build(bench)
    assert res["complete"] is False
    assert any("postgres" in i for i in res["incomplete"])
    assert res["ratios"]["cpu_us"] is None


def test_bad_bench_folder_is_a_clear_error(tmp_path):
    with pytest.raises(AnalysisError, match="does not exist"):
        results.build(str(tmp_path / "nope"))
    (tmp_path / "b").mkdir()
    with pytest.raises(AnalysisError, match="no bench.env"):
        results.build(str(tmp_path / "b"))


def test_missing_figures_make_the_run_incomplete(fixture_benches):
    bench = fixture_benches[stand_in_bench(fixture_benches)]
    assert results.build(bench)["complete"] is True
    os.unlink(os.path.join(bench, "postgres.metrics.json"))
    for p in glob.glob(os.path.join(bench, "clients", "postgres-client-*.json"))[:1]:
        os.unlink(p)
    res = results.build(bench)
    assert res["complete"] is False
    assert any("postgres.metrics.json" in i for i in res["incomplete"])
    assert any("client result files" in i for i in res["incomplete"])
    pg = next(r for r in res["runs"] if r["database"] == "postgres")
    assert pg["cpu"]["user_s"] is None and pg["per_doc"]["cpu_us"] is None  # never invented
    schema.validate(res)


def test_documents_in_database_differing_from_acknowledged_is_a_failure(fixture_benches):
    bench = fixture_benches[stand_in_bench(fixture_benches)]
    count_file = os.path.join(bench, "postgres.count.json")
    with open(count_file) as f:
        count = json.load(f)
    count["documents"] += 1
    with open(count_file, "w") as f:
        json.dump(count, f)
    res = results.build(bench)
    assert res["complete"] is False
    assert any(i.startswith("postgres: ") and "documents in the database but" in i for i in res["incomplete"])


def test_scheduler_lag_merged_when_clients_record_it_and_none_before(fixture_benches):
    bench = next(iter(fixture_benches.values()))
    before = results.build(bench)
    assert all(v is None for run in before["runs"] for v in run["scheduler_lag_ms"].values())
    expected = {}
    for path in sorted(glob.glob(os.path.join(bench, "clients", "*-client-*.json"))):
        c = json.load(open(path))
        h = HdrHistogram(1, 3600 * 10**6, 3)
        for v in range(10, 10 + c["docs_ok"]):
            h.record_value(v)
        c["histograms"]["scheduler_lag_us"] = h.encode().decode()
        json.dump(c, open(path, "w"))
        ref = expected.setdefault(c["database"], HdrHistogram(1, 3600 * 10**6, 3))
        ref.add(h)
    after = results.build(bench)
    schema.validate(after)
    for run in after["runs"]:
        ref = expected[run["database"]]
        assert run["scheduler_lag_ms"]["p99"] == ref.get_value_at_percentile(99) / 1000
        assert run["scheduler_lag_ms"]["max"] == ref.get_max_value() / 1000


def test_perfstat_sums_hybrid_pmus_and_keeps_each():
    """Hybrid Intel CPUs: cpu_core/ and cpu_atom/ lines of one event sum to the plain name."""
    path = os.path.join(os.path.dirname(__file__), "fixtures", "perfstat", "hybrid-cgroup.csv")
    ev = perfstat.parse(open(path).read())
    assert ev["instructions:u"]["value"] == 5000000
    assert sorted(ev["instructions:u"]["pmus"]) == ["cpu_atom", "cpu_core"]
    assert ev["cpu_core/instructions:u/"]["value"] == 4000000
    assert ev["cpu_atom/instructions:u/"]["value"] == 1000000
    assert perfstat.instructions(ev) == (5000000, "instructions:u")
    # a PMU the task never ran on is not counted there, the other PMU's figure stands
    assert ev["instructions:k"]["value"] == 700000 and ev["instructions:k"]["status"] == "counted"
    assert ev["cpu_atom/instructions:k/"]["status"] == "not counted"
    assert ev["cycles:u"]["value"] == 3750000
    assert ev["task-clock"]["value"] == 2000.5 and "pmus" not in ev["task-clock"]


def test_disk_figures_name_their_device_or_why_none():
    none = {"read_bytes": None, "write_bytes": None, "read_ops": None, "write_ops": None}
    some = {"read_bytes": 0.0, "write_bytes": 4096.0, "read_ops": 0.0, "write_ops": 1.0}
    counted = {"counted": ["dm-0"], "series_devices": ["/dev/dm-0", "/dev/sda"], "excluded": ["/dev/sda"],
               "reason": None}
    assert resources._disk_devices({"disk_devices": counted}, some) == {"devices": ["dm-0"], "reason": None}
    # this machine: cAdvisor exports no block I/O for containers at all
    got = resources._disk_devices({"disk_devices": {**counted, "series_devices": []}}, none)
    assert "cAdvisor exported no disk series" in got["reason"] and "accounts no block I/O" in got["reason"]
    got = resources._disk_devices({"disk_devices": {**counted, "series_devices": ["/dev/sdb"]}}, none)
    assert "no series on dm-0" in got["reason"] and "/dev/sdb" in got["reason"]
    # operations exported, bytes not (as on this machine): the missing ones are named
    ops_only = {**none, "read_ops": 5.0, "write_ops": 7.0}
    got = resources._disk_devices({"disk_devices": counted}, ops_only)
    assert got["devices"] == ["dm-0"] and got["reason"].startswith("read_bytes, write_bytes: no series on dm-0")


def test_the_mongodb_topology_is_stated_in_the_config(fixture_benches, tmp_path):
    """TOPOLOGY (bench key): standalone by default (the original study: no oplog), replset when set."""
    import shutil
    for bench in fixture_benches.values():
        assert results.build(bench)["config"]["topology"] == "standalone"
    bench = str(tmp_path / "b")
    shutil.copytree(next(iter(fixture_benches.values())), bench)
    with open(os.path.join(bench, "run.env"), "a") as f:
        f.write("TOPOLOGY=replset\n")
    res = results.write(bench)
    assert res["config"]["topology"] == "replset" and res["config"]["run"]["TOPOLOGY"] == "replset"


def test_the_servers_own_build_description_is_kept(fixture_benches, tmp_path):
    """runs[].server_version_comment: what the clients read of the server's build (MySQL's
    @@version_comment tells Debian's build, '(Debian)', from the official image's Oracle one), null
    where the server offers none; every client's, joined, when they differ."""
    import shutil
    bench = str(tmp_path / "b")
    shutil.copytree(os.path.join(os.path.dirname(__file__), "fixtures", "ci-standin-run"), bench)
    for i, comment in ((1, "(Debian)"), (2, "MySQL Community Server - GPL")):
        path = os.path.join(bench, "clients", f"postgres-client-{i}.json")
        doc = raw(os.path.join(bench, "clients"), f"postgres-client-{i}.json")
        doc["server"]["version_comment"] = comment
        with open(path, "w") as f:
            json.dump(doc, f)
    runs = {r["database"]: r for r in results.build(bench)["runs"]}
    assert runs["postgres"]["server_version_comment"] == "(Debian), MySQL Community Server - GPL"
    assert runs["mongodb"]["server_version_comment"] is None
    schema.validate(results.build(bench))
