"""Each database's hooks for the lab (databases/<db>/lab.sh, docs/contracts.md §2a), run through
lab/stack.sh's own functions in a real bash: the URI the clients dial, the variables a compose
service reads from the bench, and a folder whose hooks are missing or wrong."""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# VENV: the lab's venv (runme.sh sets it), whose python reads the manifests
ENV = {"POSTGRES_USER": "pu", "POSTGRES_PASSWORD": "pp", "POSTGRES_DB": "pd", "MONGO_USER": "mu",
       "MONGO_PASSWORD": "mp", "MYSQL_PASSWORD": "yp", "PATH": "/usr/bin:/bin", "VENV": str(Path(sys.executable).parent.parent)}


def stack(script, root=ROOT, **env):
    return subprocess.run(["bash", "-c", f'LAB_ROOT="{root}"; . "{ROOT}/lab/stack.sh"; {script}'],
                          capture_output=True, text=True, env={**ENV, **env})


def test_each_database_gives_the_uri_its_clients_dial():
    r = stack('for d in postgres mongodb mysql; do database_uri $d; done')
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["postgres://pu:pp@postgres:5432/pd",
                                     "mongodb://mu:mp@mongodb:27017/?authSource=admin",
                                     "mysql://root:yp@mysql:3306/jsonbench"]
    r = stack("database_uri mongodb", TOPOLOGY="replset")
    assert r.stdout.strip().endswith("authSource=admin&directConnection=true")


def test_compose_env_follows_the_bench_and_is_unset_again():
    script = 'export_compose_env "mongodb postgres mysql" && echo "[${MONGO_TOPOLOGY_ARGS-unset}]"'
    assert stack(script, TOPOLOGY="replset").stdout.strip() == "[--replSet rs0 --keyFile /tmp/jsonbench-keyfile]"
    assert stack(script, TOPOLOGY="standalone", MONGO_TOPOLOGY_ARGS="--replSet x").stdout.strip() == "[unset]"


def test_a_folder_without_lab_uri_or_with_a_bad_line_is_refused(tmp_path):
    shutil.copytree(ROOT / "databases", tmp_path / "databases", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "databases" / "mysql" / "lab.sh").write_text("lab_compose_env() { echo 'not a line'; }\n")
    r = stack("database_uri mysql", root=tmp_path)
    assert r.returncode == 1 and "databases/mysql/lab.sh defines no lab_uri" in r.stderr
    r = stack('export_compose_env mysql; echo "rc=$?"', root=tmp_path)
    assert "rc=1" in r.stdout and "lab_compose_env printed 'not a line', not NAME=VALUE" in r.stderr
    (tmp_path / "databases" / "mysql" / "lab.sh").write_text("lab_compose_env( {\n")  # does not load
    r = stack('export_compose_env mysql; echo "rc=$?"', root=tmp_path)
    assert "rc=1" in r.stdout and "databases/mysql/lab.sh lab_compose_env failed" in r.stderr
    # a database without the optional hooks: nothing to do
    r = stack('export_compose_env postgres && database_hook postgres lab_after_ready && echo fine')
    assert r.stdout.strip() == "fine", r.stderr


def test_mysql_commit_durability_follows_the_bench():
    """MySQL has commit durability only as global settings: the lab starts it with the bench's."""
    script = 'export_compose_env mysql && echo "$MYSQL_FLUSH_LOG_AT_TRX_COMMIT/$MYSQL_SYNC_BINLOG"'
    assert stack(script).stdout.strip() == "1/1"
    assert stack(script, DURABILITY="strict").stdout.strip() == "1/1"
    assert stack(script, DURABILITY="relaxed").stdout.strip() == "2/0"


def test_mysql_version_chooses_the_official_image_from_the_manifests_list():
    """MYSQL_VERSION (a bench key) chooses among database.json's versions.images; the lab always sets
    the image from that list, so an image of .env's or the environment's is not run as the official one."""
    script = 'export_compose_env mysql && echo "$MYSQL_OFFICIAL_IMAGE"'
    assert stack(script).stdout.strip() == "mysql:9.7.1"
    assert stack(script, MYSQL_VERSION="9.7").stdout.strip() == "mysql:9.7.1"
    assert stack(script, MYSQL_VERSION="8.4").stdout.strip() == "mysql:8.4.10"
    assert stack(script, MYSQL_OFFICIAL_IMAGE="me/mine:1").stdout.strip() == "mysql:9.7.1"
    r = stack('export_compose_env mysql; echo "rc=$?"', MYSQL_VERSION="8.0")
    assert "rc=1" in r.stdout and "MYSQL_VERSION=8.0 is not offered (allowed: 9.7, 8.4)" in r.stderr
