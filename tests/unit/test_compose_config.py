"""What `docker compose config` resolves for the official and the stand-in path: no healthcheck in a
database container, readiness not a compose condition, the containerd socket for cAdvisor 0.60."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]
PATHS = {"official": ["compose.yaml"], "standins": ["compose.yaml", "compose.standins.yaml"]}

pytestmark = pytest.mark.skipif(shutil.which("docker") is None, reason="needs the docker CLI with compose")


def config(path):
    files = [a for f in PATHS[path] for a in ("-f", str(LAB_ROOT / f))]
    env = dict(os.environ, MONGO_PASSWORD="x", POSTGRES_PASSWORD="x", GRAFANA_ADMIN_PASSWORD="x")
    r = subprocess.run(["docker", "compose", *files, "--profile", "client", "config", "--format", "json"],
                       capture_output=True, text=True, env=env, cwd=LAB_ROOT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["services"]


@pytest.mark.parametrize("path", PATHS)
def test_database_containers_run_no_healthcheck(path):
    services = config(path)
    for db in ("mongodb", "postgres"):
        assert services[db]["healthcheck"] == {"disable": True}, services[db].get("healthcheck")
    assert all(d.get("condition") == "service_started" for d in services["client"]["depends_on"].values())


def test_cadvisor_sees_the_containerd_socket_on_the_official_path_only():
    mounts = lambda path: {(v["source"], v["target"], v.get("read_only", False))  # noqa: E731
                           for v in config(path)["cadvisor"]["volumes"]}
    assert ("/run/containerd", "/run/containerd", True) in mounts("official")
    assert not any(t == "/run/containerd" for _, t, _ in mounts("standins"))
    assert mounts("official") - mounts("standins") == {("/run/containerd", "/run/containerd", True)}
