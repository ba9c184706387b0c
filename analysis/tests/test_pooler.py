"""POOL=pgbouncer in results.json and report.md: the pooler's container (phase.json `pooler`, its
service in the metrics export) reported beside the server's, never added into it, and per operation
both the server alone and the server plus the pooler. Expected figures are computed here from the
fixture's numbers, not by the code under test."""
import json
import os

import pytest

from analysis.figures import pooler, results, schema
from analysis.render import report
from analysis.experiments import figures
from analysis.common.labels import fmt

from . import txn_fixture

TRIXIE = {"image": "sha256:" + "1" * 64, "os": "Debian GNU/Linux 13 (trixie)", "libc": "glibc 2.41", "reason": None}
POOLER = {"service": "pgbouncer", "product": "PgBouncer", "version": "1.24.1", "mode": "transaction", "size": 4,
          "container_id": "abc", "image": "jsonbench-pgbouncer:test",
          "stand_in": "PgBouncer 1.24 (Debian 13 package, on the PostgreSQL stand-in image) standing in for PGDG's PgBouncer on postgres:17.6",
          "statements": "named", "max_prepared_statements": 200, "image_os": TRIXIE, "readings": "direct to PostgreSQL"}
SERVER_OS = dict(TRIXIE, image="sha256:" + "2" * 64)
# the pooler's counters over the window (user s, system s) and its memory; its network is the
# clients' side (CLIENT_RX from the clients, CLIENT_TX to them) plus the hop to the server, which
# the server's own counters see from the other end (its rx is what the pooler sent it)
CPU_USER, CPU_SYS, RSS = 0.25, 0.15, 4_000_000
CLIENT_RX, CLIENT_TX = 300_000, 200_000


def _counter(delta):
    return {"delta": delta, "resets": 0, "per_container": {}}


@pytest.fixture
def pooled_bench(tmp_path):
    txn_fixture.build(str(tmp_path))
    phase_path = tmp_path / "postgres.phase.json"
    phase = json.loads(phase_path.read_text())
    phase["pooler"] = POOLER
    phase["image_os"] = SERVER_OS
    phase_path.write_text(json.dumps(phase))
    metrics_path = tmp_path / "postgres.metrics.json"
    m = json.loads(metrics_path.read_text())
    server = m["services"]["postgres"]["counters"]
    server_rx = server["container_network_receive_bytes_total"]["delta"]
    server_tx = server["container_network_transmit_bytes_total"]["delta"]
    RX, TX = CLIENT_RX + server_tx, CLIENT_TX + server_rx  # the pooler's own counters
    m["services"]["pgbouncer"] = {"role": "pooler", "containers": ["pgb"], "counters": {
        "container_cpu_user_seconds_total": _counter(CPU_USER), "container_cpu_system_seconds_total": _counter(CPU_SYS),
        "container_network_receive_bytes_total": _counter(RX), "container_network_transmit_bytes_total": _counter(TX),
    }, "gauges": {"container_memory_rss": {"mean": RSS, "max": RSS, "samples": 3, "per_container": {}},
                  "container_memory_working_set_bytes": {"mean": RSS, "max": RSS, "samples": 3, "per_container": {}}}}
    metrics_path.write_text(json.dumps(m))
    return tmp_path


def pooler_net(bench):
    """The pooler's rx and tx in the fixture's metrics export."""
    c = json.loads((bench / "postgres.metrics.json").read_text())["services"]["pgbouncer"]["counters"]
    return (c["container_network_receive_bytes_total"]["delta"], c["container_network_transmit_bytes_total"]["delta"])


