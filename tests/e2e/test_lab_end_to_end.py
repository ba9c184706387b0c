"""The lab end to end on a real Docker engine: both databases (or their labelled stand-ins), real
cAdvisor and Prometheus, perf on the host. One tiny run is shared by the tests; the interrupt test
runs last because it tears the stack down."""
import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import (LAB_ROOT, PROJECT, image_os_of, interrupt_run, project_containers, prom_query,
                      prom_query_range)

DATABASES = ["mongodb", "postgres"]


def selector(db):
    return (f'container_label_com_docker_compose_project="{PROJECT}",'
            f'container_label_com_docker_compose_service="{db}"')


def run_entry(run, db):
    return next(r for r in run.results["runs"] if r["database"] == db)


def test_run_completes(lab_run):
    assert lab_run.returncode == 0, lab_run.stdout[-3000:]
    assert lab_run.results is not None
    for db in DATABASES:
        assert lab_run.phase(db)["status"] == "ok", lab_run.phase(db)


def test_the_folder_holds_the_files_its_plan_says(lab_run):
    """The single host's side of issue 27's file-list comparison: the placed run on two simulated hosts
    (test_simulated_hosts) is held to the same list (tests/bench_files_expected.py), with its own two
    records, so no single-host copy of it runs."""
    sys.path.insert(0, str(LAB_ROOT / "tests"))
    from bench_files_expected import expected_files
    plan = json.loads((lab_run.bench / "plan.json").read_text())
    perf = {lab_run.phase(db)["perf"]["reason"] is None for db in DATABASES}
    assert len(perf) == 1, "perf ran for one database and not the other"
    got = sorted(str(p.relative_to(lab_run.bench)) for p in lab_run.bench.rglob("*") if p.is_file())
    assert got == expected_files(plan, placed=False, perf=perf.pop()), got


@pytest.mark.parametrize("db", DATABASES)
def test_disk_device_thp_and_mongodb_settings_are_stated(lab_run, db):
    """Disk figures name the device under Docker's data root, or why there are none (this host
    accounts no block I/O to containers); host.json and the report state THP; mongod's settings."""
    disk = run_entry(lab_run, db)["disk"]
    host = lab_run.results["host"]
    counted = [c["name"] for c in host["disk_devices"]["count"]]
    missing = [k for k in ("read_bytes", "write_bytes", "read_ops", "write_ops") if disk[k] is None]
    if missing:
        assert disk["reason"] and all(k in disk["reason"] for k in missing), disk
    if len(missing) < 4:
        assert disk["devices"] == counted, (disk, host["disk_devices"])
    assert host["transparent_hugepages"]["matches_mongodb_8_0"] in (True, False, None)
    assert "transparent huge pages" in (lab_run.bench / "report.md").read_text()
    if db == "mongodb":
        env = json.loads((lab_run.bench / "mongodb.settings.json").read_text())
        assert env["environment"]["GLIBC_TUNABLES"] == "glibc.pthread.rseq=0", env
        assert env["ulimits"]["nofile"]["hard"] > 0 and env["ulimits"]["nproc"]["hard"] == 64000, env


@pytest.mark.parametrize("db", DATABASES)
def test_each_run_names_its_images_os_and_libc(lab_run, db):
    """results.json runs[].image_os (lab/image-os.py, read before the phases) equals a reading of the
    same image taken here, and names the image the phase's container ran."""
    entry = run_entry(lab_run, db)
    got = entry["image_os"]
    assert got["reason"] is None, got
    image_id = subprocess.run(["docker", "image", "inspect", "-f", "{{.Id}}", entry["image"]],
                              capture_output=True, text=True, check=True).stdout.strip()
    assert got["image"] == image_id, (got, entry["image"])
    assert {"os": got["os"], "libc": got["libc"]} == image_os_of(image_id)
    assert lab_run.phase(db)["image_os"] == got


