"""Three databases through ./runme.sh on the real stack (issues 17, 24): bench1's insert and YCSB-A
with DATABASES="mongodb postgres mysql" (MySQL's stand-in: Debian's MySQL 9.7, a real MySQL of
another build, labelled a stand-in), every document read back after each phase (DIGEST=documents)
and digested: the same keys and documents on all three, whatever form each stores them in (issue 28's
storage forms: PostgreSQL's json in the insert bench, its relational table in the YCSB bench, jsonb in
the others of tests/e2e; MySQL's relational table in the insert bench, its JSON in the others;
MongoDB's BSON), per-document and per-operation figures for
each, every mysql phase reconciled on MySQL 9.7's measured counter meanings, its redo and binary log
bytes (the binary log against the files left in the data volume), a report with a column per database
and the mysql/postgres ratio. One runme.sh run of both benches (one stack start)."""
import json
import subprocess

import pytest

from conftest import PROJECT, bench_fixture

DBS = ["mongodb", "postgres", "mysql"]
# The insert bench's rate is its documents per client, the YCSB bench's its operations per client
# (OPS, 200; was 100): a client then waits for a database that
# falls behind and cannot drop (its queue bound is one second of load, at least 100). At 200/s with
# 600 per client, a fresh-host CI run's insert bench failed a phase beside the other streams (which
# one, the log's tail did not hold: bench_fixture now prints every verdict); dropping documents on a
# loaded host is what its phases did before (test_each_server_holds_the_cache_... below).
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
# Every storage form at no extra phase: PostgreSQL's json here and its relational table in the YCSB
# bench (jsonb: every other e2e bench's), MySQL's relational table here and its JSON in the YCSB and
# GlobalSign benches; storage and CPU per document of each, and the read-back digests equal across
# them. MySQL's JSON keeps the YCSB bench: its binary log check is PARTIAL_JSON's after-image.
FORMS = {"insert": {"mongodb": "bson", "postgres": "json", "mysql": "relational"},
         "ycsb": {"mongodb": "bson", "postgres": "relational", "mysql": "json"}}
INSERT = (f'DESCRIPTION="three databases, insert"\nFIELD_BYTES=1000\nRATE={DOCS}\nDOCS={DOCS}\n'
          'POSTGRES_FORM=json\nMYSQL_FORM=relational\n' + COMMON)
YCSB = (f'DESCRIPTION="three databases, YCSB-A"\nFIELD_BYTES=100\nRATE={OPS}\nWORKLOAD=ycsb\nMIX=A\n'
        f'RECORDS={RECORDS}\nOPS={OPS}\nPOSTGRES_FORM=relational\n' + COMMON)

# GlobalSign's mixed workers (issue 28): three client groups at once, one client each at its own rate
GS_OPS, GS_RATES = 100, {"inserts": 20, "updates": 25, "selects": 20}
GLOBALSIGN = (f'DESCRIPTION="three databases, GlobalSign streams"\nWORKLOAD=globalsign\nRECORDS={RECORDS}\nAGE_MAX=99\n'
              f'RANGE_MIN=45\nRANGE_MAX=75\nPAD_BYTES=64\nOPS={GS_OPS}\nRATE=20\n'
              'GROUPS="inserts updates selects"\nGROUP_MIXES="insert=100 update=100 range=100"\n'
              f'GROUP_CLIENTS="1 1 1"\nGROUP_RATES="{" ".join(str(r) for r in GS_RATES.values())}"\n'
              + COMMON.replace(f"CLIENTS={CLIENTS}", "CLIENTS=3").replace("FIELDS=10\n", ""))

# YCSB last: its binary log test reads the MySQL data volume the last bench left
three = bench_fixture(("bench-e2e-three-insert", INSERT), ("bench-e2e-three-globalsign", GLOBALSIGN),
                      ("bench-e2e-three-ycsb", YCSB), log="runme-three.log")


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


