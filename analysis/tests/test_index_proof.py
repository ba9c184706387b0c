"""WORKLOAD=globalsign: count's index proof (D.count.json `index_proof`, client/src/count.schema.json)
reaches results.json as runs[].index_proof, checked against analysis/results.schema.json; a proof whose
plan does not use the index is said in the run's notes and the bench's, never dropped; a count without
one (every other workload) adds no field."""
import json
import os

from analysis.figures import results, schema
from analysis.tests import ycsb_fixture

USED = {"statement": "select data from globalsign where (data->'age') > '45' and (data->'age') < '75'",
        "index": "globalsign_age_band", "used": True, "index_used": "globalsign_age_band",
        "plan_node": {"Node Type": "Bitmap Index Scan", "Index Name": "globalsign_age_band"},
        "plan_nodes": ["Bitmap Heap Scan", "Bitmap Index Scan on globalsign_age_band"], "executions_before": 6,
        "plan_cache": {"generic_plans": 7, "custom_plans": 0}, "method": "EXPLAIN (FORMAT JSON) EXECUTE"}
NOT_USED = {**USED, "used": False, "index_used": None, "plan_node": {"Node Type": "Seq Scan"}, "plan_nodes": ["Seq Scan"],
            "plan_cache": None}


def _with_proofs(bench, proofs):
    for phase, proof in proofs.items():
        path = os.path.join(bench, f"{phase}.count.json")
        with open(path) as f:
            count = json.load(f)
        count["index_proof"] = proof
        with open(path, "w") as f:
            json.dump(count, f)


def test_index_proof_reaches_results_and_a_plan_without_the_index_is_said(tmp_path):
    bench = str(tmp_path / "b")
    ycsb_fixture.build(bench)
    _with_proofs(bench, {"postgres": USED, "mongodb": NOT_USED})
    res = results.build(bench)
    schema.validate(res)
    by_phase = {r["phase"]: r for r in res["runs"]}
    assert by_phase["postgres"]["index_proof"] == USED
    assert by_phase["mongodb"]["index_proof"] == NOT_USED
    said = [n for n in by_phase["mongodb"]["notes"] if n.startswith("index proof:")]
    assert said == ["index proof: the plan of the range statement does not use globalsign_age_band (plan: Seq Scan)"]
    assert not [n for n in by_phase["postgres"]["notes"] if n.startswith("index proof:")]
    assert any(n.startswith("mongodb: index proof:") for n in res["notes"])
    # the load phases' counts printed none: no field
    assert "index_proof" not in by_phase["postgres-load"]


def test_a_proof_without_a_plan_says_why(tmp_path):
    bench = str(tmp_path / "b")
    ycsb_fixture.build(bench)
    _with_proofs(bench, {"mongodb": {**NOT_USED, "used": None, "plan_node": None, "plan_nodes": [], "reason": "explain failed: 59"}})
    res = results.build(bench)
    schema.validate(res)
    [run] = [r for r in res["runs"] if r["phase"] == "mongodb"]
    assert run["index_proof"]["used"] is None
    assert "index proof: no plan read for globalsign_age_band (explain failed: 59)" in run["notes"]
