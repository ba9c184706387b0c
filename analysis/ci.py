"""Mean, sample standard deviation and a Student-t confidence interval of a few repeated values.

Repetitions of a phase are few (REPEAT=3..10), so the interval uses Student's t with n - 1 degrees
of freedom (scipy.stats.t), not the normal approximation, which would be too narrow for small n."""
import math

from scipy import stats

CONFIDENCE = 0.95


def summarise(values, confidence=CONFIDENCE):
    """{n, mean, stdev, ci: {low, high, half_width, confidence} | None, reason, values}.

    `values` keeps every repetition's value in order (None where a repetition has no figure);
    n, mean and the interval use the non-null ones. One value has a mean but no spread."""
    kept = [float(v) for v in values if v is not None]
    out = {"n": len(kept), "mean": None, "stdev": None, "ci": None, "reason": None, "values": list(values)}
    if not kept:
        out["reason"] = "no repetition has this figure"
        return out
    n = len(kept)
    mean = sum(kept) / n
    out["mean"] = mean
    if n < 2:
        out["reason"] = "one value: no interval (REPEAT >= 2 gives one)"
        return out
    stdev = math.sqrt(sum((v - mean) ** 2 for v in kept) / (n - 1))
    if stdev <= 1e-12 * abs(mean):
        stdev = 0.0  # equal values: rounding noise of the mean, not a spread
    half = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * stdev / math.sqrt(n)
    out["stdev"] = stdev
    out["ci"] = {"low": mean - half, "high": mean + half, "half_width": half, "confidence": confidence}
    return out


def includes(summary, value):
    """True when the interval holds `value` (1.0 for a ratio, 0 for a difference: the repetitions
    cannot distinguish the two), None when there is no interval."""
    ci = summary.get("ci")
    if ci is None:
        return None
    return ci["low"] <= value <= ci["high"]


def summarise_ratio(values, confidence=CONFIDENCE):
    """A ratio's summary over repetitions: geometric mean, interval taken on the log-ratios (Student
    t) and mapped back, so 2x and 0.5x average to 1x, not 1.25x. `values` as in summarise; a ratio
    <= 0 has no logarithm and is left out with the reason."""
    kept = [v for v in values if v is not None]
    positive = [v for v in kept if v > 0]
    logs = [math.log(v) if v is not None and v > 0 else None for v in values]
    s = summarise(logs, confidence)
    out = {"n": s["n"], "mean": None, "stdev": None, "ci": None, "reason": s["reason"], "values": list(values),
           "mean_of": "geometric mean; interval on log-ratios (Student t) mapped back"}
    if len(positive) < len(kept):
        out["reason"] = f"{len(kept) - len(positive)} ratio(s) <= 0 left out (no logarithm)"
    if s["mean"] is None:
        return out
    out["mean"] = math.exp(s["mean"])
    out["log_stdev"] = s["stdev"]
    if s["ci"] is not None:
        low, high = math.exp(s["ci"]["low"]), math.exp(s["ci"]["high"])
        out["ci"] = {"low": low, "high": high, "half_width": (high - low) / 2, "confidence": confidence}
    return out
