"""The lab's pooler contract (docs/contracts.md §2a, lab/pool.sh): a database's manifest offers a
pooler (offers.poolers.<POOL>) whose hooks are its folder's <POOL>/pool.sh; lab/pool.sh names no
database and no pooler. Run through lab/stack.sh's own functions in a real bash, with the real
manifests and, for the contract's corners, a copy of databases/ where MySQL offers a pooler of its
own (its hooks only print: the PgBouncer ones start containers, tests/e2e/test_pgbouncer_end_to_end.py)."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = {"POSTGRES_USER": "pu", "POSTGRES_PASSWORD": "pp", "POSTGRES_DB": "pd", "MONGO_USER": "mu",
       "MONGO_PASSWORD": "mp", "MYSQL_PASSWORD": "yp", "PATH": "/usr/bin:/bin", "VENV": sys.prefix}

FAKE_HOOKS = r"""
pool_uri() { echo "fake://$POOL_SERVICE:1/$MYSQL_PASSWORD"; }
pool_start() { LEAK=set; echo "starting $POOL_SERVICE"; echo '{"product": "Fake", "version": "1.0"}' >"$1"; }
pool_close() { echo "pool-close: {\"closed\": 1}"; echo "a warning" >&2; }
pool_phase_json() { python3 "$LAB_ROOT/lab/json-object.py" service="$POOL_SERVICE" "ready:=$1" "image_os:=$2"; }
"""


def stack(script, root=ROOT, **env):
    return subprocess.run(["bash", "-c", f'LAB_ROOT="{root}"; . "{ROOT}/lab/stack.sh"; {script}'],
                          capture_output=True, text=True, env={**ENV, **env})


def fake_lab(tmp_path, hooks=FAKE_HOOKS):
    """A copy of the lab's lab/ and databases/ where MySQL's manifest offers the pooler `fakepool`."""
    shutil.copytree(ROOT / "databases", tmp_path / "databases", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "lab", tmp_path / "lab", ignore=shutil.ignore_patterns("__pycache__"))
    manifest = tmp_path / "databases" / "mysql" / "database.json"
    m = json.loads(manifest.read_text())
    m["offers"]["poolers"] = {"fakepool": {"service": "fake-pool", "label": "Fake pooler"}}
    manifest.write_text(json.dumps(m))
    (tmp_path / "databases" / "mysql" / "fakepool").mkdir()
    if hooks is not None:
        (tmp_path / "databases" / "mysql" / "fakepool" / "pool.sh").write_text(hooks)
    return tmp_path


def test_postgres_offers_pgbouncer_and_its_clients_dial_the_pool():
    r = stack('client_uri postgres; pooled_databases "mongodb postgres mysql"', POOL="pgbouncer")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["postgres://pu:pp@pgbouncer:6432/pd", "postgres pgbouncer"]
    # without POOL the same database is dialled directly
    assert stack("client_uri postgres").stdout.strip() == "postgres://pu:pp@postgres:5432/pd"
    assert stack("client_uri postgres", POOL="none").stdout.strip() == "postgres://pu:pp@postgres:5432/pd"


def test_a_database_without_a_pooler_is_driven_as_without_pool():
    # nothing started (no compose call can run here: no .env, no Docker asked), its own URI, pooler null
    r = stack('pool_start "mongodb mysql" && echo "started=${#POOL_READY[@]}"; client_uri mongodb; '
              'pool_phase_json mysql; pool_close_servers mongodb /dev/stdout; pool_for mongodb || echo "not pooled"',
              POOL="pgbouncer")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["started=0", "mongodb://mu:mp@mongodb:27017/?authSource=admin", "null", "not pooled"]


def test_hooks_values_travel_by_stdout_and_files_never_by_variables(tmp_path):
    root = fake_lab(tmp_path)
    out = tmp_path / "mysql.out"
    r = stack(f'pool_start "postgres mysql" && echo "leak=${{LEAK:-none}}" && client_uri mysql && '
              f'pool_close_servers mysql "{out}" && pool_phase_json mysql', root=root, POOL="fakepool")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    # pool_start's stdout is the console; its readiness facts came back in its file, kept by the lab
    assert lines[:3] == ["starting fake-pool", "leak=none", "fake://fake-pool:1/yp"]
    pooler = json.loads("\n".join(lines[3:]))
    assert {k: pooler[k] for k in ("service", "ready")} == {"service": "fake-pool", "ready": {"product": "Fake", "version": "1.0"}}
    # the lab read the pooler's image (lab/stack.sh read_image_os) after its pool_start and handed the
    # facts to its pool_phase_json: here there is no container to read, which it says
    assert (pooler["image_os"]["os"], pooler["image_os"]["libc"]) == (None, None)
    assert pooler["image_os"]["reason"] == "the image of the fake-pool container could not be read (no container, or lab/image-os.py failed)"
    # pool_close's stdout and stderr go to the phase's .out
    assert out.read_text() == 'pool-close: {"closed": 1}\na warning\n'
    # postgres offers no fakepool: it is dialled directly
    assert stack("client_uri postgres", root=root, POOL="fakepool").stdout.strip() == "postgres://pu:pp@postgres:5432/pd"


def test_a_failing_pool_start_stops_the_run_and_a_missing_hook_is_named(tmp_path):
    root = fake_lab(tmp_path, hooks="pool_start() { echo 'not ready' >&2; return 1; }\n")
    r = stack('pool_start mysql; echo "rc=$?"', root=root, POOL="fakepool")
    assert "rc=1" in r.stdout and "not ready" in r.stderr
    r = stack('client_uri mysql; echo "rc=$?"', root=root, POOL="fakepool")
    assert "rc=1" in r.stdout and "databases/mysql/fakepool/pool.sh defines no pool_uri" in r.stderr
    # pool_close failing: said in the phase's .out, the run goes on to its end reading
    out = tmp_path / "mysql.out"
    r = stack(f'pool_close_servers mysql "{out}"; echo "rc=$?"', root=root, POOL="fakepool")
    assert "rc=0" in r.stdout and "defines no pool_close" in out.read_text()


def test_a_pooler_offered_without_its_hooks_is_a_manifest_error(tmp_path):
    root = fake_lab(tmp_path, hooks=None)
    r = subprocess.run([sys.executable, str(root / "databases" / "manifests.py"), "check"], capture_output=True, text=True)
    assert r.returncode == 2
    assert f"{root}/databases/mysql/database.json: key 'offers.poolers.fakepool': no {root}/databases/mysql/fakepool/pool.sh" in r.stderr
    # a pooler's name or service the schema does not allow: file, key and what is allowed
    manifest = root / "databases" / "mysql" / "database.json"
    m = json.loads(manifest.read_text())
    m["offers"]["poolers"] = {"fakepool": {"service": "Fake Pool", "label": "x"}}
    manifest.write_text(json.dumps(m))
    r = subprocess.run([sys.executable, str(root / "databases" / "manifests.py"), "check"], capture_output=True, text=True)
    assert r.returncode == 2 and "key 'offers.poolers.fakepool.service'" in r.stderr, r.stderr
