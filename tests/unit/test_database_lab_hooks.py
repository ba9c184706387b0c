"""Each database's hooks for the lab's driver (databases/<db>/lab.py, docs/contracts.md §2a), loaded
by folder as the driver loads them (lab/driver/hooks.py): the URI the clients dial, the variables a
compose service reads from the bench, and a folder whose hooks are missing or wrong."""
import shutil
from pathlib import Path

import pytest

from lab.driver import hooks

ROOT = Path(__file__).resolve().parents[2]
DATABASES = str(ROOT / "databases")
ENV = {"POSTGRES_USER": "pu", "POSTGRES_PASSWORD": "pp", "POSTGRES_DB": "pd", "MONGO_USER": "mu",
       "MONGO_PASSWORD": "mp", "MYSQL_PASSWORD": "yp"}


def uri(db, **env):
    return hooks.database(DATABASES, db).uri({**ENV, **env})


def compose_env(db, root=DATABASES, **env):
    return hooks.compose_env(hooks.database(root, db), {**ENV, **env}, root)


def test_each_database_gives_the_uri_its_clients_dial():
    assert [uri(d) for d in ("postgres", "mongodb", "mysql", "timescaledb")] == [
        "postgres://pu:pp@postgres:5432/pd", "mongodb://mu:mp@mongodb:27017/?authSource=admin",
        "mysql://root:yp@mysql:3306/jsonbench", "timescaledb://pu:pp@timescaledb:5432/pd"]
    assert uri("mongodb", TOPOLOGY="replset").endswith("authSource=admin&directConnection=true")
    assert uri("mongodb", TOPOLOGY="standalone").endswith("authSource=admin")


def test_compose_env_follows_the_bench_and_is_unset_again():
    assert compose_env("mongodb", TOPOLOGY="replset") == {"MONGO_TOPOLOGY_ARGS": "--replSet rs0 --keyFile /tmp/jsonbench-keyfile"}
    # None: the driver removes the variable from the compose environment (a standalone run after a replset one)
    assert compose_env("mongodb", TOPOLOGY="standalone", MONGO_TOPOLOGY_ARGS="--replSet x") == {"MONGO_TOPOLOGY_ARGS": None}
    assert compose_env("postgres") == {}  # no CACHE_MB: .env's per-host sizing stays


def test_a_folder_without_uri_or_with_a_bad_value_is_refused(tmp_path):
    root = tmp_path / "databases"
    shutil.copytree(DATABASES, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "mysql" / "lab.py").write_text("def compose_env(env, root):\n    return {'not a name': 1}\n")
    with pytest.raises(hooks.HookError, match=f"{root}/mysql/lab.py defines no uri"):
        hooks.database(str(root), "mysql")
    (root / "mysql" / "lab.py").write_text("def uri(env):\n    return 'x'\ndef compose_env(env, root):\n    return {'not a name': 1}\n")
    with pytest.raises(hooks.HookError, match="compose_env gave 'not a name'=1, not NAME: str or None"):
        compose_env("mysql", root=str(root))
    (root / "mysql" / "lab.py").write_text("def uri(env:\n")  # does not load
    with pytest.raises(hooks.HookError, match=f"{root}/mysql/lab.py does not load: SyntaxError"):
        hooks.database(str(root), "mysql")
    (root / "mysql" / "lab.py").unlink()
    with pytest.raises(hooks.HookError, match=f"database mysql: no {root}/mysql/lab.py"):
        hooks.database(str(root), "mysql")


def test_mysql_commit_durability_follows_the_bench():
    """MySQL has commit durability only as global settings: the lab starts it with the bench's."""
    def pair(**env):
        e = compose_env("mysql", **env)
        return f"{e['MYSQL_FLUSH_LOG_AT_TRX_COMMIT']}/{e['MYSQL_SYNC_BINLOG']}"
    assert pair() == "1/1"
    assert pair(DURABILITY="strict") == "1/1"
    assert pair(DURABILITY="relaxed") == "2/0"


def test_mysql_version_chooses_the_official_image_from_the_manifests_list():
    """MYSQL_VERSION (a bench key) chooses among database.json's versions.images; the lab always sets
    the image from that list, so an image of .env's or the environment's is not run as the official one."""
    def image(**env):
        return compose_env("mysql", **env)["MYSQL_OFFICIAL_IMAGE"]
    assert image() == "mysql:9.7.1"
    assert image(MYSQL_VERSION="9.7") == "mysql:9.7.1"
    assert image(MYSQL_VERSION="8.4") == "mysql:8.4.10"
    assert image(MYSQL_OFFICIAL_IMAGE="me/mine:1") == "mysql:9.7.1"
    with pytest.raises(Exception, match=r"MYSQL_VERSION=8.0 is not offered \(allowed: 9.7, 8.4\)"):
        image(MYSQL_VERSION="8.0")


def test_one_cache_key_is_each_databases_own_setting_and_unset_leaves_env_s():
    # CACHE_MB (a bench key within each folder's database.json `cache` rule) -> each folder's variable
    assert compose_env("postgres", CACHE_MB="384") == {"PG_SHARED_BUFFERS": "384MB"}
    assert compose_env("timescaledb", CACHE_MB="384") == {"PG_SHARED_BUFFERS": "384MB"}
    assert compose_env("mongodb", CACHE_MB="384")["MONGO_CACHE_GB"] == "0.375"
    assert compose_env("mongodb", CACHE_MB="4096")["MONGO_CACHE_GB"] == "4"
    # any whole MiB, written out exactly: mongod's cacheSizeGB x 1024 gives the MiB back
    for mib in (257, 300, 1000, 4095, 10 * 1024 + 1):
        gb = compose_env("mongodb", CACHE_MB=str(mib))["MONGO_CACHE_GB"]
        assert float(gb) * 1024 == mib, (mib, gb)
    assert compose_env("mongodb", CACHE_MB="300")["MONGO_CACHE_GB"] == "0.29296875"
    # InnoDB: one instance of one chunk of the cache, so that the pool is not rounded up
    out = compose_env("mysql", CACHE_MB="300")
    assert (out["MYSQL_BUFFER_POOL_SIZE"], out["MYSQL_BUFFER_POOL_CHUNK_SIZE"], out["MYSQL_BUFFER_POOL_INSTANCES_OPTION"]) \
        == ("300M", "300M", "--innodb-buffer-pool-instances=1")
    # unset (the plan writes an optional key as ""): nothing set, .env's values stay
    for db in ("postgres", "timescaledb", "mongodb", "mysql"):
        out = compose_env(db, CACHE_MB="")
        assert not {"PG_SHARED_BUFFERS", "MONGO_CACHE_GB", "MYSQL_BUFFER_POOL_SIZE", "MYSQL_BUFFER_POOL_CHUNK_SIZE",
                    "MYSQL_BUFFER_POOL_INSTANCES_OPTION"} & set(out), (db, out)


def test_a_uri_takes_the_host_and_port_a_client_on_another_host_dials():
    """Clients on another host than the database (placement.py) dial its host's lab address and
    published port; every database's hook puts them where its service name and port were."""
    given = {db: hooks.database(DATABASES, db).uri(ENV, "10.199.1.2:15432")
             for db in ("postgres", "mongodb", "mysql", "timescaledb")}
    assert given == {"postgres": "postgres://pu:pp@10.199.1.2:15432/pd",
                     "mongodb": "mongodb://mu:mp@10.199.1.2:15432/?authSource=admin",
                     "mysql": "mysql://root:yp@10.199.1.2:15432/jsonbench",
                     "timescaledb": "timescaledb://pu:pp@10.199.1.2:15432/pd"}