def test_the_pooler_is_beside_the_server_and_per_op_shows_both(pooled_bench):
    res = results.build(str(pooled_bench))
    schema.validate(res)
    by_db = {r["database"]: r for r in res["runs"]}
    pg, mg = by_db["postgres"], by_db["mongodb"]
    assert mg["pooler"] is None and "includes_pooler" not in mg["per_op"]
    p = pg["pooler"]
    assert (p["product"], p["version"], p["mode"], p["size"], p["statements"]) == ("PgBouncer", "1.24.1", "transaction", 4, "named")
    assert p["max_prepared_statements"] == 200
    assert p["stand_in"].startswith("PgBouncer 1.24")
    # each image's OS and C library as the lab read them: the pooler's and the server's
    assert p["image_os"] == TRIXIE and pg["image_os"] == SERVER_OS and mg["image_os"] is None
    assert p["cpu"]["total_s"] == pytest.approx(CPU_USER + CPU_SYS)
    RX, TX = pooler_net(pooled_bench)
    assert (p["network"]["rx_bytes"], p["network"]["tx_bytes"]) == (RX, TX)
    assert p["memory"]["rss"]["mean"] == RSS
    # the server's own figures stay the server's alone
    server_cpu = pg["cpu"]["user_s"] + pg["cpu"]["system_s"]
    server_net = pg["network"]["rx_bytes"] + pg["network"]["tx_bytes"]
    ops = pg["per_op"]["ops"]
    assert ops == 58
    assert pg["per_op"]["cpu_us"] == pytest.approx(server_cpu * 1e6 / ops)
    assert pg["per_op"]["includes_pooler"].startswith("the server's alone")
    assert p["per_op"]["server_cpu_us"] == pytest.approx(server_cpu * 1e6 / ops)
    assert p["per_op"]["pooler_cpu_us"] == pytest.approx((CPU_USER + CPU_SYS) * 1e6 / ops)
    assert p["per_op"]["server_plus_pooler_cpu_us"] == pytest.approx((server_cpu + CPU_USER + CPU_SYS) * 1e6 / ops)
    # issue 25 item 9: the clients' bytes once; the PgBouncer-PostgreSQL hop is inside the pair (it was
    # counted twice: in the server's bytes and again in the pooler's)
    assert p["network"]["client_facing_bytes"] == CLIENT_RX + CLIENT_TX
    assert p["per_op"]["server_plus_pooler_net_bytes"] == pytest.approx((CLIENT_RX + CLIENT_TX) / ops)
    assert p["per_op"]["server_plus_pooler_net_bytes"] != pytest.approx((server_net + RX + TX) / ops)
    assert p["per_op"]["pooler_net_bytes"] == pytest.approx((RX + TX) / ops)
    assert "once" in p["network"]["counted"] and "hop" in p["network"]["counted"]
    assert pg["transactions"]["cpu_us_per_committed"] == pytest.approx(server_cpu * 1e6 / 58)
    assert p["per_committed"]["server_plus_pooler_cpu_us"] == pytest.approx((server_cpu + CPU_USER + CPU_SYS) * 1e6 / 58)
    assert p["reason"] is None
    # a --sweep POOL=none,pgbouncer carries both costs
    f = figures.of_run(pg)
    assert f["pooler.per_op.server_plus_pooler_cpu_us"] == pytest.approx(p["per_op"]["server_plus_pooler_cpu_us"])


def test_a_pooler_without_figures_says_why(pooled_bench):
    m = json.loads((pooled_bench / "postgres.metrics.json").read_text())
    del m["services"]["pgbouncer"]
    (pooled_bench / "postgres.metrics.json").write_text(json.dumps(m))
    p = {r["database"]: r for r in results.build(str(pooled_bench))["runs"]}["postgres"]["pooler"]
    assert p["cpu"]["total_s"] is None and p["per_op"]["server_plus_pooler_cpu_us"] is None
    assert "no CPU counter for the pgbouncer container" in p["reason"]


def test_report_has_the_pooler_table_with_both_costs(pooled_bench):
    results.write(str(pooled_bench))
    res = json.loads((pooled_bench / "results.json").read_text())
    lines = pooler.report_lines(res)
    row = next(line for line in lines if line.startswith("| postgres |"))
    pg = {r["database"]: r for r in res["runs"]}["postgres"]
    assert "PgBouncer 1.24.1 (STAND-IN)" in row and "transaction / 4" in row and "named" in row
    assert f"{pg['pooler']['per_op']['server_plus_pooler_cpu_us']:.1f}" in row
    assert row.rstrip(" |").endswith(f"{pg['pooler']['per_op']['server_plus_pooler_net_bytes']:,.0f}")
    assert "Server + pooler network: the bytes the clients exchanged with the pooler, counted once" in "\n".join(lines)
    assert any(line.startswith("> STAND-IN pooler: PgBouncer 1.24") for line in lines)
    report.bench_report(str(pooled_bench))
    text = (pooled_bench / "report.md").read_text()
    assert "## Connection pooler" in text
    # the runs table names each server image's OS and C library, or why it has none
    os_row = next(line for line in text.splitlines() if line.startswith("| image OS / libc |"))
    assert "Debian GNU/Linux 13 (trixie) / glibc 2.41" in os_row and "not read (a run before it)" in os_row
    # the transactions answer says its CPU is the server's alone and gives it with the pooler's
    c = pg["pooler"]["per_committed"]
    assert (f"postgres ran through PgBouncer 1.24.1 (STAND-IN), transaction pooling, 4 server connections, named statements: "
            f"CPU µs / committed tx {fmt(c['server_cpu_us'])} for the server alone") in text
    assert f"{fmt(c['server_plus_pooler_cpu_us'])} with the pooler's" in text
    assert pooler.report_lines({"runs": [{"pooler": None}]}) == []


def test_server_bytes_beyond_the_pooler_make_the_client_facing_figure_null_with_the_reason(pooled_bench):
    """The pooler's client side is its bytes less the server's (every byte the server exchanged in the
    window went to or came from the pooler). A server that received more than the pooler sent it
    talked to something else in the window: no figure, and why."""
    path = pooled_bench / "postgres.metrics.json"
    m = json.loads(path.read_text())
    pgb = m["services"]["pgbouncer"]["counters"]
    server_rx = m["services"]["postgres"]["counters"]["container_network_receive_bytes_total"]["delta"]
    pgb["container_network_transmit_bytes_total"]["delta"] = server_rx - 1
    path.write_text(json.dumps(m))
    p = {r["database"]: r for r in results.build(str(pooled_bench))["runs"]}["postgres"]["pooler"]
    assert p["network"]["client_facing_bytes"] is None
    assert p["per_op"]["server_plus_pooler_net_bytes"] is None
    assert "received more than the pooler sent" in p["reason"]
    assert p["per_op"]["pooler_net_bytes"] is not None  # the pooler's own figure stands
