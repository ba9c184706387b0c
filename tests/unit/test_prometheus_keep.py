"""prometheus/prometheus.yml keeps only some series and compose.yaml's cAdvisor collects only some
metric sets (the monitoring's own CPU is part of a run's cost). Every metric name the lab reads
(analysis/collect/export.py, analysis/collect/monitoring.py, every Grafana dashboard query, the client metrics
of docs/contracts.md §2) must survive both, and the filters must really drop something."""
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

LAB_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(LAB_ROOT))

from analysis.collect import export, monitoring, series  # noqa: E402

NAME = re.compile(r"\b((?:container|jsonbench_client|process|machine)_[a-z0-9_]+)")
# cAdvisor metric set (--enable_metrics) -> the prefixes of the series it produces
# (cAdvisor metrics/prometheus.go: cpu, memory, diskIO, network blocks).
CADVISOR_SETS = {"cpu": ("container_cpu_",), "memory": ("container_memory_",),
                 "diskIO": ("container_fs_reads", "container_fs_writes", "container_blkio_"),
                 "network": ("container_network_",)}
ALWAYS = ("container_spec_", "container_last_seen", "container_start_time")


def keep_regexes(job):
    cfg = yaml.safe_load((LAB_ROOT / "prometheus" / "prometheus.yml").read_text())
    (sc,) = [s for s in cfg["scrape_configs"] if s["job_name"] == job]
    keeps = [r for r in sc.get("metric_relabel_configs", []) if r.get("action") == "keep"
             and r.get("source_labels") == ["__name__"]]
    assert len(keeps) == 1, f"job {job}: one keep rule on __name__ expected"
    return re.compile(f"^(?:{keeps[0]['regex']})$")  # Prometheus anchors relabel regexes


def dashboard_names():
    out = subprocess.run([sys.executable, str(LAB_ROOT / "grafana" / "dashboard_queries.py"),
                          "--var", "project=jsonbench", "--var", "service=postgres", "--var", "database=postgres"],
                         check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        names |= set(NAME.findall(json.loads(line)["expr"]))
    return {n for n in names if not n.startswith("container_label_")}  # labels, not series


def contract_client_names():
    text = (LAB_ROOT / "docs" / "contracts.md").read_text()
    section = text[text.index("## 2. Client"):text.index("## 3.")]
    return {n for n in NAME.findall(section) if n.startswith(("jsonbench_client_", "process_cpu"))}


def test_every_name_the_lab_reads_is_kept():
    cadvisor, client = keep_regexes("cadvisor"), keep_regexes("client")
    read = set(export.COUNTERS) | set(export.GAUGES) | set(monitoring.CPU_COUNTERS) | dashboard_names()
    assert "process_cpu_seconds_total" in read and "container_cpu_user_seconds_total" in read
    for name in sorted(read):
        base = re.sub(r"_(bucket|sum|count)$", "", name) if name.startswith("jsonbench_client_") else name
        job = client if name.startswith(("jsonbench_client_", "process_")) else cadvisor
        assert job.match(name) or job.match(base), f"{name} is read by the lab but dropped by prometheus.yml"
    for name in contract_client_names():
        assert client.match(name) or client.match(name + "_bucket"), f"contracts.md §2 {name} dropped"


def test_the_filters_drop_what_nobody_reads():
    cadvisor, client = keep_regexes("cadvisor"), keep_regexes("client")
    for name in ("container_memory_failures_total", "container_fs_usage_bytes", "go_goroutines",
                 "container_tasks_state", "machine_cpu_cores", "process_open_fds"):
        assert not cadvisor.match(name), name
    for name in ("nodejs_eventloop_lag_seconds", "nodejs_heap_size_used_bytes", "process_open_fds"):
        assert not client.match(name), name
    jobs = {s["job_name"] for s in yaml.safe_load((LAB_ROOT / "prometheus" / "prometheus.yml").read_text())["scrape_configs"]}
    assert jobs == {"cadvisor", "client"}  # no self-scrape: nothing reads Prometheus's own series


def test_cadvisor_collects_the_sets_of_every_kept_name_and_no_other():
    compose = yaml.safe_load((LAB_ROOT / "compose.yaml").read_text())
    cmd = compose["services"]["cadvisor"]["command"]
    (flag,) = [c for c in cmd if c.startswith("--enable_metrics=")]
    enabled = set(flag.split("=", 1)[1].split(","))
    assert enabled == set(CADVISOR_SETS), enabled
    kept = keep_regexes("cadvisor")
    for name in set(export.COUNTERS) | set(export.GAUGES) | set(monitoring.CPU_COUNTERS):
        assert any(name.startswith(p) for s in enabled for p in CADVISOR_SETS[s]) or name.startswith(ALWAYS), name
    assert "--docker_only=true" in cmd and "--housekeeping_interval=1s" in cmd and "--max_procs=1" in cmd
    # Only the labels the queries select on (series.PROJECT_LABEL, SERVICE_LABEL) are exported.
    assert "--store_container_labels=false" in cmd
    (labels,) = [c.split("=", 1)[1] for c in cmd if c.startswith("--whitelisted_container_labels=")]
    exported = {"container_label_" + label.replace(".", "_") for label in labels.split(",")}
    assert exported == {series.PROJECT_LABEL, series.SERVICE_LABEL}
    # "no other": every collected set has a series that the lab reads and Prometheus keeps
    read = set(export.COUNTERS) | set(export.GAUGES) | set(monitoring.CPU_COUNTERS) | dashboard_names()
    for s in enabled:
        used = sorted(n for n in read if n.startswith(CADVISOR_SETS[s]) and kept.match(n))
        assert used, f"cAdvisor collects the {s} set, but the lab reads none of its series"
