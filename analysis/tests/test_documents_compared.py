"""DIGEST=documents: results.json `documents_compared` from the phases' count digests: equal on all,
different keys (always a failure), different documents after concurrent updates (stated, not a
failure) and different documents where nothing was updated (a failure)."""
from analysis.figures.results import documents_compared


def run(db, stage, sha, keys="k", ops=("insert",)):
    return {"database": db, "stage": stage, "operations": {op: {} for op in ops},
            "documents_digest": {"documents": 10, "sha256": sha, "keys_sha256": keys}}


def test_equal_on_all_three():
    [c] = documents_compared([run("mongodb", "run", "a"), run("postgres", "run", "a"), run("mysql", "run", "a")])
    assert c["equal"] is True and c["keys_equal"] is True and c["order_dependent"] is False and c["differ"] is None


def test_documents_differ_after_concurrent_updates_but_keys_do_not():
    ops = ("read", "update")
    load, run_ = documents_compared([run("mongodb", "load", "a"), run("mongodb", "run", "b", ops=ops),
                                     run("postgres", "load", "a"), run("postgres", "run", "c", ops=ops)])
    assert load["stage"] == "load" and load["equal"] is True and load["order_dependent"] is False
    assert run_["equal"] is False and run_["keys_equal"] is True and run_["order_dependent"] is True
    assert run_["differ"] == "postgres against mongodb"


def test_different_keys_and_sequence_keys():
    [c] = documents_compared([run("mongodb", "run", "a", keys="k1"), run("postgres", "run", "b", keys="k2")])
    assert c["keys_equal"] is False and c["equal"] is False and c["order_dependent"] is False
    [c] = documents_compared([run("mongodb", "run", "a", keys=None), run("postgres", "run", "a", keys=None)])
    assert c["keys_equal"] is None and c["equal"] is True
    assert documents_compared([{"database": "mongodb", "stage": "run", "documents_digest": None}]) == []
