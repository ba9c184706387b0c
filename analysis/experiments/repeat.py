"""`repeat --bench-dir B`: a REPEAT=N bench's repetitions (B/repeat-1 .. B/repeat-N, each a complete
bench folder with its own results.json, run interleaved on fresh volumes) -> B/results.json and
B/report.md: every figure and every mongodb/postgres ratio as mean, standard deviation and 95%
confidence interval (Student t) over the repetitions, with each repetition's value.

A ratio is taken per repetition (mongodb and postgres of the same repetition ran back to back on
the same host state), then summarised: a paired estimate, tighter than a ratio of two means."""
import datetime
import os
import re

from ..common import databases
from ..common.errors import AnalysisError
from ..common.fileio import read_json, write_json_atomic, write_text_atomic
from ..common.labels import fmt
from ..bench import benchfiles, plan
from ..figures import queries
from . import ci, experiment_schema, figures

SCHEMA_VERSION = 1
KIND = "repeat"
REPEAT_DIR = re.compile(r"^repeat-(\d+)$")


def repetition_dirs(bench_dir):
    found = []
    for name in os.listdir(bench_dir):
        m = REPEAT_DIR.match(name)
        if m and os.path.isdir(os.path.join(bench_dir, name)):
            found.append((int(m.group(1)), os.path.join(bench_dir, name)))
    return sorted(found)


def is_experiment(result):
    return isinstance(result, dict) and result.get("kind") in ("repeat", "sweep")


def summarise_results(per_rep, labels=None):
    """per_rep: one bench results dict (or None: that repetition has none) per repetition, in order;
    labels: how the notes name each (default "repetition i").
    -> (figures {run key: {path: summary}}, ratios {"a/b": {path: summary + includes_no_difference}}, notes)
    A repetition whose results.json says `complete: false` (a phase missing, a count missing, the
    documents differing, ...) is left out whole: its runs were not the whole planned work."""
    labels = labels or [f"repetition {i}" for i in range(1, len(per_rep) + 1)]
    notes = []
    whole = []
    for label, r in zip(labels, per_rep):
        if r and not r.get("complete", True):
            notes.append(f"{label}: incomplete (" + "; ".join(r.get("incomplete") or ["no reason given"])
                         + "): its figures are left out")
            r = None
        whole.append(r)
    per_rep = whole
    figs = [figures.of_result(r) if r else {} for r in per_rep]
    keys = []
    for f in figs:
        keys += [k for k in f if k not in keys]
    out = {}
    for k in keys:
        paths = []
        for f in figs:
            paths += [p for p in (f.get(k) or {}) if p not in paths]
        for i, f in enumerate(figs, 1):
            if per_rep[i - 1] and k in f and f[k] is None:
                run = next((r for r in per_rep[i - 1].get("runs") or [] if figures.run_key(r) == k), {})
                notes.append(f"{labels[i - 1]}: {k} status {run.get('status')}"
                             + (f" ({run['reason']})" if run.get("reason") else "") + ": its figures are left out")
        out[k] = {p: ci.summarise([(f.get(k) or {}).get(p) for f in figs], step=figures.step(p))
                  for p in figures.order(paths)}
    rats = [figures.ratios(f) for f in figs]
    ratio_out = {}
    for num, den in figures.ratio_pairs(keys):
        pair = f"{num}/{den}"
        paths = [p for p in out[num] if p in out[den]]
        ratio_out[pair] = {}
        for p in paths:
            s = ci.summarise_ratio([(r.get(pair) or {}).get(p) for r in rats], step=figures.step(p))
            s["includes_no_difference"] = ci.includes(s, 1.0)
            ratio_out[pair][p] = s
    return out, ratio_out, notes


