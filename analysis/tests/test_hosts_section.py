"""results.json `hosts` and report.md's Hosts table come from hosts.json when the run recorded one
(lab/driver/host_facts.py); a run without it (every recorded fixture) keeps its results and report."""
import json
import os

from analysis.figures import results
from analysis.render import report
from analysis.tests.helpers import hardware_bench

HOSTS = {"schema_version": 1, "hosts": [
    {"context": "db1", "roles": ["database"], "kernel": "6.1.0", "os": "Debian GNU/Linux 12 (bookworm)",
     "arch": "x86_64", "cpu_model": "AMD EPYC 7763", "cores": 16, "memory_bytes": 68719476736,
     "cgroup_version": "v2", "cgroup_driver": "systemd", "docker_server": "27.3.1", "reason": None},
    {"context": "default", "roles": ["client", "monitoring"], "kernel": "6.1.0", "os": None, "arch": "x86_64",
     "cpu_model": None, "cores": 8, "memory_bytes": 17179869184, "cgroup_version": "v2",
     "cgroup_driver": "systemd", "docker_server": "27.3.1", "reason": "not read: os, cpu_model"}]}


def test_hosts_json_reaches_results_and_the_report(fixture_benches, tmp_path):
    b = fixture_benches[hardware_bench(fixture_benches)]
    before = results.write(b)
    assert "hosts" not in before
    with open(os.path.join(b, "hosts.json"), "w") as f:
        json.dump(HOSTS, f)
    after = results.write(b)
    assert after["hosts"] == HOSTS["hosts"]
    _, paths = report.bench_report(b)
    text = open(paths[0]).read()
    assert "## Hosts" in text
    assert "| db1 | database | 6.1.0 | Debian GNU/Linux 12 (bookworm) | AMD EPYC 7763 | 16 | 64.0 GiB | v2, systemd | 27.3.1 |" in text
    assert "| default | client, monitoring | 6.1.0 | ? | ? | 8 |" in text
    assert "- default: not read: os, cpu_model" in text


def test_a_run_without_hosts_json_has_no_hosts_section(fixture_benches):
    b = fixture_benches[hardware_bench(fixture_benches)]
    results.write(b)
    _, paths = report.bench_report(b)
    assert "## Hosts" not in open(paths[0]).read()


CANARY = {"schema_version": 1, "client_host": "cl1", "measured_at": 1795888629.5, "pings": 20, "pairs": [
    {"database_host": "db1", "address": "10.0.0.1", "rtt_s": {"min": 0.000061, "median": 0.0000805, "max": 0.00031,
                                                              "samples": 20},
     "bytes": 16777216, "seconds": 0.0421, "throughput_bytes_per_s": 16777216 / 0.0421, "peer": "10.0.0.2",
     "reason": None},
    {"database_host": "db2", "address": "10.0.0.3", "rtt_s": None, "bytes": None, "seconds": None,
     "throughput_bytes_per_s": None, "peer": None, "reason": "the canary server did not start on db2: x"}]}


def test_canary_json_reaches_results_and_the_report(fixture_benches):
    b = fixture_benches[hardware_bench(fixture_benches)]
    assert "network_canary" not in results.write(b)
    with open(os.path.join(b, "canary.json"), "w") as f:
        json.dump(CANARY, f)
    assert results.write(b)["network_canary"] == CANARY
    _, paths = report.bench_report(b)
    text = open(paths[0]).read()
    assert "## Network" in text and "from the clients' host cl1" in text
    assert "| db1 | 10.0.0.1 | 0.061 / 0.081 / 0.310 ms | 398.5 MB/s | 16777216 | 10.0.0.2 |" in text
    assert "| db2 | 10.0.0.3 | ? | ? | ? | ? |" in text and "- db2: the canary server did not start on db2: x" in text


def test_a_canary_json_outside_its_schema_is_refused(fixture_benches):
    from analysis.common.errors import AnalysisError
    b = fixture_benches[hardware_bench(fixture_benches)]
    with open(os.path.join(b, "canary.json"), "w") as f:
        json.dump({**CANARY, "pings": 0}, f)
    import pytest
    with pytest.raises(AnalysisError, match="canary.json: does not match lab/canary.schema.json at 'pings'"):
        results.write(b)
