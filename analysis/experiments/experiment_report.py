"""`report` for REPEAT and sweep folders: regenerates, from the files alone, each repetition's or
point's own report, then the summary (`repeat`, `sweep`). Plain benches go to analysis/render/report.py."""
import glob
import os

from ..common.errors import AnalysisError
from ..common.fileio import read_json
from ..render import report
from . import repeat, sweep

is_experiment = repeat.is_experiment


def _kind(bench_dir):
    path = os.path.join(bench_dir, "results.json")
    if os.path.exists(path):
        r = read_json(path)
        return r.get("kind") if repeat.is_experiment(r) else "bench"
    if repeat.repetition_dirs(bench_dir):
        return "repeat"  # repetitions ran but the summary was never written (a fault): write it now
    return None


def _sweeps_of(bench_dir):
    return sorted(d for d in glob.glob(os.path.join(bench_dir, "sweep-*")) if os.path.isdir(d))


def regenerate(bench_dir):
    """Reports of one REPEAT bench folder or point (repetitions first), or a sweep folder."""
    made = []
    if sweep.SWEEP_DIR.match(os.path.basename(os.path.normpath(bench_dir))):
        for _, _, point in sweep.points(bench_dir)[1]:
            made += regenerate(point)
        sweep.write(bench_dir)
        return made + [os.path.join(bench_dir, "report.md")]
    kind = _kind(bench_dir)
    if kind == "repeat":
        for _, rep in repeat.repetition_dirs(bench_dir):
            if os.path.exists(os.path.join(rep, "results.json")):
                made += report.bench_report(rep)[1]
        repeat.write(bench_dir)
        return made + [os.path.join(bench_dir, "report.md")]
    if kind == "bench":
        return report.bench_report(bench_dir)[1]
    return made


def split(benches):
    """(plain bench folders for analysis/render/report.py, report files written here for the others).
    A bench folder holding sweep-KEY folders gets their reports too."""
    if not benches:
        benches = sorted(d for d in glob.glob("bench*") if os.path.isdir(d)
                         and (os.path.exists(os.path.join(d, "results.json")) or _sweeps_of(d)
                              or repeat.repetition_dirs(d)))
    plain, made = [], []
    for b in benches:
        b = os.path.normpath(b)
        if sweep.SWEEP_DIR.match(os.path.basename(b)):
            made += regenerate(b)
            continue
        kind = _kind(b)
        if kind == "bench":
            plain.append(b)
        elif kind == "repeat":
            made += regenerate(b)
        for s in _sweeps_of(b):
            made += regenerate(s)
        if kind is None and not _sweeps_of(b):
            plain.append(b)  # analysis/render/report.py says what is missing
    return plain, made


# --- a run branch's README.md (analysis/experiments/branch.py) ------------------------------------

def stand_in_lines(results):
    s = sorted({x for r in results if is_experiment(r) for x in r.get("stand_in") or []})
    if not s:
        return []
    return ["> **Stand-in:** " + "; ".join(s) + ". These figures are not results of the real product.", ""]


def branch_section(r):
    """A REPEAT bench or a sweep in the branch README: the headline figures and the links."""
    if r["kind"] == "repeat":
        lines = [f"## {r['bench']}: {r['repeat']} repetitions (mean ± 95% CI)", ""]
        for pair, paths in (r.get("ratios") or {}).items():
            s = paths.get("per_doc.cpu_us")
            if s:
                lines.append(f"- {pair} CPU per document: {repeat.mean_ci(s, ratio=True)} ({repeat.verdict(s)})")
        lines += ["", f"Repetitions: " + ", ".join(f"[{x['folder']}]({r['bench']}/{x['folder']}/report.md)"
                                                  + ("" if x["complete"] else " (INCOMPLETE)") for x in r["repetitions"]), ""]
    else:
        lines = [f"## {r['bench']}: sweep of {r['key']} over {', '.join(str(v) for v in r['values'])}", ""]
        for pair, paths in (r.get("ratios") or {}).items():
            pts = paths.get("per_doc.cpu_us") or []
            if pts:
                lines.append(f"- {pair} CPU per document: " + ", ".join(
                    f"{r['key']}={p['value']}: {p['mean']:.2f}x" for p in pts if p.get("mean") is not None))
        lines += ["", "Points: " + ", ".join(f"[{p['folder']}]({r['bench']}/{p['folder']}/report.md)"
                                             + ("" if p["complete"] else " (INCOMPLETE)") for p in r["points"]), ""]
    lines += [f"Details: [{r['bench']}/report.md]({r['bench']}/report.md), machine-readable: "
              f"[{r['bench']}/results.json]({r['bench']}/results.json).", ""]
    return lines


# --- `compare` (analysis/experiments/compare.py) --------------------------------------------------

def for_compare(r, ref):
    """A REPEAT bench as compare reads a bench: per_doc = the means over the repetitions, and
    `ci_pct` {(run key, field): half-width of the 95% interval in % of the mean}, which compare
    takes as that figure's noise. A sweep has no single figure per database: a clear error."""
    if r.get("kind") == "sweep":
        raise AnalysisError(f"{ref}: a sweep ({r.get('key')} over {r.get('values')}) is compared point by point: "
                            f"give a point folder, e.g. {ref.rstrip('/')}/{r.get('key')}={(r.get('values') or ['v'])[0]}")
    runs, pct = [], {}
    stand_in = " ".join(r.get("stand_in") or [])
    for key, paths in (r.get("figures") or {}).items():
        per_doc = {}
        for p, s in paths.items():
            if p.startswith("per_doc."):
                f = p[len("per_doc."):]
                per_doc[f] = s.get("mean")
                if s.get("ci") and s.get("mean"):
                    pct[(key, f)] = 100.0 * s["ci"]["half_width"] / abs(s["mean"])
        runs.append({"database": key, "per_doc": per_doc, "stand_in": key.split("-")[0] in stand_in,
                     "stand_in_what": "see the repetitions' reports"})
    return {**r, "runs": runs, "ci_pct": pct}
