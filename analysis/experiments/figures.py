"""The numeric figures of one bench's results.json, read generically so that new fields come along:
every number of a run's `per_doc`, `per_op`, `wal`, `latency_ms`, `ingest` (tsbs) and `transactions` (booking,
oltp: so an ISOLATION or CLIENTS sweep plots CPU per committed transaction, retries, ...), and the latency of each
operation type (`operations.<op>.latency_ms`), keyed by a dotted path ("per_doc.cpu_us").
Used by `repeat` (statistics over repetitions) and `sweep` (figures against a swept value)."""

import re

from ..common import databases
from ..bench import benchfiles

# pooler (POOL=pgbouncer): its CPU and per operation the server + pooler, so a `--sweep POOL=none,pgbouncer`
# compares the server alone and the server with its pooler
# binlog: MySQL's binary log (absent from the other databases' runs)
SECTIONS = ("per_doc", "per_op", "wal", "binlog", "latency_ms", "ingest", "transactions", "pooler")
# A failed or interrupted phase's figures cover part of the work; a suspect one's include work the
# lab did not send (or two readings of its CPU disagree): experiments leave both out by default and
# say so (repeat's notes, n of N).
USABLE_STATUS = ("ok",)


def _numbers(obj, prefix, out):
    if isinstance(obj, bool) or obj is None:
        return
    if isinstance(obj, (int, float)):
        out[prefix] = obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _numbers(v, f"{prefix}.{k}", out)


# The figures read from HdrHistograms (the clients' latencies, a transaction's last attempt): kept to 3
# significant digits (client/src/stats.js, analysis/figures/hdr.py), so two equal values are equal to 10^-3 of
# the value, no better (analysis/experiments/ci.py `step`).
HISTOGRAM_STEP = 1e-3
_HISTOGRAM_PATH = re.compile(r"(^|\.)(latency_ms|last_attempt_ms)\.|\.(latency|service)_(p50|p99|max)_ms$")


def step(path):
    """The quantisation of a figure as a fraction of its value: HISTOGRAM_STEP for a percentile (or
    mean, max) of a latency histogram, None for a figure read from a counter."""
    return HISTOGRAM_STEP if _HISTOGRAM_PATH.search(path) else None


def run_key(run):
    """A run's name across repetitions and points: its phase id (wb: `mongodb-load`, `mongodb`),
    else its database (the insert workload's one phase per database)."""
    return run.get("phase") or run["database"]


def of_run(run):
    out = {}
    for section in SECTIONS:
        _numbers(run.get(section), section, out)
    for op, o in (run.get("operations") or {}).items():
        if isinstance(o, dict):
            _numbers(o.get("latency_ms"), f"operations.{op}.latency_ms", out)
    # a query phase: its figures per query as the single run reports them (analysis/figures/queries.py),
    # so a REPEAT compares the same CPU per query net of idle
    _numbers((run.get("query") or {}).get("per_query"), "query.per_query", out)
    return out


def of_result(result):
    """{run key: {path: number}} for the runs whose figures stand (status ok);
    {run key: None} for the others, so a caller can say why a value is missing."""
    return {run_key(r): (of_run(r) if r.get("status") in USABLE_STATUS else None) for r in result.get("runs") or []}


def ratio_pairs(keys):
    """(numerator key, denominator key) of the stated baseline (databases/baseline.json: mongodb,
    postgres) for each phase present on both sides, in run order: `mongodb-load` with `postgres-load`;
    then each further database's phases against the baseline's denominator (`mysql-load` with
    `postgres-load`), in run order."""
    keys = list(keys)
    num, den = databases.baseline()
    others = databases.others(benchfiles.database_of(k) for k in keys)

    def partner(k):  # the same phase on the denominator's database
        return den + k[len(benchfiles.database_of(k)):]
    pairs = [(k, partner(k)) for k in keys if benchfiles.database_of(k) == num and partner(k) in keys]
    return pairs + [(k, partner(k)) for k in keys if benchfiles.database_of(k) in others and partner(k) in keys]


