"""MONITORING_HOST (issue 27, lab/driver/placed.py): the roles each host holds and where the driver's
queries go, from the placement as lab/driver/placement.py reads it. The start on a real engine and the
queries are the placed run's (tests/e2e/test_simulated_hosts.py)."""
from types import SimpleNamespace

from lab.driver import placed, placement


def bench(tmp_path, lines, env=None):
    f = tmp_path / "bench.env"
    f.write_text("DESCRIPTION=x\nDATABASES=mongodb\n" + lines)
    p = placement.of_bench(str(f), environ={})
    lab = SimpleNamespace(context="here", hosts=lambda: {"here": {"database", "client", "monitoring"}})
    return SimpleNamespace(placement=p, databases=["mongodb"], lab=lab, env=env or {},
                           engine=SimpleNamespace(environ={}, standins=True))


def test_the_monitoring_runs_on_its_host_and_is_queried_at_its_lab_address(tmp_path):
    b = bench(tmp_path, "DATABASE_HOST=db1\nCLIENT_HOST=cl1\nMONITORING_HOST=cl1\n"
                        "LAB_ADDRESSES=\"db1=10.0.0.2 cl1=10.0.0.3\"\n", {"PROMETHEUS_PORT": "19090"})
    assert placed.hosts(b) == {"db1": {"database"}, "cl1": {"client", "monitoring"}}
    assert placed.monitoring_name(b) == "cl1"
    assert placed.prometheus_url(b) == "http://10.0.0.3:19090"
    assert placed.monitoring_env(b)["BIND_ADDRESS"] == "10.0.0.3"  # its ports on that address only
    assert placed.monitoring_services(b) == ("prometheus",)  # the stand-ins have no Grafana, as on one host


def test_without_monitoring_host_the_controller_s_prometheus_as_before(tmp_path):
    b = bench(tmp_path, "DATABASE_HOST=db1\nCLIENT_HOST=cl1\nLAB_ADDRESSES=\"db1=10.0.0.2 cl1=10.0.0.3\"\n")
    assert placed.hosts(b) == {"db1": {"database"}, "cl1": {"client"}, "here": {"monitoring"}}
    assert placed.prometheus_url(b) is None  # Lab.prometheus_url, the lab's own


def test_clients_on_another_host_than_prometheus_publish_their_metrics_port_there(tmp_path):
    """The clients' /metrics (compose.yaml METRICS_PORT 9464): on Prometheus's host by container name;
    on another host published on that host's lab address only, one port each, and targeted there with
    the clients' host label; a host without a lab address: not scraped, and why."""
    names = ["p-client-mongodb-1", "p-client-mongodb-2"]
    # the monitoring on the controller, the clients on cl1
    b = bench(tmp_path, "DATABASE_HOST=db1\nCLIENT_HOST=cl1\nLAB_ADDRESSES=\"db1=10.0.0.2 cl1=10.0.0.3\"\n")
    assert placed.client_targets(b, names) == ({"cl1": ["10.0.0.3:9465", "10.0.0.3:9466"]}, None)
    assert placed.client_metrics_publish(b, 2) == ["-p", "10.0.0.3:9466:9464"]
    b.env["CLIENT_METRICS_PORT_BASE"] = "19000"
    assert placed.client_metrics_publish(b, 1) == ["-p", "10.0.0.3:19001:9464"]
    # the clients on the monitoring host: by name, nothing published
    b = bench(tmp_path, "DATABASE_HOST=db1\nCLIENT_HOST=cl1\nMONITORING_HOST=cl1\n"
                        "LAB_ADDRESSES=\"db1=10.0.0.2 cl1=10.0.0.3\"\n")
    assert placed.client_targets(b, names) == ({"cl1": names}, None)
    assert placed.client_metrics_publish(b, 1) == []
    # the clients with their database on a host without a lab address, the monitoring elsewhere
    b = bench(tmp_path, "DATABASE_HOST=db1\nCLIENT_HOST=db1\nMONITORING_HOST=mon\nLAB_ADDRESSES=\"mon=10.0.0.4\"\n")
    targets, why = placed.client_targets(b, names)
    assert targets == {"db1": []} and "LAB_ADDRESSES names no address of db1" in why, why
    assert placed.client_metrics_publish(b, 1) == []
