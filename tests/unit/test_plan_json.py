"""The lab writes the plan once as data (lab/driver/plan.py write_plan: `node client plan --json bench.env
--set ...` -> plan.json) and takes its settings and phases from that file (lab/driver/plan.py Plan), the
same phases the line form gave: the driver computes nothing of the plan itself."""
import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from lab.driver.plan import Plan, number, write_plan
from lab.driver.request import BadInput

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "client" / "src" / "plan.schema.json").read_text())
SHIPPED = sorted(p.parent.name for p in ROOT.glob("*/bench.env"))


def node(*args):
    return subprocess.run(["node", str(ROOT / "client"), *args], capture_output=True, text=True, check=True).stdout


def line(p):
    return (f"phase={p.id} database={p.database} stage={p.stage} ops={p.ops} rate={number(p.rate)} "
            f"expected_s={number(p.expected_s)} clients={p.clients} query={p.query or '-'}")


@pytest.mark.parametrize("bench", SHIPPED)
def test_the_lab_reads_from_plan_json_what_the_client_computed(tmp_path, bench):
    shutil.copy(ROOT / bench / "bench.env", tmp_path / "bench.env")
    write_plan(str(ROOT), str(tmp_path))
    plan = json.loads((tmp_path / "plan.json").read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(plan)
    read = Plan(str(tmp_path / "plan.json"), str(ROOT))
    assert [line(p) for p in read.phases] == node("plan", str(tmp_path / "bench.env")).splitlines()
    env = node("plan", "--print-env", str(tmp_path / "bench.env")).splitlines()
    assert list(read.environment) == [e.split("=", 1)[0] for e in env]
    v = plan["settings"]["values"]
    assert (read.environment["WORKLOAD"], read.environment["CLIENTS"]) == (v["WORKLOAD"], str(v["CLIENTS"]))
    assert not (tmp_path / "plan.json.tmp").exists()


def test_a_refused_bench_writes_no_plan(tmp_path, capfd):
    shutil.copy(ROOT / "bench1" / "bench.env", tmp_path / "bench.env")
    with pytest.raises(BadInput, match="plan --json") as e:
        write_plan(str(ROOT), str(tmp_path), ["FIELDS=0"])
    assert "--set FIELDS=0" in str(e.value) and "FIELDS" in capfd.readouterr().err
    assert not (tmp_path / "plan.json").exists() and not (tmp_path / "plan.json.tmp").exists()


def test_a_plan_file_with_a_phase_outside_the_contract_is_refused_naming_it(tmp_path):
    shutil.copy(ROOT / "bench1" / "bench.env", tmp_path / "bench.env")
    write_plan(str(ROOT), str(tmp_path))
    plan = json.loads((tmp_path / "plan.json").read_text())
    plan["phases"][0]["id"] = "../etc"
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    with pytest.raises(BadInput, match="phase=../etc"):
        Plan(str(tmp_path / "plan.json"), str(ROOT))
    plan["phases"] = []
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    with pytest.raises(BadInput, match="has no phase"):
        Plan(str(tmp_path / "plan.json"), str(ROOT))
    (tmp_path / "plan.json").write_text("{}")
    with pytest.raises(BadInput, match="plan.json: not a plan"):
        Plan(str(tmp_path / "plan.json"), str(ROOT))


def test_the_plan_gives_the_keys_as_written_and_the_repetitions(tmp_path):
    """settings.given as KEY=value words: what plans a repetition; repetitions: REPEAT, which the
    experiments read instead of a run.env."""
    shutil.copy(ROOT / "bench1" / "bench.env", tmp_path / "bench.env")
    write_plan(str(ROOT), str(tmp_path), ["REPEAT=3", "DESCRIPTION=a b"])
    plan = Plan(str(tmp_path / "plan.json"), str(ROOT))
    given = plan.given_sets()
    assert given[-1] == "REPEAT=3" and "DESCRIPTION=a b" in given and "DOCS=100000" in given
    assert plan.repetitions == 3
