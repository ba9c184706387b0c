"""Three databases through ./runme.sh on the real stack (issue 17): bench1's insert and YCSB-A with
DATABASES="mongodb postgres mysql" (MySQL's stand-in: MariaDB 10.11), every document read back after
each phase (DIGEST=documents) and digested: the same keys and documents on all three, per-document
and per-operation figures for each, a report with a column per database and the mysql/postgres
ratio. One runme.sh run of both benches (one stack start)."""
import json

import pytest

from conftest import bench_fixture

DBS = ["mongodb", "postgres", "mysql"]
CLIENTS, DOCS, RECORDS, OPS = 2, 600, 300, 200
COMMON = f"""\
KEY=uuidv7
LAYOUT=clustered
FIELDS=10
CLIENTS={CLIENTS}
SEED=7
QUIET_S=0
PERF_RECORD_S=0
DIGEST=documents
DATABASES="{' '.join(DBS)}"
"""
# 2 x 600 documents: the read-back crosses its 1000-row pages on PostgreSQL and MySQL
INSERT = f'DESCRIPTION="three databases, insert"\nFIELD_BYTES=1000\nRATE=200\nDOCS={DOCS}\n' + COMMON
YCSB = (f'DESCRIPTION="three databases, YCSB-A"\nFIELD_BYTES=100\nRATE=100\nWORKLOAD=ycsb\nMIX=A\n'
        f'RECORDS={RECORDS}\nOPS={OPS}\n' + COMMON)

three = bench_fixture(("bench-e2e-three-insert", INSERT), ("bench-e2e-three-ycsb", YCSB), log="runme-three.log")


@pytest.fixture(scope="module")
def insert(three):
    benches, proc = three
    assert proc.returncode == 0, proc.stdout[-4000:]
    return benches["bench-e2e-three-insert"]


@pytest.fixture(scope="module")
def ycsb(three):
    benches, proc = three
    assert proc.returncode == 0, proc.stdout[-4000:]
    return benches["bench-e2e-three-ycsb"]


def by_phase(results):
    return {r["phase"]: r for r in results["runs"]}


def test_insert_runs_every_database_in_the_order_given_with_figures(insert):
    bench, results = insert
    assert results["complete"], results["incomplete"]
    assert [r["phase"] for r in results["runs"]] == DBS
    for r in results["runs"]:
        assert r["status"] == "ok", (r["phase"], r["reason"])
        assert r["docs_ok"] == r["docs_in_db"] == CLIENTS * DOCS
        assert r["per_doc"]["cpu_us"] > 0 and r["per_doc"]["net_bytes"] > 0
        # 10 x 1000-character fields: no database stores a document in fewer bytes than its text
        assert r["per_doc"]["storage_bytes"] > 10_000
    my = by_phase(results)["mysql"]
    assert my["stand_in"] and "MariaDB" in my["stand_in_what"] and "not a MySQL result" in my["stand_in_what"]
    assert my["server_version"].startswith("10.11") and "MariaDB" in my["server_version"]
    # redo and binary log bytes: the server's own counters at the window edges (D.server-stats.json),
    # each at least the documents' text (every document goes into both logs whole)
    stats = json.loads((bench / "mysql.server-stats.json").read_text())
    delta = {k: stats["end"]["counters"][k] - stats["start"]["counters"][k] for k in ("redo_lsn", "binlog_bytes")}
    assert my["wal"]["bytes"] == delta["redo_lsn"] and my["binlog"]["bytes"] == delta["binlog_bytes"]
    assert my["per_op"]["wal_bytes"] > 10_000 and my["per_op"]["binlog_bytes"] > 10_000
    assert my["reconciliation"]["verdict"] == "ok", my["reconciliation"]
    # its ratio against the baseline's denominator, beside the pair's
    ratio = results["other_ratios"]["mysql/postgres"]["cpu_us"]
    assert ratio == pytest.approx(my["per_doc"]["cpu_us"] / by_phase(results)["postgres"]["per_doc"]["cpu_us"])


