"""plan.json is the only plan a client container reads: the driver (lab/driver/bench.py) starts each
phase client as `run --plan /bench/plan.json --phase ID --client I` with the bench folder mounted at
/bench and nothing of the plan in its environment (only the URI; compose.yaml adds the metrics port),
and a one-shot gets the plan (and the phase under way) the same way. Every shipped bench, through the
driver's own Bench; the engine's `docker compose` is replaced by a recorder of its arguments (no
Docker). That the client parses from the plan what it parsed from the exported keys is
client/test/unit/plan-options.test.js's."""
import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from lab.driver import request as req
from lab.driver.bench import Bench
from lab.driver.engine import Engine
from lab.driver.lab import Lab

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.parent.name for p in ROOT.glob("*/bench.env"))
ENV = {"POSTGRES_USER": "u", "POSTGRES_PASSWORD": "p", "POSTGRES_DB": "d", "MONGO_USER": "u", "MONGO_PASSWORD": "p",
       "MYSQL_PASSWORD": "p", "PATH": "/usr/local/bin:/usr/bin:/bin"}


class RecordingEngine(Engine):
    """The driver's Engine, its `docker compose` calls recorded instead of run."""

    def __init__(self):
        super().__init__(str(ROOT), "p", False, ENV)
        self.calls = []

    def compose(self, args, env=None, capture=True, timeout=None, extra=(), watch=()):
        self.calls.append(list(args))
        return subprocess.CompletedProcess(args, 0, "cid\n", "")

    def compose_to(self, args, env, stdout="capture", stderr=None, watch=()):
        return self.compose(args, env)


def bench_of(tmp_path, name, text=None):
    folder = tmp_path / name
    folder.mkdir()
    if text is None:
        shutil.copy(ROOT / name / "bench.env", folder / "bench.env")
    else:
        (folder / "bench.env").write_text(text)
    req.write_run_plan(str(ROOT), str(folder), quiet=True)
    engine = RecordingEngine()
    return Bench(Lab(str(ROOT), engine, None, ENV), str(folder)), engine


def after(args, flag):
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a == flag]


@pytest.mark.parametrize("bench", SHIPPED)
def test_a_client_container_gets_the_plan_and_its_phase_not_the_bench_keys(tmp_path, bench):
    b, engine = bench_of(tmp_path, bench)
    folder = b.dir
    last = b.plan.phases[-1]
    b.oneshot(last.database, "init")
    b.phase_id = last.id
    assert b.client_start(last.database, 2, last.id) == "cid"
    b.oneshot(last.database, "count")
    init, start, count = engine.calls
    assert after(start, "-e") == ["URI"], start  # DATASET (mounted) and the lab's test knobs only when set
    assert after(start, "-v") == [f"{folder}:/bench:rw"]
    assert start[start.index("client"):] == ["client", "run", "--plan", "/bench/plan.json", "--phase", last.id, "--client", "2"]
    assert after(start, "--name") == [f"p-client-{last.id}-2"]
    for words, expected in ((init, ["init", "--plan", "/bench/plan.json"]),
                            (count, ["count", "--plan", "/bench/plan.json", "--phase", last.id])):
        assert after(words, "-e") == ["URI"], words
        assert after(words, "-v") == [f"{folder}:/bench:ro"]
        assert words[words.index("client") + 1:] == expected


def test_clients_get_the_dataset_read_only_at_slash_dataset_not_the_host_path(tmp_path):
    data = tmp_path / "ev.ndjson"
    data.write_text(json.dumps({"id": "1", "type": "PushEvent", "actor": {"id": 1, "login": "a"}, "repo": {"id": 1, "name": "a/b"},
                                "created_at": "2024-01-01T00:00:00Z", "payload": {}}) + "\n")
    b, engine = bench_of(tmp_path, "bench-ev", f"DESCRIPTION=x\nWORKLOAD=events\nDATASET={data}\nKEY=uuidv7\nLAYOUT=heap\n"
                                               "CLIENTS=1\nDATABASES=postgres\n")
    b.client_start("postgres", 1, b.plan.phases[0].id)
    b.oneshot("postgres", "init")
    for words in engine.calls:
        assert after(words, "-v")[:1] == [f"{data}:/dataset/ev.ndjson:ro"], words
        assert after(words, "-e") == ["DATASET=/dataset/ev.ndjson", "URI"], words


def test_the_lab_s_test_knobs_travel_by_name_only_when_set(tmp_path):
    b, engine = bench_of(tmp_path, "bench1")
    b.env.update(READY_TIMEOUT_S="30", RECONNECT_TIMEOUT_S="5")
    b.oneshot("postgres", "wait-ready")
    assert after(engine.calls[-1], "-e") == ["RECONNECT_TIMEOUT_S", "READY_TIMEOUT_S", "URI"]


