"""REPEAT and sweeps: the statistics (checked against published values, not against scipy itself),
the assembly of repetitions and sweep points from real results.json files, reports and plots."""
import copy
import json
import math
import os
import shutil
import statistics

import pytest

from analysis.figures import results
from analysis.experiments import ci, experiment_report, repeat, sweep, sweep_args
from analysis.__main__ import main
from analysis.common.errors import AnalysisError

# Student's sleep data (Cushny & Peebles, analysed by "Student" in 1908): extra hours of sleep of 10
# patients, drug 2 minus drug 1. R's `t.test(extra ~ group, data = sleep, paired = TRUE)` prints
# mean of the differences -1.58 and 95 percent confidence interval -2.4598858 -0.7001142.
SLEEP_DIFFERENCES = [1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4]


def test_ci_matches_students_sleep_data():
    s = ci.summarise(SLEEP_DIFFERENCES)
    assert s["n"] == 10
    assert s["mean"] == pytest.approx(1.58)
    assert s["ci"]["low"] == pytest.approx(0.7001142, abs=1e-6)
    assert s["ci"]["high"] == pytest.approx(2.4598858, abs=1e-6)
    assert s["stdev"] == pytest.approx(1.229995, abs=1e-5)
    assert ci.includes(s, 0) is False


def test_ci_small_n_uses_student_t_from_the_table():
    # t(0.975, 2 df) = 4.303 in every t table: mean 12, s = 2, n = 3 -> half-width 4.303 * 2 / sqrt(3)
    s = ci.summarise([10.0, 12.0, 14.0])
    assert s["ci"]["half_width"] == pytest.approx(4.303 * 2 / 3 ** 0.5, rel=1e-4)
    assert ci.includes(s, 16.9) is True and ci.includes(s, 17.0) is False


def test_ci_one_value_and_missing_values():
    one = ci.summarise([None, 5.0, None])
    assert one["n"] == 1 and one["mean"] == 5.0 and one["ci"] is None and "one value" in one["reason"]
    assert one["values"] == [None, 5.0, None]
    none = ci.summarise([None, None])
    assert none["mean"] is None and none["reason"]
    assert ci.includes(one, 5.0) is None


def _results_of(fixture_dir):
    return results.build(fixture_dir)


def _bench_with_repetitions(tmp_path, fixture_dir, cpu):
    """A REPEAT=len(cpu) bench whose repetition i has CPU per document cpu[i] = (mongodb, postgres)."""
    base = _results_of(fixture_dir)
    bench = tmp_path / "bench9"
    bench.mkdir()
    shutil.copy(os.path.join(fixture_dir, "bench.env"), bench / "bench.env")
    (bench / "run.env").write_text(open(os.path.join(fixture_dir, "run.env")).read() + f"REPEAT={len(cpu)}\n")
    for i, (m, p) in enumerate(cpu, 1):
        rep = bench / f"repeat-{i}"
        rep.mkdir()
        r = copy.deepcopy(base)
        r["bench"] = f"repeat-{i}"
        for run in r["runs"]:
            run["per_doc"]["cpu_us"] = m if run["database"] == "mongodb" else p
        (rep / "results.json").write_text(json.dumps(r))
    return bench


@pytest.fixture
def fixture_dir(fixture_benches):
    for path in fixture_benches.values():
        r = results.build(path)
        if {x["database"] for x in r["runs"]} == {"mongodb", "postgres"} and all(x["status"] == "ok" for x in r["runs"]):
            return path
    pytest.skip("no fixture bench with both databases ok")


