"""soak-check on small made-up bench folders: rates, errors and client RSS growth."""
import csv
import gzip
import io
import json
import os

import pytest

from analysis.common.errors import AnalysisError
from analysis.render import soak
from analysis.tests.helpers import client_result


def make_bench(tmp_path, rss_end, achieved=20.0, errors=0):
    bench = tmp_path / "soak"
    (bench / "clients").mkdir(parents=True)
    (bench / "bench.env").write_text("DESCRIPTION=soak\n")
    (bench / "postgres.phase.json").write_text(json.dumps({"status": "ok"}))
    (bench / "clients" / "postgres-client-1.json").write_text(json.dumps(client_result(
        achieved_rate=achieved, target_rate=20, docs_target=36000, docs_ok=36000, errors=errors, latency_ms={"p99": 3.0})))
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["time", "metric", "service", "container", "value"])
    for t in range(600):  # 10 minutes at 1 s; RSS moves linearly from 50 MiB to rss_end after warm-up
        rss = 50 * 2**20 if t < 60 else 50 * 2**20 + (rss_end - 50 * 2**20) * (t - 60) / 539
        w.writerow([1000 + t, "container_memory_rss", "client", "lab-client-postgres-1", rss])
    w.writerow([1000, "container_memory_rss", "client", "lab-client-run-1", 1])  # a one-shot count container
    (bench / "timeseries").mkdir()
    with gzip.open(bench / "timeseries" / "postgres.csv.gz", "wt") as f:
        f.write(buf.getvalue())
    return str(bench)


def test_steady_run_passes(tmp_path):
    lines, passed = soak.check(make_bench(tmp_path, rss_end=52 * 2**20))
    assert passed, lines
    assert any("RSS in the steady part 50.6 -> 51.9 MiB (+2.6%)" in line for line in lines), lines


def test_heap_warm_up_then_flat_passes_and_is_shown(tmp_path):
    """Growth confined to the first third (V8 reaching its working heap) is not a leak."""
    bench = make_bench(tmp_path, rss_end=50 * 2**20)
    path = os.path.join(bench, "timeseries", "postgres.csv.gz")
    with gzip.open(path, "rt") as f:
        rows = list(csv.reader(f))
    for row in rows[1:]:
        if row[3] == "lab-client-postgres-1":
            t = int(float(row[0])) - 1000
            row[4] = str(40 * 2**20 + min(t, 150) / 150 * 10 * 2**20)  # 40 -> 50 MiB by 2.5 min, then flat
    with gzip.open(path, "wt") as f:
        csv.writer(f).writerows(rows)
    lines, passed = soak.check(bench)
    assert passed, lines
    assert any("from minute 1" in line and "(+" in line for line in lines), lines


def test_growing_client_memory_fails(tmp_path):
    lines, passed = soak.check(make_bench(tmp_path, rss_end=70 * 2**20))
    assert not passed
    assert any(line.startswith("FAIL postgres lab-client-postgres-1: RSS") for line in lines), lines


def test_rate_off_by_more_than_one_percent_fails(tmp_path):
    lines, passed = soak.check(make_bench(tmp_path, rss_end=50 * 2**20, achieved=19.7))
    assert not passed
    assert any(line.startswith("FAIL postgres client 1") and "-1.50% off" in line for line in lines), lines


def test_errors_fail(tmp_path):
    lines, passed = soak.check(make_bench(tmp_path, rss_end=50 * 2**20, errors=1))
    assert not passed


def test_a_bench_of_another_workload_is_refused_naming_it(tmp_path):
    bench = make_bench(tmp_path, rss_end=52 * 2**20)
    with open(os.path.join(bench, "run.env"), "w") as f:
        f.write("WORKLOAD=ycsb\n")
    with pytest.raises(AnalysisError, match=r"soak-check reads an insert bench \(lab/soak.sh writes one\); this one ran WORKLOAD=ycsb"):
        soak.check(bench)


def test_no_exported_series_fails_saying_so(tmp_path):
    bench = make_bench(tmp_path, rss_end=52 * 2**20)
    os.remove(os.path.join(bench, "timeseries", "postgres.csv.gz"))
    lines, passed = soak.check(bench)
    assert not passed and "FAIL postgres: no client memory series long enough to judge" in lines, lines
