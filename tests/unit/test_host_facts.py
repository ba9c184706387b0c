"""Every host of a run with its roles and facts (lab/driver/host_facts.py, issue 27): the single host's
are host.json's (analysis host-info, read once) with its role; another host's come from its own engine
(`docker --context C info`, the real engine here) and its probe; what no one read is null with the
reason; hosts.json matches lab/hosts.schema.json, which results.json's `hosts` repeats."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(LAB_ROOT))
from lab.driver import host_facts  # noqa: E402
from lab.driver.probe import LocalProbe  # noqa: E402

INFO = json.loads(subprocess.run(["docker", "info", "--format", "{{json .}}"], capture_output=True, text=True,
                                 check=True).stdout)
CONTEXT = subprocess.run(["docker", "context", "show"], capture_output=True, text=True, check=True).stdout.strip()


def test_the_single_host_is_host_json_s_facts_with_every_role():
    from analysis.collect import hostinfo
    facts = hostinfo.gather()
    assert facts["cgroup_driver"] == INFO["CgroupDriver"]  # host-info now says the engine's driver
    doc = host_facts.document({"here": {"database", "client", "monitoring"}}, "here", facts)
    (h,) = doc["hosts"]
    assert h["context"] == "here" and h["roles"] == ["database", "client", "monitoring"]
    assert {k: h[k] for k in host_facts.FACTS} == {k: facts[k] for k in host_facts.FACTS}
    assert h["reason"] is None and h["cpu_model"] and h["docker_server"] == INFO["ServerVersion"]


def test_another_host_s_facts_are_its_engine_s_and_its_probe_s():
    # the main engine named by its context, as a placed run names every other host
    doc = host_facts.document({CONTEXT: {"database"}, "controller": {"monitoring", "client"}}, "controller", {},
                              probes={CONTEXT: LocalProbe()})
    other = next(h for h in doc["hosts"] if h["context"] == CONTEXT)
    assert other["roles"] == ["database"]
    assert other["kernel"] == INFO["KernelVersion"] and other["cores"] == INFO["NCPU"]
    assert other["memory_bytes"] == INFO["MemTotal"] and other["docker_server"] == INFO["ServerVersion"]
    assert other["cgroup_driver"] == INFO["CgroupDriver"]
    assert other["cgroup_version"].startswith(f"v{INFO['CgroupVersion']}")
    assert other["cpu_model"] and other["reason"] is None, other
    # without a probe there: its CPU model is not read, and the record says so
    doc = host_facts.document({CONTEXT: {"database"}}, "controller", {})
    (h,) = doc["hosts"]
    assert h["cpu_model"] is None and "no probe on this host" in h["reason"] and "cpu_model" in h["reason"]
    # the local host's host.json missing: every fact null, said
    doc = host_facts.document({"controller": {"monitoring"}}, "controller", None)
    assert doc["hosts"][0]["reason"].startswith("host.json could not be read")


def test_an_unknown_context_gives_null_facts_and_docker_s_answer():
    doc = host_facts.document({"jsonbench-no-such-context": {"client"}}, "controller", {})
    (h,) = doc["hosts"]
    assert all(h[k] is None for k in host_facts.FACTS)
    assert "docker --context jsonbench-no-such-context info" in h["reason"], h["reason"]


def test_a_document_outside_the_schema_is_refused():
    doc = host_facts.document({"x": {"client"}}, "x", {"cores": 2})
    doc["hosts"][0]["roles"] = ["databse"]
    with pytest.raises(ValueError, match="hosts.json: does not match lab/hosts.schema.json at 'hosts/0/roles/0'"):
        host_facts.check(doc)


def test_results_json_repeats_the_schema_s_host_record():
    results = json.loads((LAB_ROOT / "analysis" / "results.schema.json").read_text())
    hosts = json.loads((LAB_ROOT / "lab" / "hosts.schema.json").read_text())
    assert results["properties"]["hosts"]["items"] == hosts["properties"]["hosts"]["items"]
