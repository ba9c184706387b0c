"""The smoke run (`./runme.sh check`, and the start of every bench run): about CHECK_SECONDS (20) of a
bench at its own rate and client count on each of its databases, through the same lab.run_bench as a
real run, into a temporary copy of the bench; then analysis's check says whether every figure of
results.json has data or a stated reason. Leaves no temporary folder and no database container or
volume on any path; never writes into the bench folder."""
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

from . import request as req
from .plan import Plan, set_words


def check_seconds():
    return int(os.environ.get("CHECK_SECONDS") or 20)


def check_size(root, bench_dir, given, seconds):
    """`node client plan --check-size SECONDS FILE --set ...`: the KEY=VALUE words that make client 1 run
    about SECONDS per database (the workload's file sizes it)."""
    r = subprocess.run(["node", os.path.join(root, "client"), "plan", "--check-size", str(seconds),
                        os.path.join(bench_dir, "bench.env"), *set_words(given)], stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise req.BadInput("")
    return r.stdout.split()


def analysis_check(bench_dir, prometheus):
    """analysis's check in-process: prints the table; True when every figure has data or a reason."""
    from analysis.common.errors import AnalysisError
    from analysis.render import check
    try:
        text, passed = check.run(bench_dir, prometheus, None)
    except AnalysisError as err:
        print(f"analysis check: {err}", file=sys.stderr, flush=True)
        return False
    print(text, flush=True)
    return passed


def check_bench(lab, src, sets, verdict=analysis_check):
    """The smoke run of bench SRC with the run's --set overrides; prints the table; 0 when it passes, 1
    when a figure is missing without a reason, 2 when its plan is refused."""
    root, seconds = lab.root, check_seconds()
    tmp = tempfile.mkdtemp(prefix="jsonbench-check.", dir=os.environ.get("TMPDIR") or "/tmp")
    try:
        bench = os.path.join(tmp, os.path.basename(src) + "-check")
        os.mkdir(bench)
        shutil.copy(os.path.join(src, "bench.env"), os.path.join(bench, "bench.env"))
        try:
            # a relative DATASET is relative to the bench folder, not this copy
            req.write_run_plan(root, bench, sets, lab.standins, dataset_base=src)
            # the load sized from the keys just planned (plan.json settings.given)
            given = Plan(os.path.join(bench, "plan.json"), root).given_sets()
            sizes = check_size(root, bench, given, seconds)
            req.write_run_plan(root, bench, [*sets, *sizes, "QUIET_S=3", "PERF_RECORD_S=5"], lab.standins,
                               dataset_base=src)
        except req.BadInput as e:
            if e.args and e.args[0]:
                print(f"runme.sh: {e.args[0]}", file=sys.stderr, flush=True)
            return 2
        lab.say(f"check of {os.path.basename(src)}: ~{seconds}s of load per database in {bench} (removed afterwards)")
        rc = 0
        try:
            code = lab.run_bench(bench)
            if code not in (None, 0, True):
                rc = 1 if code is False else code
        except Exception:
            traceback.print_exc()
            rc = 1
        lab.run_failed = False  # the check's own verdict below decides
        if not verdict(bench, lab.prometheus_url()):
            rc = 1
        return rc
    finally:
        # the databases the check wrote into (containers and volumes); the monitoring stays up
        try:
            lab.remove_databases()
        except Exception:
            traceback.print_exc()
        shutil.rmtree(tmp, ignore_errors=True)


def check_benches(lab, dirs, sets, verdict=analysis_check):
    """Every bench's check, with the run's --set overrides; 0 when all pass, 1 when one fails, 130 when
    interrupted."""
    failed = []
    for d in dirs:
        if lab.interrupted:
            return 130
        if check_bench(lab, d, sets, verdict) != 0:
            failed.append(os.path.basename(d))
    if lab.interrupted:
        return 130
    if failed:
        lab.say(f"check FAILED for: {' '.join(failed)} (the table above names what is missing)")
        return 1
    lab.say("check passed: every figure will be measured, or the table says why not")
    return 0
