"""An enum sweep's side-by-side plot (`--sweep MODEL=event,bucket,native`): per category, the
per-operation CPU and WAL/journal bytes (for tsbs: per event) and the storage per event, one bar
per database, in one figure (plots/categories.png). A bar that is not there says why: the point did
not run that database, its phase failed, or the figure is null with a reason (FerretDB has no WAL
counter); the reasons are printed under the figure and returned for the report."""
import os
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..common.fileio import read_json  # noqa: E402
from ..bench import benchfiles  # noqa: E402
from ..render.plots import COLORS, _save  # noqa: E402


def full_grid(values):
    """A two-key sweep's values ("v, w") hold every combination of the two keys' values (a grid), or
    only some (a paired sweep: K1+K2=v1+w1,...)."""
    parts = [str(v).split(", ") for v in values]
    return len({p[0] for p in parts}) * len({p[-1] for p in parts}) == len(parts)


def axis_label(result):
    """The swept key as a plot's axis: K; "K1 x K2" for a grid; "K1 + K2 (pairs)" for a paired sweep."""
    key = result["key"]
    if "+" not in key:
        return key
    return key.replace("+", " x ") if full_grid(result["values"]) else key.replace("+", " + ") + " (pairs)"

# (title, candidate paths: the first present in the sweep's series, its source in a run for the reason)
PANELS = [
    ("CPU µs per {unit}", ["per_op.cpu_us"]),
    ("WAL / journal bytes per {unit}", ["per_op.wal_bytes"]),
    ("storage bytes per {unit}", ["ingest.storage_bytes_per_event", "per_doc.storage_bytes"]),
]


def _point_results(sweep_dir, folder):
    """The point's results.json, or its first repetition's (a REPEAT point's summary has no runs)."""
    for rel in ("results.json", os.path.join("repeat-1", "results.json")):
        path = os.path.join(sweep_dir, folder, rel)
        if os.path.exists(path):
            r = read_json(path)
            if r.get("runs") is not None:
                return r
    return None


def _why(point, run_key, path, res):
    """Why the point has no value of `path` for `run_key`."""
    if res is None:
        return "the point did not finish: " + "; ".join(point.get("incomplete") or ["no results.json"])
    run = next((r for r in res.get("runs") or [] if (r.get("phase") or r.get("database")) == run_key), None)
    if run is None:
        dbs = ((res.get("config") or {}).get("run") or {}).get("DATABASES")
        return "not run at this point" + (f" (DATABASES={dbs})" if dbs else "")
    if run.get("status") not in ("ok", "suspect"):
        return f"phase {run.get('status')}" + (f": {run.get('reason')}" if run.get("reason") else "")
    if path.startswith("per_op.wal"):
        return (run.get("wal") or {}).get("reason") or "no WAL figure"
    return "no figure (see the point's report)"


def by_design(result, res, run_key):
    """A sweep that sets DATABASES per point (a paired sweep MODEL+DATABASES) runs each database at its
    own points only: its absence elsewhere is the design, said once in the report, not per bar."""
    if "DATABASES" not in result["key"].split("+") or res is None:
        return False
    return not any((r.get("phase") or r.get("database")) == run_key for r in res.get("runs") or [])


def absent(result, sweep_dir, run_keys, paths):
    """[{value, run, figure, reason}] for every bar missing from the plot."""
    out = []
    for point in result["points"]:
        res = _point_results(sweep_dir, point["folder"])
        for k in run_keys:
            for p in paths:
                ser = result["series"].get(k, {}).get(p, [])
                if not any(s["value"] == point["value"] and s.get("mean") is not None for s in ser):
                    if by_design(result, res, k):
                        continue
                    out.append({"value": point["value"], "run": k, "figure": p, "reason": _why(point, k, p, res)})
    return out


def make(result, sweep_dir, plot_dir):
    """Writes plot_dir/categories.png; returns (its path relative to sweep_dir, absences) or (None, [])."""
    values = result["values"]
    # the ingest/run phases; query phases (<db>-q-<query>) have their own table (sweep_queries.py)
    run_keys = [k for k in result["series"] if not k.endswith("-load") and "-q-" not in k] or list(result["series"])
    chosen = []
    for title, candidates in PANELS:
        p = next((c for c in candidates if any(c in result["series"][k] for k in run_keys)), candidates[0])
        chosen.append((title, p))
    tsbs = any(p.startswith("ingest.") for _, p in chosen) or result["key"] == "MODEL"
    unit = "event" if tsbs else "operation"
    missing = absent(result, sweep_dir, run_keys, [p for _, p in chosen])
    fig, axes = plt.subplots(1, len(chosen), figsize=(5 * len(chosen), 5.2))
    width = 0.8 / max(1, len(run_keys))
    for ax, (title, path) in zip(axes, chosen):
        for j, k in enumerate(run_keys):
            db = benchfiles.database_of(k)
            stand_in = any(m.startswith(db + " (stand-in") for m in result.get("stand_in") or [])
            ser = {s["value"]: s for s in result["series"].get(k, {}).get(path, []) if s.get("mean") is not None}
            for i, v in enumerate(values):
                x = i - 0.4 + width * (j + 0.5)
                s = ser.get(v)
                if s is None:
                    ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize=8, rotation=90, color=COLORS.get(db, "grey"))
                    continue
                err = s["ci"]["half_width"] if s.get("ci") else None
                ax.bar(x, s["mean"], width, yerr=err, capsize=3, color=COLORS.get(db), alpha=0.55 if stand_in else 1.0,
                       hatch="//" if stand_in else None, label=(k + (" (stand-in)" if stand_in else "")) if i == 0 or not ax.get_legend_handles_labels()[1].count(k) else None)
        # a grid's "v, w" on two lines; many long categories slanted: side by side they overlap
        labels = [str(v).replace(", ", "\n") for v in values]
        widest = max(len(line) for lab in labels for line in lab.splitlines())
        slant = {"rotation": 25, "ha": "right"} if widest * len(labels) > 40 else {}
        ax.set_xticks(range(len(values)), [str(v) for v in values] if slant else labels, **slant)
        ax.set_xlim(-0.6, len(values) - 0.4)
        ax.set_xlabel(axis_label(result))
        ax.set_title(title.format(unit=unit), fontsize=10)
        ax.set_ylim(bottom=0)
        ax.grid(axis="y", alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        seen = {}
        for h, lab in zip(handles, labels):
            if lab and lab not in seen:
                seen[lab] = h
        if seen:
            ax.legend(seen.values(), seen.keys(), fontsize=8)
    notes = [f"{m['run']} at {result['key']}={m['value']}, {m['figure']}: {m['reason']}" for m in missing]
    marks = "; ".join(result.get("stand_in") or [])
    fig.suptitle(f"{result['bench']}: per {unit} cost and storage by {axis_label(result)}" + (f"\n{textwrap.fill(marks, 150)}" if marks else ""),
                 fontsize=11)
    if notes:
        fig.text(0.01, 0.01, textwrap.fill("n/a: " + " | ".join(notes), 190), fontsize=7, va="bottom")
        fig.tight_layout(rect=(0, 0.04 + 0.025 * min(6, len(notes)), 1, 1))
    else:
        fig.tight_layout()
    _save(fig, os.path.join(plot_dir, "categories.png"))
    return "plots/categories.png", missing
