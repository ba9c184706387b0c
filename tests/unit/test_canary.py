"""The network canary (lab/driver/canary.py, issue 27) on this machine's real engine: a perl server
container published on the bridge's gateway address, the client image's bash on the same engine
dialling it there (two simulated hosts: tests/e2e/test_simulated_hosts.py). Round trips and a bulk
transfer, canary.json matching lab/canary.schema.json, nothing left behind, and a pair that cannot be
measured null with its reason."""
import ipaddress
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(LAB_ROOT))
from lab.driver import canary  # noqa: E402

from lab_images import postgres_image, present  # noqa: E402

PROJECT = "jsonbench-test-canary"
SCHEMA = json.loads((LAB_ROOT / "lab" / "canary.schema.json").read_text())


def images():
    """The client image when a lab run built it, else its base, the Node.js stand-in (the same Debian
    bash the canary's client uses): on a fresh host the Python suite runs before any lab run builds
    the client image (lab/test.sh builds the stand-ins first)."""
    tag = os.environ.get("JSONBENCH_CLIENT_TAG")
    candidates = ([f"jsonbench-client:{tag}"] if tag else []) + ["jsonbench-client:standin", "jsonbench-standin/node:20"]
    client = next((i for i in candidates if present(i)), None)
    server = "jsonbench-standin/debian:bookworm" if present("jsonbench-standin/debian:bookworm") else postgres_image()
    assert client and server, f"none of {candidates} nor a Debian-based image is present (lab/test.sh builds the stand-ins)"
    return client, server


def context():
    return subprocess.run(["docker", "context", "show"], capture_output=True, text=True).stdout.strip() or "default"


def gateway():
    """The default bridge's gateway: as IPAM states it, or (Docker 20.10, Debian 12's docker.io, states
    the subnet only) the subnet's first address, which the engine gives the bridge by default."""
    config = json.loads(subprocess.run(["docker", "network", "inspect", "bridge", "-f", "{{json (index .IPAM.Config 0)}}"],
                                       capture_output=True, text=True, check=True).stdout)
    return config.get("Gateway") or str(ipaddress.ip_network(config["Subnet"])[1])


def test_the_canary_measures_round_trips_and_throughput_and_leaves_nothing():
    client, server = images()
    here, address = context(), gateway()
    doc = canary.measure(here, client, {here: (address, server)}, PROJECT, pings=10, size=8 * 1024 * 1024)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    (pair,) = doc["pairs"]
    assert pair["reason"] is None, pair
    assert 0 < pair["rtt_s"]["min"] <= pair["rtt_s"]["median"] <= pair["rtt_s"]["max"] < 1 and pair["rtt_s"]["samples"] == 10
    assert pair["bytes"] == 8 * 1024 * 1024 and pair["throughput_bytes_per_s"] == pair["bytes"] / pair["seconds"] > 1e6
    assert pair["peer"], pair  # the address the server saw the connection come from
    left = subprocess.run(["docker", "ps", "-aq", "--filter", f"label=com.docker.compose.project={PROJECT}"],
                          capture_output=True, text=True).stdout.split()
    assert not left, left


def test_a_pair_that_cannot_be_measured_is_null_with_its_reason():
    client, _ = images()
    here = context()
    with pytest.raises(ValueError, match="whole MiB"):
        canary.measure(here, client, {here: (gateway(), client)}, PROJECT, size=1000)
    doc = canary.measure(here, client, {here: (gateway(), "jsonbench-no-such-image:0")}, PROJECT)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    (pair,) = doc["pairs"]
    assert pair["rtt_s"] is None and pair["throughput_bytes_per_s"] is None
    assert pair["reason"].startswith(f"the canary server did not start on {here}:"), pair["reason"]


def test_the_client_s_lines_become_the_pair_s_figures():
    out = canary.parse("rtt 100.000100 100.000400\nrtt 101.5 101.5001\nrtt 102.25 102.2502\n"
                       "sink 103.25 103.75 done 10.199.2.2\n", 1000)
    assert out["rtts"] == pytest.approx([0.0003, 0.0001, 0.0002]) and out["seconds"] == 0.5
    out = {"rtts": [0.0003, 0.0001, 0.0002], "seconds": 0.5, "bytes": 1000, "reply": "done 10.199.2.2"}
    assert canary.result("db1", "10.199.1.2", out) == {
        "database_host": "db1", "address": "10.199.1.2",
        "rtt_s": {"min": 0.0001, "median": 0.0002, "max": 0.0003, "samples": 3}, "bytes": 1000, "seconds": 0.5,
        "throughput_bytes_per_s": 2000.0, "peer": "10.199.2.2", "reason": None}
    with pytest.raises(ValueError, match="not rtt/sink lines"):
        canary.parse("rtt 1 2\n", 1000)
    odd = canary.result("db1", "10.199.1.2", {**out, "reply": "?"})
    assert odd["peer"] is None and odd["throughput_bytes_per_s"] is None
    assert odd["reason"] == "the server's answer was '?'"


def test_results_json_repeats_the_canary_schema():
    results = json.loads((LAB_ROOT / "analysis" / "results.schema.json").read_text())["properties"]["network_canary"]
    assert {k: results[k] for k in ("type", "required", "additionalProperties", "properties")} == \
        {k: SCHEMA[k] for k in ("type", "required", "additionalProperties", "properties")}
