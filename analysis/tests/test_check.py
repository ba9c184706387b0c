"""`python -m analysis check` on the real stand-in run (ci-standin-run: FerretDB + PostgreSQL 15 on
this kind of host: cgroup v1, no hardware counters, no block I/O bytes in cAdvisor)."""
import json
import os
import subprocess
import sys

import pytest

from analysis.figures import results
from analysis.render import check

from .conftest import REPO_ROOT

ROW_LABELS = [r.label for r in check.ROWS]


@pytest.fixture
def standin(fixture_benches):
    d = fixture_benches["ci-standin-run"]
    results.write(d)
    return d


def cli(bench_dir, *extra):
    return subprocess.run([sys.executable, "-m", "analysis", "check", "--bench-dir", bench_dir, *extra],
                          cwd=REPO_ROOT, capture_output=True, text=True)


def cells(bench_dir):
    table, dbs = check.evaluate(bench_dir)
    return {label: c for label, c in table}, dbs


def edit_results(bench_dir, change):
    path = os.path.join(bench_dir, "results.json")
    doc = json.load(open(path))
    change(doc)
    json.dump(doc, open(path, "w"))


def test_standin_run_passes_with_every_row_and_the_block_io_reason(standin):
    proc = cli(standin)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    for label in ROW_LABELS:
        assert label in out
    # The host does not account block I/O bytes: named, with results.json's own reason.
    assert "no container_fs_reads_bytes_total series in Prometheus" in out
    assert "no container_fs_writes_bytes_total series in Prometheus" in out
    assert "no hardware counters on this host; software events used instead: " in out
    assert out.strip().splitlines()[-1].startswith("check ci-standin-run: PASS")


def test_standin_run_cells(standin):
    table, dbs = cells(standin)
    assert dbs == ["mongodb", "postgres"]
    for db in dbs:
        for label in ("CPU user", "CPU system", "memory rss (mean)", "memory cache (mean)",
                      "memory working set (mean)", "disk read ops", "disk write ops", "network rx", "network tx",
                      "perf stat events", "compose labels in cAdvisor", "documents counted = acknowledged"):
            assert table[label][db].state == check.OK, (label, db, table[label][db])
        # This recording's profiles hold samples of processes besides the server in the database
        # container (a healthcheck's pg_isready, a shell): foreign work, a WARNING, not a failure
        assert table["phase status"][db].state == check.WARN
        assert "perf record sampled processes other than the server" in table["phase status"][db].text
        for label in ("disk read bytes (block I/O)", "disk write bytes (block I/O)", "instructions"):
            assert table[label][db].state == check.UNAVAILABLE, (label, db)
        # This fixture predates the readings these rows need: each says so, none fails the check.
        for label in ("server counters reconcile", "foreign processes in cgroup", "monitoring CPU (cAdvisor + Prometheus)",
                      "disk devices counted", "perf profile info"):
            assert table[label][db].state != check.MISSING, (label, db, table[label][db])
            assert table[label][db].text, (label, db)
        assert table["client metrics in Prometheus"][db].state == check.NOT_CHECKED
    # Samples are counted by the server's own comm, not just any sample.
    assert "pg_isready (" in table["phase status"]["postgres"].text
    assert table["perf samples, server comm"]["postgres"].text.endswith(" postgres")
    assert table["perf samples, server comm"]["mongodb"].text.endswith(" ferretdb")


def test_a_figure_removed_without_a_reason_fails(standin):
    def drop(doc):
        doc["runs"][1]["network"]["tx_bytes"] = None
    edit_results(standin, drop)
    proc = cli(standin)
    assert proc.returncode == 1, proc.stdout
    assert "network tx" in proc.stdout and "MISSING" in proc.stdout
    assert "network tx (postgres): network.tx_bytes is null and no reason is given" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "check ci-standin-run: FAIL: 1 figure(s) missing without a reason"


def test_block_io_without_its_reason_fails(standin):
    def drop_notes(doc):
        doc["runs"][0]["notes"] = [n for n in doc["runs"][0]["notes"] if "fs_reads_bytes" not in n]
    edit_results(standin, drop_notes)
    table, _ = cells(standin)
    assert table["disk read bytes (block I/O)"]["mongodb"].state == check.MISSING
    assert table["disk read bytes (block I/O)"]["postgres"].state == check.UNAVAILABLE
    assert cli(standin).returncode == 1


def test_profile_without_the_servers_comm_fails(standin):
    path = os.path.join(standin, "postgres.perf")
    lines = open(path).read().splitlines()  # sample headers start with the comm; frames with a tab
    # A profile of other programs (bash, no frame in the server's binary): not the server's.
    open(path, "w").write("\n".join(l.replace("/bin/postgres)", "/bin/bash)") if l.startswith("\t")
                                    else l.replace("postgres", "bash", 1) for l in lines))
    table, _ = cells(standin)
    c = table["perf samples, server comm"]["postgres"]
    assert c.state == check.MISSING and "none of the server (postgres)" in c.text, c.text


