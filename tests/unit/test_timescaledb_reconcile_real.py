"""TimescaleDB's reconciliation (databases/timescaledb/analysis.py) against the real server: the
official image compose.yaml names when it is present, else the lab's TimescaleDB stand-in
(databases/timescaledb/database.json standin.image; lab/test.sh builds it before this suite), or
JSONBENCH_TIMESCALEDB_IMAGE, started as the lab's compose service starts it. The client's own
commands as the lab runs them (init, settle, server-stats around two `run` clients), then
analysis/figures/reconcile.py on those readings and the clients' result files:
- a clean ingest window reconciles `ok`, with TimescaleDB's catalog reads (8 per INSERT), its chunk
  builds and its job counters judged by their own checks;
- a window with a monitoring-like reader (chunks listed, the hypertable counted) is `suspect`;
- a window in which a background job is scheduled and runs is `suspect` by the job checks;
- init unscheduled job 3 (the job history's retention) in every database holding the extension."""
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from analysis.figures import reconcile

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "tsdb-reconcile-password"
MANIFEST = json.loads((ROOT / "databases" / "timescaledb" / "database.json").read_text())
OFFICIAL = re.search(r"\$\{TIMESCALEDB_IMAGE:-([^}]+)\}", (ROOT / "databases" / "timescaledb" / "compose.yaml").read_text())[1]
# 8 hosts every 600 s for 13 h from midnight: 624 events over two 12 h chunks
ENV = {"WORKLOAD": "tsbs", "MODEL": "native", "KEY": "uuidv7", "LAYOUT": "clustered", "CLIENTS": "2", "RATE": "2000",
       "HOSTS": "8", "INTERVAL_S": "600", "SPAN_S": "46800", "SEED": "3", "DURABILITY": "strict"}
EVENTS = 8 * 78


def present(image):
    return subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode == 0


def image():
    """JSONBENCH_TIMESCALEDB_IMAGE, else the first present of (the official image, the stand-in)."""
    given = os.environ.get("JSONBENCH_TIMESCALEDB_IMAGE")
    return given or next((i for i in (OFFICIAL, MANIFEST["standin"]["image"]) if present(i)), None)


@pytest.fixture(scope="module")
def server():
    if not shutil.which("docker") or not shutil.which("node"):
        pytest.skip("needs docker and node")
    IMAGE = image()
    if IMAGE is None or not present(IMAGE):
        pytest.skip(f"neither {OFFICIAL} nor {MANIFEST['standin']['image']} is present (lab/standins/build.sh timescaledb "
                    "builds the stand-in)")
    # the lab's service (databases/timescaledb/compose.yaml): its environment and the settings that
    # concern the extension
    cid = subprocess.run(["docker", "run", "-d", "-p", "127.0.0.1::5432", "--label", "jsonbench.test=timescaledb-reconcile",
                          "-e", f"POSTGRES_PASSWORD={PASSWORD}", "-e", "POSTGRES_USER=jsonbench", "-e", "POSTGRES_DB=jsonbench",
                          "-e", "NO_TS_TUNE=true", "-e", "TIMESCALEDB_TELEMETRY=off", IMAGE, "postgres",
                          "-c", "shared_preload_libraries=timescaledb", "-c", "timescaledb.telemetry_level=off",
                          "-c", "shared_buffers=128MB"],
                         capture_output=True, text=True, check=True).stdout.strip()
    try:
        port = subprocess.run(["docker", "port", cid, "5432/tcp"], capture_output=True, text=True,
                              check=True).stdout.split(":")[-1].strip()
        uri = f"timescaledb://jsonbench:{PASSWORD}@127.0.0.1:{port}/jsonbench"
        client("wait-ready", uri, READY_TIMEOUT_S="120")
        yield cid, uri
    finally:
        subprocess.run(["docker", "rm", "-f", "-v", cid], capture_output=True)


def client(command, uri, **env):
    r = subprocess.run(["node", str(ROOT / "client"), command], capture_output=True, text=True,
                       env=dict(os.environ, **ENV, URI=uri, **env), timeout=180)
    assert r.returncode == 0, f"{command}: {r.stderr}{r.stdout}"
    return r.stdout


def reading(uri):
    return json.loads(next(line for line in client("server-stats", uri).splitlines() if line.startswith("{")))


