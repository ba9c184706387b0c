"""lab/monitoring-cost/baseline_services.py: the baseline pair is the lab's resolved services with the
pre-issue-9 configuration, and the optional variant pair is the lab's own plus exactly the change
under evaluation (lab/bench-monitoring-cost.sh compares them side by side)."""
import json
import subprocess
import sys
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = LAB_ROOT / "lab" / "monitoring-cost" / "baseline_services.py"
LAB = {"services": {
    "cadvisor": {"image": "cadvisor:x", "command": ["--housekeeping_interval=1s", "--max_procs=1"]},
    "prometheus": {"image": "prom:x", "command": ["--config.file=/etc/prometheus/prometheus.yml"],
                   "environment": {"GOMAXPROCS": "1"}, "ports": [{"target": 9090}],
                   "volumes": [{"type": "bind", "source": "/lab/prometheus.yml"}]},
}}


def run(env, *args):
    out = subprocess.run([sys.executable, str(SCRIPT), "/b/prometheus.baseline.yml", *args], input=json.dumps(LAB),
                         capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", **env})
    return out


def test_without_variant_only_the_baseline_pair():
    r = run({}, "/w/prometheus.variant.yml")
    assert r.returncode == 0, r.stderr
    services = json.loads(r.stdout)["services"]
    assert set(services) == {"cadvisor-baseline", "prometheus-baseline"}
    assert "--store_container_labels=true" in services["cadvisor-baseline"]["command"]
    assert "environment" not in services["prometheus-baseline"]


def test_variant_is_the_lab_pair_plus_the_change():
    r = run({"VARIANT_CADVISOR_FLAGS": "--storage_duration=5s", "VARIANT_PROMETHEUS_ENV": "GOGC=200",
             "VARIANT_PROMETHEUS_FLAGS": "--no-storage.tsdb.wal-compression"}, "/w/prometheus.variant.yml")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    cad, prom = out["services"]["cadvisor-variant"], out["services"]["prometheus-variant"]
    assert cad["command"] == ["--housekeeping_interval=1s", "--max_procs=1", "--storage_duration=5s"]
    assert prom["command"][-1] == "--no-storage.tsdb.wal-compression"
    assert prom["environment"] == {"GOMAXPROCS": "1", "GOGC": "200"}
    assert prom["volumes"][0]["source"] == "/w/prometheus.variant.yml" and "ports" not in prom
    assert "prometheus-variant-data" in out["volumes"]
    assert LAB["services"]["cadvisor"]["command"] == ["--housekeeping_interval=1s", "--max_procs=1"]  # untouched


def test_variant_env_must_be_name_value_words():
    r = run({"VARIANT_CADVISOR_ENV": "GOGC"}, "/w/v.yml")
    assert r.returncode != 0 and "VARIANT_CADVISOR_ENV" in r.stderr and "'GOGC'" in r.stderr


def test_the_variant_prometheus_scrapes_the_variant_cadvisor_and_the_load_s_clients():
    """The lab's prometheus.yml reads its targets from the driver's files (file_sd); the variant's
    Prometheus has no such files: variant_targets.py gives it static ones, every other line kept."""
    import yaml
    r = subprocess.run([sys.executable, str(LAB_ROOT / "lab" / "monitoring-cost" / "variant_targets.py"),
                        str(LAB_ROOT / "prometheus" / "prometheus.yml"), "proj", "postgres", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cfg = yaml.safe_load(r.stdout)
    lab = yaml.safe_load((LAB_ROOT / "prometheus" / "prometheus.yml").read_text())
    jobs = {j["job_name"]: j for j in cfg["scrape_configs"]}
    assert jobs["cadvisor"]["static_configs"] == [{"targets": ["cadvisor-variant:8080"], "labels": {"host": "variant"}}]
    assert jobs["client"]["static_configs"][0]["targets"] == ["proj-client-postgres-1:9464", "proj-client-postgres-2:9464"]
    assert not any("file_sd_configs" in j for j in jobs.values())
    for job in lab["scrape_configs"]:
        kept = {k: v for k, v in job.items() if k != "file_sd_configs"}
        assert {k: v for k, v in jobs[job["job_name"]].items() if k != "static_configs"} == kept
    assert cfg["global"] == lab["global"]
