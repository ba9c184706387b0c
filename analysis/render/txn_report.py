"""The opening answer of a transaction bench's report.md (WORKLOAD=booking, oltp; issue 19), read from
results.json runs[].transactions (analysis/figures/transactions.py): per database at its isolation level, the
transactions/s offered and committed, the database's CPU per committed transaction, retries per
committed transaction, p50/p99 of the latency from the intended start (retries included) and of the
committing attempt alone, the aborts by reason and the nothing-lost check. A sweep of ISOLATION, or
the study's grid of isolation x clients (`--sweep ISOLATION=... --sweep CLIENTS=...`), gives one such
table per point, and its own report opens with `sweep_lines`: every point's figures in one table."""
from ..common import databases
from ..common.labels import fmt

# a database whose folder states no `transaction_isolation` (docs/contracts.md "A database's analysis
# hooks"): what ISOLATION asked for is named, what the database made of it is not guessed
NOT_STATED = "ISOLATION={} (what it means on this database: not stated yet)"


def _isolation(run):
    """The isolation the run's transactions ran at, in its database's words (its folder's
    `transaction_isolation` of the ISOLATION it ran with)."""
    iso = (run.get("transactions") or {}).get("isolation")
    said = databases.hook(run.get("database"), "transaction_isolation")
    return said(iso) if said else NOT_STATED.format(iso)


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
    """The baseline's pair, then each further database against the baseline's denominator."""
    by_db = {r["database"]: r for r in txn_runs}
    num, den = databases.baseline()
    out = []
    for a in [num] + databases.others(by_db):
        if a in by_db and den in by_db:
            out += _cpu_compare(by_db[a], by_db[den])
    return out


def _cpu_compare(m, p):
    # both sides net of idle, or both gross: never one of each
    kind = "net of idle" if all(r["transactions"].get("cpu_us_per_committed_net") for r in (m, p)) else "gross"
    key = "cpu_us_per_committed_net" if kind == "net of idle" else "cpu_us_per_committed"
    a, b = m["transactions"].get(key), p["transactions"].get(key)
    if not (a and b):
        return ["CPU per committed transaction: no comparison (" + "; ".join(
            f"{r['database']}: {r['transactions'].get('reason') or 'no figure'}" for r in (m, p)
            if not r["transactions"].get(key)) + ")."]
    flagged = [r for r in (m, p) if r.get("status") != "ok"]
    if flagged:
        return ["CPU per committed transaction: no comparison: " + "; ".join(
            f"{r['phase']} status {r.get('status')}" for r in flagged) + "."]
    hi, lo = (m, p) if a >= b else (p, m)
    name = lambda r: r["database"] + (" (stand-in)" if r.get("stand_in") else "")  # noqa: E731
    why_gross = "" if kind == "net of idle" else (
        " Gross: the window's idle guard seconds are included (" + "; ".join(
            f"{r['database']}: {r['transactions'].get('cpu_net_reason')}" for r in (m, p)
            if not r["transactions"].get("cpu_us_per_committed_net")) + ").")
    return [f"**CPU per committed transaction** ({kind}): {name(hi)} spent **{max(a, b) / min(a, b):.2f}x** the CPU "
            f"of {name(lo)} ({fmt(max(a, b))} vs {fmt(min(a, b))} µs), {name(p)} at {_isolation(p)}.{why_gross}"]


