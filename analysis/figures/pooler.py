"""The connection pooler of a phase (POOL=pgbouncer: PgBouncer between the clients and PostgreSQL).

Its container is measured by cAdvisor like the database's (export.py adds the service named in
phase.json `pooler`, role "pooler") and reported beside the server's, never added into it: the run's
`cpu`, `per_op` and `transactions.cpu_us_per_committed` stay the server's alone, and `pooler.per_op`
gives both, the server alone and the server plus the pooler."""

COUNTERS = {
    "user_s": "container_cpu_user_seconds_total",
    "system_s": "container_cpu_system_seconds_total",
    "rx_bytes": "container_network_receive_bytes_total",
    "tx_bytes": "container_network_transmit_bytes_total",
}
GAUGES = {"rss": "container_memory_rss", "working_set": "container_memory_working_set_bytes"}
INCLUDES = ("the server's alone: the pooler's CPU and network are in `pooler` "
            "(pooler.per_op: server alone and server + pooler)")
# What `server + pooler` network counts. The pooler's counters hold both of its sides: the clients'
# and the hop to the server; the server's hold that hop too, from the other end. Their sum counted
# the hop twice. The pair's network is what it exchanged with the clients, the pooler's client side:
# its bytes less the server's, direction by direction (what the server received, the pooler sent it).
# That holds because in the window the server talks to nothing else: the lab's readings go straight
# to the server, but outside the window (lab/driver/phase.py; pool-ready before it, pool-close after it).
NET_COUNTED = ("server + pooler network: the bytes the clients exchanged with the pooler, counted once = the "
               "pooler's rx less the server's tx, plus the pooler's tx less the server's rx; the PgBouncer-to-"
               "PostgreSQL hop is inside the pair and not counted (the server talks to nothing else in the window)")


def _counter(metrics, service, metric):
    c = (((metrics or {}).get("services") or {}).get(service) or {}).get("counters", {}).get(metric)
    return None if c is None else c.get("delta")


def _gauge(metrics, service, metric):
    g = (((metrics or {}).get("services") or {}).get(service) or {}).get("gauges", {}).get(metric)
    return None if g is None else {"mean": g.get("mean"), "max": g.get("max")}


def _add(a, b):
    return None if a is None or b is None else a + b


def _per(v, n, scale=1.0):
    return None if v is None or not n else v * scale / n


def client_facing(pooler_net, server_net):
    """(bytes the pooler exchanged with the clients, None) or (None, the reason). pooler_net and
    server_net: {rx_bytes, tx_bytes} of each container over the window."""
    if None in (pooler_net.get("rx_bytes"), pooler_net.get("tx_bytes"),
                (server_net or {}).get("rx_bytes"), (server_net or {}).get("tx_bytes")):
        return None, "no client-facing network: a network counter of the pooler or the server is null (see the phase's notes)"
    from_clients = pooler_net["rx_bytes"] - server_net["tx_bytes"]
    to_clients = pooler_net["tx_bytes"] - server_net["rx_bytes"]
    for got, server_did, pooler_did, a, b in ((from_clients, "sent", "received", "tx", "rx"),
                                              (to_clients, "received", "sent it", "rx", "tx")):
        if got < 0:
            return None, (f"no client-facing network: the server {server_did} more than the pooler {pooler_did} "
                          f"(server {a} {server_net[a + '_bytes']:.0f} B, pooler {b} {pooler_net[b + '_bytes']:.0f} B): "
                          "it exchanged bytes with something else in the window")
    return from_clients + to_clients, None


