"""The transaction workloads' figures (WORKLOAD=booking, oltp; issue 19): the clients' `transactions`
objects merged into results.json runs[].transactions, and the clients' outcomes the lab passes to
`node client count` for the nothing-lost check (`txn-outcomes`: which transactions each client
committed and which it left in doubt, so count looks for each booking by id).

A client result's `transactions` (docs/contracts.md §2) holds its settings (isolation, retry,
max_attempts, sessions, the model's keys), its counts (committed, attempts, retries, aborts by
reason, gave_up, in_doubt, commit_retries; booking: `writes` per table), the indices of its
committed and in-doubt transactions (committed_indices, in_doubt_indices: ranges) and
`last_attempt_us`, an HdrHistogram of the committing attempt alone. Counts are added, abort reasons
and writes added per key, and the histograms merged bucket by bucket exactly as latency_us is
(analysis/figures/hdr.py): percentiles come from the merged histogram.
"""
import json
import os

from ..common import file_schemas
from ..common.errors import AnalysisError
from ..bench import folder
from . import hdr

COUNTS = ("committed", "attempts", "retries", "gave_up", "in_doubt", "commit_retries")
# the figures that are counts, histograms or per-client indices; every other field is a setting,
# the same on every client
NOT_SETTINGS = set(COUNTS) | {"aborts", "writes", "last_attempt_ms", "last_attempt_us", "committed_indices",
                              "in_doubt_indices"}


def merge(clients):
    """runs[].transactions for the clients [(path, result)] of one phase, or None when no client
    result holds `transactions` (a phase of another workload)."""
    with_txn = [(p, c) for p, c in clients if isinstance(c.get("transactions"), dict)]
    if not with_txn:
        return None
    counts = {k: 0 for k in COUNTS}
    aborts, hists, settings, writes = {}, [], {}, {}
    for path, t in ((p, c["transactions"]) for p, c in with_txn):
        for k in COUNTS:
            counts[k] += int(t.get(k) or 0)
        for reason, n in (t.get("aborts") or {}).items():
            aborts[reason] = aborts.get(reason, 0) + int(n)
        # booking: write statements per table over every attempt ({table: {ok, failed}})
        for table, w in (t.get("writes") or {}).items():
            cell = writes.setdefault(table, {"ok": 0, "failed": 0})
            cell["ok"] += int(w.get("ok") or 0)
            cell["failed"] += int(w.get("failed") or 0)
        if t.get("last_attempt_us"):
            hists.append(hdr.decode(t["last_attempt_us"], f"{path}: transactions.last_attempt_us"))
        for k, v in t.items():
            if k not in NOT_SETTINGS:
                settings.setdefault(k, []).append(v)
    # a setting the clients disagree on is listed with every value (it should never happen: one run.env)
    same = {k: (vs[0] if all(v == vs[0] for v in vs) else vs) for k, vs in settings.items()}
    committed = counts["committed"]
    # the committed rate while the clients ran: each client's commits over its own elapsed time, summed
    # (as the offered rate is). Over the phase window, whose guard seconds hold no transaction, 80 commits
    # at 20/s read 4/s beside 20/s offered, as if the database could not keep up.
    rate_reason = next((f"{p}: no elapsed_s in the client result" for p, c in with_txn
                        if not isinstance(c.get("elapsed_s"), (int, float)) or c["elapsed_s"] <= 0), None)
    committed_per_s = None if rate_reason else sum(int(c["transactions"].get("committed") or 0) / c["elapsed_s"]
                                                   for _, c in with_txn)
    last = hdr.merge(hists)
    every_writes = all(isinstance(c["transactions"].get("writes"), dict) for _, c in with_txn)
    return {
        **same,
        "clients": len(with_txn),
        **counts,
        "aborts": dict(sorted(aborts.items())),
        "aborted_attempts": sum(aborts.values()),
        # booking: {table: {ok, failed}} (null without: another workload, or clients before `writes`)
        "writes": dict(sorted(writes.items())) if writes and every_writes else None,
        "retries_per_committed": counts["retries"] / committed if committed else None,
        "attempts_per_committed": counts["attempts"] / committed if committed else None,
        "last_attempt_ms": hdr.summary_ms(last),
        "last_attempt_count": last.get_total_count() if last is not None else 0,
        "committed_per_s": committed_per_s,
        "committed_per_s_reason": rate_reason,
        # filled by results.py from the phase's resources (CPU of the database over its commits)
        "cpu_us_per_committed": None,
        "cpu_us_per_committed_net": None,
        "cpu_net_reason": None,
        "reason": None,
    }


