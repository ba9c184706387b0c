"""`sweep --sweep-dir benchN/sweep-KEY`: the points of a sweep (`KEY=<value>/`, each a complete bench
folder: one run, or REPEAT=N repetitions summarised by `repeat`) -> sweep-KEY/results.json,
report.md and plots/*.png: each figure and each mongodb/postgres ratio against the swept value,
both databases on one plot (with the 95% interval when the points were repeated)."""
import datetime
import os
import re

from ..common import databases
from ..common.errors import AnalysisError
from ..common.fileio import read_json, write_json_atomic, write_text_atomic
from ..common.labels import fmt
from ..bench import benchfiles
from ..figures import ingest
from ..render import txn_report
from . import ci, experiment_schema, figures, repeat, sweep_categories, sweep_documents, sweep_plots, sweep_queries

SCHEMA_VERSION = 1
KIND = "sweep"
# sweep-KEY, or sweep-KEY1+KEY2 for a grid of two keys (two --sweep: every combination)
SWEEP_DIR = re.compile(r"^sweep-([A-Z_][A-Z0-9_]*(?:\+[A-Z_][A-Z0-9_]*)?)$")


def _number(text):
    return int(text) if re.fullmatch(r"-?[0-9]+", text) else float(text)


def _value(text):
    """A point's value: a number, or the text of an enum value (a category)."""
    try:
        return _number(text)
    except ValueError:
        return text


def categorical(values):
    return any(isinstance(v, str) for v in values)


def keys_of(key):
    """["K"] of a sweep, ["K1", "K2"] of a grid (key "K1+K2")."""
    return key.split("+")


def grid_value(raw):
    """A grid point's value as shown: "v+w" (its folder K1=v+K2=w) -> "v, w"."""
    return raw.replace("+", ", ")


def _grid_raw(keys, name):
    """"K1=v+K2=w" -> "v+w" when the folder name is a point of the grid `keys`, else None."""
    parts = name.split("+")
    if len(parts) != len(keys) or not all(p.startswith(k + "=") and len(p) > len(k) + 1 for p, k in zip(parts, keys)):
        return None
    return "+".join(p[len(k) + 1:] for p, k in zip(parts, keys))


def _category_order(sweep_dir, found, shown=lambda v: v):
    """An enum sweep's (or a grid's) points in the order the sweep gave them (runme.sh writes
    sweep-KEY/values: v, or v+w for a grid, shown as the points' values are), else in name order."""
    path = os.path.join(sweep_dir, "values")
    given = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            given = [line.strip() for line in f if line.strip()]
    given = [shown(v) for v in given]
    rank = {v: i for i, v in enumerate(given)}
    return sorted(found, key=lambda p: (rank.get(str(p[0]), len(rank)), str(p[0])))


def points(sweep_dir):
    """[(value, folder name, path)] sorted by value (numbers), or in the given order (categories)."""
    m = SWEEP_DIR.match(os.path.basename(os.path.normpath(sweep_dir)))
    if not m:
        raise AnalysisError(f"{sweep_dir}: not a sweep folder (its name is sweep-KEY, e.g. bench1/sweep-FIELD_BYTES)")
    key = m.group(1)
    if "+" in key:
        return key, _grid_points(sweep_dir, key)
    found = []
    for name in os.listdir(sweep_dir):
        path = os.path.join(sweep_dir, name)
        if not (os.path.isdir(path) and name.startswith(key + "=")):
            continue
        found.append((_value(name[len(key) + 1:]), name, path))
    if not found:
        raise AnalysisError(f"{sweep_dir}: no point folder {key}=<value>")
    if categorical([v for v, _, _ in found]):
        # an enum sweep (e.g. MODEL): every value is a category, numbers-looking ones too
        return key, _category_order(sweep_dir, [(name[len(key) + 1:], name, path) for _, name, path in found])
    return key, sorted(found)


def _grid_points(sweep_dir, key):
    """A grid's points: every folder K1=v+K2=w, valued "v, w" (a category), in the order given."""
    keys, found = keys_of(key), []
    for name in os.listdir(sweep_dir):
        path = os.path.join(sweep_dir, name)
        raw = _grid_raw(keys, name) if os.path.isdir(path) else None
        if raw is not None:
            found.append((grid_value(raw), name, path))
    if not found:
        raise AnalysisError(f"{sweep_dir}: no point folder {'+'.join(k + '=<value>' for k in keys)}")
    return _category_order(sweep_dir, found, grid_value)


def _full_grid(pts):
    return sweep_categories.full_grid([v for v, _, _ in pts])


def point_summary(path, name=None):
    """One point as (kind, results, figures {run key: {path: summary}}, ratios, notes) whatever its
    REPEAT: a repeated point's statistics (over its complete repetitions), or a single run's values as
    n=1 summaries (none when its results.json says `complete: false`: notes say so)."""
    name = name or os.path.basename(path)
    res_path = os.path.join(path, "results.json")
    if not os.path.exists(res_path):
        return None, None, {}, {}, []
    r = read_json(res_path)
    if repeat.is_experiment(r):
        left = [x["folder"] for x in r.get("repetitions") or [] if not x.get("complete")]
        notes = [f"{name}: {', '.join(left)} incomplete: left out of the point's statistics (n counts the others)"] if left else []
        return "repeat", r, r.get("figures") or {}, r.get("ratios") or {}, notes
    figs, rats, notes = repeat.summarise_results([r], [name])
    return "single", r, figs, rats, notes


