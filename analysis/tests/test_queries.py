"""analysis/figures/queries.py: the `queries` comparison of query phases (answers equal -> ratios; answers
differ -> the comparison fails with both answers; a refusal -> unsupported with the server's words),
results.json end to end from a bench folder's files, and the REPEAT summary."""
import json

from analysis.figures import queries, results, schema
from analysis.render.report import bench_report
from analysis.tests.helpers import client_result


def query_run(db, name, digests, rows=None, status="ok", reason=None, cpu_s=1.0, latency_p50=10.0, stand_in=False,
              row_count=1):
    answered = len(digests)
    per_execution = [{"k": k, "digest": d, "rows": row_count} for k, d in enumerate(digests)]
    answers = [{"k": k, "rows": (rows or {}).get(k, [["r", k]] if row_count else [])} for k in range(answered)]
    q = {"name": name, "status": status, "reason": reason, "executions": 3, "answered": answered,
         "normalisation": {"digits": 12, "ordered": True, "order_columns": None, "columns": ["repo", "n"]},
         "digest": "".join(digests) if answered == 3 else None, "per_execution": per_execution, "answers": answers,
         "params_of_first": {"limit": 10}}
    run = {"database": db, "phase": f"{db}-q-{name}", "stage": "query", "status": "ok", "stand_in": stand_in,
           "operations": {name: {"ok": answered, "latency_ms": {"p50": latency_p50, "p99": 2 * latency_p50, "max": 3 * latency_p50},
                                 "service_ms": {"p50": latency_p50, "p99": latency_p50}}},
           "cpu": {"user_s": cpu_s, "system_s": 0.0, "instructions": None, "perf_reason": "no hardware counters"},
           "network": {"rx_bytes": 300, "tx_bytes": 300}, "disk": {"read_bytes": None, "write_bytes": None, "reason": "no block I/O"}}
    run["query"] = queries.run_query(run, [("c.json", {"query": q})], "/nonexistent")
    return run


def test_equal_answers_give_ratios_per_query():
    runs = [query_run("mongodb", "olap-a", ["a", "b", "c"], cpu_s=3.0, latency_p50=30.0),
            query_run("postgres", "olap-a", ["a", "b", "c"], cpu_s=1.0, latency_p50=10.0)]
    q = queries.compare(runs)["olap-a"]
    assert q["status"] == "ok" and q["answers_equal"] is True
    assert q["ratio"]["cpu_us"] == 3.0 and q["ratio"]["latency_p50_ms"] == 3.0
    assert q["ratio"]["instructions"] is None  # no figure on either side: no ratio
    assert q["databases"]["postgres"]["per_query"]["cpu_us"] == 1e6 / 3


def test_a_suspect_query_phase_gives_no_ratio():
    runs = [query_run("mongodb", "olap-a", ["a", "b", "c"], cpu_s=3.0),
            query_run("postgres", "olap-a", ["a", "b", "c"], cpu_s=1.0)]
    runs[1].update(status="suspect", reason="other_databases_active_ms 1923 > expected 0 + tolerance 0")
    q = queries.compare(runs)["olap-a"]
    assert q["answers_equal"] is True and q["ratio"] is None
    assert q["reason"].startswith("no ratio: postgres phase suspect (other_databases_active_ms")


def test_two_empty_answers_are_said_to_be_empty_with_no_ratio():
    """0 rows on both sides digest equal but prove nothing (e.g. a time range outside the data)."""
    empty = "e3b0c442"  # the same digest of an empty answer on both sides
    runs = [query_run("mongodb", "olap-a", [empty] * 3, row_count=0, cpu_s=3.0),
            query_run("postgres", "olap-a", [empty] * 3, row_count=0, cpu_s=1.0)]
    q = queries.compare(runs)["olap-a"]
    assert q["status"] == "empty" and q["ratio"] is None and q["answers_equal"] is None
    assert "answer was empty" in q["reason"]
    s = queries.repeat_summary([{"queries": {"olap-a": q}}] * 2, {})["olap-a"]
    assert s["status"] == "empty" and s["ratio"] is None
    # one side empty, the other not: an ordinary difference
    runs[1] = query_run("postgres", "olap-a", ["a", "b", "c"])
    assert queries.compare(runs)["olap-a"]["status"] == "answers differ"


def test_a_different_answer_fails_the_comparison_and_shows_both_answers():
    runs = [query_run("mongodb", "olap-a", ["a", "x", "c"], rows={1: [["repo-1", 4]]}),
            query_run("postgres", "olap-a", ["a", "b", "c"], rows={1: [["repo-1", 5]]})]
    q = queries.compare(runs)["olap-a"]
    assert q["status"] == "answers differ" and q["answers_equal"] is False
    assert q["ratio"] is None
    d = q["first_difference"]
    assert d["k"] == 1
    assert d["mongodb"]["answer"] == [["repo-1", 4]] and d["postgres"]["answer"] == [["repo-1", 5]]
    assert "execution 1" in q["reason"]


def test_a_refusal_is_unsupported_with_the_servers_words_and_no_ratio():
    runs = [query_run("mongodb", "olap-lookup", [], status="unsupported",
                      reason='the server refused the query: `aggregate` stage "$lookup" is not implemented yet'),
            query_run("postgres", "olap-lookup", ["a", "b", "c"])]
    q = queries.compare(runs)["olap-lookup"]
    assert q["status"] == "unsupported" and q["ratio"] is None and q["answers_equal"] is None
    assert "$lookup" in q["reason"] and q["reason"].startswith("mongodb:")
    assert q["databases"]["postgres"]["per_query"]["latency_p50_ms"] == 10.0
    assert q["databases"]["mongodb"]["per_query"]["cpu_us"] is None


