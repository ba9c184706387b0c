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
    """True when the interval holds `value` (1.0 for a ratio, 0 for a difference: "no difference"),
    None when there is no interval."""
    ci = summary.get("ci")
    if ci is None:
        return None
    return ci["low"] <= value <= ci["high"]