@pytest.mark.parametrize("db", DATABASES)
def test_phase_leaves_out_perf_and_client_results(lab_run, db):
    out = (lab_run.bench / f"{db}.out").read_text()
    assert "(100%)" in out, out[-2000:]
    perf = lab_run.bench / f"{db}.perf"
    assert perf.exists() and perf.stat().st_size > 0, lab_run.phase(db)["perf"]
    # The manifest describes the profile: its samples, at the Firefox Profiler's 1 ms per sample.
    headers = [line for line in perf.read_text().splitlines() if line and line[0] not in " \t#"]
    assert lab_run.phase(db)["perf"]["profile"] == {"file": f"{db}.perf", "samples": len(headers),
                                                    "frequency_hz": 1000, "reason": None}
    assert run_entry(lab_run, db)["profile"]["samples"] == len(headers)
    # Software events here (no PMU in this VM); the manifest must say which were used.
    assert lab_run.phase(db)["perf"]["events"], lab_run.phase(db)["perf"]
    for i in (1, 2):
        result = json.loads((lab_run.bench / "clients" / f"{db}-client-{i}.json").read_text())
        assert result["docs_ok"] == 600 and result["errors"] == 0 and not result["interrupted"]


@pytest.mark.parametrize("db", DATABASES)
def test_the_probe_that_read_the_host_is_recorded(lab_run, db):
    """phase.json `probe`: PROBE=container (run this module with it exported) reads through the
    probe container, whose own CPU and each call's latency are recorded; local reads in-process.
    The run leaves no probe container (the box is closed when the driver ends)."""
    probe = lab_run.phase(db)["probe"]
    kind = os.environ.get("PROBE") or "local"
    assert probe["kind"] == kind, probe
    if kind == "local":
        assert probe == {"kind": "local", "image": None, "container_id": None,
                         "cgroup_cpu_seconds": {"start": None, "end": None}, "calls": []}
        return
    cpu = probe["cgroup_cpu_seconds"]
    assert 0 < cpu["start"] <= cpu["end"], cpu
    marks = [c for c in probe["calls"] if c["method"] == "cgroup_cpu_seconds"]
    assert len(marks) == 4, probe["calls"]  # the database's and the box's own, at each mark
    window = lab_run.phase(db)["window"]
    assert window["start"] <= marks[0]["sent"] and marks[-1]["sent"] >= window["end"] - 1
    assert all(0 <= c["latency_s"] < 5 for c in probe["calls"])
    gone = subprocess.run(["docker", "ps", "-aq", "--filter", f"id={probe['container_id']}"],
                          capture_output=True, text=True).stdout.split()
    assert gone == []


@pytest.mark.parametrize("db", DATABASES)
def test_documents_in_database_equal_acknowledged(lab_run, db):
    entry = run_entry(lab_run, db)
    assert entry["docs_ok"] == 1200
    assert entry["docs_in_db"] == entry["docs_ok"]


@pytest.mark.parametrize("db", DATABASES)
def test_clients_lag_figures_reach_results(lab_run, db):
    # Recorded by the clients in their containers, merged by the analysis: start lag and the
    # clients' own part of it (never more than the whole).
    entry = run_entry(lab_run, db)
    clients = [json.loads(f.read_text()) for f in sorted((lab_run.bench / "clients").glob(f"{db}-client-*.json"))]
    assert len(clients) == 2
    for k in ("start_lag_ms", "scheduler_lag_ms"):
        # the merged maximum is the clients' largest (within HdrHistogram's 3 digits)
        assert entry[k]["max"] == pytest.approx(max(c[k]["max"] for c in clients), rel=2e-3), entry[k]
        assert 0 <= entry[k]["p50"] <= entry[k]["p99"] <= entry[k]["max"], entry[k]
    assert entry["scheduler_lag_ms"]["max"] <= entry["start_lag_ms"]["max"]


@pytest.mark.parametrize("db", DATABASES)
def test_cadvisor_cpu_matches_cgroup_accounting(lab_run, db):
    entry = run_entry(lab_run, db)
    exported = entry["cpu"]["user_s"] + entry["cpu"]["system_s"]
    cg = lab_run.phase(db)["cgroup_cpu_seconds"]
    direct = cg["end"] - cg["start"]
    assert exported > 0
    assert abs(exported - direct) <= 0.10 * direct, (exported, direct)