def test_no_profile_asked_for_is_a_reason(standin):
    os.remove(os.path.join(standin, "postgres.perf"))
    assert cells(standin)[0]["perf samples, server comm"]["postgres"].state == check.MISSING
    with open(os.path.join(standin, "run.env"), "a") as f:
        f.write("PERF_RECORD_S=0\n")
    assert cells(standin)[0]["perf samples, server comm"]["postgres"].state == check.UNAVAILABLE


def test_documents_counted_must_equal_acknowledged(standin):
    edit_results(standin, lambda d: d["runs"][0].update(docs_in_db=1199))
    c = cells(standin)[0]["documents counted = acknowledged"]["mongodb"]
    assert c.state == check.MISSING and "1199 != acknowledged 1200" in c.text


def test_failed_phase_fails(standin):
    edit_results(standin, lambda d: d["runs"][0].update(status="failed", reason="client-1 exited with code 1"))
    proc = cli(standin)
    assert proc.returncode == 1 and "phase failed: client-1 exited with code 1" in proc.stdout


def test_foreign_work_warns_with_its_counters_and_does_not_fail_the_check(fixture_benches):
    """A foreign scan during the check (recorded: a select loop on PostgreSQL 15) makes the phase
    suspect: a WARNING naming the counters, the check passes, the run goes on."""
    import shutil
    bench = fixture_benches["ci-standin-run"]
    shutil.copy(os.path.join(os.path.dirname(__file__), "fixtures", "reconcile", "postgres-foreign", "server-stats.json"),
                os.path.join(bench, "postgres.server-stats.json"))
    results.write(bench)
    c = cells(bench)[0]["phase status"]["postgres"]
    assert c.state == check.WARN and "foreign work" in c.text and "user_table_reads" in c.text
    proc = cli(bench)
    assert proc.returncode == 0, proc.stdout
    assert "Missing without a reason" not in proc.stdout and "WARNING" in proc.stdout
    assert "phase status: phase suspect: foreign work" in proc.stdout


def test_fields_added_later_are_read_when_present(standin):
    def add(doc):
        run = doc["runs"][1]
        run["reconciliation"] = {"verdict": "suspect", "reasons": ["tup_returned 90000 > expected 1200 + tolerance 50"]}
        run["disk"]["devices"] = ["vda"]
        run["monitoring"] = {"cadvisor_cpu_s": 0.4, "prometheus_cpu_s": 0.2, "per_s": 0.021, "reason": None}
        run["profile"] = {"file": "postgres.perf", "samples": 46, "frequency_hz": 1000, "reason": None}
        doc["runs"][0]["reconciliation"] = {"verdict": "ok", "reasons": []}
        doc["runs"][0]["monitoring"] = {"cadvisor_cpu_s": None, "prometheus_cpu_s": None, "per_s": None,
                                        "reason": "no monitoring figures in the metrics export"}
        doc["runs"][0]["profile"] = {"file": None, "samples": 0, "frequency_hz": 1000, "reason": "no samples"}
    edit_results(standin, add)
    for db, foreign in (("mongodb", ["pg_isready"]), ("postgres", [])):  # in the phase manifest
        path = os.path.join(standin, f"{db}.phase.json")
        phase = json.load(open(path))
        phase["cgroup_processes"] = {"samples": 20, "comms": {}, "foreign": foreign}
        json.dump(phase, open(path, "w"))
    table, _ = cells(standin)
    assert table["monitoring CPU (cAdvisor + Prometheus)"]["postgres"].text == "2.1% of a core"
    assert table["monitoring CPU (cAdvisor + Prometheus)"]["mongodb"].state == check.UNAVAILABLE
    assert table["perf profile info"]["postgres"].state == check.OK
    assert table["perf profile info"]["mongodb"].text == "no samples"
    assert "tup_returned 90000" in table["server counters reconcile"]["postgres"].text
    assert table["server counters reconcile"]["postgres"].state == check.WARN
    assert table["server counters reconcile"]["mongodb"].state == check.OK
    assert table["foreign processes in cgroup"]["postgres"].state == check.OK
    assert table["foreign processes in cgroup"]["mongodb"].state == check.WARN
    assert table["disk devices counted"]["postgres"].text == "vda"
    proc = cli(standin)
    # and the two phases' own warnings: the recording's foreign perf samples
    assert proc.returncode == 0 and "4 warning(s)" in proc.stdout.splitlines()[-1]


def test_no_results_json_is_a_clear_error(fixture_benches):
    proc = cli(fixture_benches["ci-standin-run"])
    assert proc.returncode == 2 and "results.json missing" in proc.stderr


def test_no_series_is_a_reason_for_block_io_only(standin):
    """'no ... series in Prometheus' states a host limit for block I/O bytes; for CPU it means the
    export is broken: MISSING, with the note shown."""
    def break_cpu(doc):
        run = doc["runs"][1]
        run["cpu"]["user_s"] = None
        run["notes"].append("postgres: no container_cpu_user_seconds_total series in Prometheus for project 'p' in the window")
    edit_results(standin, break_cpu)
    c = cells(standin)[0]["CPU user"]["postgres"]
    assert c.state == check.MISSING
    assert "results.json notes: no container_cpu_user_seconds_total series" in c.text
    assert cli(standin).returncode == 1


