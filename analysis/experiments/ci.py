"""Mean, sample standard deviation and a Student-t confidence interval of a few repeated values.

Repetitions of a phase are few (REPEAT=3..10), so the interval uses Student's t with n - 1 degrees
of freedom (scipy.stats.t), not the normal approximation, which would be too narrow for small n."""
import math

from scipy import stats

CONFIDENCE = 0.95


def summarise(values, confidence=CONFIDENCE, step=None):
    """{n, mean, stdev, ci: {low, high, half_width, confidence[, floor]} | None, reason, values}.

    `values` keeps every repetition's value in order (None where a repetition has no figure);
    n, mean and the interval use the non-null ones. One value has a mean but no spread.
    step: the figure's quantisation as a fraction of its value (figures.step: 10^-3 for a percentile
    of an HdrHistogram of 3 significant digits): values that agree agree only to that step, so the
    half-width is at least step x |mean| (`floor` says so). Without a step, values with no spread at
    all measured no noise: no interval, the reason said (never a zero-width interval, which would call
    any difference beyond noise)."""
    return _summarise(values, confidence, (lambda mean: step * abs(mean)) if step else None)


def _summarise(values, confidence, floor_of):
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
    if stdev <= 1e-12 * max(abs(mean), 1e-300):
        stdev = 0.0  # equal values: rounding noise of the mean, not a spread
    out["stdev"] = stdev
    half = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * stdev / math.sqrt(n)
    floor = floor_of(mean) if floor_of else None
    if stdev == 0.0 and not floor:
        out["reason"] = (f"{n} identical values: no observed spread (the run-to-run noise was not measured, "
                         "so no difference can be called beyond it)")
        return out
    out["ci"] = {"low": mean - half, "high": mean + half, "half_width": half, "confidence": confidence}
    if floor and half < floor:
        out["ci"] = {"low": mean - floor, "high": mean + floor, "half_width": floor, "confidence": confidence,
                     "floor": (f"half-width raised from {half:.3g} to the figure's quantisation step ({floor:.3g}): "
                               "the values are equal only to that step")}
    return out


def includes(summary, value):
    """True when the interval holds `value` (1.0 for a ratio, 0 for a difference: the repetitions
    cannot distinguish the two), None when there is no interval. False only where the values spread:
    identical values (an interval that is only the quantisation step) hold `value` or say nothing,
    for with no spread observed the run-to-run noise is unknown, and a difference is never called
    beyond it."""
    ci = summary.get("ci")
    if ci is None:
        return None
    inside = ci["low"] <= value <= ci["high"]
    spread = summary.get("log_stdev", summary.get("stdev"))
    return inside if inside or spread else None


def summarise_ratio(values, confidence=CONFIDENCE, step=None):
    """A ratio's summary over repetitions: geometric mean, interval taken on the log-ratios (Student
    t) and mapped back, so 2x and 0.5x average to 1x, not 1.25x. `values` as in summarise; a ratio
    <= 0 has no logarithm and is left out with the reason. step: each side's quantisation (see
    summarise); a ratio of two quantised values is known to two steps, so the interval on the
    logarithm is at least 2 x log(1 + step) wide on each side."""
    kept = [v for v in values if v is not None]
    positive = [v for v in kept if v > 0]
    logs = [math.log(v) if v is not None and v > 0 else None for v in values]
    s = _summarise(logs, confidence, (lambda _: 2 * math.log1p(step)) if step else None)
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
        if s["ci"].get("floor"):
            out["ci"]["floor"] = ("interval widened to two quantisation steps of the ratio's sides "
                                  f"(each known to {step:.0e} of its value)")
    return out
