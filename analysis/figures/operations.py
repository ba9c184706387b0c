"""Per-operation figures of one phase, merged exactly across its clients (results.json runs[]
`operations`, `timeline`, `per_op`).

The client result file (docs/contracts.md §2) holds `operations: {op: {ok, errors, dropped, docs,
latency_ms, histograms: {latency_us, service_us}}}` and `timeline: {interval_s, seconds: [{t, ops:
{op: {ok, errors, latency_us}}}]}`. Counts are added, histograms merged bucket by bucket
(analysis/figures/hdr.py); percentiles are read from the merged histograms, never averaged across clients.
"""
from . import hdr, pooler
from .counts import first_client

OP_FIELDS = ("ok", "errors", "dropped", "docs")
COST_FIELDS = ("cpu_us", "cpu_us_net", "instructions", "net_bytes", "wal_bytes")


def _summary(hist):
    out = hdr.summary_ms(hist)
    out["mean"] = None if hist is None or hist.get_total_count() == 0 else hist.get_mean_value() / 1000.0
    return out


def _insert_only_fallback(client):
    """A client result without `operations` (a client older than per-operation results) ran the
    insert workload: its only operation type is insert, its top-level figures are the inserts'."""
    h = client.get("histograms") or {}
    return {"insert": {"ok": client.get("docs_ok"), "errors": client.get("errors"), "dropped": client.get("dropped"),
                       "docs": client.get("docs_ok"),
                       "histograms": {"latency_us": h.get("latency_us"), "service_us": h.get("service_us")}}}


def client_operations(client):
    ops = client.get("operations")
    if ops is None and client.get("workload", "insert") == "insert":
        return _insert_only_fallback(client), "top-level insert figures (the client result has no `operations`)"
    return ops or {}, None


def merge(clients):
    """(operations, note): {op: {ok, errors, dropped, docs, latency_ms, service_ms, latency_count}}
    merged over the clients [(path, result)], op types in first-seen order."""
    order, counts, hists, notes = [], {}, {}, set()
    for path, c in clients:
        ops, note = client_operations(c)
        if note:
            notes.add(note)
        for op, o in ops.items():
            if op not in counts:
                order.append(op)
                counts[op] = {k: None for k in OP_FIELDS}
                hists[op] = {"latency_us": [], "service_us": []}
            for k in OP_FIELDS:
                v = o.get(k)
                if v is not None:
                    counts[op][k] = (counts[op][k] or 0) + v
            for name in hists[op]:
                encoded = (o.get("histograms") or {}).get(name)
                if encoded:
                    hists[op][name].append(hdr.decode(encoded, f"{path}: operations.{op}.histograms.{name}"))
    out = {}
    for op in order:
        lat = hdr.merge(hists[op]["latency_us"])
        out[op] = dict(counts[op])
        out[op]["latency_ms"] = _summary(lat)
        out[op]["service_ms"] = _summary(hdr.merge(hists[op]["service_us"]))
        # how many latencies the merged histogram holds: check compares it with ok (errors record none)
        out[op]["latency_count"] = lat.get_total_count() if lat is not None else 0
    return out, (sorted(notes)[0] if notes else None)


def merge_timeline(clients, window_start=None):
    """Per second (the clients' own unix seconds), per op type: ok and errors added over the
    clients, p50/p99/max of the merged latencies of that second."""
    per_t = {}
    intervals = set()
    for path, c in clients:
        tl = c.get("timeline") or {}
        if tl.get("interval_s") is not None:
            intervals.add(tl["interval_s"])
        for s in tl.get("seconds") or []:
            t = int(s["t"])
            for op, o in (s.get("ops") or {}).items():
                cell = per_t.setdefault(t, {}).setdefault(op, {"ok": 0, "errors": 0, "h": []})
                cell["ok"] += int(o.get("ok") or 0)
                cell["errors"] += int(o.get("errors") or 0)
                if o.get("latency_us"):
                    cell["h"].append(hdr.decode(o["latency_us"], f"{path}: timeline t={t} {op}.latency_us"))
    if not per_t:
        reason = ("no client result file" if not clients else
                  "the client result files hold no per-second timeline (a client older than timelines)")
        return {"interval_s": 1, "start": window_start, "seconds": [], "reason": reason}
    seconds = []
    for t in sorted(per_t):
        ops = {}
        for op, cell in per_t[t].items():
            s = hdr.summary_ms(hdr.merge(cell["h"]))
            ops[op] = {"ok": cell["ok"], "errors": cell["errors"], "p50_ms": s["p50"], "p99_ms": s["p99"],
                       "max_ms": s["max"]}
        seconds.append({"t": t, "ops": ops})
    interval = intervals.pop() if len(intervals) == 1 else 1
    return {"interval_s": interval, "start": window_start, "seconds": seconds, "reason": None}


def per_op(operations, cpu_s, instructions, net_bytes, wal_bytes, mix=None, cpu_net_s=None, cpu_net_reason=None):
    """Resources of the phase per successful operation. With one op type the figures are that
    type's; in a mix they are per operation of the mix (the resources cannot be split by type).
    cpu_s: user + system seconds over the window (gross: its idle guard seconds included); cpu_net_s:
    the window's CPU net of the database's idle rate (runs[].cpu.usage.net_s, analysis/collect/idle.py), with
    cpu_net_reason when there is none."""
    ops_ok = sum(int(o.get("ok") or 0) for o in operations.values())
    types = [op for op, o in operations.items() if (o.get("ok") or 0) + (o.get("errors") or 0) > 0] or list(operations)

    def div(v, scale=1.0):
        return None if v is None or not ops_ok else v * scale / ops_ok

    single = types[0] if len(types) == 1 else None
    return {
        "ops": ops_ok,
        "basis": "operations_ok",
        "op": single,
        "mix": mix if single is None else None,
        "about": (f"per {single} operation" if single else
                  "per operation of the mix (" + ", ".join(types) + "): the phase's resources cannot be "
                  "split by operation type"),
        "cpu_us": div(cpu_s, 1e6),
        # the same CPU net of the idle rate: the operations' own cost (queries', transactions' figure)
        "cpu_us_net": div(cpu_net_s, 1e6),
        "cpu_net_reason": (None if div(cpu_net_s) is not None else
                           "no operation succeeded" if not ops_ok else cpu_net_reason or "no CPU net of idle"),
        "instructions": div(instructions),
        "net_bytes": div(net_bytes),
        "wal_bytes": div(wal_bytes),
    }


def per_op_of_phase(ph, operations, cpu, cpu_s, net_bytes, wal, logs):
    """per_op of a phase (bench/folder.py Phase) from its figures: cpu (the cpu block, figures/cpu.py)
    and cpu_s its user + system seconds, net_bytes (received + sent), wal and the further logs a
    database keeps beside its WAL (its hooks' LOGS: MySQL's binary log), each per operation as the
    WAL (a database without one gets no such field); with a pooler, what the figures include."""
    first = first_client(ph)
    mix = first.get("mix") if isinstance(first.get("mix"), dict) else None
    usage = cpu["usage"]
    out = per_op(operations, cpu_s, cpu["instructions"], net_bytes, wal["bytes"], mix, usage.get("net_s"),
                 usage.get("reason"))
    for name, log in logs.items():
        out[f"{name}_bytes"] = per_op(operations, None, None, None, log["bytes"], mix)["wal_bytes"]
    if (ph.doc() or {}).get("pooler"):
        out["includes_pooler"] = pooler.INCLUDES
    return out

