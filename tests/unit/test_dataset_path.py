"""A DATASET file (WORKLOAD=events) is named relative to its bench folder: the plan holds it absolute
(plan.json settings.given and the clients' settings; lab/driver/request.py write_run_plan, with dataset_base for the copies the check and a sweep's points make),
and lab/stack.sh mounts it read-only into the client containers at /dataset/<name>."""
import json
import subprocess
from pathlib import Path

import pytest

from lab.driver import request as req

ROOT = Path(__file__).resolve().parents[2]
BENCH = 'DESCRIPTION=x\nWORKLOAD=events\nDATASET=data/ev.ndjson\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=1\n'
EVENT = json.dumps({"id": "1", "type": "PushEvent", "actor": {"id": 1, "login": "a"}, "repo": {"id": 1, "name": "a/b"}, "created_at": "2024-01-01T00:00:00Z", "payload": {}})


def bash(script, **env):
    return subprocess.run(["bash", "-c", f'LAB_ROOT="{ROOT}"; . "{ROOT}/lab/plan.sh"; . "{ROOT}/lab/bench.sh"; . "{ROOT}/lab/stack.sh"; {script}'],
                          capture_output=True, text=True, env={"PATH": "/usr/local/bin:/usr/bin:/bin", **env})


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


def test_clients_get_the_file_read_only_at_slash_dataset(tmp_path):
    out = bash("dataset_args", DATASET=f"{tmp_path}/ev.ndjson.gz", BENCH_DIR=str(tmp_path)).stdout.split("\n")
    assert out[:4] == ["-v", f"{tmp_path}/ev.ndjson.gz:/dataset/ev.ndjson.gz:ro", "-e", "DATASET=/dataset/ev.ndjson.gz"]
    out = bash("client_env_args", DATASET="/x/ev.ndjson", BENCH_KEYS="WORKLOAD DATASET").stdout.split("\n")
    assert "DATASET" not in out  # not passed through as the host path
    assert "DATASET=/dataset/ev.ndjson" in out
    assert bash("dataset_args").stdout == ""


def test_set_values_with_spaces_are_read_whole(tmp_path):
    """--set DATABASES="mongodb postgres mysql": each override is one value, spaces and all, in the
    plan (settings.given, the clients' settings); a value with a single quote is refused as before."""
    (tmp_path / "bench.env").write_text("DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=clustered\nFIELDS=1\nFIELD_BYTES=1\n"
                                        "CLIENTS=1\nRATE=1\nDOCS=1\n")
    req.write_run_plan(str(ROOT), str(tmp_path), ["DATABASES=mongodb postgres mysql", "DESCRIPTION=a b"], quiet=True)
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert [plan["settings"]["given"][k] for k in ("DATABASES", "DESCRIPTION")] == ["mongodb postgres mysql", "a b"]
    assert plan["settings"]["values"]["DATABASES"] == ["mongodb", "postgres", "mysql"]
    (tmp_path / "plan.json").unlink()
    with pytest.raises(req.BadInput, match="--set 'DESCRIPTION=it's': expected KEY=VALUE"):
        req.write_run_plan(str(ROOT), str(tmp_path), ["DESCRIPTION=it's"], quiet=True)
    assert not (tmp_path / "plan.json").exists()
    assert not (tmp_path / "run.env").exists() and not (tmp_path / "plan.json.tmp").exists()