def build(bench_dir):
    bench_dir = os.path.normpath(bench_dir)
    bench = benchfiles.bench_env(bench_dir)
    run_env = plan.run_settings(bench_dir)  # config.run: plan.json's settings.given, else run.env
    planned = plan.repetitions(bench_dir)
    found = dict(repetition_dirs(bench_dir))
    if not found:
        raise AnalysisError(f"{bench_dir}: no repeat-N folder (a REPEAT=N bench run writes repeat-1 .. repeat-N)")
    n = max([planned] + list(found))
    per_rep, reps, incomplete = [], [], []
    for i in range(1, n + 1):
        path = found.get(i)
        res_path = os.path.join(path, "results.json") if path else None
        r = read_json(res_path) if res_path and os.path.exists(res_path) else None
        entry = {"repetition": i, "folder": f"repeat-{i}", "complete": bool(r and r.get("complete")),
                 "incomplete": (r or {}).get("incomplete") or ([] if r else ["no results.json: the repetition did not finish"
                                                                            if path else "not run"])}
        if not entry["complete"]:
            incomplete.append(f"repeat-{i}: " + "; ".join(entry["incomplete"]))
        reps.append(entry)
        per_rep.append(r)
    figs, rats, notes = summarise_results(per_rep)
    done = [r for r in per_rep if r]
    runs = [run for r in done for run in r.get("runs") or []]
    starts = [run["window"]["start"] for run in runs if (run.get("window") or {}).get("start")]
    stand_in = sorted({f"{run['database']} (stand-in: {run.get('stand_in_what') or 'not the real product'})"
                       for run in runs if run.get("stand_in")})
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": KIND,
        "bench": os.path.basename(os.path.abspath(bench_dir)),
        "description": (run_env or bench).get("DESCRIPTION"),
        "generated_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "repeat": n,
        "order": "interleaved: repetition 1 on every database, then repetition 2, ...; fresh volumes for each",
        "confidence": ci.CONFIDENCE,
        "interval": "Student t with n - 1 degrees of freedom over the repetitions' values (scipy.stats.t)",
        "complete": not incomplete,
        "incomplete": incomplete,
        "repetitions": reps,
        "config": {"bench": bench, "run": run_env},
        "host": done[0].get("host") if done else None,
        "started_at": min(starts) if starts else None,
        "stand_in": stand_in,
        "figures": figs,
        "ratios": rats,
        # per query type: each repetition's answers equal or not, the ratios' intervals when all were
        "queries": queries.repeat_summary(per_rep, rats) if any((r or {}).get("queries") for r in per_rep) else None,
        "notes": notes,
    }


def write(bench_dir):
    result = build(bench_dir)
    experiment_schema.validate(result)
    write_json_atomic(os.path.join(bench_dir, "results.json"), result)
    write_text_atomic(os.path.join(bench_dir, "report.md"), report(result))
    return result


# --- report.md -------------------------------------------------------------------------------

def mean_ci(s, ratio=False):
    """"1.23 ± 0.05" (95% CI half-width), "1.23 (n=1)" without an interval, "n/a" without a value."""
    if s is None or s.get("mean") is None:
        return "n/a"
    if s.get("ci") is None:
        return (f"{s['mean']:.3f}x" if ratio else fmt(s["mean"])) + f" (n={s['n']})"
    half = s["ci"]["half_width"]
    if ratio:  # a geometric mean's interval is not symmetric: its bounds
        return f"{s['mean']:.3f}x ({s['ci']['low']:.3f} .. {s['ci']['high']:.3f})"
    return f"{fmt(s['mean'])} ± {fmt(half, 2)}"


def verdict(s):
    """What a ratio's interval says, in words."""
    if s is None or s.get("mean") is None:
        return "n/a"
    if s.get("ci") is None:
        return "no interval (" + ("one value" if s.get("n", 0) < 2 else "no observed spread") + ")"
    if s["includes_no_difference"]:
        return "**not distinguishable** at 95% (interval includes 1)"
    if s["includes_no_difference"] is None:
        return "no verdict (no observed spread)"
    return "higher" if s["mean"] > 1 else "lower"


def answer_lines(result):
    """One line per figure: each database's mean ± CI, then the ratio and what its interval says."""
    lines = []
    for pair, paths in (result.get("ratios") or {}).items():
        num, den = pair.split("/")
        finished = sum(1 for r in result["repetitions"] if r["complete"])
        lines += [f"**{num} vs {den}**, mean ± half-width of the 95% confidence interval over the "
                  f"repetitions ({finished} of {result['repeat']} complete; n per figure in the tables):", ""]
        for p in figures.headline(list(paths)):
            s = paths[p]
            if s.get("mean") is None:
                continue
            both = (f"{num} {mean_ci(result['figures'][num].get(p))}, "
                    f"{den} {mean_ci(result['figures'][den].get(p))}")
            counted = f"n={s['n']} of {result['repeat']}"
            if s.get("ci") is None:
                said = f"ratio {s['mean']:.3f}x (no interval: {s.get('reason') or 'one value'}; {counted})"
            elif s["includes_no_difference"] is None:
                said = (f"ratio {s['mean']:.3f}x (the same in every repetition to the histograms' 3 significant "
                        f"digits: no observed spread, so no noise measured and no verdict; {counted})")
            elif s["includes_no_difference"]:
                said = (f"ratio {s['mean']:.3f}x (geometric mean; interval {s['ci']['low']:.3f} .. "
                        f"{s['ci']['high']:.3f} includes 1: **not distinguishable**: the repetitions cannot tell {num} from {den}; {counted})")
            else:
                more = "more" if s["mean"] > 1 else "less"
                said = (f"{num} spends {s['mean']:.3f}x of {den} (geometric mean; interval "
                        f"{s['ci']['low']:.3f} .. {s['ci']['high']:.3f}: {more}, beyond noise; {counted})")
            lines.append(f"- {figures.name(p)}: {both}; {said}")
        lines.append("")
    if not lines:
        lines = [f"No {'/'.join(databases.baseline())} pair ran in every repetition: no ratio.", ""]
    return lines


