"""Issue 26: a bench folder is read once into one object (analysis/bench/folder.py Bench) and each
figure of results.json is a function of it, so building results.json opens each file of the folder
at most once: a figure module that reopened one (plan.json read per phase, run.env by plan.py and
the settings alike) fails here, naming the file."""
import builtins
import collections
import os

import pytest

from analysis.bench import folder
from analysis.figures import results
from analysis.tests import ycsb_fixture
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