@pytest.mark.parametrize("db", DATABASES)
def test_export_equals_direct_prometheus_query(lab_run, prometheus_url, db):
    window = lab_run.phase(db)["window"]
    entry = run_entry(lab_run, db)
    for metric, figure in (("container_cpu_user_seconds_total", entry["cpu"]["user_s"]),
                           ("container_fs_writes_bytes_total", entry["disk"]["write_bytes"]),
                           ("container_network_receive_bytes_total", entry["network"]["rx_bytes"])):
        expr = f"sum({metric}{{{selector(db)}}})"
        at_end = prom_query(prometheus_url, expr, window["end"])
        if not at_end:
            # Some hosts account no block I/O to containers (cgroup v1 blkio here reads "Total 0"):
            # then the export must say it has no figure rather than invent one.
            assert figure is None, (metric, figure)
            continue
        end = float(at_end[0]["value"][1])
        start = float(prom_query(prometheus_url, expr, window["start"])[0]["value"][1])
        assert figure == pytest.approx(end - start, rel=1e-6, abs=1e-6), metric
    assert entry["cpu"]["user_s"] is not None and entry["network"]["rx_bytes"] is not None


@pytest.mark.parametrize("db", DATABASES)
def test_every_dashboard_query_returns_data(lab_run, prometheus_url, db):
    window = lab_run.phase(db)["window"]
    seconds = int(window["end"] - window["start"]) + 1
    listing = subprocess.run(
        [sys.executable, str(LAB_ROOT / "grafana" / "dashboard_queries.py"),
         "--var", f"service={db}", "--var", f"project={PROJECT}", "--var", f"database={db}",
         "--var", f"bench={lab_run.bench.name}", "--var", f"__range={seconds}s"],
        check=True, capture_output=True, text=True).stdout
    # The Transactions row's series exist only in a transaction workload's run (booking, oltp): this
    # insert run has none; tests/e2e/test_txn_booking_end_to_end.py checks that row over its booking
    queries = [q for q in (json.loads(line) for line in listing.splitlines() if line.strip())
               if "jsonbench_client_txn_" not in q["expr"]]
    assert len(queries) >= 10
    # Block I/O (bytes and operations, both from blkio once cAdvisor's device-wide `disk` set is off)
    # is the only figure a host may not account to containers (cgroup v1 blkio reads "Total 0" on
    # this VM); a panel on it may be empty only when the metric has no series.
    unaccounted = {m for m in ("container_fs_reads_bytes_total", "container_fs_writes_bytes_total",
                               "container_fs_reads_total", "container_fs_writes_total")
                   if not prom_query_range(prometheus_url, f'{m}{{{selector(db)}}}',
                                           window["start"], window["end"])}
    # Client series exist only while clients run, so each expression is evaluated over the window.
    empty = [q for q in queries
             if not prom_query_range(prometheus_url, q["expr"], window["start"], window["end"])
             and not any(m in q["expr"] for m in unaccounted)]
    assert not empty, empty


def test_the_single_host_is_recorded_with_every_role_and_labels_every_series(lab_run, prometheus_url):
    """issue 27 on one host: hosts.json / results.json `hosts` hold the current context with every role
    and host.json's facts; every series Prometheus kept of the run carries that context as `host`."""
    # before the interrupt tests below: they take the stack, Prometheus with it, down
    context = subprocess.run(["docker", "context", "show"], capture_output=True, text=True).stdout.strip() or "default"
    (h,) = lab_run.results["hosts"]
    assert h["context"] == context and h["roles"] == ["database", "client", "monitoring"], h
    host = lab_run.results["host"]
    assert (h["kernel"], h["cores"], h["cgroup_driver"]) == (host["kernel"], host["cores"], host["cgroup_driver"])
    assert h["cgroup_driver"] and h["docker_server"] and h["reason"] is None, h
    assert "## Hosts" in (lab_run.bench / "report.md").read_text()
    end = lab_run.phase(DATABASES[0])["window"]["end"]
    for metric in ("container_cpu_user_seconds_total", "jsonbench_client_docs_ok_total"):
        label = "container_label_com_docker_compose_project" if metric.startswith("container") else "job"
        value = PROJECT if label != "job" else "client"
        series = prom_query(prometheus_url, f'{metric}{{{label}="{value}"}}[10m]', end)
        assert series and {s["metric"].get("host") for s in series} == {context}, (metric, series[:2])


def test_stand_ins_are_labelled_everywhere(lab_run):
    stand_in = lab_run.phase("mongodb")["stand_in"]
    if not stand_in:
        pytest.skip("the real MongoDB ran: nothing to label")
    label = "SecantusDB 0.7.0b3 (MongoDB wire server in Python on WiredTiger from MongoDB 7.0) standing in for MongoDB"
    assert stand_in == label
    assert f"STAND-IN: {label}" in lab_run.stdout
    entry = run_entry(lab_run, "mongodb")
    assert entry["stand_in"] is True and entry["stand_in_what"] == label
    assert "stand-in" in (lab_run.bench / "report.md").read_text().lower()


