"""analysis/bench/plan.py: a run's plan.json (written by the real `node client plan --json`) is read,
checked against client/src/plan.schema.json, and wins over plan.txt and run.env; runs without it
fall back to those files."""
import json
import os
import subprocess

import pytest

from analysis.bench import plan
from analysis.figures import results
from analysis.common.errors import AnalysisError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def write_plan(bench_dir, env_file="run.env"):
    out = subprocess.run(["node", os.path.join(ROOT, "client"), "plan", "--json", os.path.join(bench_dir, env_file)],
                         capture_output=True, text=True, check=True).stdout
    with open(os.path.join(bench_dir, "plan.json"), "w") as f:
        f.write(out)
    return json.loads(out)


def test_plan_json_gives_the_phases_settings_and_repetitions(tmp_path):
    (tmp_path / "run.env").write_text((open(os.path.join(ROOT, "tsbs-queries", "bench.env")).read())
                                      + "QUERIES=all\nREPEAT=2\n")
    doc = write_plan(str(tmp_path))
    # a plan.txt of an older lab is not read when plan.json is there
    (tmp_path / "plan.txt").write_text("phase=other database=postgres stage=run ops=1 rate=1 expected_s=1 clients=1 query=-\n")
    assert plan.read(str(tmp_path)) == doc
    ids = plan.phases(str(tmp_path))
    assert ids == [p["id"] for p in doc["phases"]] and "postgres-q-lastpoint" in ids  # QUERIES=all's names
    assert plan.expected_phases(str(tmp_path), {}) == ids
    s = plan.settings(str(tmp_path))
    # defaults filled in, as the clients got them; keys that do not apply left out
    assert s["WORK_MEM"] == "4MB" and s["SEED"] == "1" and s["REPEAT"] == "2" and "DOCS" not in s
    assert s["QUERIES"].split() == [i.split("-q-", 1)[1] for i in ids if i.startswith("postgres-q-")]
    assert plan.repetitions(str(tmp_path)) == 2


def test_old_runs_fall_back_to_plan_txt_and_run_env(tmp_path):
    (tmp_path / "bench.env").write_text("DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=clustered\nFIELDS=1\nFIELD_BYTES=1\n"
                                        "CLIENTS=1\nRATE=1\nDOCS=1\n")
    assert plan.phases(str(tmp_path)) is None and plan.settings(str(tmp_path)) is None
    assert plan.expected_phases(str(tmp_path), None) == ["mongodb", "postgres"]  # the original study's pair
    assert plan.repetitions(str(tmp_path)) == 1
    (tmp_path / "run.env").write_text("WORKLOAD=ycsb\nDATABASES=postgres\nREPEAT=3\n")
    assert plan.settings(str(tmp_path)) == {"WORKLOAD": "ycsb", "DATABASES": "postgres", "REPEAT": "3"}
    assert plan.expected_phases(str(tmp_path), plan.settings(str(tmp_path))) == ["postgres-load", "postgres"]
    assert plan.repetitions(str(tmp_path)) == 3
    (tmp_path / "plan.txt").write_text("phase=postgres database=postgres stage=run ops=1 rate=1 expected_s=1 clients=1 query=-\n")
    assert plan.phases(str(tmp_path)) == ["postgres"]


@pytest.mark.parametrize("change, where", [
    (lambda d: d.update(schema_version=2), "schema_version"),
    (lambda d: d["phases"][0].update(stage="warmup"), "phases/0/stage"),
    (lambda d: d["settings"]["values"].update(CLIENTS="8"), "settings/values/CLIENTS"),
    (lambda d: d.pop("repetitions"), "'(top level)'"),
])
def test_a_plan_json_outside_its_schema_is_refused_naming_the_file_and_the_place(tmp_path, change, where):
    (tmp_path / "run.env").write_text(open(os.path.join(ROOT, "bench1", "bench.env")).read())
    doc = write_plan(str(tmp_path))
    change(doc)
    (tmp_path / "plan.json").write_text(json.dumps(doc))
    with pytest.raises(AnalysisError) as e:
        plan.phases(str(tmp_path))
    assert str(tmp_path / "plan.json") in str(e.value) and "plan.schema.json" in str(e.value) and where in str(e.value)


def test_results_expect_the_phases_of_plan_json(fixture_benches):
    """The same run with plan.json: the same results.json verdict; a planned phase that never ran
    makes the run incomplete, as plan.json says it should have run."""
    bench = fixture_benches["ci-standin-run"]
    before = results.build(bench)
    write_plan(bench)
    after = results.build(bench)
    assert (after["complete"], after["incomplete"], [r["phase"] for r in after["runs"]]) == \
        (before["complete"], before["incomplete"], [r["phase"] for r in before["runs"]])
    assert after["config"]["run"] == before["config"]["run"]  # run.env as written, as before
    doc = json.loads(open(os.path.join(bench, "plan.json")).read())
    doc["phases"].append({**doc["phases"][1], "id": "postgres-again"})
    with open(os.path.join(bench, "plan.json"), "w") as f:
        json.dump(doc, f)
    assert "postgres-again: no phase file (phase never ran)" in results.build(bench)["incomplete"]


@pytest.mark.parametrize("fixture", ["bench1", "bench2", "ci-standin-run", "timescaledb-compress"])
def test_config_run_comes_from_the_plan_as_run_env_gave_it(tmp_path, fixture):
    """results.json `config.run` of a new run (no run.env: plan.json `settings.given`) is what run.env
    gave a run before, key for key and in order; a run made before plan.json carried it (a recorded
    fixture: run.env, no plan.json) still reads run.env."""
    import shutil
    bench = tmp_path / fixture
    shutil.copytree(os.path.join(os.path.dirname(__file__), "fixtures", fixture), bench)
    if not (bench / "bench.env").exists():
        shutil.copy(bench / "bench.env.recorded", bench / "bench.env")
    assert not (bench / "plan.json").exists()
    before = results.build(str(bench))["config"]["run"]
    assert before == plan.run_settings(str(bench)) and list(before) == list(results.benchfiles.run_env(str(bench)))
    write_plan(str(bench))
    (bench / "run.env").unlink()
    after = results.build(str(bench))["config"]["run"]
    assert json.dumps(after) == json.dumps(before)
