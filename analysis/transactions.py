"""The transaction workloads' figures (WORKLOAD=booking, oltp; issue 19): the clients' `transactions`
objects merged into results.json runs[].transactions, and the totals the lab passes to `node client
count` for the nothing-lost check (`txn-totals`).

A client result's `transactions` (docs/contracts.md §2) holds its settings (isolation, retry,
max_attempts, sessions, the model's keys), its counts (committed, attempts, retries, aborts by
reason, gave_up, in_doubt, commit_retries) and `last_attempt_us`, an HdrHistogram of the committing
attempt alone. Counts are added, abort reasons added per reason, and the histograms merged bucket by
bucket exactly as latency_us is (analysis/hdr.py): percentiles come from the merged histogram.
"""
from . import hdr

COUNTS = ("committed", "attempts", "retries", "gave_up", "in_doubt", "commit_retries")
# the figures that are counts or histograms; every other field is a setting, the same on every client
NOT_SETTINGS = set(COUNTS) | {"aborts", "last_attempt_ms", "last_attempt_us"}


def merge(clients):
    """runs[].transactions for the clients [(path, result)] of one phase, or None when no client
    result holds `transactions` (a phase of another workload)."""
    with_txn = [(p, c) for p, c in clients if isinstance(c.get("transactions"), dict)]
    if not with_txn:
        return None
    counts = {k: 0 for k in COUNTS}
    aborts, hists, settings = {}, [], {}
    for path, t in ((p, c["transactions"]) for p, c in with_txn):
        for k in COUNTS:
            counts[k] += int(t.get(k) or 0)
        for reason, n in (t.get("aborts") or {}).items():
            aborts[reason] = aborts.get(reason, 0) + int(n)
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
    return {
        **same,
        "clients": len(with_txn),
        **counts,
        "aborts": dict(sorted(aborts.items())),
        "aborted_attempts": sum(aborts.values()),
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
    (analysis/idle.py), which gives cpu_us_per_committed_net, the transactions' own cost, as for queries."""
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


def totals(clients, expected_clients):
    """(committed, in_doubt, reason) for `node client count`'s nothing-lost check: the sums over every
    client of the phase, or (None, None, why) when a client's result is missing (a partial sum
    would call the missing client's bookings extra)."""
    if len(clients) < expected_clients:
        return None, None, f"{len(clients)} of {expected_clients} client result files: committed bookings unknown"
    missing = [p for p, c in clients if not isinstance(c.get("transactions"), dict)]
    if missing:
        return None, None, f"no `transactions` in {', '.join(missing)}"
    committed = sum(int(c["transactions"].get("committed") or 0) for _, c in clients)
    in_doubt = sum(int(c["transactions"].get("in_doubt") or 0) for _, c in clients)
    return committed, in_doubt, None


def totals_words(bench_dir, phase_id, expected_clients):
    """`txn-totals`: `COMMITTED=<n> IN_DOUBT=<m>` for the lab to pass to `count`, or '' (the reason
    on stderr by the caller) when they are not known."""
    from . import benchfiles
    committed, in_doubt, reason = totals(benchfiles.client_results(bench_dir, phase_id), expected_clients)
    return ("" if committed is None else f"COMMITTED={committed} IN_DOUBT={in_doubt}"), reason


def booking_check(count):
    """The nothing-lost check `count` made (count.json `booking_check`), or None."""
    return (count or {}).get("booking_check")
