"""`soak-check`: did a long run hold steady? Every client within 1% of its target rate, no error
or drop, and each client container's memory flat (RSS growth under 10% between the start and the
end of the window, warm-up excluded). Reads the bench folder's files only."""
import csv
import gzip
import os
import statistics

from . import benchfiles

RATE_TOLERANCE = 0.01
RSS_GROWTH_LIMIT = 0.10
WARMUP_S = 60
EDGE_FRACTION = 0.1


def client_rss_growth(bench_dir, database):
    """{container: (rss at start, rss at end, growth)} from the phase's raw client series."""
    path = os.path.join(bench_dir, "timeseries", f"{database}.csv.gz")
    series = {}
    with gzip.open(path, "rt") as f:
        for row in csv.DictReader(f):
            if row["service"] == "client" and row["metric"] == "container_memory_rss":
                series.setdefault(row["container"], []).append((float(row["time"]), float(row["value"])))
    growth = {}
    for container, points in series.items():
        points.sort()
        t0 = points[0][0] + WARMUP_S
        steady = [v for t, v in points if t >= t0]
        if len(steady) < 20:
            continue  # a short-lived one-shot container (init, count), not a load client
        edge = max(1, int(len(steady) * EDGE_FRACTION))
        first, last = statistics.median(steady[:edge]), statistics.median(steady[-edge:])
        growth[container] = (first, last, (last - first) / first if first else None)
    return growth


def check(bench_dir):
    """Returns (lines to print, passed)."""
    lines, passed = [], True
    for database in benchfiles.databases_in(bench_dir):
        for path, r in benchfiles.client_results(bench_dir, database):
            deviation = (r["achieved_rate"] - r["target_rate"]) / r["target_rate"]
            ok = abs(deviation) <= RATE_TOLERANCE and r["errors"] == 0 and r["dropped"] == 0 and not r["interrupted"]
            passed &= ok
            lines.append(f"{'PASS' if ok else 'FAIL'} {database} client {r['client_id']}: "
                         f"{r['achieved_rate']:.3f} of {r['target_rate']} docs/s ({deviation:+.2%} off), "
                         f"{r['docs_ok']} ok, {r['errors']} errors, {r['dropped']} dropped, "
                         f"latency p99 {r['latency_ms']['p99']} ms")
        growth = client_rss_growth(bench_dir, database)
        if not growth:
            passed = False
            lines.append(f"FAIL {database}: no client memory series long enough to judge")
        for container, (first, last, g) in sorted(growth.items()):
            ok = g is not None and g < RSS_GROWTH_LIMIT
            passed &= ok
            lines.append(f"{'PASS' if ok else 'FAIL'} {database} {container}: RSS {first / 2**20:.1f} MiB -> "
                         f"{last / 2**20:.1f} MiB ({g:+.1%})")
    return lines, passed
