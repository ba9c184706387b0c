"""`soak-check`: did a long run hold steady? Every client within 1% of its target rate, no error
or drop, and each client container's memory flat: RSS growth under 10% across the steady part of
the run (after the first third, where the V8 heap grows to its working size; a leak keeps growing
after it). The growth from the first minute is printed too, so nothing is hidden. Reads the bench
folder's files only."""
import csv
import gzip
import io
import statistics

from ..bench import folder, phases, plan
from ..common.errors import AnalysisError

RATE_TOLERANCE = 0.01
RSS_GROWTH_LIMIT = 0.10
WARMUP_S = 60
STEADY_FROM = 1 / 3
EDGE_FRACTION = 0.1


def _edges(values):
    edge = max(1, int(len(values) * EDGE_FRACTION))
    return statistics.median(values[:edge]), statistics.median(values[-edge:])


def client_rss_growth(ph):
    """{container: {"warm": (first, last), "steady": (first, last)}} from the raw client series of a
    phase (bench/folder.py Phase): "warm" from the end of the first minute, "steady" from the end of
    the first third."""
    raw = ph.timeseries()
    series = {}
    if raw is None:
        return {}  # no series exported (Prometheus unreachable): check says it cannot judge
    with gzip.open(io.BytesIO(raw), "rt") as f:
        for row in csv.DictReader(f):
            if row["service"] == "client" and row["metric"] == "container_memory_rss":
                series.setdefault(row["container"], []).append((float(row["time"]), float(row["value"])))
    growth = {}
    for container, points in series.items():
        points.sort()
        start, end = points[0][0], points[-1][0]
        warm = [v for t, v in points if t >= start + WARMUP_S]
        steady = [v for t, v in points if t >= start + max(WARMUP_S, (end - start) * STEADY_FROM)]
        if len(steady) < 20:
            continue  # a short-lived one-shot container (init, count), not a load client
        growth[container] = {"warm": _edges(warm), "steady": _edges(steady)}
    return growth


def _pct(first, last):
    return (last - first) / first if first else None


def check(bench_dir):
    """Returns (lines to print, passed). Refuses a folder that is not an insert bench (lab/soak.sh writes
    one): its phases are named otherwise and its rates are transactions, events or queries."""
    workload = (plan.settings(bench_dir) or {}).get("WORKLOAD") or "insert"
    if workload != "insert":
        raise AnalysisError(f"{bench_dir}: soak-check reads an insert bench (lab/soak.sh writes one); "
                            f"this one ran WORKLOAD={workload}")
    lines, passed = [], True
    bench = folder.Bench(bench_dir)
    for database in phases.databases_in(bench):
        ph = bench.phase(database)
        for path, r in ph.clients():
            deviation = (r["achieved_rate"] - r["target_rate"]) / r["target_rate"]
            ok = abs(deviation) <= RATE_TOLERANCE and r["errors"] == 0 and r["dropped"] == 0 and not r["interrupted"]
            passed &= ok
            lines.append(f"{'PASS' if ok else 'FAIL'} {database} client {r['client_id']}: "
                         f"{r['achieved_rate']:.3f} of {r['target_rate']} docs/s ({deviation:+.2%} off), "
                         f"{r['docs_ok']} ok, {r['errors']} errors, {r['dropped']} dropped, "
                         f"latency p99 {r['latency_ms']['p99']} ms")
        growth = client_rss_growth(ph)
        if not growth:
            passed = False
            lines.append(f"FAIL {database}: no client memory series long enough to judge")
        for container, g in sorted(growth.items()):
            (w0, w1), (s0, s1) = g["warm"], g["steady"]
            steady = _pct(s0, s1)
            ok = steady is not None and steady < RSS_GROWTH_LIMIT
            passed &= ok
            lines.append(f"{'PASS' if ok else 'FAIL'} {database} {container}: RSS in the steady part "
                         f"{s0 / 2**20:.1f} -> {s1 / 2**20:.1f} MiB ({steady:+.1%}); from minute 1 "
                         f"{w0 / 2**20:.1f} -> {w1 / 2**20:.1f} MiB ({_pct(w0, w1):+.1%})")
    return lines, passed
