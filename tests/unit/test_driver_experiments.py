"""The experiment level's decisions (lab/driver/experiments.py), without Docker: the order of a sweep's
points and their repetitions, the summaries after them (innermost first), what an interrupt or an error
leaves, and what prepare writes. The real plans (node client plan); run_bench and the summaries are a
stand-in's that record what they were given."""
import json
import os

import pytest

from driver_standin import SMALL, StandInLab, Summaries, bench
from lab.driver import request as req
from lab.driver.experiments import Experiments, experiment_folder


def sweep_of(*words):
    return req.sweep_parse(list(words), req.bench_key_specs(StandInLab().root))


def prepared(tmp_path, sweep, overrides, lab=None, text=SMALL):
    lab = lab or StandInLab()
    d = bench(tmp_path, "bench-s", text)
    ex = Experiments(lab, sweep, Summaries(lab))
    ex.prepare(d, overrides)
    return lab, ex, d


def test_a_sweep_runs_each_points_repetitions_then_their_summary_then_the_sweeps(tmp_path):
    lab, ex, d = prepared(tmp_path, sweep_of("FIELDS=1,2"), ["REPEAT=2", "RATE=7"])
    s = f"{d}/sweep-FIELDS"
    assert (tmp_path / "bench-s" / "sweep-FIELDS" / "values").read_text() == "1\n2\n"
    ex.run(d)
    assert lab.ran == [f"{s}/FIELDS=1/repeat-1", f"{s}/FIELDS=1/repeat-2", ("repeat", f"{s}/FIELDS=1"),
                       f"{s}/FIELDS=2/repeat-1", f"{s}/FIELDS=2/repeat-2", ("repeat", f"{s}/FIELDS=2"),
                       ("sweep", s)]
    assert lab.said == [("bench-s", "sweep point FIELDS=1"), ("FIELDS=1", "repetition 1 of 2 (fresh volumes)"),
                        ("FIELDS=1", "repetition 2 of 2 (fresh volumes)"), ("bench-s", "sweep point FIELDS=2"),
                        ("FIELDS=2", "repetition 1 of 2 (fresh volumes)"), ("FIELDS=2", "repetition 2 of 2 (fresh volumes)")]
    # each repetition: the point's keys with the run's overrides, REPEAT=1
    g = lab.given[f"{s}/FIELDS=2/repeat-2"]
    assert (g["FIELDS"], g["RATE"], g["REPEAT"]) == ("2", "7", "1")
    assert experiment_folder(d, ex.sweep) == s and ex.pending == []
    assert sorted(os.listdir(d)) == ["bench.env", "sweep-FIELDS"]


def test_a_grid_runs_its_points_in_the_order_of_the_values(tmp_path):
    lab, ex, d = prepared(tmp_path, sweep_of("FIELDS=1,2", "RATE=5,9"), [])
    ex.run(d)
    s = f"{d}/sweep-FIELDS+RATE"
    assert lab.ran == [f"{s}/FIELDS={f}+RATE={r}" for f in (1, 2) for r in (5, 9)] + [("sweep", s)]
    assert (tmp_path / "bench-s" / "sweep-FIELDS+RATE" / "values").read_text() == "1+5\n1+9\n2+5\n2+9\n"
    assert lab.given[f"{s}/FIELDS=2+RATE=5"]["RATE"] == "5"


def test_an_interrupt_stops_at_the_next_turn_and_still_summarises_what_finished(tmp_path):
    lab, ex, d = prepared(tmp_path, sweep_of("FIELDS=1,2"), ["REPEAT=3"], lab=StandInLab(interrupt_after=2))
    ex.run(d)
    s = f"{d}/sweep-FIELDS"
    assert lab.ran == [f"{s}/FIELDS=1/repeat-1", f"{s}/FIELDS=1/repeat-2", ("repeat", f"{s}/FIELDS=1"), ("sweep", s)]
    assert not os.path.exists(f"{s}/FIELDS=1/repeat-3")


def test_an_error_leaves_the_pending_summaries_to_summarise_all_innermost_first(tmp_path):
    lab, ex, d = prepared(tmp_path, sweep_of("FIELDS=1,2"), ["REPEAT=2"], lab=StandInLab(fail_at=3))
    with pytest.raises(RuntimeError):
        ex.run(d)
    s = f"{d}/sweep-FIELDS"
    assert ex.pending == [("sweep", s), ("repeat", f"{s}/FIELDS=2")]
    ex.summarise_all()
    assert lab.ran[-2:] == [("repeat", f"{s}/FIELDS=2"), ("sweep", s)] and ex.pending == []


def test_a_failed_summary_is_said_and_the_run_goes_on(tmp_path):
    class Failing(Summaries):
        def repeat(self, folder):
            return False
    lab = StandInLab()
    d = bench(tmp_path, "bench-r", SMALL)
    ex = Experiments(lab, req.Sweep(), Failing(lab))
    ex.prepare(d, ["REPEAT=2"])
    ex.run(d)
    assert lab.said[-1] == (None, f"the repetitions' summary failed: {d}")


def test_prepare_removes_the_previous_results_and_keeps_the_definition(tmp_path):
    d = tmp_path / "bench-p"
    d.mkdir()
    (d / "bench.env").write_text(SMALL)
    (d / "override.env").write_text("x\n")
    for f in ("results.json", "report.md", "mongodb.phase.json", "run.env", "plan.txt"):
        (d / f).write_text("old\n")
    for sub in ("repeat-1", "sweep-FIELDS", "timeseries"):
        (d / sub).mkdir()
        (d / sub / "x").write_text("old\n")
    lab = StandInLab()
    Experiments(lab, req.Sweep(), Summaries(lab)).prepare(str(d), ["DOCS=20"])
    assert sorted(os.listdir(d)) == ["bench.env", "override.env", "plan.json"]
    assert json.loads((d / "plan.json").read_text())["settings"]["given"]["DOCS"] == "20"


def test_a_sweep_points_plan_finds_a_relative_dataset_in_the_bench_folder(tmp_path):
    text = 'DESCRIPTION=x\nWORKLOAD=events\nDATASET=data/ev.ndjson\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=1\n'
    event = json.dumps({"id": "1", "type": "PushEvent", "actor": {"id": 1, "login": "a"}, "repo": {"id": 1, "name": "a/b"},
                        "created_at": "2024-01-01T00:00:00Z", "payload": {}})
    (tmp_path / "bench-s" / "data").mkdir(parents=True)
    (tmp_path / "bench-s" / "data" / "ev.ndjson").write_text(event + "\n")
    lab = StandInLab()
    d = str(tmp_path / "bench-s")
    (tmp_path / "bench-s" / "bench.env").write_text(text)
    Experiments(lab, sweep_of("CLIENTS=1,2"), Summaries(lab)).prepare(d, [])
    plan = json.loads((tmp_path / "bench-s" / "sweep-CLIENTS" / "CLIENTS=2" / "plan.json").read_text())
    assert plan["settings"]["given"]["DATASET"] == f"{d}/data/ev.ndjson"