def test_zero_cpu_or_network_under_load_is_no_data(standin):
    edit_results(standin, lambda d: (d["runs"][0]["cpu"].update(system_s=0.0),
                                     d["runs"][0]["network"].update(rx_bytes=0.0)))
    table, _ = cells(standin)
    assert table["CPU system"]["mongodb"].state == check.MISSING
    assert table["network rx"]["mongodb"].state == check.MISSING
    assert table["CPU system"]["postgres"].state == check.OK


def test_zero_system_cpu_of_a_query_phase_is_a_true_reading(standin):
    """10 queries of a millisecond can spend no kernel time the cgroup's 10 ms ticks record."""
    edit_results(standin, lambda d: (d["runs"][0].update(stage="query"), d["runs"][0]["cpu"].update(system_s=0.0)))
    c = cells(standin)[0]["CPU system"]["mongodb"]
    assert c.state == check.OK and "query phase: kernel time below the cgroup's 10 ms accounting tick" in c.text
    edit_results(standin, lambda d: d["runs"][0]["cpu"].update(user_s=0.0))
    assert cells(standin)[0]["CPU system"]["mongodb"].state == check.MISSING


def test_server_threads_with_their_own_names_count_as_the_server(standin):
    """mongod names its threads (conn12, WTCheckpointThr): a sample of such a thread is the
    server's by its frames in the server's binary, or by its process."""
    path = os.path.join(standin, "mongodb.perf")
    lines = open(path).read().splitlines()
    renamed = [l.replace("ferretdb", "conn12", 1) if l and not l[0].isspace() else l for l in lines]
    open(path, "w").write("\n".join(renamed))
    c = cells(standin)[0]["perf samples, server comm"]["mongodb"]
    assert c.state == check.OK and c.text.startswith("82/86"), c.text
    # Without a frame in the binary and without a server-named sample of the process: not the server.
    open(path, "w").write("\n".join(l.replace("/usr/local/bin/ferretdb", "/usr/bin/other") for l in renamed))
    assert cells(standin)[0]["perf samples, server comm"]["mongodb"].state == check.MISSING


def test_a_hole_in_the_database_series_warns(standin):
    assert cells(standin)[0]["database series without gaps"]["postgres"].text == "none"  # client gaps only
    path = os.path.join(standin, "postgres.metrics.json")
    m = json.load(open(path))
    m["gaps"].append({"service": "postgres", "container": "jsonbench-dev-postgres-1", "from": 1, "to": 9.5,
                      "seconds": 8.5, "metrics": ["container_cpu_user_seconds_total"]})
    json.dump(m, open(path, "w"))
    c = cells(standin)[0]["database series without gaps"]["postgres"]
    assert c.state == check.WARN and "longest 8.5 s" in c.text


def test_samples_of_the_secantusdb_stand_in_count_as_the_mongodb_server(standin):
    """The MongoDB stand-in is SecantusDB: its process and every thread are named secantusd-py."""
    path = os.path.join(standin, "mongodb.perf")
    text = open(path).read().replace("ferretdb", "secantusd-py")
    open(path, "w").write(text)
    c = cells(standin)[0]["perf samples, server comm"]["mongodb"]
    assert c.state == check.OK and c.text.endswith(" secantusd-py"), c.text


def test_a_process_watch_that_read_nothing_is_not_measured_not_none(standin):
    path = os.path.join(standin, "postgres.phase.json")
    phase = json.load(open(path))
    phase["cgroup_processes"] = {"samples": 0, "comms": {}, "foreign": [],
                                 "reason": "no sample could read the container's cgroup (none taken)"}
    json.dump(phase, open(path, "w"))
    c = cells(standin)[0]["foreign processes in cgroup"]["postgres"]
    assert c.state == check.UNAVAILABLE and "could read" in c.text


def test_errors_record_no_latency_so_a_phase_with_errors_passes_the_operations_row(standin):
    """The client records a latency for each successful operation only (client/src/runner.js sendOne:
    the catch counts the error, its histograms get nothing): ok = the merged histogram's count, and a
    phase with errors is not a false alarm."""
    def with_errors(doc):
        for run in doc["runs"]:
            for o in run["operations"].values():
                assert o["latency_count"] == o["ok"]  # what the real run recorded
                o["errors"] = 3
    edit_results(standin, with_errors)
    table, _ = cells(standin)
    for db in ("mongodb", "postgres"):
        cell = table["operations per type (= latencies)"][db]
        assert cell.state == check.OK, cell.text

    def one_latency_short(doc):
        o = next(iter(doc["runs"][0]["operations"].values()))
        o["latency_count"] = o["ok"] - 1
    edit_results(standin, one_latency_short)
    table, _ = cells(standin)
    cell = table["operations per type (= latencies)"]["mongodb"]
    assert cell.state == check.MISSING and "ok differs from the merged latency histogram's count" in cell.text
