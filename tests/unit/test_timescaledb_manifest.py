"""databases/timescaledb/database.json: its stand-in (Debian's TimescaleDB 2.19.3, Apache edition, on
the PostgreSQL 17 stand-in), tagged with its version, labelled with what it stands in for, refusing
COMPRESS in any form but none; own_image (an image of one's own) beside it; the server-stats name
its readings give. A database with no stand-in still says so (no_standin): asking for its stand-in's
process names without an own_image, or a manifest with neither standin nor no_standin, is refused
naming the file and the key."""
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
    assert "no_standin" not in m and "not_in_lab" not in m and "timescaledb" in manifests.names()
    assert m["standin"]["image"] == "jsonbench-standin/timescaledb:2.19-pg17"
    label = m["standin"]["label"]
    # what runs and what it stands in for: the official image's version, C library, PostgreSQL minor
    for said in ("TimescaleDB 2.19.3 Apache edition", "PostgreSQL 17.12", "timescale/timescaledb:2.28.3-pg17",
                 "Alpine, musl", "PostgreSQL 17 of a floating minor"):
        assert said in label, said
    # its readings name their own server (not PostgreSQL's): analysis reconciles them as TimescaleDB's
    assert m["server_stats_name"] == m["standin"]["server_stats_name"] == "timescaledb"
    assert manifests.server_processes("timescaledb", stand_in=False) == ["postgres"]


def test_the_stand_in_refuses_compress_in_any_form_but_none():
    refuses = manifests.load("timescaledb")["standin"]["refuses"]
    assert [r["when"] for r in refuses] == [{"WORKLOAD": "tsbs", "COMPRESS": {"not": "none"}}]
    assert refuses[0]["key"] == "COMPRESS" and "Apache-2.0 edition, which has no compression" in refuses[0]["why"]


def test_an_image_of_the_users_own_runs_the_official_process_names(tmp_path):
    # TIMESCALEDB_IMAGE set: the container is labelled a stand-in; its server is postgres all the same
    m = manifests.load("timescaledb")
    assert m["own_image"] == {"env": "TIMESCALEDB_IMAGE", "processes": ["postgres"]}
    assert manifests.server_processes("timescaledb", stand_in=True) == ["postgres"]
    # beside a stand-in, an own image's names count as the stand-in's
    root = root_with(tmp_path, lambda d: d.update(own_image={"env": "TIMESCALEDB_IMAGE", "processes": ["postgres", "mine"]}))
    assert manifests.server_processes("timescaledb", stand_in=True, root=str(root)) == ["postgres", "mine"]


def no_standin(d, own_image=True):
    d.pop("standin")
    d["no_standin"] = "TimescaleDB has no stand-in here; run it with JSONBENCH_STANDINS=0"
    if not own_image:
        d.pop("own_image")


def test_a_database_without_a_stand_in_is_refused_with_the_reason(tmp_path):
    root = root_with(tmp_path, lambda d: no_standin(d, own_image=False))
    with pytest.raises(manifests.ManifestError) as e:
        manifests.server_processes("timescaledb", stand_in=True, root=str(root))
    assert str(root / "timescaledb" / "database.json") in str(e.value) and "has no stand-in: TimescaleDB has no stand-in" in str(e.value)
    assert "JSONBENCH_STANDINS=0" in str(e.value)
    # with an own_image: its names
    assert manifests.server_processes("timescaledb", stand_in=True, root=str(root_with(tmp_path / "o", no_standin))) == ["postgres"]


def test_a_manifest_with_neither_standin_nor_no_standin_is_refused_naming_standin(tmp_path):
    root = root_with(tmp_path, lambda d: d.pop("standin"))
    with pytest.raises(manifests.ManifestError) as e:
        manifests.load("timescaledb", str(root))
    assert str(e.value).startswith(f"{root / 'timescaledb' / 'database.json'}: key 'standin' is missing")


def test_the_lab_dials_timescaledb_with_the_postgres_services_credentials():
    from lab.driver import hooks
    uri = hooks.database(str(DATABASES), "timescaledb").uri({"POSTGRES_USER": "pu", "POSTGRES_PASSWORD": "pp", "POSTGRES_DB": "pd"})
    assert uri == "timescaledb://pu:pp@timescaledb:5432/pd"