def build(sweep_dir):
    sweep_dir = os.path.normpath(sweep_dir)
    key, pts = points(sweep_dir)
    entries, incomplete, series, ratio_series = [], [], {}, {}
    host, stand_in, starts, description = None, set(), [], None
    notes = []
    for value, name, path in pts:
        kind, r, figs, rats, said = point_summary(path, name)
        notes += said
        complete = bool(r and r.get("complete"))
        why = (r or {}).get("incomplete") or ([] if r else ["no results.json: the point did not finish"])
        if not complete:
            incomplete.append(f"{name}: " + "; ".join(why))
        entries.append({"value": value, "folder": name, "kind": kind, "repeat": (r or {}).get("repeat", 1 if r else None),
                        "complete": complete, "incomplete": why})
        if r:
            host = host or r.get("host")
            description = description or r.get("description")
            if kind == "repeat":
                stand_in.update(r.get("stand_in") or [])
                if r.get("started_at"):
                    starts.append(r["started_at"])
            else:
                for run in r.get("runs") or []:
                    if run.get("stand_in"):
                        stand_in.add(f"{run['database']} (stand-in: {run.get('stand_in_what') or 'not the real product'})")
                    if (run.get("window") or {}).get("start"):
                        starts.append(run["window"]["start"])
        for target, source in ((series, figs), (ratio_series, rats)):
            for k, paths in source.items():
                for p, s in paths.items():
                    target.setdefault(k, {}).setdefault(p, []).append(
                        {"value": value, **{f: s.get(f) for f in ("n", "mean", "stdev", "ci", "includes_no_difference")
                                            if f in s}})
    bench = os.path.basename(os.path.dirname(os.path.abspath(sweep_dir)))
    documents = sweep_documents.build(keys_of(key), pts)
    incomplete += sweep_documents.incomplete(documents)
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": KIND,
        "bench": f"{bench}/{os.path.basename(sweep_dir)}",
        "description": (f"{description}: " if description else "") + (
            f"sweep of {key} over " + ", ".join(str(v) for v, _, _ in pts) if "+" not in key else
            f"{'grid of ' + ' x '.join(keys_of(key)) if _full_grid(pts) else 'pairs of ' + ' and '.join(keys_of(key))} over "
            + "; ".join(str(v) for v, _, _ in pts)),
        "generated_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "key": key,
        "values": [v for v, _, _ in pts],
        "categorical": "+" in key or categorical([v for v, _, _ in pts]),
        "confidence": ci.CONFIDENCE,
        "complete": not incomplete,
        "incomplete": incomplete,
        "points": entries,
        "host": host,
        "started_at": min(starts) if starts else None,
        "stand_in": sorted(stand_in),
        "series": series,
        "ratios": ratio_series,
        # the points' query answers compared across them (a design per point: tsbs-timescale)
        "queries": sweep_queries.build(pts),
        # each point's time-series ingest side by side (tsbs: model, per event, storage, chunks)
        "ingest": sweep_queries.ingest_sides(pts),
        # what was left out of the series and ratios, and why (incomplete points or repetitions,
        # phases not ok)
        "notes": notes,
        # a sweep of storage forms: the documents each side read back, compared across the points
        # (absent from other sweeps, so that their results.json are as before)
        **({"documents": documents} if documents is not None else {}),
    }


def write(sweep_dir):
    result = build(sweep_dir)
    result["plots"] = sweep_plots.make(result, sweep_dir)
    experiment_schema.validate(result)
    write_json_atomic(os.path.join(sweep_dir, "results.json"), result)
    write_text_atomic(os.path.join(sweep_dir, "report.md"), report(result))
    return result


# --- report.md -------------------------------------------------------------------------------

def _cell(s, ratio=False):
    if s is None or s.get("mean") is None:
        return "n/a"
    return repeat.mean_ci(s, ratio=ratio) if s.get("ci") else (f"{s['mean']:.3f}x" if ratio else fmt(s["mean"]))


def key_label(result):
    """The swept key as a table heading: K, or "K1, K2" for a grid."""
    return ", ".join(keys_of(result["key"]))