def answer_lines(result):
    """The transaction table and its one-line answer, or [] for another workload."""
    txn_runs = [r for r in result.get("runs") or [] if r.get("transactions")]
    if not txn_runs:
        return []
    workload = txn_runs[0].get("workload") or "booking"
    lines = [f"### Transactions ({workload}) per isolation level", "",
             "Per database at its isolation level: rates summed over the clients; CPU is the database's over its "
             "committed transactions, net of its idle rate read just before the clients started (and gross: the window's "
             "idle guard seconds included); latency runs from the intended start (retries included), the last attempt "
             "is the committing attempt alone (HdrHistograms merged exactly).", "",
             "| database (isolation) | status | offered tx/s | committed tx/s | CPU µs / committed tx, net / gross | "
             "retries / committed tx | latency p50 / p99 (ms) | last attempt p50 / p99 (ms) | aborts by reason | "
             "gave up / in doubt | nothing lost |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in txn_runs:
        t = r["transactions"]
        name = r["database"] + (" (stand-in)" if r.get("stand_in") else "")
        lines.append(f"| {name} ({_isolation(r)}) | {r.get('status')} | {fmt(t.get('offered_per_s'))} | "
                     f"{fmt(t.get('committed_per_s'))} | {fmt(t.get('cpu_us_per_committed_net'))} / "
                     f"{fmt(t.get('cpu_us_per_committed'))} | "
                     f"{fmt(t.get('retries_per_committed'))} | {_pair(r.get('latency_ms'))} | "
                     f"{_pair(t.get('last_attempt_ms'))} | {_aborts(t)} | {fmt(t.get('gave_up'))} / "
                     f"{fmt(t.get('in_doubt'))} | {_nothing_lost(r)} |")
    return lines + [""] + _cpu_sentence(txn_runs) + [""] + _pooler_lines(txn_runs)


def _pooler_lines(txn_runs):
    """POOL=pgbouncer: the CPU columns above are the server's alone; here with the pooler's added."""
    out = []
    for r in txn_runs:
        p = r.get("pooler")
        if not p:
            continue
        c = p.get("per_committed") or {}
        out.append(f"{r['database']} ran through {p.get('product')} {p.get('version')}"
                   + (" (STAND-IN)" if p.get("stand_in") else "")
                   + f", {p.get('mode')} pooling, {p.get('size')} server connections, {p.get('statements')} statements: "
                   f"CPU µs / committed tx {fmt(c.get('server_cpu_us'))} for the server alone (above), "
                   f"{fmt(c.get('server_plus_pooler_cpu_us'))} with the pooler's (section \"Connection pooler\").")
    return out + [""] if out else []


# the per-point figures a transaction sweep's answer shows, in order: (series path, heading)
SWEEP_COLUMNS = (("transactions.offered_per_s", "offered tx/s"), ("transactions.committed_per_s", "committed tx/s"),
                 ("transactions.cpu_us_per_committed_net", "CPU µs / committed tx, net of idle"),
                 ("transactions.cpu_us_per_committed", "CPU µs / committed tx, gross"),
                 ("transactions.retries_per_committed", "retries / committed tx"),
                 ("latency_ms.p50", "latency p50 (ms)"), ("latency_ms.p99", "latency p99 (ms)"))


def _point_value(series, path, value):
    s = next((s for s in series.get(path) or [] if s.get("value") == value), None)
    return None if s is None else s.get("mean")


def sweep_lines(result):
    """A sweep's (or grid's) transaction answer: one row per point and database with committed/s, CPU
    per committed transaction, retries and latency (means over the point's repetitions), or [] when no
    run of the sweep ran transactions."""
    runs = [k for k, by_path in result.get("series", {}).items() if "transactions.committed_per_s" in by_path]
    if not runs:
        return []
    keys = result["key"].replace("+", ", ")
    lines = [f"### Transactions per {keys}", "",
             "Each point's runs; a repeated point shows the mean over its repetitions (intervals in the tables "
             "below). PostgreSQL runs at the point's ISOLATION; MongoDB's transactions are snapshot read concern, "
             "majority write concern at every point.", "",
             f"| {keys} | database | " + " | ".join(h for _, h in SWEEP_COLUMNS) + " |",
             "|---|---|" + "---|" * len(SWEEP_COLUMNS)]
    for value in result["values"]:
        for run in runs:
            cells = [fmt(_point_value(result["series"][run], p, value)) for p, _ in SWEEP_COLUMNS]
            if all(c == fmt(None) for c in cells):
                continue
            lines.append(f"| {value} | {run} | " + " | ".join(cells) + " |")
    return lines + [""]