def with_costs(txn, cpu_s, target_rate, usage=None):
    """The merged figures plus the phase's cost per committed transaction and the offered rate.
    cpu_s: the database's user+system seconds over the window (gross: the guard seconds' idle included);
    usage: the window's nanosecond CPU counter net of the idle rate read just before the clients started
    (analysis/collect/idle.py), which gives cpu_us_per_committed_net, the transactions' own cost, as for queries."""
    if txn is None:
        return None
    committed = txn["committed"]
    out = dict(txn)
    out["cpu_us_per_committed"] = cpu_s * 1e6 / committed if cpu_s is not None and committed else None
    net_s = (usage or {}).get("net_s")
    out["cpu_us_per_committed_net"] = net_s * 1e6 / committed if net_s is not None and committed else None
    out["cpu_net_reason"] = (None if out["cpu_us_per_committed_net"] is not None else
                             "no transaction committed" if not committed else
                             (usage or {}).get("reason") or "no idle-netted CPU reading (cpu.usage) for the phase")
    out["offered_per_s"] = target_rate
    whys = []
    if not committed:
        whys.append("no transaction committed: no figure per committed transaction")
    elif cpu_s is None:
        whys.append("no CPU figure for the phase (see its notes)")
    if txn.get("committed_per_s_reason"):
        whys.append(f"committed_per_s: {txn['committed_per_s_reason']}")
    out["reason"] = "; ".join(whys) or None
    return out


def outcomes(clients, expected_clients, phase_id):
    """(doc, reason): the txn-outcomes file's content for `node client count`'s nothing-lost check
    (client/src/txn-outcomes.schema.json: per client its id, key, seed, the model's keys and the
    indices of its committed and in-doubt transactions), or (None, why) when a client's result is
    missing or says no indices (a check without one client's bookings would call them foreign)."""
    if len(clients) < expected_clients:
        return None, f"{len(clients)} of {expected_clients} client result files: committed bookings unknown"
    missing = [p for p, c in clients if not isinstance(c.get("transactions"), dict)]
    if missing:
        return None, f"no `transactions` in {', '.join(missing)}"
    without = [p for p, c in clients if not isinstance(c["transactions"].get("committed_indices"), list)]
    if without:
        return None, (f"no transactions.committed_indices in {', '.join(without)} (a client before the lab recorded "
                      "which transactions committed)")
    out = []
    for _, c in clients:
        t = c["transactions"]
        entry = {"client_id": str(c.get("client_id")), "workload": c.get("workload"), "key": c.get("key"),
                 "seed": c.get("seed"), "committed_indices": t["committed_indices"],
                 "in_doubt_indices": t.get("in_doubt_indices") or []}
        # booking: each booking's (flight, day) is derived from these too
        entry.update({k: t[k] for k in ("flights", "day_range") if isinstance(t.get(k), int)})
        out.append({k: v for k, v in entry.items() if v is not None})
    return {"phase": phase_id, "clients": out}, None


def write_outcomes(bench_dir, phase_id, expected_clients, out_path):
    """`txn-outcomes`: writes out_path (checked against client/src/txn-outcomes.schema.json) and returns
    None, or returns why it wrote nothing (out_path then removed: no stale file from an earlier run)."""
    doc, reason = outcomes(folder.Bench(bench_dir).phase(phase_id).clients(), expected_clients, phase_id)
    if os.path.exists(out_path):
        os.remove(out_path)
    if doc is None:
        return reason
    try:
        file_schemas.client(doc, "txn-outcomes", out_path)
    except AnalysisError as err:
        return str(err)
    with open(out_path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(doc, f, separators=(",", ":"))
    os.replace(out_path + ".tmp", out_path)
    return None


def booking_check(count):
    """The nothing-lost check `count` made (count.json `booking_check`), or None."""
    return (count or {}).get("booking_check")


def check_uncovered(check, txn):
    """Why count's nothing-lost check (booking_check) does not speak for the clients' bookings, or
    None when it does: it looked for exactly the bookings the clients' results say they committed
    and left in doubt (its committed and in_doubt, derived from TXN_OUTCOMES, against the merged
    `transactions`). A check that passed without them, or against other results, proves nothing."""
    if check is None or txn is None:
        return None
    if check.get("committed") is None:
        return ("count's nothing-lost check ran without the clients' outcomes (TXN_OUTCOMES): no booking was "
                "looked for by id")
    if check["committed"] != txn["committed"] or check.get("in_doubt") != txn["in_doubt"]:
        return (f"count's nothing-lost check looked for {check['committed']} committed and {check.get('in_doubt')} "
                f"in-doubt bookings, the client results hold {txn['committed']} and {txn['in_doubt']}")
    return None


def of_phase(ph, facts):
    """merge() of a phase's clients (bench/folder.py Phase) of a transaction workload (the plan's
    workload `transactions`: booking, oltp); None for any other."""
    return merge(ph.clients()) if facts["transactions"] else None
