"""POOL=pgbouncer through ./runme.sh on the stand-ins: the OLTP workload's clients reach PostgreSQL
through PgBouncer in transaction mode (the stand-in path's Debian 13 PgBouncer 1.24, built from
databases/postgres/pgbouncer/Dockerfile on the PostgreSQL stand-in image) with named prepared
statements, the lab's readings go straight to the server, and the pooler's own CPU, memory and
network, and its image's OS, are in results.json and report.md beside the server's. Kept short (one
PostgreSQL phase of a few seconds, no perf record)."""
import json
import subprocess

import pytest

from conftest import bench_fixture, image_os_of

CLIENTS, SESSIONS, POOL_SIZE, OPS = 2, 3, 2, 90
BENCH = f"""\
DESCRIPTION="end-to-end oltp through pgbouncer"
WORKLOAD=oltp
KEY=uuidv7
LAYOUT=heap
DATABASES=postgres
POOL=pgbouncer
POOL_SIZE={POOL_SIZE}
OLTP_MIX=95/5
TABLE_ROWS=300
CLIENTS={CLIENTS}
SESSIONS={SESSIONS}
RATE=30
OPS={OPS}
SEED=5
QUIET_S=1
PERF_RECORD_S=0
"""

pooled_run = bench_fixture(("bench-e2e-pgbouncer", BENCH), log="runme-pgbouncer.log")


@pytest.fixture(scope="module")
def run(pooled_run):
    bench, proc, res = pooled_run
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert res is not None and [r["phase"] for r in res["runs"]] == ["postgres"]
    return bench, res["runs"][0]


def test_the_phase_is_ok_and_every_transaction_committed(run):
    bench, r = run
    assert r["status"] == "ok", (r["reason"], r["reconciliation"]["reasons"])
    assert r["transactions"]["committed"] == CLIENTS * OPS
    for i in range(1, CLIENTS + 1):
        c = json.loads((bench / "clients" / f"postgres-client-{i}.json").read_text())
        assert c["transactions"]["statements"] == "named"  # as without a pool: max_prepared_statements carries them
    # the table still holds its rows (count, read directly from the server)
    assert r["docs_in_db"] == 300


def test_the_server_saw_the_pool_not_the_clients(run):
    bench, r = run
    checks = r["reconciliation"]["checks"]
    assert r["reconciliation"]["verdict"] != "suspect", r["reconciliation"]["reasons"]
    # CLIENTS x SESSIONS client sessions, at most POOL_SIZE server sessions (+ the start reading's own)
    assert r["reconciliation"]["lab_work"]["client_sessions"] == CLIENTS * SESSIONS
    assert 1 <= checks["sessions"]["observed"] <= POOL_SIZE + 1, checks["sessions"]
    # the pool's server connections closed after the window: the end reading sees no other session
    assert checks["other_sessions_at_end"]["observed"] == 0, checks["other_sessions_at_end"]
    out = (bench / "postgres.out").read_text()
    said = json.loads(out.split("pool-close: ", 1)[1].splitlines()[0])
    assert 1 <= said["server_connections_closed"] <= POOL_SIZE and said["server_connections_left"] == 0


def test_the_pooler_is_measured_beside_the_server(run):
    bench, r = run
    p = r["pooler"]
    assert p["service"] == "pgbouncer" and p["product"] == "PgBouncer"
    assert (p["mode"], p["size"], p["statements"], p["max_prepared_statements"]) == ("transaction", POOL_SIZE, "named", 200)
    if p["stand_in"]:
        assert p["version"].startswith("1.24."), p
    # the pooler image's OS and C library, as the lab read them before the phase and as read here
    image_id = subprocess.run(["docker", "image", "inspect", "-f", "{{.Id}}", p["image"]],
                              capture_output=True, text=True, check=True).stdout.strip()
    assert p["image_os"]["image"] == image_id and p["image_os"]["reason"] is None, p["image_os"]
    assert {"os": p["image_os"]["os"], "libc": p["image_os"]["libc"]} == image_os_of(image_id)
    assert p["cpu"]["total_s"] > 0 and p["memory"]["rss"]["mean"] > 0
    assert p["network"]["rx_bytes"] > 0 and p["network"]["tx_bytes"] > 0
    server_cpu = r["cpu"]["user_s"] + r["cpu"]["system_s"]
    ops = r["per_op"]["ops"]
    assert r["per_op"]["cpu_us"] * ops == pytest.approx(server_cpu * 1e6)  # the server's alone
    assert r["per_op"]["includes_pooler"].startswith("the server's alone")
    assert p["per_op"]["server_plus_pooler_cpu_us"] == pytest.approx(
        p["per_op"]["server_cpu_us"] + p["per_op"]["pooler_cpu_us"])
    # server + pooler network: the clients' bytes once (issue 25 item 9), never the two containers'
    # sum, which holds the PgBouncer-to-PostgreSQL hop twice; measured on the real pair
    server_net = r["network"]["rx_bytes"] + r["network"]["tx_bytes"]
    client_side = p["network"]["client_facing_bytes"]
    assert client_side == pytest.approx(p["network"]["rx_bytes"] - r["network"]["tx_bytes"]
                                        + p["network"]["tx_bytes"] - r["network"]["rx_bytes"])
    assert 0 < client_side < p["network"]["rx_bytes"] + p["network"]["tx_bytes"]
    assert p["per_op"]["server_plus_pooler_net_bytes"] * ops == pytest.approx(client_side)
    print(f"client-facing {client_side:.0f} B, server (the hop) {server_net:.0f} B, "
          f"pooler {p['network']['rx_bytes'] + p['network']['tx_bytes']:.0f} B, {ops} ops")
    metrics = json.loads((bench / "postgres.metrics.json").read_text())
    assert metrics["services"]["pgbouncer"]["role"] == "pooler"
    phase = json.loads((bench / "postgres.phase.json").read_text())
    assert phase["pooler"]["readings"].startswith("direct to PostgreSQL")
    report = (bench / "report.md").read_text()
    section = report[report.index("## Connection pooler"):]
    row = next(x for x in section.splitlines() if x.startswith("| postgres |"))
    assert "PgBouncer" in row and f"transaction / {POOL_SIZE}" in row and "| named |" in row


def test_the_pooler_is_started_and_said_as_before(pooled_run):
    """The driver drives the pooler postgres's manifest offers (databases/postgres/pgbouncer/pool.py):
    the console line and D.phase.json's `pooler` keys are those the lab wrote when it knew PgBouncer."""
    bench, proc, _ = pooled_run
    line = next(x for x in proc.stdout.splitlines() if "POOL=pgbouncer: " in x)
    assert line.split("POOL=pgbouncer: ", 1)[1].startswith("PgBouncer "), line
    assert f"pool_mode=transaction default_pool_size={POOL_SIZE}" in line
    phase = json.loads((bench / "postgres.phase.json").read_text())
    assert list(phase["pooler"]) == ["service", "product", "version", "mode", "size", "container_id", "image",
                                     "stand_in", "statements", "max_prepared_statements", "image_os", "readings"]
    assert phase["pooler"]["product"] == "PgBouncer" and phase["pooler"]["container_id"]
    assert (bench / "postgres.out").read_text().count("pool-close: {") == 1
