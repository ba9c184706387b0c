"""A REPEAT=N bench's repetitions are planned from its plan.json, not from a run.env (no longer
written): each repeat-k gets a plan.json of the folder's keys as written with REPEAT=1, in the order
and with the values its run.env held before (the folder's run.env lines, then REPEAT=1, read as
analysis reads an env file), a bench.env value with a single quote included. The real write_run_plan
and Experiments.run_repeated (lab/driver); run_bench and the summary are a stand-in's (no Docker)."""
import json
from pathlib import Path

from analysis.common.fileio import read_env_file
from driver_standin import StandInLab, Summaries
from lab.driver import request as req
from lab.driver.experiments import Experiments
from lab.driver.request import Sweep

ROOT = Path(__file__).resolve().parents[2]


def test_each_repetition_is_planned_with_the_folders_keys_and_repeat_1(tmp_path):
    bench = tmp_path / "bench-rep"
    bench.mkdir()
    text = ((ROOT / "bench1" / "bench.env").read_text()
            .replace('DESCRIPTION=', '#DESCRIPTION=') + "\nDESCRIPTION=\"it's a test\"\n")
    (bench / "bench.env").write_text(text)
    sets = ["REPEAT=3", "DOCS=50", "DATABASES=postgres mongodb"]
    req.write_run_plan(str(ROOT), str(bench), sets, quiet=True)
    lab = StandInLab()
    Experiments(lab, Sweep(), Summaries(lab)).run_repeated(str(bench))
    assert lab.ran == [f"{bench}/repeat-{k}" for k in (1, 2, 3)] + [("repeat", str(bench))]
    assert [m for _, m in lab.said] == [f"repetition {k} of 3 (fresh volumes)" for k in (1, 2, 3)]
    assert {b for b, _ in lab.said} == {"bench-rep"}
    parent = json.loads((bench / "plan.json").read_text())
    assert parent["repetitions"] == 3 and parent["settings"]["given"]["DESCRIPTION"] == "it's a test"
    # what run.env held before: bench.env, the --set lines, and for a repetition REPEAT=1 after them
    old = tmp_path / "run.env"
    old.write_text(text + "".join(f"{kv.split('=', 1)[0]}='{kv.split('=', 1)[1]}'\n" for kv in sets) + "REPEAT=1\n")
    for k in (1, 2, 3):
        rep = bench / f"repeat-{k}"
        plan = json.loads((rep / "plan.json").read_text())
        assert plan["repetitions"] == 1 and plan["bench"] == f"repeat-{k}"
        assert json.dumps(plan["settings"]["given"]) == json.dumps(read_env_file(str(old)))
        assert plan["settings"]["values"]["DATABASES"] == ["postgres", "mongodb"] and plan["settings"]["values"]["DOCS"] == 50
        assert not (rep / "run.env").exists()
    assert not (bench / "run.env").exists() and not (bench / "plan.txt").exists()


def test_a_bench_without_repeat_runs_once_in_its_own_folder_without_a_summary(tmp_path):
    bench = tmp_path / "b"
    bench.mkdir()
    (bench / "bench.env").write_text((ROOT / "bench1" / "bench.env").read_text())
    req.write_run_plan(str(ROOT), str(bench), ["DOCS=50"], quiet=True)
    lab = StandInLab()
    Experiments(lab, Sweep(), Summaries(lab)).run_repeated(str(bench))
    assert lab.ran == [str(bench)] and lab.said == []
    assert not list(bench.glob("repeat-*"))
