"""results.json `fairness` (analysis/figures/fairness.py): each difference stated from the command lines
that ran (D.settings.json) and the bench keys, and report.md's table of them."""
from analysis.figures import fairness, results, schema
from analysis.render.report import bench_report

MONGO = {"command": ["mongod", "--bind_ip_all", "--wiredTigerCacheSizeGB", "4", "--syncdelay", "60"], "labels": {}}
PG = {"command": ["postgres", "-c", "shared_buffers=4GB", "-c", "checkpoint_timeout=60s"], "labels": {}}


def by_what(rows):
    return {r["what"]: r for r in rows}


def test_checkpoint_interval_is_aligned_only_when_both_command_lines_say_so():
    rows = by_what(fairness.statements({"mongodb": MONGO, "postgres": PG}, {}))
    cp = rows["checkpoint interval"]
    assert cp["aligned"] is True and cp["mongodb"] == "60 s (--syncdelay)" and cp["postgres"] == "checkpoint_timeout=60s"
    study = {"command": ["postgres", "-c", "checkpoint_timeout=300s"], "labels": {}}
    assert by_what(fairness.statements({"mongodb": MONGO, "postgres": study}, {}))["checkpoint interval"]["aligned"] is False


def test_oplog_compression_work_mem_and_idle_cpu_are_stated():
    rows = by_what(fairness.statements({"mongodb": MONGO, "postgres": PG}, {"WORK_MEM": "4MB"}))
    assert rows["replication log"]["mongodb"] == "standalone: no oplog" and rows["replication log"]["aligned"] is False
    assert rows["replication log"]["postgres"] == "wal_level=replica (default)"
    assert rows["compression at rest"]["aligned"] is False
    assert rows["sort / hash memory"]["postgres"] == "work_mem=4MB per sort/hash node (default)"
    assert "FTDC" in rows["idle CPU"]["mongodb"]
    aligned = by_what(fairness.statements({"mongodb": MONGO, "postgres": PG}, {"WORK_MEM": "100MB"}))
    assert aligned["sort / hash memory"]["aligned"] is True and "(WORK_MEM)" in aligned["sort / hash memory"]["postgres"]


def test_a_stand_in_is_named_instead_of_mongods_settings():
    si = {"command": None, "labels": {"jsonbench.stand_in": "SecantusDB standing in for MongoDB"}}
    rows = by_what(fairness.statements({"mongodb": si, "postgres": PG}, {}))
    assert rows["checkpoint interval"]["mongodb"].startswith("stand-in (SecantusDB")
    assert rows["checkpoint interval"]["aligned"] is False
    # what mongod would do is not said of a server that is not mongod
    assert all(r["mongodb"].startswith("stand-in (SecantusDB") for r in rows.values()), rows


def test_results_json_carries_fairness_and_the_report_shows_it(fixture_benches):
    import json
    import os
    bench = fixture_benches["bench1"]
    for db, s in (("mongodb", MONGO), ("postgres", PG)):
        with open(os.path.join(bench, f"{db}.settings.json"), "w") as f:
            json.dump(s, f)
    r = results.build(bench)
    schema.validate(r)
    assert by_what(r["fairness"])["checkpoint interval"]["aligned"] is True
    with open(os.path.join(bench, "results.json"), "w") as f:
        json.dump(r, f)
    bench_report(bench)
    text = open(os.path.join(bench, "report.md")).read()
    assert "## Fairness: differences stated" in text and "| replication log | standalone: no oplog |" in text
