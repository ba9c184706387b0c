"""What analysis needs of a run's workload (that tsbs is an ingest counting a bucket upsert as an
insert, that booking and oltp run transactions, what the count must hold) comes from plan.json's
`workload`, which the workload's own file declares (client/src/workloads/<name>.workload.js
`analysis`, written by the real `node client plan --json`); runs made before plan.json carried it
fall back to analysis/bench/plan.py's table of the six workloads' facts."""
import glob
import json
import os
import subprocess

from analysis.bench import plan
from analysis.figures import results
from analysis.render import check
from analysis.tests import txn_fixture, ycsb_fixture

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def plan_json(env_file):
    return json.loads(subprocess.run(["node", os.path.join(ROOT, "client"), "plan", "--json", env_file],
                                     capture_output=True, text=True, check=True).stdout)


def write_plan(bench_dir, edit=None):
    doc = plan_json(os.path.join(bench_dir, "run.env"))
    if edit:
        edit(doc)
    with open(os.path.join(bench_dir, "plan.json"), "w") as f:
        json.dump(doc, f)
    return doc


def runs_of(bench_dir):
    return {r["phase"]: r for r in results.build(bench_dir)["runs"]}


def test_the_fallback_table_holds_what_each_shipped_workloads_file_declares():
    seen = set()
    for env in sorted(glob.glob(os.path.join(ROOT, "*", "bench.env"))):
        w = plan_json(env)["workload"]
        assert plan.workload_facts("/nonexistent", w["name"]) == {k: v for k, v in w.items() if k != "name"}, env
        seen.add(w["name"])
    assert seen == set(plan._FACTS_BEFORE_PLAN)  # every workload has a shipped bench


def test_without_a_plan_the_six_workloads_keep_their_facts(tmp_path):
    d = str(tmp_path)
    assert plan.workload_facts(d, "tsbs")["insert_ops"] == ["insert", "bucket"] and plan.workload_facts(d, "tsbs")["ingest"]
    assert [w for w in plan._FACTS_BEFORE_PLAN if plan.workload_facts(d, w)["transactions"]] == ["booking", "oltp"]
    assert plan.workload_facts(d, "oltp")["count_expected"] == {"basis": "setting", "setting": "TABLE_ROWS"}
    # no workload named (a phase without client results): an insert's
    assert plan.workload_facts(d, None) == plan.workload_facts(d, "insert")


def test_a_plan_with_the_workloads_facts_gives_the_same_runs_as_the_fallback(tmp_path):
    # the booking fixture: transactions merged, one seat per committed booking, with or without plan.json
    txn_fixture.build(str(tmp_path))
    before = runs_of(str(tmp_path))
    doc = write_plan(str(tmp_path))
    assert doc["workload"]["name"] == "booking" and doc["workload"]["transactions"]
    after = runs_of(str(tmp_path))
    for phase, run in before.items():
        for field in ("transactions", "docs_expected_in_db", "per_doc", "ingest", "booking_check"):
            assert after[phase][field] == run[field], (phase, field)
    assert after["postgres"]["transactions"]["committed"] > 0


def test_analysis_follows_the_plans_facts_not_the_workloads_name(tmp_path):
    ycsb_fixture.build(str(tmp_path))
    plain = runs_of(str(tmp_path))
    # the run phase mixes reads and updates: no per-document costs, and the count holds the load's records
    assert plain["postgres"]["per_doc"]["cpu_us"] is None and "insert costs" in plain["postgres"]["per_doc"]["reason"]

    def edit(doc):
        doc["workload"].update(insert_ops=["insert", "read", "update"], transactions=False,
                               count_expected={"basis": "setting", "setting": "RECORDS"})
    doc = write_plan(str(tmp_path), edit)
    runs = runs_of(str(tmp_path))
    # every operation of the phase now counts as an insert: per-document costs are not refused
    assert "reason" not in runs["postgres"]["per_doc"]
    assert runs["postgres"]["docs_expected_in_db"] == doc["settings"]["values"]["RECORDS"]


def test_the_checks_ingest_and_transaction_rows_apply_by_the_workloads_facts(tmp_path):
    txn_fixture.build(str(tmp_path))
    results.write(str(tmp_path))
    table, _ = check.evaluate(str(tmp_path))
    rows = dict(table)
    ingest = rows["storage per event / host-hour (tsbs)"]["postgres"]
    assert ingest.state == check.NOT_CHECKED and ingest.text == "not checked (WORKLOAD=booking has no ingest figures)"
    assert rows["transactions committed, retries, CPU each"]["postgres"].state == check.OK
    # a plan saying the workload runs no transactions: the row is not checked, naming why
    write_plan(str(tmp_path), lambda doc: doc["workload"].update(transactions=False))
    cell = dict(check.evaluate(str(tmp_path))[0])["transactions committed, retries, CPU each"]["postgres"]
    assert cell.state == check.NOT_CHECKED and "runs no transactions" in cell.text
