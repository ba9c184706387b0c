"""The pgbouncer service (POOL=pgbouncer) as `docker compose config` resolves it through the lab's own
compose_files (host/setup-host.sh) on both paths: one Dockerfile whose base is exactly the PostgreSQL
image the lab runs (postgres:17.6 with PGDG's apt repository, or the PostgreSQL stand-in), no published
port, no healthcheck, the password from the environment (.env), and the stand-in label."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("docker") is None, reason="needs the docker CLI with compose")


def services(standins):
    env = dict(os.environ, JSONBENCH_ROOT=str(LAB_ROOT), JSONBENCH_STANDINS=standins, JSONBENCH_USE_STANDINS="",
               MONGO_PASSWORD="x", POSTGRES_PASSWORD="generated-secret", GRAFANA_ADMIN_PASSWORD="x",
               POOL_MODE="session", POOL_SIZE="7", JSONBENCH_CLIENT_TAG="t")
    files = subprocess.run(["bash", "-c", f'. "{LAB_ROOT}/host/setup-host.sh"; compose_files'],
                           capture_output=True, text=True, env=env, check=True).stdout.split()
    r = subprocess.run(["docker", "compose", "--project-directory", str(LAB_ROOT), *files, "config", "--format", "json"],
                       capture_output=True, text=True, env=env, cwd=LAB_ROOT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["services"]


@pytest.mark.parametrize("standins", ["0", "1"])
def test_pgbouncer_is_built_on_the_postgres_image_the_lab_runs(standins):
    s = services(standins)
    pgb, pg = s["pgbouncer"], s["postgres"]
    assert Path(pgb["build"]["context"]) == LAB_ROOT / "databases/postgres/pgbouncer"
    assert pgb["build"].get("dockerfile", "Dockerfile") == "Dockerfile"
    assert pgb["build"]["args"]["BASE"] == pg["image"]
    # both paths: protocol-level named prepared statements in transaction mode (max_prepared_statements)
    assert pgb["build"]["args"]["PGBOUNCER_MIN"] == "1.21"
    assert "ports" not in pgb and pgb["expose"] == ["6432"]
    assert pgb["healthcheck"] == {"disable": True}
    env = pgb["environment"]
    assert env["POSTGRES_PASSWORD"] == "generated-secret" and env["POSTGRES_USER"] == pg["environment"]["POSTGRES_USER"]
    assert (env["POOL_MODE"], env["POOL_SIZE"], env["PGBOUNCER_SERVER_HOST"]) == ("session", "7", "postgres")
    label = (pgb.get("labels") or {}).get("jsonbench.stand_in")
    if standins == "1":
        assert pg["image"] == "jsonbench-standin/postgres:17"
        assert label.startswith("PgBouncer 1.24 (Debian 13 package")
        assert pgb["image"] == "jsonbench-pgbouncer:t"
    else:
        assert pg["image"] == "postgres:17.6" and label is None


def test_no_fixed_password_in_the_pgbouncer_files():
    folder = LAB_ROOT / "databases/postgres/pgbouncer"
    text = "\n".join(p.read_text() for p in folder.iterdir() if p.is_file())
    assert "POSTGRES_PASSWORD:?" in text  # compose refuses to start without the generated one
    assert "password=" not in text.lower()
