"""The lab asks the plan whether the workload runs transactions (plan.json `workload.transactions`,
declared by the workload's file, read by lab/plan-read.py `fact`): lab/bench.sh is_txn_workload
names no workload. Every shipped bench, through the lab's own load_run_env."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.parent.name for p in ROOT.glob("*/bench.env"))


@pytest.mark.parametrize("bench", SHIPPED)
def test_is_txn_workload_is_the_plans_fact(tmp_path, bench):
    shutil.copy(ROOT / bench / "bench.env", tmp_path / "bench.env")
    r = subprocess.run(["bash", "-c", f'LAB_ROOT="{ROOT}"; . "{ROOT}/lab/plan.sh"; . "{ROOT}/lab/bench.sh"; '
                        'write_plan "$1" && load_run_env "$1" && if is_txn_workload; then echo txn; else echo other; fi', "_", str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert r.stdout.split()[-1] == ("txn" if plan["workload"]["transactions"] else "other")
    assert (r.stdout.split()[-1] == "txn") == (plan["settings"]["values"]["WORKLOAD"] in ("booking", "oltp"))


def test_a_fact_the_plan_lacks_is_refused_naming_the_file(tmp_path):
    (tmp_path / "plan.json").write_text(json.dumps({"workload": {"name": "insert"}}))
    r = subprocess.run(["python3", str(ROOT / "lab/plan-read.py"), "fact", "transactions", str(tmp_path / "plan.json")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "plan.json: not a plan" in r.stderr and "transactions" in r.stderr
