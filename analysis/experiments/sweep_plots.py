"""A sweep's plots: one PNG per figure against the swept value, every database on the same axes,
with error bars (95% interval) where the points were repeated."""
import os
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..bench import benchfiles, plan  # noqa: E402
from ..render.plots import COLORS, _save  # noqa: E402
from . import figures, sweep_categories  # noqa: E402

# (file, title, candidate paths: the first one present is plotted; per operation before per document)
PLOTS = [
    ("cpu", "CPU", [["per_op.cpu_us"], ["per_doc.cpu_us"]]),
    ("wal", "WAL / journal bytes", [["per_op.wal_bytes"], ["per_doc.wal_bytes"], ["wal.bytes"]]),
    ("storage", "storage", [["per_doc.storage_bytes"]]),
    ("latency", "latency", [["latency_ms.p50", "latency_ms.p99"]]),
]
STYLES = {"latency_ms.p50": "-", "latency_ms.p99": "--"}
# PostgreSQL moves a row's large values out of line (TOAST) above about 2 KB
# (TOAST_TUPLE_THRESHOLD: 2032 B with 8 KB pages).
TOAST_THRESHOLD_BYTES = 2032


def _present(result, paths):
    return any(p in result["series"].get(k, {}) for k in result["series"] for p in paths)


def _choose(result, name, candidates):
    """The paths to plot: the first candidate present; for WAL also any per-op/per-doc field named
    after it (the lab's per-operation WAL figure, whatever its exact name), else none."""
    found = next((c for c in candidates if _present(result, c)), None)
    if found or name != "wal":
        return found
    for prefix in ("per_op.", "per_doc."):
        for k in result["series"]:
            for p in result["series"][k]:
                if p.startswith(prefix) and "wal" in p.split(".")[-1]:
                    return [p]
    return None


def _toast_x(result, sweep_dir):
    """Where a FIELD_BYTES sweep crosses ~2 KB of field data (FIELDS x FIELD_BYTES), when it does."""
    if result["key"] != "FIELD_BYTES":
        return None
    fields = None
    for pt in result["points"]:
        cfg = plan.settings(os.path.join(sweep_dir, pt["folder"]))  # plan.json's, else run.env's
        if cfg and cfg.get("FIELDS", "").isdigit():
            fields = int(cfg["FIELDS"])
            break
    if not fields:
        return None
    x = TOAST_THRESHOLD_BYTES / fields
    values = result["values"]
    return x if min(values) <= x <= max(values) else None


def make(result, sweep_dir):
    """Writes sweep_dir/plots/<name>.png; returns their paths relative to sweep_dir."""
    plot_dir = os.path.join(sweep_dir, "plots")
    os.makedirs(plot_dir, exist_ok=True)
    made = []
    values = result["values"]
    # an enum sweep (MODEL=event,bucket,native): categories at 0..n-1, in the order given, and one
    # figure with the categories side by side (sweep_categories.py)
    categories = any(isinstance(v, str) for v in values)
    if categories:
        path, result["absent"] = sweep_categories.make(result, sweep_dir, plot_dir)
        made.append(path)
    at = {v: i for i, v in enumerate(values)} if categories else {v: v for v in values}
    log_x = not categories and min(values) > 0 and max(values) / min(values) >= 10
    toast_x = None if categories else _toast_x(result, sweep_dir)
    for name, title, candidates in PLOTS:
        paths = _choose(result, name, candidates)
        if paths is None:
            continue
        fig, ax = plt.subplots(figsize=(8, 5))
        for k, series in result["series"].items():
            db = benchfiles.database_of(k)
            for p in paths:
                pts = [s for s in series.get(p, []) if s.get("mean") is not None]
                if not pts:
                    continue
                xs = [at[s["value"]] for s in pts]
                ys = [s["mean"] for s in pts]
                err = [s["ci"]["half_width"] if s.get("ci") else 0 for s in pts]
                label = k + (f" {p.split('.')[-1]}" if len(paths) > 1 else "")
                if any(m.startswith(db + " (stand-in") for m in result.get("stand_in") or []):
                    label += " (stand-in)"
                # a load phase (`mongodb-load`) dotted next to its run phase
                ax.errorbar(xs, ys, yerr=err if any(err) else None, marker="o", capsize=4,
                            linestyle=":" if k.endswith("-load") else STYLES.get(p, "-"), color=COLORS.get(db, None), label=label)
        if toast_x:
            ax.axvline(toast_x, color="grey", linestyle=":", linewidth=1,
                       label=f"FIELD_BYTES ≈ {toast_x:.0f}: ~2 KB of fields, PostgreSQL's TOAST threshold")
        if log_x:
            ax.set_xscale("log")
        ax.set_xticks([at[v] for v in values], [str(v).replace(", ", "\n") for v in values])
        ax.minorticks_off() if log_x else None
        ax.set_xlabel(sweep_categories.axis_label(result))
        ax.set_ylabel(", ".join(figures.name(p) for p in paths))
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        # stand-ins named in full, wrapped so that the title fits the figure
        marks = textwrap.fill("; ".join(result.get("stand_in") or []), 95)
        per = {"per_op": " per operation", "per_doc": " per document", "wal": " in the phase"}.get(paths[0].split(".")[0], "")
        ax.set_title(f"{result['bench']}: {title}{per} against {sweep_categories.axis_label(result)}" + (f"\n{marks}" if marks else ""), fontsize=10)
        fig.tight_layout()
        _save(fig, os.path.join(plot_dir, f"{name}.png"))
        made.append(f"plots/{name}.png")
    return made
