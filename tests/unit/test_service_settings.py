"""lab/service-settings.py on what `docker compose config` really resolves: each database of the lab
is read through its manifest's `service` (lab/bench.sh passes it), secrets are redacted, and a service
compose does not have is refused naming the ones it has. The script itself names no database."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.common import file_schemas
from databases import manifests

LAB_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = LAB_ROOT / "lab" / "service-settings.py"

pytestmark = pytest.mark.skipif(shutil.which("docker") is None, reason="needs the docker CLI with compose")


@pytest.fixture(scope="module")
def compose_json():
    files = [a for f in ("compose.yaml", "compose.standins.yaml") for a in ("-f", str(LAB_ROOT / f))]
    r = subprocess.run(["docker", "compose", *files, "--profile", "client", "config", "--format", "json"],
                       capture_output=True, text=True, cwd=LAB_ROOT)
    assert r.returncode == 0, r.stderr
    return r.stdout


def settings(compose_json, *args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], input=compose_json, capture_output=True, text=True)


def test_every_database_is_read_by_its_manifests_service_with_secrets_redacted(compose_json):
    services = json.loads(compose_json)["services"]
    for name, m in manifests.load_all().items():
        r = settings(compose_json, m["service"])
        assert r.returncode == 0, (name, r.stderr)
        got = json.loads(r.stdout)
        assert list(got) == ["image", "command", "entrypoint", "environment", "mem_limit", "shm_size", "ulimits", "labels"]
        # what it writes is what analysis accepts (lab/settings.schema.json; the host's python3 has no jsonschema)
        file_schemas.check(got, "lab/settings.schema.json", f"{name}.settings.json")
        assert got["image"] == services[m["service"]]["image"]
        # the stand-in path: every database of the lab with a stand-in carries its label
        if "standin" in m:
            assert got["labels"]["jsonbench.stand_in"] == m["standin"]["label"], name
        secrets = {k: v for k, v in got["environment"].items() if "PASSWORD" in k}
        assert secrets and set(secrets.values()) == {"<redacted>"}, (name, got["environment"])


def test_a_service_compose_does_not_have_is_refused_naming_the_ones_it_has(compose_json):
    r = settings(compose_json, "no-such-service")
    assert r.returncode != 0 and "no compose service 'no-such-service'" in r.stderr
    for m in manifests.load_all().values():
        assert m["service"] in r.stderr
    assert "no compose service given" in settings(compose_json).stderr


def test_a_password_on_the_command_line_is_redacted_in_both_forms():
    config = {"services": {"s": {"image": "i", "command": ["srv", "--setup-password=x", "--api-token", "y", "--port", "1"]}}}
    r = subprocess.run([sys.executable, str(SCRIPT), "s"], input=json.dumps(config), capture_output=True, text=True)
    assert json.loads(r.stdout)["command"] == ["srv", "--setup-password=<redacted>", "--api-token", "<redacted>", "--port", "1"]