def test_the_bench_s_cache_and_memory_reach_every_database_service_as_compose_interpolates_them(tmp_path):
    """CACHE_MB and DB_MEMORY_MB through the driver (Bench.database_env, the folders' compose_env hooks)
    into `docker compose config` itself (its interpolation of the real compose files); without them
    the compose files' defaults (or .env's values) stay."""
    def services(text):
        planned, _ = bench_of(tmp_path, f"b{len(list(tmp_path.iterdir()))}", text)
        # the same folder and plan, driven by a real Engine: `compose config` runs
        bench = Bench(Lab(str(ROOT), Engine(str(ROOT), "p", False, ENV), None, ENV), planned.dir)
        bench.database_env()
        r = bench.engine.compose(["config", "--format", "json"], env=bench.env)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)["services"]
    base = "DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=1\nFIELDS=1\nFIELD_BYTES=10\nRATE=1\nDOCS=1\nDATABASES=\"mongodb postgres mysql\"\n"
    s = services(base + "CACHE_MB=384\nDB_MEMORY_MB=1024\n")
    assert "shared_buffers=384MB" in s["postgres"]["command"]
    mongod = s["mongodb"]["command"]
    assert mongod[mongod.index("--wiredTigerCacheSizeGB") + 1] == "0.375"
    assert "--innodb-buffer-pool-size=384M" in s["mysql"]["command"]
    for db in ("mongodb", "postgres", "mysql"):
        assert int(s[db]["mem_limit"]) == 1024 * 2**20 == int(s[db]["memswap_limit"]), db
    # off the old 128 MiB grid (databases/<db>/database.json `cache`): each server gets it exactly
    s = services(base + "CACHE_MB=300\n")
    mongod = s["mongodb"]["command"]
    assert mongod[mongod.index("--wiredTigerCacheSizeGB") + 1] == "0.29296875"
    assert {"--innodb-buffer-pool-size=300M", "--innodb-buffer-pool-chunk-size=300M",
            "--innodb-buffer-pool-instances=1"} <= set(s["mysql"]["command"])
    s = services(base)
    assert "shared_buffers=4GB" in s["postgres"]["command"] and "--innodb-buffer-pool-size=4G" in s["mysql"]["command"]
    # unset: MySQL's own chunk size and instance count (the option's place holds a repeated no-op)
    assert "--innodb-buffer-pool-chunk-size=128M" in s["mysql"]["command"]
    assert not [a for a in s["mysql"]["command"] if a.startswith("--innodb-buffer-pool-instances")]
    assert int(s["postgres"]["mem_limit"]) == 9 * 2**30


MYSQL_STANDIN = "jsonbench-standin/mysql:9.7"


def test_mysql_runs_the_bench_s_cache_exactly_off_innodb_s_default_chunks(tmp_path):
    """databases/mysql/database.json `cache` says any whole MiB: the stand-in mysqld (Debian's 9.7.4),
    started with the command line compose renders for CACHE_MB=200, runs a buffer pool of exactly
    200 MiB (with MySQL's default 128 MiB chunks InnoDB rounds it up to 256 MiB)."""
    if subprocess.run(["docker", "image", "inspect", MYSQL_STANDIN], capture_output=True).returncode != 0:
        pytest.fail(f"{MYSQL_STANDIN} is not present (lab/standins/build.sh mysql builds it)")
    planned, _ = bench_of(tmp_path, "b", "DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=1\nFIELDS=1\nFIELD_BYTES=10\n"
                                         "RATE=1\nDOCS=1\nDATABASES=\"postgres mysql\"\nCACHE_MB=200\n")
    bench = Bench(Lab(str(ROOT), Engine(str(ROOT), "p", False, ENV), None, ENV), planned.dir)
    bench.database_env()
    r = bench.engine.compose(["config", "--format", "json"], env=bench.env)
    assert r.returncode == 0, r.stderr
    command = json.loads(r.stdout)["services"]["mysql"]["command"]
    cid = subprocess.run(["docker", "run", "-d", "--label", "jsonbench.test=mysql-cache", "-e", "MYSQL_ALLOW_EMPTY_PASSWORD=1",
                          MYSQL_STANDIN, *command], capture_output=True, text=True, check=True).stdout.strip()
    try:
        got = None
        for _ in range(120):
            q = subprocess.run(["docker", "exec", cid, "mysql", "-uroot", "-N", "-e",
                                "SELECT @@innodb_buffer_pool_size, @@innodb_buffer_pool_chunk_size, @@innodb_buffer_pool_instances"],
                               capture_output=True, text=True)
            if q.returncode == 0:
                got = [int(x) for x in q.stdout.split()]
                break
            assert subprocess.run(["docker", "inspect", "-f", "{{.State.Running}}", cid], capture_output=True,
                                  text=True).stdout.strip() == "true", subprocess.run(["docker", "logs", cid], capture_output=True, text=True).stderr[-2000:]
            time.sleep(1)
        assert got == [200 * 2**20, 200 * 2**20, 1], got
    finally:
        subprocess.run(["docker", "rm", "-f", "-v", cid], capture_output=True)
