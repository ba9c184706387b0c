"""databases/timescaledb/database.json: a database without a stand-in says so (no_standin) instead of
naming one, and how an image of one's own is pointed at (own_image); asking for its stand-in's process
names without an own_image, or a manifest with neither standin nor no_standin, is refused naming the
file and the key."""
import json
import shutil
from pathlib import Path

import pytest

from databases import manifests

DATABASES = Path(__file__).resolve().parents[2] / "databases"


def root_with(tmp_path, change=None):
    root = tmp_path / "databases"
    for name in ("mongodb", "postgres", "timescaledb"):
        (root / name).mkdir(parents=True)
        shutil.copy(DATABASES / name / "database.json", root / name / "database.json")
    shutil.copy(DATABASES / "baseline.json", root / "baseline.json")
    if change:
        path = root / "timescaledb" / "database.json"
        doc = json.loads(path.read_text())
        change(doc)
        path.write_text(json.dumps(doc))
    return root


def test_the_shipped_manifest_is_valid_and_in_the_lab():
    m = manifests.load("timescaledb")
    assert "standin" not in m and "official image, timescale/timescaledb:2.28.3-pg17" in m["no_standin"]
    assert "not_in_lab" not in m and "timescaledb" in manifests.names()
    assert manifests.server_processes("timescaledb", stand_in=False) == ["postgres"]


def test_an_image_of_the_users_own_runs_the_official_process_names(tmp_path):
    # TIMESCALEDB_IMAGE set: the container is labelled a stand-in; its server is postgres all the same
    m = manifests.load("timescaledb")
    assert m["own_image"] == {"env": "TIMESCALEDB_IMAGE", "processes": ["postgres"]}
    assert manifests.server_processes("timescaledb", stand_in=True) == ["postgres"]


def test_own_image_without_no_standin_is_refused_naming_the_key(tmp_path):
    def both(d):
        d.pop("no_standin")
        d["standin"] = {"image": "x", "label": "x", "processes": ["postgres"], "server_stats_name": "postgres"}
    root = root_with(tmp_path, both)
    with pytest.raises(manifests.ManifestError) as e:
        manifests.load("timescaledb", str(root))
    assert "no_standin" in str(e.value) and str(root / "timescaledb" / "database.json") in str(e.value)


def test_its_stand_in_is_refused_with_the_reason_and_the_official_image(tmp_path):
    root = root_with(tmp_path, lambda d: d.pop("own_image"))
    with pytest.raises(manifests.ManifestError) as e:
        manifests.server_processes("timescaledb", stand_in=True, root=str(root))
    assert str(root / "timescaledb" / "database.json") in str(e.value) and "has no stand-in: TimescaleDB has no stand-in" in str(e.value)
    assert "JSONBENCH_STANDINS=0" in str(e.value)


def test_a_manifest_with_neither_standin_nor_no_standin_is_refused_naming_standin(tmp_path):
    root = root_with(tmp_path, lambda d: d.pop("no_standin"))
    with pytest.raises(manifests.ManifestError) as e:
        manifests.load("timescaledb", str(root))
    assert str(e.value).startswith(f"{root / 'timescaledb' / 'database.json'}: key 'standin' is missing")


def test_the_lab_dials_timescaledb_with_the_postgres_services_credentials():
    import subprocess
    root = DATABASES.parent
    r = subprocess.run(["bash", "-c", f'LAB_ROOT="{root}"; . "{root}/lab/stack.sh"; database_uri timescaledb'],
                       capture_output=True, text=True,
                       env={"POSTGRES_USER": "pu", "POSTGRES_PASSWORD": "pp", "POSTGRES_DB": "pd", "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "timescaledb://pu:pp@timescaledb:5432/pd"
