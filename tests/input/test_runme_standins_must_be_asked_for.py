"""A bench run never switches to the stand-in images on its own: when the official images are not
here and the registry probe fails, ./runme.sh benchN stops (exit 2) with the probe's error and the
fix, before any container; JSONBENCH_STANDINS=1 asks for the stand-ins and the run goes on.
The failing probe is a real one: a `curl` first on PATH that fails the way curl does behind a
broken proxy."""
import os
import signal
import subprocess
import time

import pytest

from test_runme_rejects_bad_input import LAB_ROOT, bench

PROJECT = "jsonbench-standins-asked"
# Beside the e2e streams' ports and their second stacks (base + 1000): lab/test.sh runs the two side
# by side (tests/unit/test_e2e_stream_ports.py)
_BASE = int(os.environ.get("JSONBENCH_E2E_PORT_BASE", "25000")) + 4000
PORTS = {"PG_PORT": str(_BASE + 432), "MONGO_PORT": str(_BASE + 17), "PROMETHEUS_PORT": str(_BASE + 90),
         "GRAFANA_PORT": str(_BASE + 300)}
CURL_ERROR = "curl: (56) CONNECT tunnel failed, response 407"


def containers():
    return subprocess.run(["docker", "ps", "-aq", "--filter", f"label=com.docker.compose.project={PROJECT}"],
                          capture_output=True, text=True, check=True).stdout.split()


def official_images_present():
    r = subprocess.run(["bash", "-c", f'. "{LAB_ROOT}/host/setup-host.sh"; official_images | '
                        'while read -r i; do docker image inspect "$i" >/dev/null 2>&1 || exit 1; done'])
    return r.returncode == 0


@pytest.fixture
def failing_curl(tmp_path):
    if official_images_present():
        pytest.skip("the official images are present here: the registry is never probed")
    d = tmp_path / "fakebin"
    d.mkdir()
    (d / "curl").write_text(f"#!/bin/sh\necho '{CURL_ERROR}' >&2\nprintf 000\nexit 56\n")
    (d / "curl").chmod(0o755)
    env = dict(os.environ, COMPOSE_PROJECT_NAME=PROJECT, PATH=f"{d}:{os.environ['PATH']}", **PORTS)
    env.pop("JSONBENCH_STANDINS", None)
    env.pop("JSONBENCH_USE_STANDINS", None)
    return env


def test_failed_probe_stops_a_bench_with_the_error_and_the_fix(tmp_path, failing_curl):
    b = bench(tmp_path)
    r = subprocess.run([str(LAB_ROOT / "runme.sh"), "--no-branch", str(b)], cwd=LAB_ROOT, env=failing_curl,
                       capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600)
    assert r.returncode == 2, (r.stdout[-2000:], r.stderr[-2000:])
    for fragment in ("registry probe failed", "/v2/ gave HTTP 000", CURL_ERROR, "JSONBENCH_STANDINS=1",
                     "Nothing was started"):
        assert fragment in r.stderr, (fragment, r.stderr[-2000:])
    assert "STAND-IN" not in r.stdout + r.stderr
    assert containers() == []


def test_asked_for_standins_go_on_after_a_failed_probe(tmp_path, failing_curl):
    b = bench(tmp_path)
    env = dict(failing_curl, JSONBENCH_STANDINS="1")
    proc = subprocess.Popen([str(LAB_ROOT / "runme.sh"), "--no-branch", str(b)], cwd=LAB_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    seen, deadline = [], time.monotonic() + 600
    try:
        for line in proc.stdout:
            seen.append(line)
            # past the refusal: the run builds the stand-ins; stopped here, before any container
            if "STAND-IN" in line or time.monotonic() > deadline:
                break
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        ids = containers()
        if ids:
            subprocess.run(["docker", "rm", "-f", "-v", *ids], capture_output=True)
    text = "".join(seen)
    assert "STAND-IN" in text, text[-2000:]
    assert "registry probe failed" not in text
