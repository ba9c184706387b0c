"""TimescaleDB's figures in results.json, from the files of a real run (fixtures/timescaledb-compress:
`./runme.sh` on this machine's hand-built TimescaleDB 2.28.3 image, TIMESCALEDB_IMAGE set, 10 hosts x
13 h at 60 s, COMPRESS=after:12h, then lastpoint; its bench.env kept as bench.env.recorded): the chunk count, the compressed and uncompressed
storage per event and per host-hour (from count.json's sizes and the clients' host-hours, divided
here independently), the image's own label on every run (never the official image's result), and
the query's CPU net of idle. No TimescaleDB is needed: the analysis reads only the files."""
import json
import os
import shutil

import pytest

from analysis.figures import results
from analysis.render import report

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "timescaledb-compress")
IMAGE = "jsonbench-handbuilt/timescaledb:2.28.3-pg15"


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    d = tmp_path_factory.mktemp("tsdb") / "tsdb-smoke"
    shutil.copytree(FIXTURE, d)
    # kept under another name so the generic fixture benches (two databases each) leave this one out
    shutil.move(d / "bench.env.recorded", d / "bench.env")
    results.write(str(d))
    with open(d / "results.json", encoding="utf-8") as f:
        return d, json.load(f)


def read(name):
    with open(os.path.join(FIXTURE, name), encoding="utf-8") as f:
        return json.load(f)


def test_chunks_and_storage_per_event_and_host_hour_compressed_and_not(bench):
    _, r = bench
    assert r["complete"] is True
    ingest = next(run for run in r["runs"] if run["phase"] == "timescaledb")["ingest"]
    count = read("timescaledb.count.json")
    host_hours = sum(read(f"clients/timescaledb-client-{i}.json")["tsbs"]["host_hours"] for i in (1, 2))
    assert (count["documents"], count["chunks"], count["compressed_chunks"], host_hours) == (7800, 2, 2, 130)
    assert (ingest["model"], ingest["events"], ingest["host_hours"]) == ("native", 7800, 130)
    assert (ingest["chunks"], ingest["compressed_chunks"], ingest["chunks_reason"]) == (2, 2, None)
    # the storage figures are the compressed sizes (hypertable_detailed_size after the compression)
    assert ingest["storage_bytes_per_event"] == pytest.approx(count["total_bytes"] / 7800)
    assert ingest["storage_bytes_per_host_hour"] == pytest.approx(count["total_bytes"] / 130)
    c = ingest["compression"]
    before = count["compress"]["uncompressed"]["total_bytes"]
    assert (c["setting"], c["interval"], c["uncompressed_total_bytes"], c["compressed_total_bytes"]) == \
        ("after:12h", "12 hours", before, count["total_bytes"])
    assert c["uncompressed_bytes_per_host_hour"] == pytest.approx(before / 130)
    assert c["ratio"] == pytest.approx(before / count["total_bytes"]) and c["ratio"] > 1


def test_a_database_without_chunks_says_why(bench):
    from analysis.figures import ingest
    out = ingest.ingest([("c", {"tsbs": {"model": "event", "host_hours": 2, "events": 4}, "operations": {"insert": {"ok": 4}}})],
                        {"documents": 4, "total_bytes": 400}, 400)
    assert out["chunks"] is None and "does not partition by time" in out["chunks_reason"] and out["compression"] is None


def test_every_run_says_which_image_ran_never_the_official_one(bench):
    d, r = bench
    for run in r["runs"]:
        assert run["stand_in"] is True
        assert IMAGE in run["stand_in_what"] and "not a result of the official image" in run["stand_in_what"]
    report.bench_report(str(d))
    text = (d / "report.md").read_text()
    assert IMAGE in text and "STAND-IN" in text.upper()
    assert "chunks (compressed)" in text and "uncompressed per host-hour (COMPRESS)" in text


def test_the_query_cpu_is_net_of_idle(bench):
    _, r = bench
    q = next(run for run in r["runs"] if run["phase"] == "timescaledb-q-lastpoint")["query"]
    assert q["status"] == "ok" and q["answered"] == 2 and q["per_query"]["cpu_us_net"] is not None
    assert q["per_query"]["cpu_us_net"] <= q["per_query"]["cpu_us_gross"]


def test_its_wal_is_postgresqls_counter_read_the_same_way(bench):
    # databases/timescaledb/analysis.py names PostgreSQL's counter: the LSN advance between the readings
    _, r = bench
    for run in r["runs"]:
        stats = read(f"{run['phase']}.server-stats.json")
        delta = stats["end"]["counters"]["wal_bytes"] - stats["start"]["counters"]["wal_bytes"]
        assert (run["wal"]["bytes"], run["wal"]["source"]) == (delta, "pg_current_wal_lsn") and delta > 0
    ingest_run = next(run for run in r["runs"] if run["phase"] == "timescaledb")
    assert ingest_run["per_op"]["wal_bytes"] == pytest.approx(ingest_run["wal"]["bytes"] / 7800)