def summary(phase, metrics, ops, committed, server_cpu_s, server_network):
    """run.pooler: None without a pooler; else what ran, its own resources in the window, and the
    per-operation (and per committed transaction) CPU and network of the server alone and of the
    server plus the pooler. ops: the phase's successful operations (per_op's divisor);
    server_network: the server's {rx_bytes, tx_bytes}."""
    p = (phase or {}).get("pooler")
    if not p:
        return None
    svc = p.get("service") or "pgbouncer"
    c = {k: _counter(metrics, svc, m) for k, m in COUNTERS.items()}
    cpu = _add(c["user_s"], c["system_s"])
    net = _add(c["rx_bytes"], c["tx_bytes"])
    reasons = []
    if metrics is None:
        reasons.append("no metrics export for the phase: no pooler figures")
    elif cpu is None:
        reasons.append(f"no CPU counter for the {svc} container in the window (see the phase's notes)")
    server_net_bytes = _add((server_network or {}).get("rx_bytes"), (server_network or {}).get("tx_bytes"))
    both_cpu = _add(server_cpu_s, cpu)
    both_net, why_net = client_facing({"rx_bytes": c["rx_bytes"], "tx_bytes": c["tx_bytes"]}, server_network)
    if metrics is not None and why_net:
        reasons.append(why_net)
    return {
        "service": svc,
        "product": p.get("product"),
        "version": p.get("version"),
        "mode": p.get("mode"),
        "size": p.get("size"),
        "statements": p.get("statements"),
        "max_prepared_statements": p.get("max_prepared_statements"),
        "image": p.get("image"),
        "image_os": p.get("image_os"),
        "stand_in": p.get("stand_in"),
        "readings": p.get("readings"),
        "cpu": {"user_s": c["user_s"], "system_s": c["system_s"], "total_s": cpu},
        "memory": {k: _gauge(metrics, svc, m) for k, m in GAUGES.items()},
        "network": {"rx_bytes": c["rx_bytes"], "tx_bytes": c["tx_bytes"], "client_facing_bytes": both_net,
                    "counted": NET_COUNTED},
        "per_op": {
            "ops": ops,
            "server_cpu_us": _per(server_cpu_s, ops, 1e6),
            "pooler_cpu_us": _per(cpu, ops, 1e6),
            "server_plus_pooler_cpu_us": _per(both_cpu, ops, 1e6),
            "server_net_bytes": _per(server_net_bytes, ops),
            "pooler_net_bytes": _per(net, ops),
            "server_plus_pooler_net_bytes": _per(both_net, ops),
        },
        "per_committed": None if committed is None else {
            "committed": committed,
            "server_cpu_us": _per(server_cpu_s, committed, 1e6),
            "server_plus_pooler_cpu_us": _per(both_cpu, committed, 1e6),
        },
        "reason": "; ".join(reasons) or None,
    }


def report_lines(result):
    """report.md: one row per pooled phase, the pooler beside the server."""
    runs = [r for r in result.get("runs") or [] if r.get("pooler")]
    if not runs:
        return []

    def f(v, fmt="{:.1f}"):
        return "-" if v is None else fmt.format(v)

    lines = ["## Connection pooler", "",
             "The clients' sessions went through the pooler; the lab's readings went straight to the server. "
             "The server's figures elsewhere in this report are the server's alone.", "",
             "| phase | pooler | mode / size | statements | pooler CPU s | pooler RSS MB (mean) | pooler net MB "
             "| CPU µs/op server | CPU µs/op server + pooler | net B/op server | net B/op server + pooler |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        p = r["pooler"]
        rss = ((p.get("memory") or {}).get("rss") or {}).get("mean")
        net = _add((p.get("network") or {}).get("rx_bytes"), (p.get("network") or {}).get("tx_bytes"))
        name = f"{p.get('product') or p.get('service')} {p.get('version') or '?'}" + (" (STAND-IN)" if p.get("stand_in") else "")
        lines.append(f"| {r.get('phase')} | {name} | {p.get('mode')} / {p.get('size')} | {p.get('statements')} "
                     f"| {f((p.get('cpu') or {}).get('total_s'), '{:.2f}')} | {f(None if rss is None else rss / 1e6)} "
                     f"| {f(None if net is None else net / 1e6, '{:.2f}')} | {f(p['per_op'].get('server_cpu_us'))} "
                     f"| {f(p['per_op'].get('server_plus_pooler_cpu_us'))} | {f(p['per_op'].get('server_net_bytes'), '{:,.0f}')} "
                     f"| {f(p['per_op'].get('server_plus_pooler_net_bytes'), '{:,.0f}')} |")
    stand_ins = sorted({r["pooler"]["stand_in"] for r in runs if r["pooler"].get("stand_in")})
    lines += ["", NET_COUNTED[0].upper() + NET_COUNTED[1:] + "."]
    lines += [""] + [f"> STAND-IN pooler: {s}." for s in stand_ins] + ([""] if stand_ins else [])
    return lines


def of_phase(ph, ops, committed, server_cpu_s, server_network):
    """summary() of a phase (bench/folder.py Phase)."""
    return summary(ph.doc() or {}, ph.metrics(), ops, committed, server_cpu_s, server_network)
