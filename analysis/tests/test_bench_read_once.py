"""Issue 26: a bench folder is read once into one object (analysis/bench/folder.py Bench) and each
figure of results.json is a function of it, so building results.json opens each file of the folder
at most once: a figure module that reopened one (plan.json read per phase, run.env by plan.py and
the settings alike) fails here, naming the file."""
import builtins
import collections
import os
import shutil

import pytest

from analysis.bench import folder
from analysis.figures import results
from analysis.render import check, report
from analysis.tests import txn_fixture, ycsb_fixture
from analysis.tests.test_plan import write_plan


def opens_while(bench_dir, build):
    """{file under bench_dir (relative): times it was opened} while build() runs."""
    real, counts = builtins.open, collections.Counter()
    root = os.path.abspath(bench_dir) + os.sep

    def counting(file, *args, **kwargs):
        handle = real(file, *args, **kwargs)
        if isinstance(file, (str, os.PathLike)) and os.path.abspath(file).startswith(root):
            counts[os.path.relpath(os.path.abspath(file), root)] += 1
        return handle
    builtins.open = counting
    try:
        build()
    finally:
        builtins.open = real
    return counts


def _read_more_than_once(bench_dir):
    counts = opens_while(bench_dir, lambda: results.build(bench_dir))
    assert counts, "the counter saw no file opened: it counts nothing"
    return {name: n for name, n in counts.items() if n > 1}


@pytest.mark.parametrize("name", ["bench1", "bench2", "ci-standin-run"])
def test_results_open_each_file_of_a_recorded_bench_once(fixture_benches, name):
    assert _read_more_than_once(fixture_benches[name]) == {}


def test_results_open_each_file_once_with_a_plan_json_and_a_load_stage(fixture_benches, tmp_path):
    """plan.json (read for the settings, the run's keys, the phases, each phase's workload facts) and
    a workload with a load stage (ycsb: two phases per database, their profiles and .out files)."""
    with_plan = fixture_benches["ci-standin-run"]
    write_plan(with_plan)
    ycsb = str(tmp_path / "ycsb")
    ycsb_fixture.build(ycsb)
    write_plan(ycsb)
    assert _read_more_than_once(with_plan) == {}
    assert _read_more_than_once(ycsb) == {}


def test_the_counter_sees_a_file_read_twice(fixture_benches):
    """The check above can fail: two Bench objects of one folder each read its plan and env files."""
    bench = fixture_benches["bench1"]
    counts = opens_while(bench, lambda: [results.plan_mod.settings(folder.Bench(bench)) for _ in range(2)])
    assert counts["run.env"] == 2


def test_a_bench_keeps_what_it_read(fixture_benches):
    bench = folder.Bench(fixture_benches["bench1"])
    ph = bench.phase("postgres")
    assert bench.phase("postgres") is ph and ph.clients() is ph.clients() and ph.doc() is ph.doc()
    assert ph.doc()["database"] == "postgres" and len(ph.clients()) == ph.doc()["clients"]


def _without_time(result):
    return {k: v for k, v in result.items() if k != "generated_at"}


@pytest.mark.parametrize("name", ["bench1", "ci-standin-run", "ycsb", "txn"])
def test_every_figure_is_a_function_of_the_bench_object(fixture_benches, tmp_path, name):
    """Each figure of results.json is a function of the Bench (its phases' views), not of the folder:
    a Bench that read its folder once builds the same results after the folder is gone. A figure
    module that reached back into the folder (a profile opened by path, a file looked for again)
    fails here on the missing file or gives other figures. ycsb: a load stage, its profiles; txn:
    transactions, count's nothing-lost check; ci-standin-run with plan.json: its settings and facts."""
    if name == "ycsb":
        path = str(tmp_path / "ycsb")
        ycsb_fixture.build(path)
    elif name == "txn":
        path = str(tmp_path / "txn")
        txn_fixture.build(path, ok=False)
    else:
        path = fixture_benches[name]
        if name == "ci-standin-run":
            write_plan(path)
    bench = folder.Bench(path)
    first = results.build(bench)
    assert first["runs"] and any(r["reconciliation"]["checks"] for r in first["runs"])
    shutil.rmtree(path)
    assert _without_time(results.build(bench)) == _without_time(first)


def test_the_check_table_opens_each_file_once(fixture_benches):
    """`check` reads results.json, each phase's file and metrics export, plan.json and run.env once
    for all its rows (it read each phase's metrics export once per row that needs it)."""
    bench = fixture_benches["ci-standin-run"]
    write_plan(bench)
    results.write(bench)
    counts = opens_while(bench, lambda: check.evaluate(bench))
    assert counts["results.json"] == 1 and counts["postgres.metrics.json"] == 1
    assert {name: n for name, n in counts.items() if n > 1} == {}


def test_the_report_opens_each_file_once(fixture_benches):
    """report.md and its plots: results.json and each phase's time series read once, through one Bench."""
    bench = fixture_benches["bench1"]
    results.write(bench)
    counts = opens_while(bench, lambda: report.bench_report(bench))
    assert counts["results.json"] == 1 and counts[os.path.join("timeseries", "postgres.csv.gz")] == 1
    assert {name: n for name, n in counts.items() if n > 1} == {}
