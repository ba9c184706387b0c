"""The monitoring's own CPU on a placed run: one cAdvisor per host, each container named alike on every
host (jsonbench-cadvisor-1), told apart by the `host` label the lab's targets give every series. A real
Prometheus (tests/real_prometheus.py) scrapes an exporter this test serves, whose values it controls."""
import threading
import time

import pytest
import requests
from prometheus_client.core import CounterMetricFamily

import real_prometheus  # tests/ (analysis/tests/conftest.py puts it on sys.path)
from analysis.collect.monitoring import monitoring_cpu, summary
from analysis.collect.prom import Prometheus

PROJECT = "jsonbench"
LABELS = ["id", "name", "image", "container_label_com_docker_compose_project",
          "container_label_com_docker_compose_service", "host"]
METRICS = ("container_cpu_user_seconds_total", "container_cpu_system_seconds_total")


class TwoHostsMonitoring:
    """cAdvisor and Prometheus containers as two hosts' cAdvisors report them: same names, own host."""

    def __init__(self):
        self.lock = threading.Lock()
        self.cpu = {}  # (host, service) -> seconds, per metric the same value

    def set(self, host, service, seconds):
        with self.lock:
            self.cpu[(host, service)] = seconds

    def collect(self):
        with self.lock:
            fams = []
            for metric in METRICS:
                fam = CounterMetricFamily(metric[:-len("_total")], metric, labels=LABELS)
                for (host, service), value in sorted(self.cpu.items()):
                    name = f"{PROJECT}-{service}-1"
                    fam.add_metric([f"/docker/{host}-{service}", name, "img", PROJECT, service, host], value)
                fams.append(fam)
            return fams


def scraped(url, expr, want):
    deadline = time.time() + 30
    while True:
        got = requests.get(f"{url}/api/v1/query", params={"query": expr}).json()["data"]["result"]
        if got and float(got[0]["value"][1]) == want:
            return
        assert time.time() < deadline, f"prometheus never scraped {expr} = {want}"
        time.sleep(0.2)


def test_each_host_s_monitoring_cpu_is_its_own_and_they_add_up(tmp_path):
    fake = TwoHostsMonitoring()
    start_values = {("sim-1", "cadvisor"): 10.0, ("sim-2", "cadvisor"): 20.0, ("sim-1", "prometheus"): 5.0}
    for (host, svc), v in start_values.items():
        fake.set(host, svc, v)
    with real_prometheus.scraping_collector(tmp_path, fake) as url:
        probe = 'container_cpu_system_seconds_total{host="sim-2",container_label_com_docker_compose_service="cadvisor"}'
        scraped(url, probe, 20.0)
        time.sleep(2.5)  # two more scrapes of the start values: the window's start reads them
        start = time.time()
        time.sleep(1.5)
        fake.set("sim-1", "cadvisor", 10.25)
        fake.set("sim-2", "cadvisor", 20.5)
        fake.set("sim-1", "prometheus", 5.125)
        scraped(url, probe, 20.5)
        time.sleep(2.5)
        end = time.time()
        mon = monitoring_cpu(Prometheus(url), PROJECT, start, end, 1.0, 10.0)
    cad, prom = mon["cadvisor"], mon["prometheus"]
    # user and system each grew by the same step: each host twice its step
    assert cad["hosts"] == {"sim-1": pytest.approx(0.5), "sim-2": pytest.approx(1.0)}, cad
    assert cad["cpu_s"] == pytest.approx(1.5) and cad["reason"] is None
    assert cad["containers"] == ["sim-1/jsonbench-cadvisor-1", "sim-2/jsonbench-cadvisor-1"]
    # Prometheus runs on the monitoring host only: one host, so no per-host split and plain names
    assert "hosts" not in prom and prom["cpu_s"] == pytest.approx(0.25) and prom["containers"] == ["jsonbench-prometheus-1"]
    s = summary({"window": {"start": start, "end": end}, "monitoring": mon})
    assert s["hosts"] == {"sim-1": {"cadvisor_cpu_s": pytest.approx(0.5)}, "sim-2": {"cadvisor_cpu_s": pytest.approx(1.0)}}
    assert s["cadvisor_cpu_s"] == pytest.approx(1.5)


def test_a_single_host_s_summary_is_as_before():
    """The single host's series carry one `host` label value: no split, the figures as every recorded run has them."""
    metrics = {"window": {"start": 0.0, "end": 10.0},
               "monitoring": {"cadvisor": {"cpu_s": 0.1, "reason": None}, "prometheus": {"cpu_s": 0.1, "reason": None}}}
    assert set(summary(metrics)) == {"cadvisor_cpu_s", "prometheus_cpu_s", "per_s", "reason"}