def figure_table(result, path):
    keys = [k for k in result["series"] if path in result["series"][k]]
    pairs = [p for p in result["ratios"] if path in result["ratios"][p]]
    head = [key_label(result)] + keys + [f"{p} ratio" for p in pairs]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for v in result["values"]:
        cells = [str(v)]
        for k in keys:
            cells.append(_cell(next((s for s in result["series"][k][path] if s["value"] == v), None)))
        for p in pairs:
            s = next((s for s in result["ratios"][p][path] if s["value"] == v), None)
            c = _cell(s, ratio=True)
            if s and s.get("includes_no_difference"):
                c += " (not distinguishable)"
            cells.append(c)
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def answer_lines(result, paths):
    """Per figure: how each database's value and the ratio move from the first to the last value."""
    key, lines = result["key"], []
    for pair, by_path in result["ratios"].items():
        num, den = pair.split("/")
        for p in paths:
            pts = [s for s in by_path.get(p, []) if s.get("mean") is not None]
            if "+" in key and pts:
                # a grid has no first and last value: the ratio at each point
                lines.append(f"- {figures.name(p)}, {pair} by {key_label(result)}: "
                             + "; ".join(f"{s['value']}: {s['mean']:.2f}x" + (" (not distinguishable)" if
                                         s.get("includes_no_difference") else "") for s in pts))
                continue
            if len(pts) < 2:
                continue
            ends = []
            for k in (num, den):
                ser = [s for s in result["series"].get(k, {}).get(p, []) if s.get("mean") is not None]
                if len(ser) >= 2:
                    ends.append(f"{k} {fmt(ser[0]['mean'])} -> {fmt(ser[-1]['mean'])}")
            unclear = [str(s["value"]) for s in pts if s.get("includes_no_difference")]
            lines.append(f"- {figures.name(p)}, {key} {pts[0]['value']} -> {pts[-1]['value']}: " + "; ".join(ends)
                         + f"; {pair} {pts[0]['mean']:.2f}x -> {pts[-1]['mean']:.2f}x"
                         + (f" (not distinguishable at {key}={', '.join(unclear)})" if unclear else ""))
    return (lines or [f"No {'/'.join(databases.baseline())} pair with a figure at two values or more."]) + [""]


def report(result):
    key = result["key"]
    lines = [f"# {result['bench']}: {result['description']}", ""]
    if result.get("stand_in"):
        lines += ["> **Stand-in:** " + "; ".join(result["stand_in"]) + ". These figures are not results of the "
                  "real product; ratios that involve them say nothing about "
                  f"{databases.products(benchfiles.database_of(k) for k in result['series'])}.", ""]
    if not result["complete"]:
        lines += ["> **Incomplete:** " + "; ".join(result["incomplete"]) + ". Points without results, and a "
                  "single run that is incomplete, are left out of the tables and plots (n/a); a repeated point "
                  "uses its complete repetitions (Notes).", ""]
    repeated = any(p.get("kind") == "repeat" for p in result["points"])
    folders = "+".join(f"{k}=<value>" for k in keys_of(key))
    paired = "+" in key and not _full_grid([(v, None, None) for v in result["values"]])
    lines += [(f"One complete bench per value of {key}" if "+" not in key else
               f"One complete bench per {'pair' if paired else 'combination'} of {' and '.join(keys_of(key))}") + f" (folders `{folders}/`); "
              + ("each value is the mean ± half-width of the 95% confidence interval over the point's repetitions."
                 if repeated else "one run per point (REPEAT=1): no interval; `--set REPEAT=3` gives one."), ""]
    shown = []
    for k in result["series"]:
        shown += [p for p in result["series"][k] if p not in shown]
    main = figures.headline(shown)
    if "DATABASES" in keys_of(key):
        lines += ["Each point runs the databases its DATABASES names: n/a for a database at another point is the design.", ""]
    lines += ["## The answer", ""] + txn_report.sweep_lines(result) + ingest.sweep_lines(result.get("ingest")) + answer_lines(result, main) + ["## Plots", ""]
    lines += [f"![{os.path.splitext(os.path.basename(p))[0]}]({p})" for p in result.get("plots") or []] + [""]
    if result.get("absent"):
        lines += ["Not in plots/categories.png (n/a), and why:", ""]
        at = (lambda v: f"{key}={v}") if "+" not in key else (lambda v: f"{key_label(result)} = {v}")  # noqa: E731
        lines += [f"- {a['run']} at {at(a['value'])}, {figures.name(a['figure'])}: {a['reason']}"
                  for a in result["absent"]] + [""]
    for p in main:
        lines += [f"## {figures.name(p)} against {key_label(result)}", "", figure_table(result, p), ""]
    lines += sweep_queries.report_lines(result.get("queries"))
    lines += sweep_documents.report_lines(result.get("documents"))
    lines += ["## Points", ""]
    for pt in result["points"]:
        state = "complete" if pt["complete"] else "INCOMPLETE: " + "; ".join(pt["incomplete"])
        lines.append(f"- [{pt['folder']}/report.md]({pt['folder']}/report.md) ({pt['folder']}, "
                     f"REPEAT={pt['repeat'] if pt['repeat'] is not None else '?'}): {state}")
    lines += ["", "Every figure of every point is in results.json (`series`, `ratios`); each point's own "
              "report.md has its tables, plots and profiles.", ""]
    if result.get("notes"):
        lines += ["## Notes", ""] + [f"- {n}" for n in result["notes"]] + [""]
    return "\n".join(lines)