def test_sigint_mid_phase_stops_cleanly(lab_run, workdir):
    # 3 s after the first progress line of the phase (its clients are running): mid-load
    run, seconds = interrupt_run(workdir, after_text="s elapsed, about", grace_s=3)
    assert run.returncode != 0, run.stdout[-4000:]
    assert "interrupted" in run.stdout
    assert project_containers() == [], "containers left behind"
    phase = run.phase("mongodb")
    assert phase["status"] == "interrupted"
    results = list((run.bench / "clients").glob("mongodb-client-*.json"))
    assert len(results) == 2
    for path in results:
        result = json.loads(path.read_text())
        assert result["interrupted"] is True
        assert 0 < result["docs_ok"] < 3000
    assert seconds < 120


def test_committed_run_branch_holds_no_password(lab_run, tmp_path):
    """The run's files as runme.sh commits them (in a scratch repository) hold none of .env's secrets."""
    import shutil
    from conftest import lab_env
    env_file = LAB_ROOT / ".env"
    secrets = [line.split("=", 1)[1].strip().strip('"') for line in env_file.read_text().splitlines()
               if line.split("=", 1)[0].endswith("PASSWORD") and "=" in line]
    secrets = [s for s in secrets if len(s) >= 8]
    # One generated password per *PASSWORD key that .env.example lists (ensure_env_file fills each).
    wanted = [line.split("=", 1)[0] for line in (LAB_ROOT / ".env.example").read_text().splitlines()
              if line.split("=", 1)[0].endswith("PASSWORD")]
    assert len(secrets) == len(wanted) >= 3, f"expected a generated password for each of {wanted} in .env"
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@localhost"]
    subprocess.run([*git, "init", "-q"], check=True)
    shutil.copytree(lab_run.bench, repo / lab_run.bench.name)
    # runme.sh's RUN_CONFIG_FILES' config files, and each database's compose files (database_compose_files)
    from databases import manifests
    config_files = ["compose.yaml", "compose.standins.yaml", ".env.example"] + [
        f"databases/{db}/{f}" for db in manifests.names() for f in ("compose.yaml", "compose.standins.yaml")
        if (LAB_ROOT / "databases" / db / f).is_file()]
    for name in config_files:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(LAB_ROOT / name, repo / name)
    (repo / "x").write_text("x")
    subprocess.run([*git, "add", "x"], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)
    branch = subprocess.run(
        [sys.executable, "-m", "analysis", "branch", "--benches", lab_run.bench.name, "--files", *config_files],
        cwd=repo, env=dict(lab_env(), PYTHONPATH=str(LAB_ROOT)), capture_output=True, text=True)
    assert branch.returncode == 0, branch.stderr
    name = branch.stdout.strip().splitlines()[-1]
    files = subprocess.run([*git, "ls-tree", "-r", "--name-only", name], check=True,
                           capture_output=True, text=True).stdout.split()
    assert f"{lab_run.bench.name}/results.json" in files and f"{lab_run.bench.name}/postgres.out" in files
    assert set(config_files) <= set(files) and "databases/postgres/compose.yaml" in files
    for secret in secrets:
        hits = subprocess.run([*git, "grep", "-l", "-F", secret, name], capture_output=True, text=True).stdout
        assert hits == "", f"a password from .env is committed in: {hits}"


def test_sigterm_in_quiet_period_stops_cleanly(lab_run, workdir):
    run, seconds = interrupt_run(workdir, after_text="mongodb: quiet period", grace_s=1,
                                 sig=signal.SIGTERM, name="bench-e2e-term", quiet_s=3)
    assert run.returncode != 0
    assert project_containers() == [], "containers left behind"
    assert not (run.bench / "mongodb.phase.json").exists()
    assert run.results["complete"] is False
    assert any("mongodb" in reason for reason in run.results["incomplete"])
    assert seconds < 120


