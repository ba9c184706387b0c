"""The lab's pooler contract (docs/contracts.md §2a, lab/driver/bench.py and hooks.py): a database's
manifest offers a pooler (offers.poolers.<POOL>) whose hooks are its folder's <POOL>/pool.py; the
driver names no database and no pooler. Run through the driver's own Bench with the real manifests
and, for the contract's corners, a copy of databases/ where MySQL offers a pooler of its own (its
hooks only return values: the PgBouncer ones start containers, tests/e2e/test_pgbouncer_end_to_end.py)."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lab.driver import hooks
from lab.driver.bench import Bench
from lab.driver.engine import Engine
from lab.driver.lab import Lab
from lab.driver.phase import Phase

ROOT = Path(__file__).resolve().parents[2]
ENV = {"POSTGRES_USER": "pu", "POSTGRES_PASSWORD": "pp", "POSTGRES_DB": "pd", "MONGO_USER": "mu",
       "MONGO_PASSWORD": "mp", "MYSQL_PASSWORD": "yp", "PATH": "/usr/bin:/bin"}

FAKE_HOOKS = '''
def uri(env, service):
    return f"fake://{service}:1/{env['MYSQL_PASSWORD']}"
def compose_env(env):
    return {"FAKE_POOL": "on"}
def start(bench, service):
    bench.say(f"starting {service}")
    return {"product": "Fake", "version": "1.0"}
def close(bench, service):
    return 'pool-close: {"closed": 1}'
def phase_json(bench, service, ready, image_os):
    return {"service": service, "ready": ready, "image_os": image_os}
'''


def fake_root(tmp_path, hooks_text=FAKE_HOOKS):
    """A copy of the lab's databases/ where MySQL's manifest offers the pooler `fakepool`."""
    shutil.copytree(ROOT / "databases", tmp_path / "databases", ignore=shutil.ignore_patterns("__pycache__"))
    manifest = tmp_path / "databases" / "mysql" / "database.json"
    m = json.loads(manifest.read_text())
    m["offers"]["poolers"] = {"fakepool": {"service": "fake-pool", "label": "Fake pooler"}}
    manifest.write_text(json.dumps(m))
    (tmp_path / "databases" / "mysql" / "fakepool").mkdir()
    if hooks_text is not None:
        (tmp_path / "databases" / "mysql" / "fakepool" / "pool.py").write_text(hooks_text)
    return tmp_path


def bench(tmp_path, root=ROOT, databases="postgres mysql", **settings):
    folder = tmp_path / "bench-x"
    folder.mkdir(exist_ok=True)
    plan = {"settings": {"environment": {"DATABASES": databases, **settings}, "given": {}},
            "phases": [{"id": db, "database": db, "stage": "run", "ops": 1, "rate": 0, "expected_s": 1, "clients": 1}
                       for db in databases.split()],
            "workload": {"transactions": False}, "repetitions": 1}
    (folder / "plan.json").write_text(json.dumps(plan))
    engine = Engine(str(root), "jsonbench-test-none", False, ENV)
    return Bench(Lab(str(root), engine, None, ENV), str(folder))


def test_postgres_offers_pgbouncer_and_its_clients_dial_the_pool(tmp_path):
    b = bench(tmp_path, databases="mongodb postgres mysql", POOL="pgbouncer")
    assert b.pooled == {"postgres": "pgbouncer"}
    assert b.client_uri("postgres") == "postgres://pu:pp@pgbouncer:6432/pd"
    # without POOL the same database is dialled directly
    assert bench(tmp_path).client_uri("postgres") == "postgres://pu:pp@postgres:5432/pd"
    assert bench(tmp_path, POOL="none").client_uri("postgres") == "postgres://pu:pp@postgres:5432/pd"
    # PgBouncer's server connections commit as the bench's DURABILITY says
    module = hooks.pooler(str(ROOT / "databases"), "postgres", "pgbouncer")
    assert module.compose_env({"DURABILITY": "relaxed"}) == {"POOL_SYNCHRONOUS_COMMIT": "off"}
    assert module.compose_env({}) == {"POOL_SYNCHRONOUS_COMMIT": "on"}


def test_a_database_without_a_pooler_is_driven_as_without_pool(tmp_path):
    b = bench(tmp_path, databases="mongodb mysql", POOL="pgbouncer")
    assert b.pooled == {}
    assert b.client_uri("mongodb") == "mongodb://mu:mp@mongodb:27017/?authSource=admin"
    phase = Phase(b, next(p for p in b.plan.phases if p.database == "mysql"))
    assert phase.pooler_json() is None
    phase.pool_close()  # nothing to close: no .out written
    assert not Path(phase.out).exists()


def test_hooks_values_travel_by_return_and_the_lab_keeps_them(tmp_path, capsys):
    root = fake_root(tmp_path)
    b = bench(tmp_path, root=root, POOL="fakepool")
    assert b.pooled == {"mysql": "fake-pool"}
    for db, service in b.pooled.items():  # what refresh_databases does after the databases are ready
        module = hooks.pooler(b.databases_root, db, b.pool_name)
        b.env.update(module.compose_env(b.env))
        b.pool_ready[db] = module.start(b, service)
        b.read_image_os(service)
    assert "starting fake-pool" in capsys.readouterr().out
    assert b.env["FAKE_POOL"] == "on"
    assert b.client_uri("mysql") == "fake://fake-pool:1/yp"
    phase = Phase(b, next(p for p in b.plan.phases if p.database == "mysql"))
    pooler = phase.pooler_json()
    assert {k: pooler[k] for k in ("service", "ready")} == {"service": "fake-pool", "ready": {"product": "Fake", "version": "1.0"}}
    # the lab read the pooler's image after its start and handed the facts to its phase_json: here
    # there is no container to read, which it says
    assert (pooler["image_os"]["os"], pooler["image_os"]["libc"]) == (None, None)
    assert pooler["image_os"]["reason"] == "the image of the fake-pool container could not be read (no container, or lab/image-os.py failed)"
    phase.pool_close()  # the close hook's line goes to the phase's .out
    assert Path(phase.out).read_text() == 'pool-close: {"closed": 1}\n'
    # postgres offers no fakepool: it is dialled directly
    assert b.client_uri("postgres") == "postgres://pu:pp@postgres:5432/pd"


def test_a_failing_pool_start_stops_the_run_and_a_missing_hook_is_named(tmp_path):
    root = fake_root(tmp_path, hooks_text=FAKE_HOOKS.replace('    bench.say(f"starting {service}")',
                                                             '    raise RuntimeError("not ready")'))
    b = bench(tmp_path, root=root, POOL="fakepool")
    with pytest.raises(RuntimeError, match="not ready"):
        hooks.pooler(b.databases_root, "mysql", "fakepool").start(b, "fake-pool")
    (root / "databases" / "mysql" / "fakepool" / "pool.py").write_text(FAKE_HOOKS.replace("def close(", "def other("))
    with pytest.raises(hooks.HookError, match=f"{root}/databases/mysql/fakepool/pool.py defines no close"):
        b.client_uri("mysql")
    # a close hook failing: said in the phase's .out, the run goes on to its end reading
    phase = Phase(b, next(p for p in b.plan.phases if p.database == "mysql"))
    phase.pool_close()
    assert "pool-close: the pooler's close hook failed (HookError:" in Path(phase.out).read_text()


def test_a_pooler_offered_without_its_hooks_is_a_manifest_error(tmp_path):
    root = fake_root(tmp_path, hooks_text=None)
    r = subprocess.run([sys.executable, str(root / "databases" / "manifests.py"), "check"], capture_output=True, text=True)
    assert r.returncode == 2
    assert f"{root}/databases/mysql/database.json: key 'offers.poolers.fakepool': no {root}/databases/mysql/fakepool/pool.py" in r.stderr
    # a pooler's name or service the schema does not allow: file, key and what is allowed
    manifest = root / "databases" / "mysql" / "database.json"
    m = json.loads(manifest.read_text())
    m["offers"]["poolers"] = {"fakepool": {"service": "Fake Pool", "label": "x"}}
    manifest.write_text(json.dumps(m))
    r = subprocess.run([sys.executable, str(root / "databases" / "manifests.py"), "check"], capture_output=True, text=True)
    assert r.returncode == 2 and "key 'offers.poolers.fakepool.service'" in r.stderr, r.stderr