def test_repeat_summarises_each_figure_and_the_paired_ratio(tmp_path, fixture_dir):
    bench = _bench_with_repetitions(tmp_path, fixture_dir, [(200.0, 100.0), (220.0, 100.0), (210.0, 105.0)])
    assert main(["repeat", "--bench-dir", str(bench)]) == 0
    res = json.loads((bench / "results.json").read_text())
    assert res["kind"] == "repeat" and res["repeat"] == 3 and res["complete"]
    cpu = res["figures"]["mongodb"]["per_doc.cpu_us"]
    assert cpu["values"] == [200.0, 220.0, 210.0]
    assert cpu["mean"] == pytest.approx(210.0) and cpu["stdev"] == pytest.approx(10.0)
    assert cpu["ci"]["half_width"] == pytest.approx(4.303 * 10 / 3 ** 0.5, rel=1e-4)
    ratio = res["ratios"]["mongodb/postgres"]["per_doc.cpu_us"]
    assert ratio["values"] == pytest.approx([2.0, 2.2, 2.0])  # per repetition, not mean over mean
    assert ratio["includes_no_difference"] is False
    # every numeric per_doc field and the latency come along, generically
    assert "per_doc.storage_bytes" in res["figures"]["postgres"] and "latency_ms.p99" in res["figures"]["postgres"]
    assert "per_doc.basis" not in res["figures"]["postgres"]
    text = (bench / "report.md").read_text()
    assert text.index("## The answer") < text.index("## Every figure")
    # the ratio is the geometric mean of 2.0, 2.2, 2.0, its interval taken on the logarithms
    logs = [math.log(v) for v in (2.0, 2.2, 2.0)]
    m, sd = sum(logs) / 3, statistics.stdev(logs)
    half = 4.3027 * sd / 3 ** 0.5
    assert ratio["mean"] == pytest.approx(math.exp(m)) and ratio["ci"]["low"] == pytest.approx(math.exp(m - half), rel=1e-4)
    assert (f"- CPU (µs/doc): mongodb 210 ± 25, postgres 102 ± 7.2; mongodb spends {math.exp(m):.3f}x of postgres "
            f"(geometric mean; interval {math.exp(m - half):.3f} .. {math.exp(m + half):.3f}") in text
    assert "[repeat-2/report.md](repeat-2/report.md): complete" in text


def test_repeat_says_no_difference_when_the_interval_includes_one(tmp_path, fixture_dir):
    bench = _bench_with_repetitions(tmp_path, fixture_dir, [(100.0, 100.0), (90.0, 100.0), (110.0, 100.0)])
    res = repeat.write(str(bench))
    assert res["ratios"]["mongodb/postgres"]["per_doc.cpu_us"]["includes_no_difference"] is True
    assert "**not distinguishable**: the repetitions cannot tell mongodb from postgres" in (bench / "report.md").read_text()


def test_repeat_ratios_are_geometric_means_of_the_repetitions_ratios(tmp_path, fixture_dir):
    """2x then 0.5x is no difference on average: 1x, where the arithmetic mean says 1.25x."""
    bench = _bench_with_repetitions(tmp_path, fixture_dir, [(200.0, 100.0), (50.0, 100.0)])
    ratio = repeat.write(str(bench))["ratios"]["mongodb/postgres"]["per_doc.cpu_us"]
    assert ratio["values"] == [2.0, 0.5] and ratio["mean"] == pytest.approx(1.0)
    assert ratio["ci"]["low"] * ratio["ci"]["high"] == pytest.approx(1.0), "symmetric in log space"


def test_repeat_keeps_finished_repetitions_and_names_the_missing_one(tmp_path, fixture_dir):
    bench = _bench_with_repetitions(tmp_path, fixture_dir, [(200.0, 100.0), (220.0, 100.0)])
    (bench / "run.env").write_text((bench / "run.env").read_text() + "REPEAT=3\n")
    failed = json.loads((bench / "repeat-2" / "results.json").read_text())
    failed["runs"][1]["status"] = "failed"
    failed["complete"] = False
    failed["incomplete"] = ["postgres: status failed"]
    (bench / "repeat-2" / "results.json").write_text(json.dumps(failed))
    res = repeat.write(str(bench))
    assert not res["complete"]
    assert any(i.startswith("repeat-3: not run") for i in res["incomplete"])
    assert res["figures"]["postgres"]["per_doc.cpu_us"]["values"] == [100.0, None, None]
    # an incomplete repetition is left out whole: mongodb's ok phase of it too
    assert res["figures"]["mongodb"]["per_doc.cpu_us"]["values"] == [200.0, None, None]
    assert res["figures"]["mongodb"]["per_doc.cpu_us"]["n"] == 1
    assert "repetition 2: incomplete (postgres: status failed): its figures are left out" in res["notes"]
    assert "**Incomplete:**" in (bench / "report.md").read_text()


