"""The lab writes the plan once as data (lab/plan.sh write_plan: `node client plan --json bench.env
--set ...` -> plan.json) and takes its settings and phases from that file (lab/plan-read.py), in the same words
the line form gave: bash computes nothing of the plan itself."""
import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "client" / "src" / "plan.schema.json").read_text())
SHIPPED = sorted(p.parent.name for p in ROOT.glob("*/bench.env"))


def bash(script, *args):
    return subprocess.run(["bash", "-c", f'set -u; LAB_ROOT="{ROOT}"; . "{ROOT}/lab/plan.sh"; {script}', "_", *args],
                          capture_output=True, text=True)


def node(*args):
    return subprocess.run(["node", str(ROOT / "client"), *args], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("bench", SHIPPED)
def test_the_lab_reads_from_plan_json_what_the_client_computed(tmp_path, bench):
    shutil.copy(ROOT / bench / "bench.env", tmp_path / "bench.env")
    r = bash('write_plan "$1" && load_bench_settings "$1/plan.json" && read_plan "$1/plan.json" && '
             'printf "%s\\n" "${PLAN[@]}" && echo "keys=$BENCH_KEYS" && echo "workload=$WORKLOAD clients=$CLIENTS"', str(tmp_path))
    assert r.returncode == 0, r.stderr
    plan = json.loads((tmp_path / "plan.json").read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(plan)
    lines = r.stdout.splitlines()
    assert lines[:-2] == node("plan", str(tmp_path / "bench.env")).splitlines()
    env = node("plan", "--print-env", str(tmp_path / "bench.env")).splitlines()
    assert lines[-2] == "keys=" + " ".join(e.split("=", 1)[0] for e in env) + " "
    v = plan["settings"]["values"]
    assert lines[-1] == f"workload={v['WORKLOAD']} clients={v['CLIENTS']}"
    assert not (tmp_path / "plan.json.tmp").exists()


def test_a_refused_bench_writes_no_plan(tmp_path):
    shutil.copy(ROOT / "bench1" / "bench.env", tmp_path / "bench.env")
    r = bash('write_plan "$1" --set FIELDS=0', str(tmp_path))
    assert r.returncode == 2 and "FIELDS" in r.stderr and "plan --json" in r.stderr
    assert not (tmp_path / "plan.json").exists() and not (tmp_path / "plan.json.tmp").exists()


def test_a_plan_file_with_a_phase_outside_the_contract_is_refused_naming_it(tmp_path):
    shutil.copy(ROOT / "bench1" / "bench.env", tmp_path / "bench.env")
    assert bash('write_plan "$1"', str(tmp_path)).returncode == 0
    plan = json.loads((tmp_path / "plan.json").read_text())
    plan["phases"][0]["id"] = "../etc"
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    r = bash('read_plan "$1/plan.json"', str(tmp_path))
    assert r.returncode == 2 and "phase=../etc" in r.stderr
    (tmp_path / "plan.json").write_text("{}")
    r = bash('read_plan "$1/plan.json"', str(tmp_path))
    assert r.returncode == 2 and "plan.json: not a plan" in r.stderr


def test_plan_read_gives_the_keys_as_written_and_the_repetitions(tmp_path):
    """lab/plan-read.py given: what plans a repetition (settings.given as KEY=value words);
    repetitions: REPEAT, which lab/experiments.sh reads instead of a run.env."""
    shutil.copy(ROOT / "bench1" / "bench.env", tmp_path / "bench.env")
    assert bash('write_plan "$1" --set REPEAT=3 --set "DESCRIPTION=a b"', str(tmp_path)).returncode == 0
    given = subprocess.run(["python3", str(ROOT / "lab/plan-read.py"), "given", str(tmp_path / "plan.json")],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    assert given[-1] == "REPEAT=3" and "DESCRIPTION=a b" in given and "DOCS=100000" in given
    reps = subprocess.run(["python3", str(ROOT / "lab/plan-read.py"), "repetitions", str(tmp_path / "plan.json")],
                          capture_output=True, text=True, check=True).stdout
    assert reps == "3\n"
