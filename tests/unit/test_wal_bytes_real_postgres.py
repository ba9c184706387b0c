"""results.json runs[].wal.bytes (analysis/figures/wal.py over two `node client server-stats` readings)
against an independent reading: pg_current_wal_lsn() read with psql inside the readings, around
real jsonb inserts and jsonb_set updates on a real PostgreSQL (the official image compose.yaml pins when it
is present, else the lab's stand-in: Debian 13's PostgreSQL 17.12)."""
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from analysis.figures import wal
from lab_images import STANDIN, official_postgres, postgres_image

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "wal-test-password"


@pytest.fixture(scope="module")
def postgres():
    if not shutil.which("docker") or not shutil.which("node"):
        pytest.skip("needs docker and node")
    if not (ROOT / "client" / "node_modules").exists():
        pytest.skip("client dependencies not installed (npm ci in client/)")
    image = postgres_image()
    if image is None:
        pytest.skip(f"neither {official_postgres()} nor {STANDIN} is present (lab/standins/build.sh builds the stand-in)")
    cid = subprocess.run(["docker", "run", "-d", "-p", "127.0.0.1::5432", "-e", f"POSTGRES_PASSWORD={PASSWORD}",
                          "-e", "POSTGRES_USER=jsonbench", "-e", "POSTGRES_DB=jsonbench",
                          "--label", "jsonbench.test=wal-bytes", image],
                         capture_output=True, text=True, check=True).stdout.strip()
    try:
        port = subprocess.run(["docker", "port", cid, "5432/tcp"], capture_output=True, text=True,
                              check=True).stdout.split(":")[-1].strip()
        uri = f"postgres://jsonbench:{PASSWORD}@127.0.0.1:{port}/jsonbench"
        ready = subprocess.run(["node", str(ROOT / "client"), "wait-ready"], capture_output=True, text=True,
                               env=dict(os.environ, URI=uri, READY_TIMEOUT_S="120"), timeout=180)
        assert ready.returncode == 0, ready.stderr
        yield cid, uri
    finally:
        subprocess.run(["docker", "rm", "-f", "-v", cid], capture_output=True)


def psql(cid, sql):
    r = subprocess.run(["docker", "exec", cid, "psql", "-U", "jsonbench", "-d", "jsonbench", "-Atqc", sql],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def server_stats(uri):
    r = subprocess.run(["node", str(ROOT / "client"), "server-stats"], capture_output=True, text=True,
                       env=dict(os.environ, URI=uri), timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(next(line for line in r.stdout.splitlines() if line.startswith("{")))


def test_wal_bytes_equal_the_lsn_advance_read_independently(postgres):
    cid, uri = postgres
    psql(cid, "create table if not exists walt (id int primary key, doc jsonb)")
    start = server_stats(uri)
    lsn0 = psql(cid, "select pg_current_wal_lsn()")
    # ~1.9 KB documents (below TOAST), then one-field updates: each rewrites the whole row in the WAL
    # (md5 text: pglz would compress a repeated character to nothing)
    psql(cid, "insert into walt select i, jsonb_build_object('a', (select string_agg(md5(i || '-' || j), '') "
              "from generate_series(1, 60) j), 'n', i) from generate_series(1, 500) i")
    psql(cid, "update walt set doc = jsonb_set(doc, '{n}', to_jsonb(-id)) where id <= 250")
    lsn1 = psql(cid, "select pg_current_wal_lsn()")
    independent = int(psql(cid, f"select pg_wal_lsn_diff('{lsn1}', '{lsn0}')"))
    end = server_stats(uri)
    got = wal.wal("postgres", {"start": start, "end": end})
    assert got["source"] == "pg_current_wal_lsn" and got["reason"] is None
    # 750 row images of ~1.9 KB: at least 1.4 MB of WAL
    assert independent > 750 * 1900
    # the readings bracket the psql ones: nothing else runs on this server but its own background
    # records (running-xacts snapshots, a few dozen bytes each)
    print(f"WAL: analysis {got['bytes']} B, psql LSN advance {independent} B")
    assert independent <= got["bytes"] <= independent + 8192, (got, independent)


def test_no_reading_no_figure_with_the_reason():
    assert wal.wal("postgres", None, "postgres")["reason"] == "postgres.server-stats.json missing"
    got = wal.wal("postgres", {"start": None, "end": {}}, "postgres-load")
    assert got["bytes"] is None and "postgres-load.out" in got["reason"]
