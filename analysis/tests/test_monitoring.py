"""The monitoring's own cost: results.json `monitoring` from the export, the numbers of
lab/bench-monitoring-cost.sh, and the profile lines of report.md."""
import json
import os

import pytest

from analysis.collect import monitoring, monitoring_cost
from analysis.figures import results, schema
from analysis.render import report
from analysis.common.errors import AnalysisError


def test_summary_is_cpu_seconds_and_cores_per_second_of_window():
    metrics = {"window": {"start": 100.0, "end": 200.0},
               "monitoring": {"cadvisor": {"cpu_s": 1.5, "reason": None},
                              "prometheus": {"cpu_s": 0.5, "reason": None}}}
    assert monitoring.summary(metrics) == {"cadvisor_cpu_s": 1.5, "prometheus_cpu_s": 0.5,
                                           "per_s": pytest.approx(0.02), "reason": None}


def test_summary_is_null_with_the_reason_when_a_service_has_no_series():
    why = "no container_cpu_user_seconds_total series for service 'prometheus'"
    metrics = {"window": {"start": 0.0, "end": 10.0},
               "monitoring": {"cadvisor": {"cpu_s": 0.1, "reason": None},
                              "prometheus": {"cpu_s": None, "reason": why}}}
    s = monitoring.summary(metrics)
    assert s["per_s"] is None and s["prometheus_cpu_s"] is None and s["reason"] == why
    assert monitoring.summary(None)["reason"] == "no metrics export"
    assert monitoring.summary({"window": {}})["reason"] == "no monitoring figures in the metrics export"


def test_results_json_carries_monitoring_and_profile(fixture_benches):
    bench = fixture_benches["bench1"]
    path = os.path.join(bench, "postgres.metrics.json")
    m = json.load(open(path))
    m["monitoring"] = {"cadvisor": {"cpu_s": 0.2, "containers": ["x"], "samples": 8, "reason": None},
                       "prometheus": {"cpu_s": 0.1, "containers": ["y"], "samples": 8, "reason": None}}
    json.dump(m, open(path, "w"))
    r = results.build(bench)
    pg = next(x for x in r["runs"] if x["database"] == "postgres")
    seconds = m["window"]["end"] - m["window"]["start"]
    assert pg["monitoring"]["per_s"] == pytest.approx(0.3 / seconds)
    assert pg["profile"]["file"] == "postgres.perf" and pg["profile"]["frequency_hz"] == 1000
    mongo = next(x for x in r["runs"] if x["database"] == "mongodb")
    assert mongo["monitoring"]["per_s"] is None and mongo["monitoring"]["reason"]
    schema.validate(r)


SAMPLES = """1\tcadvisor\tstart\t100.0\t10.0
1\tprometheus\tstart\t100.0\t5.0
1\tcadvisor-baseline\tstart\t100.0\t20.0
1\tprometheus-baseline\tstart\t100.0\t8.0
1\tcadvisor\tend\t110.0\t10.1
1\tprometheus\tend\t110.0\t5.05
1\tcadvisor-baseline\tend\t110.0\t20.4
1\tprometheus-baseline\tend\t110.0\t8.2
2\tcadvisor\tstart\t110.0\t10.1
2\tprometheus\tstart\t110.0\t5.05
2\tcadvisor\tend\t120.0\t10.3
2\tprometheus\tend\t120.0\t5.15
"""


def test_cost_is_best_round_of_the_pair_with_a_verdict(tmp_path, capsys):
    f = tmp_path / "s.tsv"
    f.write_text(SAMPLES)
    assert monitoring_cost.main([str(f), "--target", "0.02"]) == 0
    out = capsys.readouterr().out
    assert "lab (this configuration)     cAdvisor 1.00%  Prometheus 0.50%  together 1.50%" in out
    assert "baseline (before issue 9)    cAdvisor 4.00%  Prometheus 2.00%  together 6.00%" in out
    assert out.rstrip().endswith("met: cAdvisor + Prometheus 1.50% of one core, target < 2.00%")
    assert monitoring_cost.main([str(f), "--target", "0.01"]) == 1
    assert "MISSED: cAdvisor + Prometheus 1.50%" in capsys.readouterr().out


def test_cost_variant_pair_is_shown_with_its_change_and_does_not_decide(tmp_path, capsys):
    f = tmp_path / "s.tsv"
    f.write_text(SAMPLES + "1\tcadvisor-variant\tstart\t100.0\t1.0\n1\tprometheus-variant\tstart\t100.0\t1.0\n"
                 "1\tcadvisor-variant\tend\t110.0\t1.05\n1\tprometheus-variant\tend\t110.0\t1.01\n")
    assert monitoring_cost.main([str(f), "--target", "0.01", "--variant", "VARIANT_CADVISOR_FLAGS=--x=1 "]) == 1
    out = capsys.readouterr().out
    assert "variant (lab + change)       cAdvisor 0.50%  Prometheus 0.10%  together 0.60%" in out
    assert "  variant = lab + VARIANT_CADVISOR_FLAGS=--x=1\n" in out
    assert "MISSED: cAdvisor + Prometheus 1.50%" in out  # the verdict is the lab's own pair


def test_cost_input_errors_name_the_file_and_line(tmp_path):
    f = tmp_path / "bad.tsv"
    f.write_text("1\tcadvisor\tmiddle\t1\t2\n")
    with pytest.raises(AnalysisError, match=r"bad.tsv:1: expected round"):
        monitoring_cost.parse(open(f), str(f))


@pytest.mark.parametrize("hz,expect", [
    (1000, "1000 Hz: the profiler's times are CPU time"),
    (199, "199 Hz: a sample stands for 5.03 ms of CPU but the profiler counts 1 ms, so its times are off by a factor 5.03"),
])
def test_profile_line_states_the_rate(tmp_path, hz, expect):
    (tmp_path / "postgres.perf").write_text("x")
    run = {"database": "postgres", "profile": {"file": "postgres.perf", "samples": 12, "frequency_hz": hz, "reason": None}}
    line = report._profile_line(str(tmp_path), run)
    assert "[postgres.perf](postgres.perf) (12 samples, " + expect in line


def test_profile_line_without_a_file_says_why(tmp_path):
    why = "no samples: the container did not run on a CPU during the 20 s recording"
    run = {"database": "postgres", "profile": {"file": None, "samples": 0, "frequency_hz": 1000, "reason": why}}
    assert report._profile_line(str(tmp_path), run) == f"Profile: none ({why})."