def ratios(figures):
    """{"<numerator key>/<denominator key>" (e.g. "mongodb/postgres"): {path: a / b}} over the paths
    both sides have (b != 0)."""
    out = {}
    for num, den in ratio_pairs(figures):
        a, b = figures.get(num), figures.get(den)
        if a is None or b is None:
            out[f"{num}/{den}"] = None
            continue
        out[f"{num}/{den}"] = {p: a[p] / b[p] for p in a if p in b and a[p] is not None and b[p]}
    return out


# How a path is named in reports: the lab's usual headings for per_doc, the path itself otherwise.
_NAMES = {
    "per_doc.cpu_us": "CPU (µs/doc)", "per_doc.instructions": "instructions, user mode (/doc)",
    "per_doc.write_bytes": "disk write (B/doc)", "per_doc.read_bytes": "disk read (B/doc)",
    "per_doc.net_bytes": "network (B/doc)", "per_doc.storage_bytes": "storage (B/doc)",
    "per_doc.docs": "documents", "latency_ms.p50": "latency p50 (ms)", "latency_ms.p99": "latency p99 (ms)",
    "wal.bytes": "WAL/journal bytes (PostgreSQL: WAL write position advance)",
    "per_op.cpu_us": "CPU (µs/op, gross)", "per_op.cpu_us_net": "CPU (µs/op, net of idle)",
    "per_op.wal_bytes": "WAL/journal (B/op)",
    "query.per_query.cpu_us_net": "CPU per query, net of idle (µs)", "query.per_query.cpu_us_gross": "CPU per query, gross (µs)",
    "query.per_query.cpu_us": "CPU per query, gross user+system ticks (µs)",
    "per_op.net_bytes": "network (B/op)", "per_op.instructions": "instructions, user mode (/op)",
    "binlog.bytes": "binary log bytes (MySQL)", "per_op.binlog_bytes": "binary log (B/op)",
    "ingest.storage_bytes_per_event": "storage (B/event)", "ingest.storage_bytes_per_host_hour": "storage (B/host-hour)",
    "transactions.committed_per_s": "committed transactions/s", "transactions.cpu_us_per_committed": "CPU (µs/committed transaction, gross)",
    "transactions.cpu_us_per_committed_net": "CPU (µs/committed transaction, net of idle)",
    "transactions.retries_per_committed": "retries per committed transaction",
    "transactions.last_attempt_ms.p50": "last attempt p50 (ms)", "transactions.last_attempt_ms.p99": "last attempt p99 (ms)",
}
# the transaction figures a report's answer gives
_TXN_HEADLINE = ("transactions.committed_per_s", "transactions.cpu_us_per_committed_net",
                 "transactions.cpu_us_per_committed", "transactions.retries_per_committed",
                 "transactions.last_attempt_ms.p50", "transactions.last_attempt_ms.p99")


def name(path):
    return _NAMES.get(path, path)


def order(paths):
    """Report order: a transaction bench's answer first (committed/s, CPU per committed transaction,
    retries, last attempt: the study's question), per_doc in the lab's order, then the rest as they come."""
    first = [p for p in _TXN_HEADLINE if p in paths] + [p for p in _NAMES if p in paths and p not in _TXN_HEADLINE]
    return first + [p for p in paths if p not in first]


def headline(paths):
    """The figures a report's answer gives: per document / per operation, WAL, latency p50 and p99
    (overall and per operation type); the tables give every figure."""
    # one CPU per operation: net of the idle rate where the runs have it (the figure single runs,
    # queries and transactions compare), else the gross one; the tables keep both
    gross = {g for n, g in (("per_op.cpu_us_net", "per_op.cpu_us"),
                            ("transactions.cpu_us_per_committed_net", "transactions.cpu_us_per_committed")) if n in paths}
    return [p for p in order(paths)
            if ((p.startswith(("per_doc.", "per_op.", "wal.", "ingest.storage_bytes_per_")) and p not in ("per_doc.docs", "per_op.ops"))
                or re.fullmatch(r"(operations\.[^.]+\.)?latency_ms\.p(50|99)", p) or p in _TXN_HEADLINE) and p not in gross]
