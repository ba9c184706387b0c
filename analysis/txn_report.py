"""The opening answer of a transaction bench's report.md (WORKLOAD=booking, oltp; issue 19), read from
results.json runs[].transactions (analysis/transactions.py): per database at its isolation level, the
transactions/s offered and committed, the database's CPU per committed transaction, retries per
committed transaction, p50/p99 of the latency from the intended start (retries included) and of the
committing attempt alone, the aborts by reason and the nothing-lost check. A sweep of ISOLATION
(`--sweep ISOLATION=read-committed,repeatable-read,serializable`) gives one such table per point and
the figures side by side in its own report."""
from . import databases
from .labels import fmt

ISOLATION_NAMES = {"read-committed": "READ COMMITTED", "repeatable-read": "REPEATABLE READ", "serializable": "SERIALIZABLE"}


def _isolation(run):
    iso = (run.get("transactions") or {}).get("isolation")
    if run.get("database") == "postgres":
        return ISOLATION_NAMES.get(iso, str(iso))
    return "snapshot read concern, majority write concern"


def _pair(ms, a="p50", b="p99"):
    ms = ms or {}
    return f"{fmt(ms.get(a))} / {fmt(ms.get(b))}"


def _aborts(t):
    aborts = t.get("aborts") or {}
    return ", ".join(f"{k} {v}" for k, v in aborts.items()) or "none"


def _nothing_lost(run):
    check = run.get("booking_check")
    if check is None:
        return "n/a (oltp: rows counted only)" if run.get("workload") == "oltp" else "n/a (no count after the phase)"
    if check.get("ok"):
        return (f"yes: seats {fmt(check.get('seats'))} = payments {fmt(check.get('payments'))}, "
                f"committed {fmt(check.get('committed'))}")
    return "**NO**: " + "; ".join(check.get("problems") or [])


def _cpu_sentence(txn_runs):
    by_db = {r["database"]: r for r in txn_runs}
    num, den = databases.baseline()
    if set(by_db) != {num, den}:
        return []
    (m, p) = by_db[num], by_db[den]
    a, b = m["transactions"].get("cpu_us_per_committed"), p["transactions"].get("cpu_us_per_committed")
    if not (a and b):
        return ["CPU per committed transaction: no comparison (" + "; ".join(
            f"{r['database']}: {r['transactions'].get('reason') or 'no figure'}" for r in (m, p)
            if not r["transactions"].get("cpu_us_per_committed")) + ")."]
    flagged = [r for r in (m, p) if r.get("status") != "ok"]
    if flagged:
        return ["CPU per committed transaction: no comparison: " + "; ".join(
            f"{r['phase']} status {r.get('status')}" for r in flagged) + "."]
    hi, lo = (m, p) if a >= b else (p, m)
    name = lambda r: r["database"] + (" (stand-in)" if r.get("stand_in") else "")  # noqa: E731
    return [f"**CPU per committed transaction**: {name(hi)} spent **{max(a, b) / min(a, b):.2f}x** the CPU of "
            f"{name(lo)} ({fmt(max(a, b))} vs {fmt(min(a, b))} µs), {name(p)} at {_isolation(p)}."]


def answer_lines(result):
    """The transaction table and its one-line answer, or [] for another workload."""
    txn_runs = [r for r in result.get("runs") or [] if r.get("transactions")]
    if not txn_runs:
        return []
    workload = txn_runs[0].get("workload") or "booking"
    lines = [f"### Transactions ({workload}) per isolation level", "",
             "Per database at its isolation level: rates summed over the clients; CPU is the database's over its "
             "committed transactions; latency runs from the intended start (retries included), the last attempt "
             "is the committing attempt alone (HdrHistograms merged exactly).", "",
             "| database (isolation) | status | offered tx/s | committed tx/s | CPU µs / committed tx | "
             "retries / committed tx | latency p50 / p99 (ms) | last attempt p50 / p99 (ms) | aborts by reason | "
             "gave up / in doubt | nothing lost |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in txn_runs:
        t = r["transactions"]
        name = r["database"] + (" (stand-in)" if r.get("stand_in") else "")
        lines.append(f"| {name} ({_isolation(r)}) | {r.get('status')} | {fmt(t.get('offered_per_s'))} | "
                     f"{fmt(t.get('committed_per_s'))} | {fmt(t.get('cpu_us_per_committed'))} | "
                     f"{fmt(t.get('retries_per_committed'))} | {_pair(r.get('latency_ms'))} | "
                     f"{_pair(t.get('last_attempt_ms'))} | {_aborts(t)} | {fmt(t.get('gave_up'))} / "
                     f"{fmt(t.get('in_doubt'))} | {_nothing_lost(r)} |")
    return lines + [""] + _cpu_sentence(txn_runs) + [""]
