"""What Prometheus scrapes comes from files the driver writes (lab/driver/monitoring_targets.py,
issue 27): one cAdvisor per host that holds a measured container and each phase's clients, every
target group with the `host` label of its Docker context. The target groups from a placement
{context: roles}; the lab's compose.yaml and prometheus.yml agreeing on the folder; and a real
Prometheus (the lab's image and configuration) taking the files copied into its volume at once."""
import json
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
import yaml

LAB_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(LAB_ROOT))
from lab.driver import monitoring_targets as mt  # noqa: E402

from lab_images import present  # noqa: E402


def test_a_single_host_is_one_cadvisor_on_the_compose_network_with_its_context():
    groups = mt.cadvisor_groups(mt.single_host("default"), "default")
    assert groups == [{"targets": ["cadvisor:8080"], "labels": {"host": "default"}}]


def test_each_host_with_a_measured_container_has_its_cadvisor_at_its_lab_address():
    hosts = {"db1": {"database"}, "cl1": {"client"}, "mon": {"monitoring"}}
    groups = mt.cadvisor_groups(hosts, "mon", {"db1": "10.0.0.1", "cl1": "10.0.0.2"}.get, 18080)
    assert groups == [{"targets": ["10.0.0.2:18080"], "labels": {"host": "cl1"}},
                      {"targets": ["10.0.0.1:18080"], "labels": {"host": "db1"}}]  # the monitoring host holds none
    # the clients on the monitoring host: their cAdvisor is the compose network's
    groups = mt.cadvisor_groups({"db1": {"database"}, "mon": {"monitoring", "client"}}, "mon", {"db1": "10.0.0.1"}.get)
    assert [g["targets"] for g in groups] == [["10.0.0.1:8080"], ["cadvisor:8080"]]


def test_bad_placements_are_refused_naming_the_host():
    with pytest.raises(ValueError, match="unknown roles.*db1.*allowed: database, client, monitoring"):
        mt.cadvisor_groups({"db1": {"databse"}}, "db1")
    with pytest.raises(ValueError, match="'db1' is not the monitoring host"):
        mt.cadvisor_groups({"db1": {"database"}, "mon": {"monitoring"}}, "mon")
    with pytest.raises(ValueError, match="binds only to the host's lab address"):
        mt.cadvisor_env("db1", "0.0.0.0")


def test_client_targets_carry_their_port_and_host():
    groups = mt.client_groups({"default": ["p-client-run-1", "p-client-run-2"], "cl1": ["10.0.0.2:31001"], "x": []},
                              "default")
    assert groups == [{"targets": ["10.0.0.2:31001"], "labels": {"host": "cl1"}},
                      {"targets": ["p-client-run-1:9464", "p-client-run-2:9464"], "labels": {"host": "default"}}]


def test_the_current_context_is_the_environment_s():
    assert mt.current_context({"DOCKER_CONTEXT": "db1"}) == "db1"


def test_compose_and_prometheus_agree_on_the_targets_folder():
    compose = yaml.safe_load((LAB_ROOT / "compose.yaml").read_text())
    mounts = compose["services"]["prometheus"]["volumes"]
    assert f"prometheus-targets:{mt.TARGETS_DIR}" in mounts, mounts
    assert "prometheus-targets" in compose["volumes"]
    cfg = yaml.safe_load((LAB_ROOT / "prometheus" / "prometheus.yml").read_text())
    files = {j["job_name"]: [f for sd in j.get("file_sd_configs", []) for f in sd["files"]] for j in cfg["scrape_configs"]}
    assert files == {"cadvisor": [f"{mt.TARGETS_DIR}/{mt.CADVISOR_FILE}"], "client": [f"{mt.TARGETS_DIR}/{mt.CLIENT_FILE}"]}
    assert not any("static_configs" in j or "dns_sd_configs" in j for j in cfg["scrape_configs"])
    # cAdvisor watches its own engine: the default socket on a host of its own, the one set elsewhere
    cmd = compose["services"]["cadvisor"]["command"]
    assert "--docker=${CADVISOR_DOCKER_ENDPOINT:-unix:///var/run/docker.sock}" in cmd
    published = yaml.safe_load((LAB_ROOT / "prometheus" / "cadvisor-published.yaml").read_text())
    (port,) = published["services"]["cadvisor"]["ports"]
    assert port.startswith("${CADVISOR_ADDRESS:?") and "cadvisor" not in compose["services"]["cadvisor"].get("ports", [])


PROMETHEUS_IMAGES = ("prom/prometheus:v3.5.0", "jsonbench-standin/prometheus:3.5")


def _targets(url):
    with urllib.request.urlopen(url + "/api/v1/targets", timeout=5) as r:
        return [(t["labels"]["job"], t["labels"].get("host"), t["scrapeUrl"]) for t in json.load(r)["data"]["activeTargets"]]


def _until(url, want, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        try:
            got = sorted(_targets(url))
        except OSError:
            got = None
        if got == want:
            return got
        assert time.monotonic() < deadline, got
        time.sleep(0.2)


def test_a_real_prometheus_takes_the_targets_copied_into_its_volume_at_once():
    """The lab's Prometheus image and prometheus.yml, the targets volume as compose.yaml mounts it:
    install() copies the files in through the engine, and Prometheus scrapes what they name, with the
    host label, then stops asking for the clients when their file empties."""
    image = next((i for i in PROMETHEUS_IMAGES if present(i)), None)
    assert image, f"none of {PROMETHEUS_IMAGES} on the engine (lab/test.sh builds or pulls them)"
    volume = f"jsonbench-test-targets-{uuid.uuid4().hex[:8]}"
    cid = None
    try:
        r = subprocess.run(["docker", "run", "-d", "-p", "127.0.0.1::9090",
                            "-v", f"{LAB_ROOT / 'prometheus' / 'prometheus.yml'}:/etc/prometheus/prometheus.yml:ro",
                            "-v", f"{volume}:{mt.TARGETS_DIR}", image,
                            "--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/tmp/data"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        cid = r.stdout.strip()
        port = subprocess.run(["docker", "port", cid, "9090/tcp"], capture_output=True, text=True).stdout.split(":")[-1].strip()
        url = f"http://127.0.0.1:{port}"
        _until(url, [], timeout=60)  # nothing to scrape until the driver writes
        mt.install(cid, mt.CADVISOR_FILE, mt.cadvisor_groups(mt.single_host("default"), "default"))
        mt.install(cid, mt.CLIENT_FILE, mt.client_groups({"default": ["p-client-run-1"]}, "default"))
        _until(url, [("cadvisor", "default", "http://cadvisor:8080/metrics"),
                     ("client", "default", "http://p-client-run-1:9464/metrics")])
        mt.install(cid, mt.CLIENT_FILE, mt.client_groups({"default": []}, "default"))
        _until(url, [("cadvisor", "default", "http://cadvisor:8080/metrics")])
    finally:
        if cid:
            subprocess.run(["docker", "rm", "-f", cid], capture_output=True)
        subprocess.run(["docker", "volume", "rm", volume], capture_output=True)