def test_repeat_leaves_a_suspect_repetition_out_and_says_how_many_counted(tmp_path, fixture_dir):
    """A suspect phase did work the lab did not send: its 900 µs/doc must not enter the mean."""
    bench = _bench_with_repetitions(tmp_path, fixture_dir, [(200.0, 100.0), (900.0, 100.0), (220.0, 100.0)])
    r2 = json.loads((bench / "repeat-2" / "results.json").read_text())
    mongo = next(run for run in r2["runs"] if run["database"] == "mongodb")
    mongo.update(status="suspect", reason="reads 9 > expected 5 + tolerance 0")
    (bench / "repeat-2" / "results.json").write_text(json.dumps(r2))
    res = repeat.write(str(bench))
    cpu = res["figures"]["mongodb"]["per_doc.cpu_us"]
    assert cpu["values"] == [200.0, None, 220.0] and cpu["n"] == 2 and cpu["mean"] == pytest.approx(210.0)
    assert res["ratios"]["mongodb/postgres"]["per_doc.cpu_us"]["n"] == 2
    assert any(n.startswith("repetition 2: mongodb status suspect (reads 9 > expected 5") for n in res["notes"])
    assert "n=2 of 3" in (bench / "report.md").read_text()


def test_a_bench_ratio_and_a_comparison_leave_a_suspect_phase_out(fixture_dir):
    from analysis.experiments import compare
    r = results.build(fixture_dir)
    assert r["ratios"]["cpu_us"] is not None and "reason" not in r["ratios"]
    flagged = copy.deepcopy(r)
    for run in flagged["runs"]:
        if run["database"] == "mongodb":
            run.update(status="suspect", reason="user_table_reads 4 > expected 0 + tolerance 0")
    rat = results.ratios(flagged["runs"])
    assert rat["cpu_us"] is None and rat["per_op"]["cpu_us"] is None
    assert rat["reason"].startswith("no ratio: mongodb status suspect (user_table_reads")
    rows, _ = compare.compare({"b": r}, {"b": flagged})
    mongo = [x for x in rows if x["database"] == "mongodb"]
    assert mongo and all(x["change_pct"] is None and x["left_out"] == "REF2 suspect" for x in mongo)
    assert all(x["left_out"] is None for x in rows if x["database"] == "postgres")


def test_identical_values_have_no_interval_and_no_verdict():
    """Zero observed spread measures no noise: no interval (and no "beyond noise"), the reason said."""
    s = ci.summarise([5.0, 5.0, 5.0])
    assert s["n"] == 3 and s["mean"] == 5.0 and s["stdev"] == 0.0
    assert s["ci"] is None and "identical" in s["reason"] and "no observed spread" in s["reason"]
    assert ci.includes(s, 5.0) is None
    r = ci.summarise_ratio([2.0, 2.0, 2.0])
    assert r["mean"] == pytest.approx(2.0) and r["ci"] is None and "no observed spread" in r["reason"]


def test_a_histogram_figure_interval_is_at_least_its_quantisation_step():
    """HdrHistogram keeps 3 significant digits: equal percentiles over the repetitions are equal to
    10^-3 of the value, no better; a ratio of two such values to two steps."""
    s = ci.summarise([10.0, 10.0, 10.0], step=1e-3)
    assert s["ci"]["half_width"] == pytest.approx(0.01) and s["ci"]["floor"]
    wide = ci.summarise([10.0, 12.0, 14.0], step=1e-3)
    assert wide["ci"]["half_width"] == pytest.approx(4.303 * 2 / 3 ** 0.5, rel=1e-4) and "floor" not in wide["ci"]
    r = ci.summarise_ratio([1.002, 1.002, 1.002], step=1e-3)
    assert ci.includes(r, 1.0) is True
    # identical beyond the step: no spread observed, so no verdict either way
    assert ci.includes(ci.summarise_ratio([1.01, 1.01, 1.01], step=1e-3), 1.0) is None
    # a spread narrower than the step: the step's interval, and a verdict
    tight = ci.summarise_ratio([1.0100, 1.0101, 1.0099], step=1e-3)
    assert tight["ci"]["floor"] and ci.includes(tight, 1.0) is False