def test_insert_documents_read_back_are_the_same_on_all_three(insert):
    bench, results = insert
    [c] = results["documents_compared"]
    assert c["stage"] == "run" and c["equal"] is True and c["differ"] is None
    assert c["documents"] == {db: CLIENTS * DOCS for db in DBS}
    assert set(c["digests"]) == set(DBS) and len(set(c["digests"].values())) == 1
    for db in DBS:
        count = json.loads((bench / f"{db}.count.json").read_text())
        assert count["digest"]["sha256"] == c["digests"][db]
        # every document's canonical text: 10 fields of 1000 characters each, plus names and quotes
        assert count["digest"]["canonical_bytes"] > CLIENTS * DOCS * 10_000
    assert "the same keys and documents on all" in (bench / "report.md").read_text()


def test_ycsb_a_same_documents_after_the_load_and_after_the_same_updates(ycsb):
    bench, results = ycsb
    assert results["complete"], results["incomplete"]
    assert [r["phase"] for r in results["runs"]] == [p for db in DBS for p in (f"{db}-load", db)]
    stages = {c["stage"]: c for c in results["documents_compared"]}
    assert set(stages) == {"load", "run"}
    load, run = stages["load"], stages["run"]
    assert load["equal"] is True and load["keys_equal"] is True and not load["order_dependent"], load
    # After the updates: the same keys; the documents equal unless two concurrent updates of one
    # field reached the servers in different orders (each keeps the one it applied last), which
    # the report says rather than failing the run.
    assert run["keys_equal"] is True and run["order_dependent"] is True, run
    assert load["documents"] == run["documents"] == {db: RECORDS for db in DBS}
    if run["equal"] is False:
        assert "which concurrent updates of one field can cause" in (bench / "report.md").read_text()
    # the updates changed documents
    assert load["digests"]["mysql"] != run["digests"]["mysql"]
    for db in DBS:
        r = by_phase(results)[db]
        assert set(r["operations"]) == {"read", "update"}
        assert sum(o["ok"] for o in r["operations"].values()) == CLIENTS * OPS
        assert all(o["errors"] == 0 for o in r["operations"].values())
        assert r["per_op"]["cpu_us"] > 0 and r["per_op"]["net_bytes"] > 0


def test_report_has_a_column_per_database_and_the_third_ratio(insert, ycsb):
    for bench, _ in (insert, ycsb):
        text = (bench / "report.md").read_text()
        assert "not a MySQL result" in text.split("\n## ")[0]  # the stand-in warning, above the first section
        header = next(line for line in text.splitlines() if line.startswith("| per ") and "mysql/postgres" in line)
        cells = [c.strip() for c in header.strip("|").split("|")]
        assert [c.split(" ")[0] for c in cells[1:4]] == DBS and cells[4:6] == [
            "mongodb/postgres (stand-in involved)", "mysql/postgres (stand-in involved)"], cells
        assert "mysql (stand-in) against postgres (stand-in) (mysql/postgres)" in text


def test_grafana_lists_the_three_databases_from_prometheus(insert):
    """The dashboards' database variables are label_values(jsonbench_client_target_rate, database)
    (no list of names in grafana/): asked as Grafana asks (the label values API over the time
    range), this run's Prometheus lists all three."""
    import requests
    from conftest import BIND_ADDRESS, PORTS
    bench, results = insert
    start = min(r["window"]["start"] for r in results["runs"]) - 5
    end = max(r["window"]["end"] for r in results["runs"]) + 5
    r = requests.get(f"http://{BIND_ADDRESS}:{PORTS['PROMETHEUS_PORT']}/api/v1/label/database/values",
                     params={"match[]": "jsonbench_client_target_rate", "start": start, "end": end}, timeout=10)
    assert r.json()["status"] == "success" and sorted(r.json()["data"]) == sorted(DBS), r.text
