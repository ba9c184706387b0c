"""A DATASET file (WORKLOAD=events) is named relative to its bench folder: the plan holds it absolute
(plan.json settings.given and the clients' settings; lab/driver/request.py write_run_plan, with dataset_base for the copies the check and a sweep's points make),
and the driver mounts it read-only into the client containers at /dataset/<name>
(tests/unit/test_client_container_args.py)."""
import json
from pathlib import Path

import pytest

from lab.driver import request as req

ROOT = Path(__file__).resolve().parents[2]
BENCH = 'DESCRIPTION=x\nWORKLOAD=events\nDATASET=data/ev.ndjson\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=1\n'
EVENT = json.dumps({"id": "1", "type": "PushEvent", "actor": {"id": 1, "login": "a"}, "repo": {"id": 1, "name": "a/b"}, "created_at": "2024-01-01T00:00:00Z", "payload": {}})


def last_dataset(plan_json):
    plan = json.loads(plan_json.read_text())
    assert plan["settings"]["given"]["DATASET"] == plan["settings"]["environment"]["DATASET"]
    return "DATASET=" + plan["settings"]["given"]["DATASET"]


def test_the_plan_holds_the_dataset_absolute_relative_to_the_bench_folder(tmp_path):
    src, copy = tmp_path / "src", tmp_path / "copy"
    for d in (src, copy):
        d.mkdir()
        (d / "bench.env").write_text(BENCH)
    # the plan reads the file (its events size the phases): one event of the GitHub Archive form
    (src / "data").mkdir()
    (src / "data" / "ev.ndjson").write_text(EVENT + "\n")
    req.write_run_plan(str(ROOT), str(src), quiet=True)
    assert last_dataset(src / "plan.json") == f"DATASET={src}/data/ev.ndjson"
    assert not (src / "run.env").exists()
    # a copy of the bench (the check's, a sweep point's) resolves against the original folder
    req.write_run_plan(str(ROOT), str(copy), dataset_base=str(src), quiet=True)
    assert last_dataset(copy / "plan.json") == f"DATASET={src}/data/ev.ndjson"


def test_the_checks_validation_finds_a_relative_dataset_in_the_bench_folder(tmp_path):
    """`./runme.sh check` and a sweep validate the bench in a temporary copy before anything starts:
    a relative DATASET is still the bench folder's (lab/check.sh check_validate resolved it against
    the copy, where the file is not, and refused such a bench)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "bench.env").write_text(BENCH)
    (src / "data").mkdir()
    (src / "data" / "ev.ndjson").write_text(EVENT + "\n")
    req.check_validate(str(ROOT), str(src), [], False)
    assert sorted(p.name for p in src.iterdir()) == ["bench.env", "data"]