def test_identical_repetitions_are_never_beyond_noise(tmp_path, fixture_dir):
    """Three identical repetitions: latency p99 0.2% apart (what HdrHistogram's rounding makes of two
    equal databases) is not distinguishable, and CPU 2x with zero spread has no interval, not a verdict."""
    bench = _bench_with_repetitions(tmp_path, fixture_dir, [(200.0, 100.0)] * 3)
    for i in (1, 2, 3):
        path = bench / f"repeat-{i}" / "results.json"
        r = json.loads(path.read_text())
        for run in r["runs"]:
            run["latency_ms"]["p99"] = 10.02 if run["database"] == "mongodb" else 10.0
        path.write_text(json.dumps(r))
    res = repeat.write(str(bench))
    p99 = res["ratios"]["mongodb/postgres"]["latency_ms.p99"]
    assert p99["mean"] == pytest.approx(1.002) and p99["includes_no_difference"] is True
    assert res["figures"]["mongodb"]["latency_ms.p99"]["ci"]["half_width"] == pytest.approx(0.01002)
    cpu = res["ratios"]["mongodb/postgres"]["per_doc.cpu_us"]
    assert cpu["ci"] is None and cpu["includes_no_difference"] is None
    # latency p50 differs by 40% in the fixture, identically in each repetition: no verdict
    assert res["ratios"]["mongodb/postgres"]["latency_ms.p50"]["includes_no_difference"] is None
    text = (bench / "report.md").read_text()
    assert "beyond noise" not in text, text
    assert "no observed spread, so no noise measured and no verdict" in text
    line = next(ln for ln in text.splitlines() if ln.startswith("- CPU (µs/doc):"))
    assert "ratio 2.000x (no interval: 3 identical values: no observed spread" in line, line
    assert "one value" not in line


def test_repeat_without_repetitions_is_a_clear_error(tmp_path, fixture_dir):
    bench = tmp_path / "b"
    bench.mkdir()
    shutil.copy(os.path.join(fixture_dir, "bench.env"), bench / "bench.env")
    with pytest.raises(AnalysisError, match="no repeat-N folder"):
        repeat.build(str(bench))


def _sweep(tmp_path, fixture_dir, points):
    """bench9/sweep-FIELD_BYTES with one point per (value, mongodb cpu, postgres cpu); a point with a
    list of pairs is a REPEAT point."""
    sweep_dir = tmp_path / "bench9" / "sweep-FIELD_BYTES"
    sweep_dir.mkdir(parents=True)
    base = _results_of(fixture_dir)
    for value, cpu in points:
        point = sweep_dir / f"FIELD_BYTES={value}"
        if isinstance(cpu, list):
            (tmp_path / f"tmp{value}").mkdir()
            shutil.copytree(_bench_with_repetitions(tmp_path / f"tmp{value}", fixture_dir, cpu), point)
            (point / "run.env").write_text((point / "run.env").read_text() + f"FIELD_BYTES={value}\n")
            repeat.write(str(point))
            continue
        point.mkdir()
        shutil.copy(os.path.join(fixture_dir, "bench.env"), point / "bench.env")
        (point / "run.env").write_text(open(os.path.join(fixture_dir, "run.env")).read() + f"FIELD_BYTES={value}\n")
        r = copy.deepcopy(base)
        for run in r["runs"]:
            run["per_doc"]["cpu_us"] = cpu[0] if run["database"] == "mongodb" else cpu[1]
        (point / "results.json").write_text(json.dumps(r))
    return sweep_dir