def psql(cid, sql, db="jsonbench"):
    r = subprocess.run(["docker", "exec", cid, "psql", "-U", "jsonbench", "-d", db, "-Atqc", sql],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def window(uri, tmp_path, clients=2, during=None):
    """init + settle outside it, then a reading, the clients' ingest (and `during`), a reading: the
    reconciliation of that window, and init's output."""
    said = client("init", uri)
    client("settle", uri)
    start = reading(uri)
    results = []
    procs = []
    for c in range(1, clients + 1):
        f = tmp_path / f"client-{c}.json"
        procs.append(subprocess.Popen(["node", str(ROOT / "client"), "run"], env=dict(os.environ, **ENV, URI=uri, CLIENT_ID=str(c),
                                      RESULT=str(f)), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        results.append(f)
    if during:
        during()
    for p in procs:
        assert p.wait(timeout=180) == 0, p.stderr.read()
    end = reading(uri)
    clients_out = [json.loads(f.read_text()) for f in results]
    return reconcile.reconcile("timescaledb", {"start": start, "end": end}, clients_out), said


def test_init_unschedules_job_3_in_every_database_holding_the_extension(server):
    cid, uri = server
    said = client("init", uri)
    # the stand-in's first start made the extension in postgres, template1 and jsonbench, as the
    # official image does; template databases run no scheduler
    assert "background jobs unscheduled:" in said, said
    line = said.split("background jobs unscheduled: ", 1)[1].splitlines()[0]
    if line.startswith("job"):  # a first init: job 3 was scheduled in both databases
        assert line == "job 3 (_timescaledb_functions.policy_job_stat_history_retention, every 1 mon) in jsonbench, postgres", line
    for db in ("jsonbench", "postgres"):
        assert psql(cid, "select count(*) from timescaledb_information.jobs where scheduled", db) == "0"
        assert psql(cid, "select job_status from timescaledb_information.job_stats where job_id = 3", db) == "Paused"


def test_a_clean_ingest_window_reconciles_ok(server, tmp_path):
    _, uri = server
    rec, _ = window(uri, tmp_path)
    checks = rec["checks"]
    print(json.dumps({k: (c["expected"], c["observed"], c["tolerance"]) for k, c in checks.items()}))
    assert rec["verdict"] == "ok", (rec["unavailable"], rec["reasons"])
    assert rec["server"].startswith("timescaledb ")
    assert checks["rows_written"]["observed"] == EVENTS
    # TimescaleDB's catalog: 8 rows per INSERT, within the readings' and sessions' allowance
    cat = checks["timescaledb_catalog_rows_read"]
    assert cat["expected"] == 8 * EVENTS and abs(cat["observed"] - cat["expected"]) <= cat["tolerance"], cat
    # two chunks created in the window: each builds TSBS's two indexes on its empty table
    assert checks["user_table_reads"]["observed"] == checks["user_table_reads"]["tolerance"] == 4
    assert checks["timescaledb_job_runs"]["observed"] == 0 and checks["timescaledb_jobs_scheduled_at_start"]["observed"] == 0


def test_a_monitoring_reader_in_the_window_is_suspect(server, tmp_path):
    cid, uri = server

    def monitor():
        # a count over the hypertable reads its chunks only: before the clients' first insert made one
        # it reads no user table at all (a loaded host starts the clients late). So the reader waits
        # for a chunk (a condition, not a duration), as a dashboard polling the catalog would
        deadline = time.monotonic() + 120
        while psql(cid, "select count(*) from timescaledb_information.chunks") == "0":
            assert time.monotonic() < deadline, "the clients made no chunk within 120 s"
            time.sleep(0.1)
        psql(cid, "select count(*) from jsonbench")
    rec, _ = window(uri, tmp_path, during=monitor)
    assert rec["verdict"] == "suspect", rec["checks"]
    assert rec["checks"]["user_table_reads"]["verdict"] == "suspect", rec["checks"]["user_table_reads"]


def test_a_job_scheduled_and_run_in_the_window_is_suspect(server, tmp_path):
    cid, uri = server
    client("init", uri)
    # job 3 scheduled again and due at once: its statistics row removed (the stand-in's first start
    # killed its first run, and a crashed job is due again only after a back-off), then its
    # scheduler restarted to read it (alter_job is TSL code), after the start reading
    psql(cid, "update _timescaledb_config.bgw_job set scheduled = true where id = 3")
    psql(cid, "delete from _timescaledb_internal.bgw_job_stat where job_id = 3")
    start = reading(uri)
    assert start["counters"]["timescaledb_job_runs"] == 0
    psql(cid, "select _timescaledb_functions.restart_background_workers()")
    deadline = time.monotonic() + 60
    while psql(cid, "select coalesce(sum(total_runs), 0) from timescaledb_information.job_stats") == "0":
        assert time.monotonic() < deadline, "job 3 did not run within 60 s"
        time.sleep(0.5)
    end = reading(uri)
    rec = reconcile.reconcile("timescaledb", {"start": start, "end": end}, [])
    assert rec["verdict"] == "suspect"
    assert rec["checks"]["timescaledb_jobs_scheduled_at_start"]["observed"] == 1
    assert rec["checks"]["timescaledb_job_runs"]["verdict"] == "suspect"
    # the next init (count, too) unschedules it again
    assert "job 3" in client("init", uri)