@pytest.fixture(scope="module")
def globalsign(three):
    benches, proc = three
    assert proc.returncode == 0, proc.stdout[-4000:]
    return benches["bench-e2e-three-globalsign"]


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
        assert r["form"] == FORMS["insert"][r["database"]], (r["phase"], r.get("form"))
    print("per document by form: " + ", ".join(
        f"{r['database']} {r['form']}: {r['per_doc']['storage_bytes']:.0f} B stored, {r['per_doc']['cpu_us']:.0f} us CPU"
        for r in results["runs"]))
    my = by_phase(results)["mysql"]
    # a real MySQL 9.7, Debian's build: a stand-in for the official image, said by its container's
    # label and by the client, which tells the build by @@version_comment
    assert my["stand_in"] and my["stand_in_what"] == "MySQL 9.7.4 (Debian package) standing in for the mysql:9.7 image"
    assert my["product"] == "MySQL" and my["server_version"].startswith("9.7.")
    assert my["server_version_comment"] == "(Debian)" and my["stand_in"] is True
    for f in sorted((bench / "clients").glob("mysql-*.json")):
        server = json.loads(f.read_text())["server"]
        assert server == {"product": "MySQL", "version": my["server_version"], "version_comment": "(Debian)",
                          "stand_in": True, "stands_in_for": "MySQL's official image"}, f
    # redo and binary log bytes: the server's own counters at the window edges (D.server-stats.json),
    # each at least the documents' text (every document goes into both logs whole)
    stats = json.loads((bench / "mysql.server-stats.json").read_text())
    assert stats["end"]["server"]["version_comment"] == "(Debian)"
    assert stats["end"]["raw"]["variables"]["binlog_row_image"] == "FULL"
    delta = {k: stats["end"]["counters"][k] - stats["start"]["counters"][k] for k in ("redo_lsn", "binlog_bytes")}
    assert my["wal"]["bytes"] == delta["redo_lsn"] and my["binlog"]["bytes"] == delta["binlog_bytes"]
    assert my["wal"]["source"] == "Innodb_redo_log_current_lsn"
    assert my["per_op"]["wal_bytes"] > 10_000 and my["per_op"]["binlog_bytes"] > 10_000
    pg = by_phase(results)["postgres"]
    print(f"bench1 per document: mysql redo {my['per_op']['wal_bytes']:.0f} B, binary log "
          f"{my['per_op']['binlog_bytes']:.0f} B; postgres WAL {pg['per_op']['wal_bytes']:.0f} B")
    # reconciled on the meanings measured on 9.7: every counter check decided (none "unavailable")
    rec = my["reconciliation"]
    assert rec["verdict"] == "ok" and rec["server"] == f"MySQL {my['server_version']} (Debian) (stand-in)", rec
    counters = {k: c for k, c in rec["checks"].items() if "expected" in c}
    assert counters["innodb_rows_inserted"]["observed"] == CLIENTS * DOCS
    assert all(c["verdict"] == "ok" for c in counters.values()), counters
    # its ratio against the baseline's denominator, beside the pair's
    ratio = results["other_ratios"]["mysql/postgres"]["cpu_us"]
    assert ratio == pytest.approx(my["per_doc"]["cpu_us"] / by_phase(results)["postgres"]["per_doc"]["cpu_us"])


def test_each_server_holds_the_cache_and_each_container_the_limit_env_asked(insert, ycsb):
    """Without CACHE_MB and DB_MEMORY_MB (.env's sizing): PostgreSQL's shared_buffers and MySQL's
    buffer pool as the servers report them (server-stats `cache`) are the sizes their command lines
    asked (InnoDB's chunk rounding stated), the SecantusDB stand-in reports none (null, with the
    reason), and every container's cgroup holds compose's mem_limit. (With CACHE_MB=384 and
    DB_MEMORY_MB=1024 or 4096 in this bench the insert phases dropped documents on a loaded host, 4
    runs of 4; without them they did not: the keys' own checks are analysis/tests/test_memory_checks.py's
    on a recorded run.) The report's fairness table states both per database."""
    for bench, results in (insert, ycsb):
        for r in results["runs"]:
            c, m = r["cache"], r["memory_limit"]
            limit = int(json.loads((bench / f"{r['database']}.settings.json").read_text())["mem_limit"])
            assert "(.env " in c["asked_from"] and c["asked_bytes"] > 0, (r["phase"], c)
            if r["database"] == "mongodb":
                assert c["read_bytes"] is None and c["agrees"] is None, c
                assert c["reason"] == "not checked: SecantusDB serverStatus has no wiredTiger section"
            else:
                assert c["read_bytes"] == c["expected_bytes"] and c["agrees"] is True, (r["phase"], c)
            if r["database"] == "postgres":
                assert c["read_bytes"] == c["asked_bytes"], c
            assert m["read_bytes"] == m["asked_bytes"] == limit and m["agrees"] is True, (r["phase"], m)
        rows = {f["what"]: f for f in results["fairness"]}
        assert rows["memory limit as the cgroup holds it"]["aligned"] is True
        assert "| cache as the server holds it |" in (bench / "report.md").read_text()


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
    for r in results["runs"]:
        assert r["form"] == FORMS["ycsb"][r["database"]], (r["phase"], r.get("form"))
    for db in DBS:
        r = by_phase(results)[db]
        assert set(r["operations"]) == {"read", "update"}
        assert sum(o["ok"] for o in r["operations"].values()) == CLIENTS * OPS
        assert all(o["errors"] == 0 for o in r["operations"].values())
        assert r["per_op"]["cpu_us"] > 0 and r["per_op"]["net_bytes"] > 0
    for r in results["runs"]:
        assert r["status"] == "ok", (r["phase"], r["reason"])
        if r["database"] == "mysql":
            assert r["reconciliation"]["verdict"] == "ok", (r["phase"], r["reconciliation"])
    # each update's binary log: the before-image holds the whole document (binlog_row_image FULL);
    # PARTIAL_JSON makes the after-image the changed field only; reads log nothing
    my, pg = by_phase(results)["mysql"], by_phase(results)["postgres"]
    updates = my["operations"]["update"]["ok"]
    doc = json.loads((bench / "mysql-load.count.json").read_text())["digest"]["canonical_bytes"] / RECORDS
    per_update = my["binlog"]["bytes"] / updates
    assert doc < per_update < 2 * doc, (per_update, doc)
    print(f"YCSB-A per update: mysql redo {my['wal']['bytes'] / updates:.0f} B, binary log {per_update:.0f} B; "
          f"postgres WAL {pg['wal']['bytes'] / pg['operations']['update']['ok']:.0f} B (documents of {doc:.0f} B)")


