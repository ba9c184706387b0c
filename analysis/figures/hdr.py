"""Exact merge of the clients' HdrHistograms (hdr-histogram-js encodeIntoCompressedBase64 =
the standard V2 compressed encoding): counts are added bucket by bucket, then percentiles are
read from the merged histogram. Percentiles of separate clients are never averaged."""
from hdrh.histogram import HdrHistogram

from ..common.errors import AnalysisError

PERCENTILES = {"p50": 50.0, "p90": 90.0, "p99": 99.0, "p999": 99.9}


def decode(encoded, where):
    try:
        return HdrHistogram.decode(encoded)
    except Exception as e:  # the library raises assorted types for corrupt input
        raise AnalysisError(f"{where}: cannot decode the HdrHistogram ({type(e).__name__}: {e})")


def merge(histograms):
    """One histogram holding every recorded value of all inputs (None when there is none)."""
    if not histograms:
        return None
    lowest = min(h.lowest_trackable_value for h in histograms)
    # the JS histograms may auto-resize: size the sum for the largest value actually recorded
    highest = max(max(h.highest_trackable_value, h.get_max_value()) for h in histograms)
    digits = max(h.significant_figures for h in histograms)
    total = HdrHistogram(lowest, max(highest, 2 * lowest), digits)
    for h in histograms:
        total.add(h)
    return total


def summary_ms(hist, unit_per_ms=1000.0):
    """{p50,p90,p99,p999,max} in milliseconds from a histogram recorded in microseconds.
    Values are HdrHistogram's equivalent values (within its precision, 3 digits by default)."""
    if hist is None or hist.get_total_count() == 0:
        return {k: None for k in list(PERCENTILES) + ["max"]}
    out = {k: hist.get_value_at_percentile(p) / unit_per_ms for k, p in PERCENTILES.items()}
    out["max"] = hist.get_max_value() / unit_per_ms
    return out


def merged(clients, name):
    """The clients' histograms `name` ([(path, result)]) merged into one (None without any)."""
    hists = []
    for path, c in clients:
        encoded = (c.get("histograms") or {}).get(name)
        if encoded:
            hists.append(decode(encoded, f"{path}: histograms.{name}"))
    return merge(hists)


def latencies(clients):
    """results.json runs[] `latency_ms`, `service_ms`, `start_lag_ms`, `scheduler_lag_ms`: the clients'
    histograms merged, in milliseconds."""
    return {f"{name}_ms": summary_ms(merged(clients, f"{name}_us"))
            for name in ("latency", "service", "start_lag", "scheduler_lag")}
