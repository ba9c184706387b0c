"""Per-query CPU net of the database's idle rate (analysis/collect/idle.py) on synthetic cAdvisor series:
an idle database at a steady rate, K fast queries in a window padded by guards and a client's
start, and what the gross figure (today's cpu_us) and the net one say per query."""
import pytest

from analysis.collect import idle
from analysis.figures import queries
from analysis.render import report

IDLE_CORES = 0.02          # a database's background CPU while idle (cores)
QUERY_CPU_S = 0.002        # each query's own CPU (2 ms)
K = 20


def series(quiet=(100.0, 160.0), clients_start=165.0, busy=(166.0, 167.0), end=172.0, step=1.0, spread=0.0):
    """Cumulative CPU seconds sampled every `step` s: idle rate everywhere, plus K x QUERY_CPU_S
    spread evenly over `busy`; `spread` jitters the sample times as cAdvisor's housekeeping does."""
    out, t, i = [], quiet[0] - 5.0, 0
    while t <= end + 1e-9:
        ts = t + (spread if i % 2 else 0.0)
        work = K * QUERY_CPU_S * min(1.0, max(0.0, (ts - busy[0]) / (busy[1] - busy[0])))
        out.append((ts, 50.0 + IDLE_CORES * ts + work))
        t += step
        i += 1
    phase = {"window": {"start": 160.0, "end": end},
             "idle": {"quiet": {"start": quiet[0], "end": quiet[1]}, "guard": {"start": 160.0, "end": clients_start}}}
    return out, phase


def test_net_is_the_queries_own_cpu_and_gross_is_mostly_idle():
    samples, phase = series(spread=0.3)
    r = idle.net_of_idle(samples, 160.0, 172.0, idle.idle_intervals(phase))
    assert r["idle"]["rate_cores"] == pytest.approx(IDLE_CORES)
    assert r["net_s"] == pytest.approx(K * QUERY_CPU_S, rel=1e-6)
    # gross: the same 40 ms plus 12 s of idle at 0.02 cores = 280 ms, 7x the queries' own CPU
    assert r["gross_s"] == pytest.approx(K * QUERY_CPU_S + IDLE_CORES * r["span_s"], rel=1e-6)
    assert r["gross_s"] > 6 * r["net_s"]


def test_per_query_figures_keep_gross_beside_net_and_the_report_shows_both():
    samples, phase = series()
    usage = idle.net_of_idle(samples, 160.0, 172.0, idle.idle_intervals(phase))
    run = {"database": "postgres", "phase": "postgres-q-x", "stage": "query", "status": "ok",
           "operations": {"x": {"ok": K, "latency_ms": {"p50": 2.0, "p99": 3.0, "max": 4.0}, "service_ms": {}}},
           "cpu": {"user_s": 0.28, "system_s": 0.0, "instructions": None, "perf_reason": "no PMU", "usage": usage},
           "network": {}, "disk": {}}
    q = {"name": "x", "status": "ok", "executions": K, "answered": K, "digest": "d", "per_execution": [], "answers": []}
    pq = queries.run_query(run, [("c.json", {"query": q})], "/nonexistent")["per_query"]
    assert pq["cpu_us_net"] == pytest.approx(QUERY_CPU_S * 1e6, rel=1e-6)          # 2 ms per query
    assert pq["cpu_us_gross"] == pytest.approx(usage["gross_s"] / K * 1e6)           # 14 ms per query
    assert pq["cpu_us"] == pytest.approx(0.28 / K * 1e6)                            # the ticks, as before
    assert pq["idle_rate_cores"] == pytest.approx(IDLE_CORES)
    lines = queries.report_lines({"queries": {"x": {"status": "ok", "databases": {"postgres": {
        "per_query": pq, "answered": K, "executions": K, "digest": "d", "status": "ok"}}}}})
    text = "\n".join(lines)
    assert "CPU per query, net of idle (µs) | 2,000" in text or "CPU per query, net of idle (µs) | 2000" in text, text
    assert "CPU per query, gross (µs)" in text


def test_without_an_idle_reading_net_is_null_with_the_reason():
    samples, phase = series()
    r = idle.net_of_idle(samples, 160.0, 172.0, [])
    assert r["net_s"] is None and r["gross_s"] is not None and "no idle rate" in r["reason"]
    short = idle.net_of_idle(samples, 160.0, 172.0, [(160.0, 161.0)])
    assert short["net_s"] is None and "needs 2 s" in short["reason"]


def test_a_window_below_the_idle_resolution_is_null_not_negative():
    samples, phase = series()
    # the idle reading taken at a higher rate than the window's: net would be negative
    hot = [(t, v + (0.5 * (t - 95.0) if t <= 165.0 else 0.5 * 70.0)) for t, v in samples]
    r = idle.net_of_idle(hot, 160.0, 172.0, idle.idle_intervals(phase))
    assert r["net_s"] is None and "below what the idle reading resolves" in r["reason"]


def test_a_counter_reset_is_not_read_as_idle():
    samples = [(100.0, 10.0), (101.0, 10.02), (102.0, 0.5), (103.0, 0.52), (104.0, 0.54)]
    r = idle.idle_rate(samples, [(100.0, 104.0)])
    assert r["pairs"] == 3 and r["rate_cores"] == pytest.approx(0.02)


def test_idle_intervals_read_the_manifest_and_skip_what_the_phase_never_reached():
    assert idle.idle_intervals({"idle": {"quiet": {"start": 1.0, "end": 5.0}, "guard": {"start": 6.0, "end": None}}}) \
        == [(1.0, 5.0)]
    assert idle.idle_intervals({}) == []


def test_the_report_cell_for_storage_before_and_after_the_settle():
    r = {"storage": {"total_bytes": 4096, "before_settle": {"total_bytes": 1024}, "settle": "{fsync: 1}",
                     "settle_reason": None}}
    assert report._settle_cell(r) == "1.0 KiB / 4.0 KiB ({fsync: 1})"
    old = {"storage": {"total_bytes": 4096, "before_settle": None, "settle": None, "settle_reason": "no settle"}}
    assert report._settle_cell(old) == "n/a (no settle)"