def test_ycsb_binary_log_as_read_equals_the_files_left_in_the_data_volume(ycsb):
    """The independent reading of the binary log: the files in MySQL's data volume after the run (the
    YCSB bench's, the last one; its container stopped cleanly at the run's end), read in a container
    of our own, against the run phase's end reading (SHOW BINARY LOGS through the client)."""
    bench, _ = ycsb
    end = json.loads((bench / "mysql.server-stats.json").read_text())["end"]
    listed = {f["name"]: f["bytes"] for f in end["raw"]["binlog_files"]}
    image = json.loads((bench / "mysql.settings.json").read_text())["image"]
    out = subprocess.run(["docker", "run", "--rm", "--network", "none", "--entrypoint", "sh",
                          "-v", f"{PROJECT}_mysql-data:/data:ro", image,
                          "-c", "cd /data && stat -c '%n %s' binlog.[0-9]*"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    on_disk = {n: int(b) for n, b in (line.split() for line in out.stdout.splitlines())}
    last = max(listed)
    # every file the reading listed, at its size; the last one also holds what came after the
    # reading: nothing the lab sends is logged (count's flush and ANALYZE LOCAL are not), so only
    # the server's own Stop event at its clean shutdown (23 bytes, seen)
    assert {n: b for n, b in on_disk.items() if n in listed and n != last} == {n: b for n, b in listed.items() if n != last}
    assert listed[last] <= on_disk[last] <= listed[last] + 64, (listed, on_disk)
    print(f"binary log files at the end reading {listed}, in the volume afterwards {on_disk}")


def test_report_has_a_column_per_database_and_the_third_ratio(insert, ycsb):
    for bench, _ in (insert, ycsb):
        text = (bench / "report.md").read_text()
        # the stand-in warning, above the first section
        assert "MySQL 9.7.4 (Debian package) standing in for the mysql:9.7 image" in text.split("\n## ")[0]
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


def test_globalsign_three_streams_at_their_rates_with_the_partial_index_on_each(globalsign):
    """GlobalSign's mixed workers: the inserts, updates and range selects as three client groups at once
    on each database, each group only its operation at its rate; the range statement's plan uses the
    band's index on each (MySQL: its generated column's); the same people on all three after the load
    and after the run (one client per stream: the same updates in the same order)."""
    bench, results = globalsign
    assert results["complete"], results["incomplete"]
    assert [r["phase"] for r in results["runs"]] == [p for db in DBS for p in (f"{db}-load", db)]
    for r in results["runs"]:
        assert r["status"] == "ok", (r["phase"], r["reason"])
        assert r["docs_in_db"] == r["docs_expected_in_db"], r["phase"]
        if r["stage"] == "load":
            assert "groups" not in r
            continue
        groups = {g["name"]: g for g in r["groups"]}
        assert list(groups) == list(GS_RATES)
        for (name, rate), op in zip(GS_RATES.items(), ("insert", "update", "range")):
            g = groups[name]
            assert g["clients"] == 1 and g["asked_rate"] == rate, (r["phase"], g)
            assert list(g["operations"]) == [op] and g["ok"] == GS_OPS and g["errors"] == 0, (r["phase"], name, g)
            assert g["operations"][op]["latency_ms"]["p99"] is not None
            assert sum(s["ok"] for s in g["seconds"]) == GS_OPS
        assert r["docs_in_db"] == RECORDS + GS_OPS  # the loaded people and the inserts group's
        proof = r["index_proof"]
        assert proof["used"] is True and proof["index"] == "globalsign_age_band", (r["phase"], proof)
    for c in results["documents_compared"]:
        assert c["equal"] is True and len(set(c["digests"].values())) == 1, c
    assert {c["stage"] for c in results["documents_compared"]} == {"load", "run"}
    text = (bench / "report.md").read_text()
    assert "## Client groups" in text and "## The study's figures beside the lab's (GlobalSign, seed 001)" in text
    assert (bench / "plots" / "timeline.png").stat().st_size > 10_000