def test_sweep_assembles_points_in_value_order_with_plots(tmp_path, fixture_dir):
    sweep_dir = _sweep(tmp_path, fixture_dir, [(1000, (300.0, 150.0)), (50, (100.0, 80.0)), (200, (150.0, 100.0))])
    assert main(["sweep", "--sweep-dir", str(sweep_dir)]) == 0
    res = json.loads((sweep_dir / "results.json").read_text())
    assert res["kind"] == "sweep" and res["key"] == "FIELD_BYTES" and res["values"] == [50, 200, 1000]
    assert res["bench"] == "bench9/sweep-FIELD_BYTES"
    cpu = res["series"]["postgres"]["per_doc.cpu_us"]
    assert [(s["value"], s["mean"], s["n"], s["ci"]) for s in cpu] == [(50, 80.0, 1, None), (200, 100.0, 1, None),
                                                                       (1000, 150.0, 1, None)]
    assert [s["mean"] for s in res["ratios"]["mongodb/postgres"]["per_doc.cpu_us"]] == pytest.approx([1.25, 1.5, 2.0])
    assert res["plots"] == ["plots/cpu.png", "plots/storage.png", "plots/latency.png"]  # no WAL figure in these runs
    for p in res["plots"]:
        with open(sweep_dir / p, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    text = (sweep_dir / "report.md").read_text()
    assert "## CPU (µs/doc) against FIELD_BYTES" in text and "| 200 | 150 | 100 | 1.500x |" in text
    assert "![cpu](plots/cpu.png)" in text


def test_sweep_of_repeated_points_carries_their_intervals(tmp_path, fixture_dir):
    sweep_dir = _sweep(tmp_path, fixture_dir, [(100, [(200.0, 100.0), (220.0, 100.0), (210.0, 105.0)]),
                                               (400, [(300.0, 100.0), (320.0, 100.0), (310.0, 105.0)])])
    res = sweep.write(str(sweep_dir))
    first = res["series"]["mongodb"]["per_doc.cpu_us"][0]
    assert first["n"] == 3 and first["ci"]["half_width"] == pytest.approx(4.303 * 10 / 3 ** 0.5, rel=1e-4)
    assert [p["repeat"] for p in res["points"]] == [3, 3]
    assert "| 100 | 210 ± 25 | 102 ± 7.2 | 2.065x (1.801 .. 2.367) |" in (sweep_dir / "report.md").read_text()


def test_sweep_marks_a_point_that_did_not_finish(tmp_path, fixture_dir):
    sweep_dir = _sweep(tmp_path, fixture_dir, [(50, (100.0, 80.0)), (200, (150.0, 100.0))])
    os.remove(sweep_dir / "FIELD_BYTES=200" / "results.json")
    res = sweep.write(str(sweep_dir))
    assert not res["complete"] and res["incomplete"][0].startswith("FIELD_BYTES=200: no results.json")
    assert [s["value"] for s in res["series"]["mongodb"]["per_doc.cpu_us"]] == [50]


def test_report_command_regenerates_repeat_and_sweep_folders(tmp_path, fixture_dir, monkeypatch):
    bench = _bench_with_repetitions(tmp_path, fixture_dir, [(200.0, 100.0), (220.0, 100.0)])
    sweep_dir = _sweep(tmp_path, fixture_dir, [(50, (100.0, 80.0)), (200, (150.0, 100.0))])
    plain, made = experiment_report.split([str(bench), str(sweep_dir.parent)])
    assert plain == []
    assert str(bench / "report.md") in made and str(sweep_dir / "report.md") in made
    assert (sweep_dir / "FIELD_BYTES=50" / "report.md").exists()


SPECS = {"FIELDS": {"type": "int", "allowed": "an integer >= 1"},
         "FIELD_BYTES": {"type": "int", "allowed": "an integer >= 1"},
         "RATE": {"type": "number", "allowed": "a number > 0"},
         "KEY": {"type": "enum", "allowed": "one of uuidv7, uuidv4, sequence", "values": ["uuidv7", "uuidv4", "sequence"]},
         "MODEL": {"type": "enum", "allowed": "one of event, bucket, native", "values": ["event", "bucket", "native"]},
         "DESCRIPTION": {"type": "text", "allowed": "non-empty text on one line"}}


@pytest.mark.parametrize("arg, message", [
    ("FIELD_BYTES", "expected KEY=v1,v2,..."),
    ("FIELD_BYTE=1,2", "unknown bench key (did you mean FIELD_BYTES?); keys that can be swept (numeric): FIELDS, FIELD_BYTES, RATE; "
     "enum keys, swept as categories: KEY, MODEL"),
    ("DESCRIPTION=a,b", "DESCRIPTION is neither numeric nor an enum (non-empty text on one line)"),
    ("KEY=1,2", "'1' is not a value of KEY; KEY takes one of uuidv7, uuidv4, sequence"),
    ("MODEL=event,event", "a value is given twice"),
    ("MODEL=bucket", "at least two values"),
    ("FIELD_BYTES=50,abc", "'abc' is not a number; FIELD_BYTES takes an integer >= 1"),
    ("FIELD_BYTES=50,2.5", "'2.5' is not an integer; FIELD_BYTES takes an integer >= 1"),
    ("FIELD_BYTES=50,,100", "an empty value"),
    ("FIELD_BYTES=50,50", "50 is given twice"),
    ("RATE=1.0,1", "1 is given twice"),
    ("FIELD_BYTES=50", "at least two values"),
])
def test_sweep_args_refuses_bad_input(arg, message):
    with pytest.raises(AnalysisError) as e:
        sweep_args.parse(arg, SPECS)
    assert message in str(e.value)


def test_sweep_args_accepts_numbers():
    assert sweep_args.parse("RATE=0.5,2", SPECS) == ("RATE", ["0.5", "2"])
    assert sweep_args.parse("FIELD_BYTES=50,100,200,400,1000", SPECS)[1] == ["50", "100", "200", "400", "1000"]


def test_sweep_args_accepts_enum_values_as_categories_in_the_order_given():
    assert sweep_args.parse("MODEL=native,event,bucket", SPECS) == ("MODEL", ["native", "event", "bucket"])


def test_compare_reads_a_repeat_bench_by_its_means_and_its_interval(tmp_path, fixture_dir):
    from analysis.experiments import compare
    bench = _bench_with_repetitions(tmp_path, fixture_dir, [(200.0, 100.0), (220.0, 100.0), (210.0, 105.0)])
    repeat.write(str(bench))
    (tmp_path / "x").mkdir()
    other = _bench_with_repetitions(tmp_path / "x", fixture_dir, [(300.0, 100.0), (300.0, 101.0), (300.0, 102.0)])
    repeat.write(str(other))
    rows, unmatched = compare.compare(compare.load(str(bench)), compare.load(str(other)))
    cpu = next(r for r in rows if r["database"] == "mongodb" and r["figure"] == "cpu_us")
    assert cpu["ref1"] == pytest.approx(210.0) and cpu["ref2"] == pytest.approx(300.0)
    assert cpu["beyond_noise"] is True
    pg = next(r for r in rows if r["database"] == "postgres" and r["figure"] == "cpu_us")
    # postgres moved 0.3%, inside the first side's interval (+-7.2 of 101.7, about 7%): noise
    assert pg["beyond_noise"] is False and pg["noise_pct"] == pytest.approx(100 * 7.17 / 101.67, rel=1e-2)


def test_compare_refuses_a_sweep_with_the_way_to_compare_points(tmp_path, fixture_dir):
    from analysis.experiments import compare
    sweep_dir = _sweep(tmp_path, fixture_dir, [(50, (100.0, 80.0)), (200, (150.0, 100.0))])
    sweep.write(str(sweep_dir))
    with pytest.raises(AnalysisError, match="compared point by point.*FIELD_BYTES=50"):
        compare.load(str(sweep_dir))


def test_branch_keeps_repetitions_and_points(tmp_path, fixture_dir, monkeypatch):
    import subprocess
    from analysis.experiments import branch
    repo = tmp_path / "lab"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u",
           "GIT_COMMITTER_EMAIL": "u@x"}
    git = lambda *a: subprocess.run(["git", *a], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout  # noqa: E731
    git("init", "-q", "-b", "main")
    (repo / "README.md").write_text("lab\n")
    git("add", ".")
    git("commit", "-qm", "lab")
    bench = _bench_with_repetitions(repo, fixture_dir, [(200.0, 100.0), (220.0, 100.0)])
    repeat.write(str(bench))
    sweep_dir = _sweep(tmp_path, fixture_dir, [(50, (100.0, 80.0)), (200, (150.0, 100.0))])
    shutil.move(str(sweep_dir.parent), str(repo / "bench8"))
    sweep.write(str(repo / "bench8" / "sweep-FIELD_BYTES"))
    monkeypatch.chdir(repo)
    name = branch.run(["bench9", "bench8/sweep-FIELD_BYTES"], [], allow_incomplete=False)
    files = set(git("ls-tree", "-r", "--name-only", name).split())
    assert {"bench9/results.json", "bench9/repeat-1/results.json", "bench9/repeat-2/results.json",
            "bench8/sweep-FIELD_BYTES/results.json", "bench8/sweep-FIELD_BYTES/FIELD_BYTES=50/results.json",
            "bench8/sweep-FIELD_BYTES/plots/cpu.png"} <= files
    readme = git("show", f"{name}:README.md")
    assert "## bench9: 2 repetitions (mean ± 95% CI)" in readme
    assert "mongodb/postgres CPU per document: 2.098x (" in readme
    assert "## bench8/sweep-FIELD_BYTES: sweep of FIELD_BYTES over 50, 200" in readme
    assert "FIELD_BYTES=50: 1.25x, FIELD_BYTES=200: 1.50x" in readme


def test_new_run_fields_come_along_generically(tmp_path, fixture_dir):
    """wb's additions (phase ids with load phases, per_op, wal) need no change here: every numeric
    field is summarised, load and run phases pair up, and the WAL plot appears when there is a figure."""
    sweep_dir = _sweep(tmp_path, fixture_dir, [(50, (100.0, 80.0)), (200, (150.0, 100.0))])
    for point, wal in (("FIELD_BYTES=50", 1000.0), ("FIELD_BYTES=200", 4000.0)):
        path = sweep_dir / point / "results.json"
        r = json.loads(path.read_text())
        runs = []
        for run in r["runs"]:
            for stage in ("load", "run"):
                x = copy.deepcopy(run)
                x["phase"] = run["database"] + ("-load" if stage == "load" else "")
                x["per_op"] = {"cpu_us": run["per_doc"]["cpu_us"], "wal_bytes": wal * (2 if run["database"] == "postgres" else 1),
                               "by_op": {"read": {"cpu_us": 3.0}}}
                x["wal"] = {"bytes": 123456, "source": "pg_current_wal_lsn", "reason": None}
                runs.append(x)
        r["runs"] = runs
        path.write_text(json.dumps(r))
    res = sweep.write(str(sweep_dir))
    assert list(res["ratios"]) == ["mongodb-load/postgres-load", "mongodb/postgres"]
    assert [s["mean"] for s in res["series"]["postgres-load"]["per_op.wal_bytes"]] == [2000.0, 8000.0]
    assert "per_op.by_op.read.cpu_us" in res["series"]["mongodb"] and "wal.bytes" in res["series"]["mongodb"]
    assert "wal.source" not in res["series"]["mongodb"]
    assert res["plots"][:2] == ["plots/cpu.png", "plots/wal.png"]
    assert "## WAL/journal (B/op) against FIELD_BYTES" in (sweep_dir / "report.md").read_text()


def test_schema_holds_the_promise_a_missing_interval_has_a_reason(tmp_path, fixture_dir):
    from analysis.experiments import experiment_schema
    bench = _bench_with_repetitions(tmp_path, fixture_dir, [(200.0, 100.0), (220.0, 100.0)])
    res = repeat.build(str(bench))
    experiment_schema.validate(res)
    broken = copy.deepcopy(res)
    s = broken["figures"]["mongodb"]["per_doc.cpu_us"]
    s["ci"], s["reason"] = None, None
    with pytest.raises(AnalysisError, match="experiment.schema.json at 'figures/mongodb/per_doc.cpu_us/reason'"):
        experiment_schema.validate(broken)


def test_a_paired_sweep_is_labelled_as_pairs_a_grid_as_every_combination():
    from analysis.experiments.sweep_categories import axis_label
    paired = {"key": "KEY+LAYOUT", "values": ["uuidv7, clustered", "uuidv4, clustered", "sequence, heap", "uuidv4, heap"]}
    grid = {"key": "ISOLATION+CLIENTS", "values": ["read-committed, 2", "read-committed, 8", "serializable, 2", "serializable, 8"]}
    assert axis_label(paired) == "KEY + LAYOUT (pairs)"
    assert axis_label(grid) == "ISOLATION x CLIENTS"
    assert axis_label({"key": "FIELD_BYTES", "values": [100, 1000]}) == "FIELD_BYTES"
