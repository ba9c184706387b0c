"""databases/manifests.py and databases/database.schema.json: the shipped manifests are valid and
say what compose says; a bad manifest or baseline is refused naming the file, the key and what is
allowed, by the Python reader and by its CLI (what bash calls)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lab.driver.bench import remove_databases
from lab.driver.engine import Engine
from lab.driver.lab import Lab

from databases import manifests

LAB_ROOT = Path(__file__).resolve().parents[2]
DATABASES = LAB_ROOT / "databases"
CLI = [sys.executable, str(DATABASES / "manifests.py")]


def copy_root(tmp_path):
    """A databases/ folder of our own holding copies of the shipped manifests and baseline."""
    root = tmp_path / "databases"
    for name in ("mongodb", "postgres"):
        (root / name).mkdir(parents=True)
        shutil.copy(DATABASES / name / "database.json", root / name / "database.json")
    # the hooks of the poolers a manifest offers, which the reader checks are there (offers.poolers)
    (root / "postgres" / "pgbouncer").mkdir()
    shutil.copy(DATABASES / "postgres" / "pgbouncer" / "pool.py", root / "postgres" / "pgbouncer" / "pool.py")
    shutil.copy(DATABASES / "baseline.json", root / "baseline.json")
    return root


def edit(root, name, change):
    path = root / name / "database.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    return path


def refused(root, name):
    with pytest.raises(manifests.ManifestError) as e:
        manifests.load(name, str(root))
    return str(e.value)


def test_shipped_manifests_and_baseline_are_valid():
    found = manifests.load_all()
    assert {"mongodb", "postgres"} <= set(found)
    assert found["mongodb"]["processes"] == ["mongod"] and found["mongodb"]["standin"]["processes"] == ["secantusd-py"]
    assert found["postgres"]["volume"] == "postgres-data"
    assert manifests.baseline() == ("mongodb", "postgres")


def test_a_value_outside_the_allowed_ones_names_file_key_and_allowed_values(tmp_path):
    root = copy_root(tmp_path)
    path = edit(root, "mongodb", lambda d: d["offers"]["topologies"].append("sharded"))
    msg = refused(root, "mongodb")
    assert str(path) in msg and "'offers.topologies.2'" in msg and "'sharded'" in msg
    assert "standalone, replset" in msg


def test_a_storage_form_default_it_does_not_offer_is_refused(tmp_path):
    """offers.forms (the <NAME>_FORM bench key's values, client/src/forms.js): its default is one of its
    forms, or the bench without the key would store documents in a form the database does not have."""
    root = copy_root(tmp_path)
    assert manifests.load("postgres", str(root))["offers"]["forms"]["default"] == "jsonb"
    path = edit(root, "postgres", lambda d: d["offers"]["forms"].update(default="bson"))
    msg = refused(root, "postgres")
    assert msg == (f"{path}: key 'offers.forms.default' is 'bson' (allowed: jsonb, json, relational, the keys of "
                   "offers.forms.offered)")


def test_the_query_sets_a_database_offers_are_its_folders_files_not_a_list_to_keep():
    """A query set is offered by its forms file (databases/<db>/client/queries/<set>.js), as a
    workload by its workload file: the manifest keeps no list beside them (it would go stale)."""
    schema = json.loads((DATABASES / "database.schema.json").read_text())
    assert "query_sets" not in schema["properties"]["offers"]["properties"]
    for name in manifests.names(not_in_lab=True):
        assert "query_sets" not in manifests.load(name)["offers"], name


def test_a_missing_key_is_named_with_the_required_ones(tmp_path):
    root = copy_root(tmp_path)
    path = edit(root, "postgres", lambda d: d.pop("volume"))
    msg = refused(root, "postgres")
    assert msg.startswith(f"{path}: key 'volume' is missing") and "service, volume, port_env" in msg


def test_an_unknown_key_is_named_with_the_allowed_keys(tmp_path):
    root = copy_root(tmp_path)
    path = edit(root, "mongodb", lambda d: d["standin"].update(imag="x"))
    msg = refused(root, "mongodb")
    assert msg.startswith(f"{path}: key 'standin.imag' is not known") and "image, label, processes" in msg


def test_a_process_name_longer_than_a_comm_is_refused(tmp_path):
    root = copy_root(tmp_path)
    edit(root, "postgres", lambda d: d.update(processes=["postgres-server-main"]))
    msg = refused(root, "postgres")
    assert "key 'processes.0'" in msg and "matching ^[A-Za-z0-9_.:-]{1,15}$" in msg


def test_the_name_must_be_the_folders(tmp_path):
    root = copy_root(tmp_path)
    path = edit(root, "postgres", lambda d: d.update(name="pg"))
    assert refused(root, "postgres") == f"{path}: key 'name' is 'pg' (allowed: 'postgres', the folder's name)"


def test_the_service_is_the_database_name_for_now(tmp_path):
    root = copy_root(tmp_path)
    path = edit(root, "mongodb", lambda d: d.update(service="mongo"))
    assert refused(root, "mongodb").startswith(f"{path}: key 'service' is 'mongo' (allowed: 'mongodb'")


def test_a_database_without_a_manifest_and_a_file_that_is_not_json(tmp_path):
    root = copy_root(tmp_path)
    assert "database 'mysql' has no manifest" in refused(root, "mysql") and "known: mongodb, postgres" in refused(root, "mysql")
    (root / "postgres" / "database.json").write_text("{name: postgres}")
    assert refused(root, "postgres").startswith(f"{root / 'postgres' / 'database.json'}: not JSON")


def test_a_folder_without_database_json_is_not_a_database(tmp_path):
    root = copy_root(tmp_path)
    (root / "notes").mkdir()
    assert manifests.names(str(root)) == ["mongodb", "postgres"]


def test_the_baseline_names_two_databases_with_a_manifest(tmp_path):
    root = copy_root(tmp_path)
    path = root / "baseline.json"
    path.write_text(json.dumps({"numerator": "mysql", "denominator": "postgres", "about": "x"}))
    with pytest.raises(manifests.ManifestError, match=r"key 'numerator' is 'mysql' \(allowed: mongodb, postgres"):
        manifests.baseline(str(root))
    path.write_text(json.dumps({"numerator": "postgres", "denominator": "postgres", "about": "x"}))
    with pytest.raises(manifests.ManifestError, match="both 'postgres'"):
        manifests.baseline(str(root))
    path.write_text(json.dumps({"numerator": "mongodb", "denominator": "postgres"}))
    with pytest.raises(manifests.ManifestError, match=f"{path}: key 'about' is missing"):
        manifests.baseline(str(root))


def test_server_processes_official_standin_and_every_name():
    assert manifests.server_processes("mongodb", stand_in=False) == ["mongod"]
    assert manifests.server_processes("mongodb", stand_in=True) == ["secantusd-py"]
    assert manifests.server_processes("mongodb") == ["mongod", "secantusd-py", "ferretdb"]
    assert manifests.server_processes("postgres") == ["postgres"]


def cli(*args):
    return subprocess.run([*CLI, *args], capture_output=True, text=True)


def test_cli_prints_what_bash_asks():
    assert cli("field", "mongodb", "volume").stdout == "mongodb-data\n"
    assert cli("field", "mongodb", "standin.processes").stdout == "secantusd-py\n"
    assert cli("fields", "volume", "postgres", "mongodb").stdout == "postgres-data\nmongodb-data\n"
    assert cli("baseline").stdout == "mongodb postgres\n"
    names = cli("names").stdout.split()
    assert {"mongodb", "postgres"} <= set(names) and names == sorted(names)
    assert cli("check").returncode == 0


def test_cli_refuses_a_bad_manifest_with_exit_2_and_the_message(tmp_path):
    root = copy_root(tmp_path)
    path = edit(root, "mongodb", lambda d: d.update(color="green"))
    r = cli("--root", str(root), "field", "mongodb", "volume")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith(f"databases: {path}: key 'color'") and "^#[0-9a-f]{6}$" in r.stderr
    assert cli("--root", str(root), "check").returncode == 2
    r = cli("field", "mongodb", "no.such")
    assert r.returncode == 2 and "no key 'no.such'" in r.stderr
    assert cli("frobnicate").returncode == 2


@pytest.mark.skipif(shutil.which("docker") is None, reason="needs the docker CLI with compose")
def test_manifests_say_what_compose_says():
    """Every manifest's service, volume, published port and stand-in image and label, as compose
    resolves them (each port variable set to a value of its own)."""
    found = manifests.load_all()
    ports = {m["port_env"]: str(41000 + i) for i, m in enumerate(found.values())}

    def config(*files, **more):
        env = dict(os.environ, MONGO_PASSWORD="x", POSTGRES_PASSWORD="x", GRAFANA_ADMIN_PASSWORD="x", **ports, **more)
        args = [a for f in files for a in ("-f", str(LAB_ROOT / f))]
        r = subprocess.run(["docker", "compose", *args, "config", "--format", "json"],
                           capture_output=True, text=True, env=env, cwd=LAB_ROOT)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)
    official, standins = config("compose.yaml"), config("compose.yaml", "compose.standins.yaml")
    assert len(ports) == len(found)
    for name, m in found.items():
        service = official["services"][m["service"]]
        assert m["volume"] in official["volumes"], name
        assert any(v.get("source") == m["volume"] for v in service["volumes"]), name
        assert [p["published"] for p in service["ports"]] == [ports[m["port_env"]]], name
        s = standins["services"][m["service"]]
        # a database offering a choice of official images (versions): compose's default is its default's
        if "versions" in m:
            assert service["image"] == m["versions"]["images"][m["versions"]["default"]], name
            for image in m["versions"]["images"].values():
                chosen = config("compose.yaml", **{m["versions"]["env"]: image})["services"][m["service"]]
                assert chosen["image"] == image, name
        if "standin" in m:
            # the manifest's image names its tag when it is not latest (lab/standins/build.sh tags it so)
            image = m["standin"]["image"]
            assert s["image"] == (image if ":" in image else image + ":latest"), name
            assert s["labels"]["jsonbench.stand_in"] == m["standin"]["label"], name
            if "own_image" in m:
                # an image of one's own runs in place of the stand-in, labelled as that image
                own = config("compose.yaml", "compose.standins.yaml", **{m["own_image"]["env"]: "me/mine:1"})["services"][m["service"]]
                assert own["image"] == "me/mine:1", name
                assert "me/mine:1" in own["labels"]["jsonbench.stand_in"] and "not a result of the official image" in own["labels"]["jsonbench.stand_in"]
            continue
        # no stand-in: the official image, unlabelled; own_image.env names an image of one's own,
        # which the container then carries with the stand-in label naming it
        assert s["image"] == service["image"] and s["labels"]["jsonbench.stand_in"] == "", name
        own = config("compose.yaml", "compose.standins.yaml", **{m["own_image"]["env"]: "me/mine:1"})["services"][m["service"]]
        assert own["image"] == "me/mine:1", name
        assert "me/mine:1" in own["labels"]["jsonbench.stand_in"] and "not a result of the official image" in own["labels"]["jsonbench.stand_in"]


def test_the_lab_stops_on_a_bad_manifest_before_touching_compose(tmp_path):
    """lab/stack.sh's readers (what runme.sh calls before the stack starts) and the driver's removal
    of the databases refuse a bad manifest (exit 2, or the error, with its message); compose is never
    called. With good manifests remove_databases removes every manifest's service and volume."""
    lab, calls = tmp_path / "lab-root", tmp_path / "calls"
    shutil.copytree(DATABASES, lab / "databases", ignore=shutil.ignore_patterns("__pycache__"))
    edit(lab / "databases", "postgres", lambda d: d.update(volume="Postgres Data"))
    script = (f'LAB_ROOT="{lab}" VENV="{Path(sys.executable).parent.parent}" PROJECT=p; . "{LAB_ROOT}/lab/stack.sh"; '
              f'compose() {{ echo "compose $*" >>"{calls}"; }}; docker() {{ echo "docker $*" >>"{calls}"; }}; "$@"')
    for call in (["check_database_manifests"], ["database_fields", "volume"]):
        r = subprocess.run(["bash", "-c", script, "_", *call], capture_output=True, text=True)
        assert r.returncode == 2, (call, r.stderr)
        assert f"{lab / 'databases' / 'postgres' / 'database.json'}: key 'volume'" in r.stderr
        assert not calls.exists()

    class RecordingEngine(Engine):
        def compose(self, args, env=None, **kw):
            self.calls.append("compose " + " ".join(args))

        def remove_volume(self, name):
            self.calls.append(f"docker volume rm {name}")

    engine = RecordingEngine(str(lab), "p", False, {})
    engine.calls = []
    with pytest.raises(manifests.ManifestError, match=f"{lab / 'databases' / 'postgres' / 'database.json'}: key 'volume'"):
        remove_databases(Lab(str(lab), engine, None, {}))
    assert engine.calls == []
    edit(lab / "databases", "postgres", lambda d: d.update(volume="postgres-data"))
    remove_databases(Lab(str(lab), engine, None, {}))
    assert engine.calls == ["compose rm --stop --force --volumes mongodb mysql postgres timescaledb",
                            "compose rm --stop --force pgbouncer",
                            "docker volume rm p_mongodb-data", "docker volume rm p_mysql-data",
                            "docker volume rm p_postgres-data", "docker volume rm p_timescaledb-data"]


def test_a_database_not_in_the_lab_yet_is_checked_but_left_out_of_what_the_lab_reads(tmp_path):
    """A folder whose manifest says not_in_lab (its binding built, its wiring not): valid, and names()
    and the CLI's `names` and `fields` leave it out while `check` still checks it. MySQL's and
    TimescaleDB's are in the lab (issues 17, 18): listed by both."""
    assert "not_in_lab" not in manifests.load("timescaledb") and "not_in_lab" not in manifests.load("mysql")
    assert manifests.load("mysql")["standin"]["processes"] == ["mysqld"]
    assert {"mysql", "timescaledb"} <= set(manifests.names())
    out = subprocess.run(CLI + ["fields", "volume"], capture_output=True, text=True, check=True).stdout.split()
    assert {"mongodb-data", "mysql-data", "postgres-data", "timescaledb-data"} <= set(out)
    later = copy_root(tmp_path / "later")
    (later / "timescaledb").mkdir()
    shutil.copy(DATABASES / "timescaledb" / "database.json", later / "timescaledb" / "database.json")
    edit(later, "timescaledb", lambda d: d.update(not_in_lab="its wiring is to come"))
    assert manifests.names(str(later)) == ["mongodb", "postgres"]
    assert manifests.names(str(later), not_in_lab=True) == ["mongodb", "postgres", "timescaledb"]
    out = subprocess.run(CLI + ["--root", str(later), "fields", "volume"], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["mongodb-data", "postgres-data"]
    assert subprocess.run(CLI + ["--root", str(later), "check"], capture_output=True).returncode == 0
    root = copy_root(tmp_path)
    (root / "mysql").mkdir()
    shutil.copy(DATABASES / "mysql" / "database.json", root / "mysql" / "database.json")
    assert subprocess.run(CLI + ["--root", str(root), "check"], capture_output=True).returncode == 0
    edit(root, "mysql", lambda d: d.pop("color"))
    r = subprocess.run(CLI + ["--root", str(root), "check"], capture_output=True, text=True)
    assert r.returncode == 2 and "'color'" in r.stderr and "mysql" in r.stderr