def figures_table(result):
    keys = list(result["figures"])
    head = ["figure"] + [f"{k} (mean ± CI)" for k in keys] + [f"{pair} ratio" for pair in result["ratios"]]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    paths = []
    for k in keys:
        paths += [p for p in result["figures"][k] if p not in paths]
    for p in figures.order(paths):
        cells = [figures.name(p)] + [mean_ci(result["figures"][k].get(p)) for k in keys]
        for pair in result["ratios"]:
            s = result["ratios"][pair].get(p)
            cells.append("n/a" if s is None else f"{mean_ci(s, ratio=True)} ({verdict(s)})")
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def per_repetition_table(result):
    n = result["repeat"]
    head = ["run", "figure"] + [f"rep {i}" for i in range(1, n + 1)]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k, paths in result["figures"].items():
        for p, s in paths.items():
            rows.append("| " + " | ".join([k, figures.name(p)] + [fmt(v) for v in s["values"]]) + " |")
    for pair, paths in result["ratios"].items():
        for p, s in paths.items():
            rows.append("| " + " | ".join([pair, figures.name(p)] + [("n/a" if v is None else f"{v:.3f}x") for v in s["values"]]) + " |")
    return "\n".join(rows)


def report(result):
    lines = [f"# {result['bench']}: {result.get('description') or ''}".rstrip(": ")
             + f" (REPEAT={result['repeat']})", ""]
    if result.get("stand_in"):
        lines += ["> **Stand-in:** " + "; ".join(result["stand_in"]) + ". These figures are not results of the "
                  "real product; ratios that involve them say nothing about "
                  f"{databases.products(benchfiles.database_of(k) for k in result['figures'])}.", ""]
    if not result["complete"]:
        lines += ["> **Incomplete:** " + "; ".join(result["incomplete"]) + ". The statistics use the complete "
                  "repetitions only (n says how many).", ""]
    lines += ["## The answer", ""] + answer_lines(result)
    lines += queries.repeat_report_lines(result.get("queries"))
    lines += ["An interval that includes 1 means these repetitions cannot tell the two databases apart on that "
              "figure (not distinguishable): any difference is within the run-to-run noise.", "",
              "## Every figure (mean ± half-width of the 95% confidence interval)", "", figures_table(result), "",
              "## Each repetition's value", "", per_repetition_table(result), "",
              "## Method", "",
              f"- {result['repeat']} repetitions, {result['order']}.",
              f"- Interval: {result['interval']}; ratios are taken within each repetition, then summarised as a "
              "geometric mean with the interval on their logarithms (2x and 0.5x average to 1x).",
              "- A phase that failed, was interrupted or is suspect (foreign work, CPU readings that disagree) gives "
              "no value for that repetition, and an incomplete repetition (a phase or a file missing, a count "
              "missing, documents that differ) gives none at all: n counts the repetitions that did (Notes name "
              "the others).",
              "", "## Repetitions", ""]
    for rep in result["repetitions"]:
        state = "complete" if rep["complete"] else "INCOMPLETE: " + "; ".join(rep["incomplete"])
        link = (f"[{rep['folder']}/report.md]({rep['folder']}/report.md)" if rep["incomplete"] != ["not run"]
                else rep["folder"])
        lines.append(f"- {link}: {state}")
    lines.append("")
    if result.get("notes"):
        lines += ["## Notes", ""] + [f"- {n}" for n in result["notes"]] + [""]
    cfg = (result.get("config") or {}).get("run") or (result.get("config") or {}).get("bench") or {}
    lines += ["## Configuration", "", "| key | value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in cfg.items()] + [""]
    return "\n".join(lines)
