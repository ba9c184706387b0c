"""`compare REF1 REF2`: per-document figures of two runs side by side, the change and whether it
moved beyond the noise. A REF is a bench folder, a folder of bench folders, or a git REF[:PATH]
(files read with `git show`, so run branches need no checkout)."""
import json
import os
import subprocess

from ..common.errors import AnalysisError
from ..common.fileio import read_json
from ..common.labels import PER_DOC, fmt, phase_id, run_label
from . import experiment_report

DEFAULT_NOISE_PCT = 5.0


def _git(*args):
    p = subprocess.run(["git", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip()


def _bench(r, ref):
    """A REPEAT bench compares by its means, its intervals as noise; a sweep is refused clearly."""
    if experiment_report.is_experiment(r):
        return experiment_report.for_compare(r, ref)
    return r


def load(ref):
    """{bench name: results dict}."""
    if os.path.isdir(ref):
        if os.path.exists(os.path.join(ref, "results.json")):
            r = _bench(read_json(os.path.join(ref, "results.json")), ref)
            return {r["bench"]: r}
        found = {}
        for name in sorted(os.listdir(ref)):
            path = os.path.join(ref, name, "results.json")
            if os.path.exists(path):
                r = _bench(read_json(path), path)
                found[r["bench"]] = r
        if not found:
            raise AnalysisError(f"{ref}: no results.json in this folder or its bench folders")
        return found
    rev, _, path = ref.partition(":")
    path = path.strip("/")
    code, _, err = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if code != 0:
        raise AnalysisError(f"{ref}: neither a folder nor a git revision (a bench folder, a folder of "
                            f"benches, or REF[:PATH] such as 20250101-1200---bench1:bench1)")
    code, out, _ = _git("show", f"{rev}:{path + '/' if path else ''}results.json")
    if code == 0:
        r = _bench(json.loads(out), ref)
        return {r["bench"]: r}
    code, out, err = _git("ls-tree", "--name-only", f"{rev}:{path}" if path else rev)
    if code != 0:
        raise AnalysisError(f"{ref}: cannot list {path or 'the root'} in {rev}: {err}")
    found = {}
    for name in out.split():
        code, text, _ = _git("show", f"{rev}:{path + '/' if path else ''}{name}/results.json")
        if code == 0:
            r = _bench(json.loads(text), f"{rev}:{path + '/' if path else ''}{name}")
            found[r["bench"]] = r
    if not found:
        raise AnalysisError(f"{ref}: no results.json at {path or 'the root'} of {rev} or in its bench folders")
    return found


def _config_key(result):
    cfg = dict((result.get("config") or {}).get("run") or (result.get("config") or {}).get("bench") or {})
    cfg.pop("DESCRIPTION", None)
    return json.dumps(cfg, sort_keys=True)


def noise_from_repeats(results_by_bench):
    """Relative spread (max-min)/mean in % per (config, database, figure) where several benches of
    one side share a configuration: the run-to-run noise those repeats show."""
    groups = {}
    for r in results_by_bench.values():
        groups.setdefault(_config_key(r), []).append(r)
    spread = {}
    for key, members in groups.items():
        if len(members) < 2:
            continue
        for field, _, _ in PER_DOC:
            for db in {phase_id(run) for m in members for run in m["runs"]}:
                vals = [run["per_doc"].get(field) for m in members for run in m["runs"] if phase_id(run) == db]
                vals = [v for v in vals if v is not None]
                if len(vals) >= 2 and sum(vals):
                    mean = sum(vals) / len(vals)
                    spread[(key, db, field)] = 100.0 * (max(vals) - min(vals)) / mean
    return spread


def compare(side1, side2, noise_pct=None):
    default = DEFAULT_NOISE_PCT if noise_pct is None else noise_pct
    spreads = {**noise_from_repeats(side1), **noise_from_repeats(side2)}
    rows = []
    for bench in sorted(set(side1) & set(side2)):
        r1, r2 = side1[bench], side2[bench]
        runs2 = {phase_id(r): r for r in r2["runs"]}
        for run1 in r1["runs"]:
            run2 = runs2.get(phase_id(run1))
            if run2 is None:
                continue
            # a phase that is not ok (failed, interrupted, suspect) compares unequal work: no change
            flagged = [f"{ref} {r['status']}" for ref, r in (("REF1", run1), ("REF2", run2))
                       if r.get("status", "ok") != "ok"]
            for field, name, unit in PER_DOC:
                a, b = run1["per_doc"].get(field), run2["per_doc"].get(field)
                if flagged:
                    a = b = None
                change = None if a is None or b is None or a == 0 else 100.0 * (b - a) / a
                threshold = max(default if noise_pct is None else noise_pct,
                                spreads.get((_config_key(r1), phase_id(run1), field), 0.0),
                                # a REPEAT bench's own 95% interval, in % of its mean
                                (r1.get("ci_pct") or {}).get((phase_id(run1), field), 0.0),
                                (r2.get("ci_pct") or {}).get((phase_id(run2), field), 0.0))
                rows.append({
                    "bench": bench, "database": phase_id(run1),
                    "label": run_label(run1) if run1.get("stand_in") else run_label(run2),
                    "figure": field, "name": f"{name} ({unit})", "ref1": a, "ref2": b,
                    "change_pct": change, "noise_pct": threshold,
                    "beyond_noise": None if change is None else abs(change) > threshold,
                    "left_out": "; ".join(flagged) or None,
                })
    return rows, sorted(set(side1) ^ set(side2))


def render(ref1, ref2, rows, unmatched, noise_pct):
    default = DEFAULT_NOISE_PCT if noise_pct is None else noise_pct
    lines = [f"# Comparison: {ref1} -> {ref2}", "",
             f"Change = (REF2 - REF1) / REF1. Noise threshold: {default:g}% "
             f"({'given with --noise' if noise_pct is not None else 'default'}), raised to the spread seen "
             "between repeated runs (benches of one side with the same configuration) where there are such, "
             "and to a REPEAT bench's 95% confidence interval (its figures are means).", "",
             "| bench | database | per document | REF1 | REF2 | change | beyond noise |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        change = "n/a" if r["change_pct"] is None else f"{r['change_pct']:+.1f}%"
        moved = (f"left out ({r['left_out']})" if r.get("left_out") else "n/a") if r["beyond_noise"] is None else ("**yes**" if r["beyond_noise"] else f"no (<= {r['noise_pct']:.1f}%)")
        lines.append(f"| {r['bench']} | {r['label']} | {r['name']} | {fmt(r['ref1'])} | {fmt(r['ref2'])} | {change} | {moved} |")
    if unmatched:
        lines += ["", "Only on one side (not compared): " + ", ".join(unmatched)]
    if not rows:
        lines += ["", "No bench and database in common: nothing to compare."]
    return "\n".join(lines) + "\n"


def run(ref1, ref2, noise_pct=None):
    if noise_pct is not None and noise_pct < 0:
        raise AnalysisError(f"--noise {noise_pct}: must be >= 0 (percent)")
    rows, unmatched = compare(load(ref1), load(ref2), noise_pct)
    return render(ref1, ref2, rows, unmatched, noise_pct)
