"""The driver asks the plan whether the workload runs transactions (plan.json `workload.transactions`,
declared by the workload's file, lab/driver/plan.py Plan.transactions): no workload is named in the lab.
Every shipped bench, through the driver's own write_plan and Plan."""
import json
import shutil
from pathlib import Path

import pytest

from lab.driver.plan import Plan, write_plan
from lab.driver.request import BadInput

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.parent.name for p in ROOT.glob("*/bench.env"))


@pytest.mark.parametrize("bench", SHIPPED)
def test_transactions_is_the_plans_fact(tmp_path, bench):
    shutil.copy(ROOT / bench / "bench.env", tmp_path / "bench.env")
    write_plan(str(ROOT), str(tmp_path))
    read = Plan(str(tmp_path / "plan.json"), str(ROOT))
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert read.transactions == plan["workload"]["transactions"]
    assert read.transactions == (plan["settings"]["values"]["WORKLOAD"] in ("booking", "oltp"))


def test_a_fact_the_plan_lacks_is_refused_naming_the_file(tmp_path):
    shutil.copy(ROOT / "bench1" / "bench.env", tmp_path / "bench.env")
    write_plan(str(ROOT), str(tmp_path))
    plan = json.loads((tmp_path / "plan.json").read_text())
    plan["workload"] = {"name": "insert"}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    with pytest.raises(BadInput, match="plan.json: not a plan.*transactions"):
        Plan(str(tmp_path / "plan.json"), str(ROOT)).transactions