def test_repeat_summary_keeps_intervals_only_when_every_repetition_agreed():
    ok = {"queries": {"olap-a": {"status": "ok", "answers_equal": True}}}
    bad = {"queries": {"olap-a": {"status": "answers differ", "answers_equal": False}}}
    ratios = {"mongodb-q-olap-a/postgres-q-olap-a": {"query.per_query.cpu_us_net": {"mean": 2.0, "ci": {"low": 1.5, "high": 2.5}}}}
    s = queries.repeat_summary([ok, ok], ratios)["olap-a"]
    assert s["status"] == "ok" and s["ratio"]["cpu_us_net"]["mean"] == 2.0 and s["answers_equal"] == [True, True]
    s = queries.repeat_summary([ok, bad], ratios)["olap-a"]
    assert s["status"] == "answers differ" and s["ratio"] is None and "repetitions 2" in s["reason"]


def test_results_json_and_report_from_a_bench_folder(tmp_path):
    """A minimal bench folder with two query phases whose answers differ: results.json validates
    against the schema with runs[].query and `queries`, and report.md shows both answers."""
    bench = tmp_path / "ev"
    (bench / "clients").mkdir(parents=True)
    (bench / "bench.env").write_text('DESCRIPTION="q"\nWORKLOAD=events\nQUERIES="olap-a"\nDATABASES="mongodb postgres"\n')
    for db, rows in (("mongodb", [["r/1", 4]]), ("postgres", [["r/1", 5]])):
        ph = f"{db}-q-olap-a"
        (bench / f"{ph}.phase.json").write_text(json.dumps({
            "database": db, "phase": ph, "stage": "query", "service": db, "status": "ok", "reason": "",
            "clients": 1, "window": {"start": 100.0, "end": 110.0}, "query": "olap-a"}))
        (bench / f"{ph}.plan.json").write_text(json.dumps({"plan": {}}))
        digest = "d-" + db
        (bench / "clients" / f"{ph}-client-1.json").write_text(json.dumps(client_result(
            database=db, workload="events", stage="query", phase=ph, docs_ok=1, docs_target=1,
            operations={"olap-a": {"ok": 1, "errors": 0, "dropped": 0, "docs": 1}},
            query={"name": "olap-a", "status": "ok", "executions": 1, "answered": 1, "digest": digest,
                   "normalisation": {"columns": ["repo", "n"]},
                   "per_execution": [{"k": 0, "digest": digest, "rows": 1}], "answers": [{"k": 0, "rows": rows}]})))
    r = results.build(str(bench))
    schema.validate(r)
    q = r["queries"]["olap-a"]
    assert q["status"] == "answers differ" and q["first_difference"]["postgres"]["answer"] == [["r/1", 5]]
    assert [run["query"]["plan_file"] for run in r["runs"]] == ["mongodb-q-olap-a.plan.json", "postgres-q-olap-a.plan.json"]
    (bench / "results.json").write_text(json.dumps(r))
    bench_report(str(bench))
    report = (bench / "report.md").read_text()
    assert "## Queries" in report and "ANSWERS DIFFER" in report
    assert "['r/1', 4]" in report and "['r/1', 5]" in report
    assert "(postgres-q-olap-a.plan.json)" in report


def test_repeat_report_section():
    ok = {"queries": {"olap-a": {"status": "ok", "answers_equal": True}}}
    ratios = {"mongodb-q-olap-a/postgres-q-olap-a": {"query.per_query.cpu_us_net": {"mean": 2.0, "ci": {"low": 1.5, "high": 2.5}}}}
    text = "\n".join(queries.repeat_report_lines(queries.repeat_summary([ok, ok], ratios)))
    assert "| olap-a | yes, yes | ok | n/a | 2.000x [1.500, 2.500] | n/a |" in text


def test_plan_txt_gives_the_expected_phases_and_their_order(tmp_path):
    """QUERIES=all's names are known only to the client: the lab's plan.txt says which phases a
    bench must have, so a query phase that never ran makes the run incomplete."""
    from analysis.bench import phases, plan
    (tmp_path / "plan.txt").write_text(
        "phase=postgres database=postgres stage=run ops=5 rate=1 expected_s=5 clients=1 query=-\n"
        "phase=postgres-q-lastpoint database=postgres stage=query ops=2 rate=0 expected_s=10 clients=1 query=lastpoint\n"
        "phase=postgres-q-high-cpu-1 database=postgres stage=query ops=2 rate=0 expected_s=10 clients=1 query=high-cpu-1\n")
    settings = {"DATABASES": "postgres", "WORKLOAD": "tsbs", "QUERIES": "all"}
    assert plan.expected_phases(str(tmp_path), settings) == ["postgres", "postgres-q-lastpoint", "postgres-q-high-cpu-1"]
    for ph in ("postgres-q-high-cpu-1", "postgres", "postgres-q-lastpoint"):
        (tmp_path / f"{ph}.phase.json").write_text("{}")
    assert phases.phases_in(str(tmp_path)) == ["postgres", "postgres-q-lastpoint", "postgres-q-high-cpu-1"]
    (tmp_path / "plan.txt").unlink()
    assert plan.expected_phases(str(tmp_path), settings) == ["postgres"]
