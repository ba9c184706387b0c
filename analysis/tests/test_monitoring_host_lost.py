"""The monitoring host lost (issue 27, MONITORING_HOST): its Prometheus does not answer the export of a
phase's window. The figures that come from Prometheus are null with the reason naming the host, the
files already gathered are kept, the call ends at once, and the probe's cgroup reading and the counts
still stand. Against a real Prometheus (tests/real_prometheus.py) that ran and was stopped: its port no
longer answers, as a lost host's."""
import json
import os
import shutil
import time

import real_prometheus  # tests/ (analysis/tests/conftest.py puts it on sys.path)
from analysis import entry
from analysis.figures import results

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def test_a_lost_monitoring_host_nulls_the_prometheus_figures_with_its_name_and_keeps_the_rest(tmp_path):
    (tmp_path / "prom").mkdir()
    with real_prometheus.scraping(tmp_path / "prom", "127.0.0.1:9") as url:
        pass  # it ran, answered /-/ready, and is stopped now
    bench = tmp_path / "bench1"
    shutil.copytree(os.path.join(FIXTURES, "bench1"), bench)
    (bench / "mongodb.metrics.json").unlink()  # as a phase whose export has not run yet
    gathered = sorted(p.relative_to(bench) for p in bench.rglob("*") if p.is_file())

    t0 = time.monotonic()
    _, metrics, said = entry.phase_finished(str(bench), "mongodb", "mongodb", url,
                                                  monitoring_host="jsonbench-sim-2")
    took = time.monotonic() - t0
    assert took < 10, took  # refused at once: the run goes on
    assert metrics is None, said
    # (the fixture's phase file predates `facts`: no status is decided from it, as for any such file)
    assert any("metrics export failed; the phase's other files are kept" in line for line in said), said
    phase = json.loads((bench / "mongodb.phase.json").read_text())
    assert phase["metrics_export"]["host"] == "jsonbench-sim-2" and phase["metrics_export"]["prometheus"] == url
    assert "cannot reach Prometheus" in phase["metrics_export"]["reason"], phase["metrics_export"]
    # nothing gathered is lost
    assert set(gathered) <= {p.relative_to(bench) for p in bench.rglob("*") if p.is_file()}

    results.write(str(bench))
    doc = json.loads((bench / "results.json").read_text())
    (run,) = [r for r in doc["runs"] if r["database"] == "mongodb"]
    # the figures from Prometheus: null, the reason naming the host
    assert run["cpu"]["user_s"] is None and run["cpu"]["system_s"] is None, run["cpu"]
    assert run["network"]["rx_bytes"] is None, run["network"]
    assert any("the Prometheus on jsonbench-sim-2 (MONITORING_HOST" in n and "did not answer" in n
               for n in run["notes"]), run["notes"]
    # the rest stands: the probe's cgroup reading and the counts
    assert run["cpu"]["cgroup_cpu_s"], run["cpu"]
    assert run["docs_in_db"] and run["docs_ok"], (run["docs_in_db"], run["docs_ok"])
    (other,) = [r for r in doc["runs"] if r["database"] == "postgres"]
    assert other["cpu"]["user_s"] is not None  # the phase whose export ran keeps its figures


def test_without_monitoring_host_a_failed_export_records_nothing_new(tmp_path):
    """A single host's failed export says it as before and writes nothing into its phase file."""
    bench = tmp_path / "bench1"
    shutil.copytree(os.path.join(FIXTURES, "bench1"), bench)
    (bench / "mongodb.metrics.json").unlink()
    _, metrics, said = entry.phase_finished(str(bench), "mongodb", "mongodb", "http://127.0.0.1:9")
    assert metrics is None and said
    assert "metrics_export" not in json.loads((bench / "mongodb.phase.json").read_text())
