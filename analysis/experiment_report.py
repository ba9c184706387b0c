"""`report` for REPEAT and sweep folders: regenerates, from the files alone, each repetition's or
point's own report, then the summary (`repeat`, `sweep`). Plain benches go to analysis/report.py."""
import glob
import os

from . import repeat, sweep
from .fileio import read_json


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
    from . import report
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
    """(plain bench folders for analysis/report.py, report files written here for the others).
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
            plain.append(b)  # analysis/report.py says what is missing
    return plain, made