def test_sigint_while_databases_start_leaves_nothing_running(lab_run, workdir):
    run, seconds = interrupt_run(workdir, after_text="fresh database volumes", grace_s=1,
                                 name="bench-e2e-starting")
    assert run.returncode != 0
    assert project_containers() == [], "containers left behind"
    assert not (run.bench / "mongodb.phase.json").exists()
    assert seconds < 120


def test_sigint_during_the_export_marks_the_run_incomplete(lab_run, workdir):
    run, seconds = interrupt_run(workdir, after_text="mongodb: exporting", grace_s=0, docs=100,
                                 name="bench-e2e-export")
    assert run.returncode != 0
    assert project_containers() == [], "containers left behind"
    assert run.results is None or run.results["complete"] is False
    assert seconds < 120


def lab_branches():
    out = subprocess.run(["git", "-C", str(LAB_ROOT), "for-each-ref", "--format=%(refname:short)", "refs/heads"],
                         check=True, capture_output=True, text=True).stdout
    return set(out.split())


def test_sigint_while_committing_leaves_no_branch_that_looks_complete_but_is_not(lab_run):
    """The run's bench must live in the repository to be committed; it and any branch are removed."""
    import shutil
    before = lab_branches()
    parent = LAB_ROOT / f"bench-e2e-commit-{os.getpid()}"
    parent.mkdir()
    try:
        # one database is enough to reach the commit
        run, seconds = interrupt_run(parent, after_text="committing the run", grace_s=0, docs=100,
                                     name="bench", branch=True, extra="DATABASES=postgres\n")
        assert project_containers() == [], "containers left behind"
        new = lab_branches() - before
        for name in new:  # the branch is written last and whole: if it exists, it is complete
            res = json.loads(subprocess.run(
                ["git", "-C", str(LAB_ROOT), "show", f"{name}:{parent.name}/bench/results.json"],
                check=True, capture_output=True, text=True).stdout)
            assert res["complete"] is True and "INCOMPLETE" not in name
        assert run.returncode != 0
    finally:
        for name in lab_branches() - before:
            subprocess.run(["git", "-C", str(LAB_ROOT), "branch", "-D", name], capture_output=True)
        shutil.rmtree(parent, ignore_errors=True)


@pytest.mark.parametrize("db", DATABASES)
def test_results_show_what_the_monitoring_cost(lab_run, db):
    m = run_entry(lab_run, db)["monitoring"]
    assert m["reason"] is None, m
    assert m["cadvisor_cpu_s"] > 0 and m["prometheus_cpu_s"] > 0
    seconds = run_entry(lab_run, db)["window"]["seconds"]
    assert m["per_s"] == pytest.approx((m["cadvisor_cpu_s"] + m["prometheus_cpu_s"]) / seconds)
    assert "monitoring CPU cAdvisor + Prometheus" in (lab_run.bench / "report.md").read_text()


def test_the_mongodb_stand_in_offers_what_it_offers_and_nothing_is_read_as_mongodbs(lab_run):
    """SecantusDB, the MongoDB stand-in: opcounters (one insert command per insertOne here, so they
    equal the documents) and connections are offered; there is no wiredTiger section (journal bytes
    null with the reason); collStats.storageSize is the documents' BSON size, byte for byte."""
    if not lab_run.phase("mongodb")["stand_in"]:
        pytest.skip("the real MongoDB ran")
    stats = json.loads((lab_run.bench / "mongodb.server-stats.json").read_text())
    start, end = stats["start"], stats["end"]
    docs = json.loads((lab_run.bench / "mongodb.count.json").read_text())["documents"]
    assert docs == 1200
    assert end["counters"]["opcounters_insert"] - start["counters"]["opcounters_insert"] == docs
    assert end["counters"]["connections_total_created"] > start["counters"]["connections_total_created"]
    assert end["counters"]["wt_log_bytes_written"] is None and "wiredTiger" in end["unavailable"]["wt_log_bytes_written"]
    entry = run_entry(lab_run, "mongodb")
    assert entry["wal"]["bytes"] is None and "wiredTiger" in entry["wal"]["reason"]
    one = subprocess.run(["node", "-e", "console.log(require('./client/src/doc-size').maxDocumentBytes(10, 1000, 'binary'))"],
                         cwd=LAB_ROOT, capture_output=True, text=True, check=True).stdout
    count = json.loads((lab_run.bench / "mongodb.count.json").read_text())
    assert count["table_bytes"] == docs * int(one), (count, one)
