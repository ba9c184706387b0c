"""Experiments made of several bench runs: REPEAT=N (DIR/repeat-1 .. repeat-N, each its own plan.json: the
folder's keys as written with REPEAT=1) and sweeps (DIR/sweep-KEY/<point>/, each a complete bench folder,
REPEAT applying inside it; DIR/sweep-KEY/values: the values in the order given). Every repetition and
point is a complete bench folder run by lab.run_bench on fresh volumes, so a fault loses only the one under
way. The statistics and reports are analysis's (experiments/repeat.py, sweep.py), called in-process; a
summary still pending when the run stops (an error, a signal) is written from what finished."""
import os
import shutil
import sys
import traceback

from . import request as req
from .plan import Plan, clean_results


class AnalysisSummaries:
    """analysis's repeat and sweep summaries, in-process (the `run` mode runs in the lab's venv); each
    prints the line `python -m analysis repeat|sweep` prints; False when it failed (the reason on stderr)."""

    def repeat(self, bench_dir):
        def write():
            from analysis.experiments import repeat
            res = repeat.write(bench_dir)
            print(f"{bench_dir}/results.json: {res['repeat']} repetition(s), "
                  f"{'complete' if res['complete'] else 'INCOMPLETE: ' + '; '.join(res['incomplete'])}", flush=True)
        return _analysis("repeat", write)

    def sweep(self, sweep_dir):
        def write():
            from analysis.experiments import sweep
            res = sweep.write(sweep_dir)
            print(f"{sweep_dir}/results.json: {len(res['points'])} point(s) of {res['key']}, "
                  f"{'complete' if res['complete'] else 'INCOMPLETE: ' + '; '.join(res['incomplete'])}", flush=True)
        return _analysis("sweep", write)


def _analysis(command, call):
    from analysis.common.errors import AnalysisError
    try:
        call()
        return True
    except AnalysisError as err:
        print(f"analysis {command}: {err}", file=sys.stderr, flush=True)
    except Exception:  # a bug in a summary must not hide the runs that finished: said, and the run goes on
        traceback.print_exc()
    return False


def sweep_dir_of(bench_dir, sweep):
    return f"{bench_dir}/sweep-{sweep.key}"


def experiment_folder(bench_dir, sweep):
    """The folder a run's branch commits for DIR: the bench folder, or its sweep folder."""
    return sweep_dir_of(bench_dir, sweep) if sweep.key else bench_dir


class Experiments:
    """The experiment level of one run: prepare (the plans), run (the bench, its repetitions or its sweep's
    points), and the summaries pending when the run stops early."""

    def __init__(self, lab, sweep, summaries=None):
        self.lab = lab
        self.sweep = sweep
        self.summaries = summaries or AnalysisSummaries()
        self.pending = []  # (kind, folder), innermost last: a point's repetitions before its sweep

    def prepare(self, bench_dir, overrides):
        """After the check, before the run: the previous results go and the plans are written (a plain or
        REPEAT bench: DIR/plan.json; a sweep: each point's)."""
        root, standins = self.lab.root, self.lab.standins
        if not self.sweep.key:
            clean_results(bench_dir)
            req.write_run_plan(root, bench_dir, overrides, standins)
            return
        sweep = sweep_dir_of(bench_dir, self.sweep)
        shutil.rmtree(sweep, ignore_errors=True)
        os.makedirs(sweep, exist_ok=True)
        # the values in the order given: an enum sweep's categories are shown in this order (analysis sweep)
        with open(os.path.join(sweep, "values"), "w", encoding="utf-8") as f:
            f.write("".join(v + "\n" for v in self.sweep.values))
        for v in self.sweep.points:
            point = os.path.join(sweep, v)
            os.makedirs(point, exist_ok=True)
            shutil.copy(os.path.join(bench_dir, "bench.env"), os.path.join(point, "bench.env"))
            req.write_run_plan(root, point, [*overrides, *req.point_sets(v)], standins, dataset_base=bench_dir)

    def run(self, bench_dir):
        """The bench, its repetitions, or its sweep's points."""
        if not self.sweep.key:
            self.run_repeated(bench_dir)
            return
        sweep = sweep_dir_of(bench_dir, self.sweep)
        self.pending.append(("sweep", sweep))
        for v in self.sweep.points:
            if self.lab.interrupted:
                break
            self.lab.say(f"sweep point {v}", bench=os.path.basename(bench_dir))
            self.run_repeated(os.path.join(sweep, v))
        self.done()

    def run_repeated(self, bench_dir):
        """lab.run_bench(DIR), or REPEAT times into DIR/repeat-k (each its own plan.json: the folder's keys
        with REPEAT=1), then the statistics over the repetitions."""
        root = self.lab.root
        plan = Plan(os.path.join(bench_dir, "plan.json"), root)
        n = plan.repetitions
        if n <= 1:
            run_bench(self.lab, bench_dir, plan)
            return
        # the folder's own plan keeps its repetitions (analysis reads REPEAT from it); each repeat-k its own
        given = plan.given_sets()
        self.pending.append(("repeat", bench_dir))
        for k in range(1, n + 1):
            if self.lab.interrupted:
                break
            rep = os.path.join(bench_dir, f"repeat-{k}")
            os.makedirs(rep, exist_ok=True)
            shutil.copy(os.path.join(bench_dir, "bench.env"), os.path.join(rep, "bench.env"))
            req.plan_run_sets(root, rep, [*given, "REPEAT=1"], self.lab.standins, quiet=True)
            self.lab.say(f"repetition {k} of {n} (fresh volumes)", bench=os.path.basename(bench_dir))
            run_bench(self.lab, rep)
        self.done()

    def done(self):
        """Writes the innermost pending summary (a point's repetitions before its sweep)."""
        if not self.pending:
            return
        kind, folder = self.pending.pop()
        if kind == "repeat":
            if not self.summaries.repeat(folder):
                self.lab.say(f"the repetitions' summary failed: {folder}")
        elif not self.summaries.sweep(folder):
            self.lab.say(f"the sweep's summary failed: {folder}")

    def summarise_all(self):
        """A run stopped by an error or a signal still summarises what finished."""
        while self.pending:
            self.done()


class BenchFailed(Exception):
    """lab.run_bench reported a failure (a nonzero status): the run stops there, as runme.sh did."""

    def __init__(self, bench_dir, code):
        super().__init__(f"{bench_dir}: the bench stopped (status {code})")
        self.code = code


def run_bench(lab, bench_dir, plan=None):
    """lab.run_bench(DIR); a failure (an exception, or a nonzero status returned) stops the run."""
    code = lab.run_bench(bench_dir, plan)
    if code not in (None, 0, True):
        raise BenchFailed(bench_dir, 1 if code is False else code)
