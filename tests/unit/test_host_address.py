"""Host-side URLs (metrics export, check, Grafana's address) follow BIND_ADDRESS: a wildcard means
loopback, an IPv6 address gets brackets, anything else is used as published. The end-to-end runs
bind to 127.0.0.2 to prove the whole path; this covers the mapping itself."""
import subprocess
from pathlib import Path

import pytest

from lab.driver.engine import Engine
from lab.driver.lab import Lab

STACK = Path(__file__).resolve().parents[2] / "lab" / "stack.sh"


def prometheus_url(bind, port="19090"):
    """The driver's (export, check) and runme.sh's (Grafana's address), which must agree."""
    env = {"PATH": "/usr/bin:/bin", "PROMETHEUS_PORT": port}
    if bind is not None:
        env["BIND_ADDRESS"] = bind
    driver = Lab("/nonexistent", Engine("/nonexistent", "p", False, env), None, env).prometheus_url()
    bash = subprocess.run(["bash", "-c", f'. "{STACK}"; echo "http://$(host_address):${{PROMETHEUS_PORT}}"'], env=env,
                          capture_output=True, text=True, check=True).stdout.strip()
    assert driver == bash, (driver, bash)
    return driver


@pytest.mark.parametrize("bind, url", [
    (None, "http://127.0.0.1:19090"),
    ("", "http://127.0.0.1:19090"),
    ("0.0.0.0", "http://127.0.0.1:19090"),
    ("127.0.0.2", "http://127.0.0.2:19090"),
    ("192.168.7.3", "http://192.168.7.3:19090"),
    ("::", "http://[::1]:19090"),
    ("::1", "http://[::1]:19090"),
    ("[fd00::5]", "http://[fd00::5]:19090"),
])
def test_prometheus_url_follows_bind_address(bind, url):
    assert prometheus_url(bind) == url
