"""A sweep of storage forms compares the documents its points read back (sweep results.json
`documents`): equal on every side, a side whose documents differ (the sweep incomplete, that side
named), documents that differ after concurrent updates (said, not a failure), a repeated point's
repetitions as sides of their own, and no comparison for a sweep whose key changes the documents."""
import json
import os
import shutil

from analysis.experiments import sweep, sweep_documents


def point(tmp_path, folder, runs, repetitions=None):
    """A point folder with its results.json: RUNS [(database, stage, sha, ops)], or REPETITIONS of them."""
    path = tmp_path / folder
    path.mkdir()

    def results(rs):
        return {"complete": True, "runs": [
            {"database": db, "stage": stage, "operations": {op: {} for op in ops},
             "documents_digest": {"documents": 200, "sha256": sha, "keys_sha256": "k"}} for db, stage, sha, ops in rs]}
    if repetitions is None:
        (path / "results.json").write_text(json.dumps(results(runs)))
    else:
        (path / "results.json").write_text(json.dumps({"kind": "repeat", "repeat": len(repetitions),
                                                       "repetitions": [{"folder": f"repeat-{i}", "complete": True}
                                                                       for i in range(1, len(repetitions) + 1)]}))
        for i, rs in enumerate(repetitions, 1):
            (path / f"repeat-{i}").mkdir()
            (path / f"repeat-{i}" / "results.json").write_text(json.dumps(results(rs)))
    return path


def test_every_form_holds_the_same_documents(tmp_path):
    pts = [("jsonb+json", "a", point(tmp_path, "a", [("postgres", "run", "s", ["insert"]), ("mysql", "run", "s", ["insert"])])),
           ("relational+relational", "b", point(tmp_path, "b", [("postgres", "run", "s", ["insert"]),
                                                                 ("mysql", "run", "s", ["insert"])]))]
    [c] = sweep_documents.build(["POSTGRES_FORM", "MYSQL_FORM"], pts)
    assert c["equal"] is True and c["keys_equal"] is True and c["differ"] is None
    assert list(c["digests"]) == ["jsonb+json: postgres", "jsonb+json: mysql", "relational+relational: postgres",
                                  "relational+relational: mysql"]
    assert sweep_documents.incomplete([c]) == []
    assert "| run | 4 | 200 | equal on all 4 (digest s) |" in sweep_documents.report_lines([c])


def test_a_form_that_changes_the_documents_is_named_and_the_sweep_is_incomplete(tmp_path):
    pts = [("jsonb", "a", point(tmp_path, "a", [("postgres", "load", "s", ["insert"]), ("postgres", "run", "t", ["read", "update"])])),
           ("json", "b", point(tmp_path, "b", [("postgres", "load", "x", ["insert"]), ("postgres", "run", "u", ["read", "update"])]))]
    load, run = sweep_documents.build(["POSTGRES_FORM"], pts)
    assert load["equal"] is False and load["differ"] == "json: postgres against jsonb: postgres"
    # after concurrent updates of one field, documents may differ legitimately: said, not a failure
    assert run["equal"] is False and run["order_dependent"] is True
    assert sweep_documents.incomplete([load, run]) == [
        "load stage: the documents read back differ across the points (json: postgres against jsonb: postgres)"]
    lines = sweep_documents.report_lines([load, run])
    assert "| load | 2 | 200 | **documents differ**: json: postgres against jsonb: postgres |" in lines
    assert any(line.startswith("| run | 2 | 200 | the same keys; documents differ") for line in lines)


def test_a_repeated_point_gives_a_side_per_repetition(tmp_path):
    pts = [("jsonb", "a", point(tmp_path, "a", None, repetitions=[[("postgres", "run", "s", ["insert"])],
                                                                  [("postgres", "run", "s", ["insert"])]])),
           ("relational", "b", point(tmp_path, "b", [("postgres", "run", "s", ["insert"])]))]
    [c] = sweep_documents.build(["POSTGRES_FORM"], pts)
    assert list(c["digests"]) == ["jsonb (repetition 1): postgres", "jsonb (repetition 2): postgres", "relational: postgres"]
    assert c["equal"] is True


def test_a_sweep_of_a_key_that_makes_other_documents_compares_none(tmp_path):
    pts = [(100, "a", point(tmp_path, "a", [("postgres", "run", "s", ["insert"])])),
           (400, "b", point(tmp_path, "b", [("postgres", "run", "t", ["insert"])]))]
    assert sweep_documents.build(["FIELD_BYTES"], pts) is None
    assert sweep_documents.build(["POSTGRES_FORM", "FIELD_BYTES"], pts) is None
    assert sweep_documents.report_lines(None) == [] and sweep_documents.incomplete(None) == []
    # a forms sweep without DIGEST=documents: nothing read back, nothing compared
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "results.json").write_text(json.dumps({"complete": True, "runs": [{"database": "postgres", "stage": "run"}]}))
    assert sweep_documents.build(["POSTGRES_FORM"], [("jsonb", "bare", bare)]) is None


RECORDED = os.path.join(os.path.dirname(__file__), "fixtures", "forms-sweep", "sweep-POSTGRES_FORM")


def test_a_recorded_forms_sweep_finds_the_same_documents_in_jsonb_and_relational(tmp_path):
    """fixtures/forms-sweep: the e2e storage-forms sweep as run on this machine (PostgreSQL 17 stand-in,
    jsonb and relational, 200 documents of 10 x 100 B each): the sweep's results.json and report.md
    compare the two forms' read-back digests; the same sweep with one point's digest changed is
    incomplete and names it."""
    d = tmp_path / "sweep-POSTGRES_FORM"
    shutil.copytree(RECORDED, d)
    r = sweep.write(str(d))
    (c,) = r["documents"]
    assert c["equal"] is True and c["documents"] == {"jsonb: postgres": 200, "relational: postgres": 200}, c
    assert r["complete"], r["incomplete"]
    assert "| run | 2 | 200 | equal on all 2 (digest 040ca54da9f2) |" in (d / "report.md").read_text()
    point = d / "POSTGRES_FORM=relational" / "results.json"
    res = json.loads(point.read_text())
    res["runs"][0]["documents_digest"]["sha256"] = "0" * 64
    point.write_text(json.dumps(res))
    r = sweep.write(str(d))
    assert not r["complete"] and r["incomplete"] == [
        "run stage: the documents read back differ across the points (relational: postgres against jsonb: postgres)"]
    assert "**documents differ**: relational: postgres against jsonb: postgres" in (d / "report.md").read_text()
