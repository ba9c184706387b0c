"""Faults during a real run: a client container killed, Prometheus stopped for part of a window,
a database container killed mid-phase. The run goes on, marks what failed and why, keeps every
file gathered, invents no figure, and leaves no database or client container behind."""
import csv
import gzip
import json
import subprocess
import threading
import time

import pytest

from conftest import PROJECT, Run, lab_env, make_bench, remove_project, runme_watched


def docker(*args):
    subprocess.run(["docker", *args], check=False, capture_output=True, timeout=120)


def later(seconds, *actions):
    def act():
        time.sleep(seconds)
        for action in actions:
            action()
    t = threading.Thread(target=act, daemon=True)
    t.start()
    return t


# 18 s of load per client at 50 docs/s: the faults at 12 s and 24 s after the phase starts (its clients
# start some 8 s in) fall inside the mongodb window, which ends after the load, the linger and the guard.
DOCS = 900


@pytest.fixture(scope="module")
def faulty_run(workdir):
    remove_project()
    bench = make_bench(workdir, "bench-e2e-faults", docs=DOCS, perf_s=0)
    env = dict(lab_env(), RECONNECT_TIMEOUT_S="8")
    faults = []

    def inject(line):
        if "mongodb: phase starts" in line:
            faults.append(later(12, lambda: docker("kill", f"{PROJECT}-client-mongodb-2"),
                                lambda: docker("stop", f"{PROJECT}-prometheus-1")))
            faults.append(later(24, lambda: docker("start", f"{PROJECT}-prometheus-1")))
        if "postgres: phase starts" in line:
            faults.append(later(12, lambda: docker("kill", f"{PROJECT}-postgres-1")))
    try:
        proc = runme_watched(workdir, str(bench), log="runme-faults.log", on_line=inject, env=env, timeout=900)
    finally:
        for t in faults:
            t.join()
    yield Run(bench, proc)
    remove_project()


def client_result(run, db, i):
    path = run.bench / "clients" / f"{db}-client-{i}.json"
    return json.loads(path.read_text()) if path.exists() else None


def test_run_reports_failure_and_keeps_every_phase(faulty_run):
    assert faulty_run.returncode == 1, faulty_run.stdout[-3000:]
    assert faulty_run.results["complete"] is False
    for db in ("mongodb", "postgres"):
        assert faulty_run.phase(db)["status"] == "failed"
        assert (faulty_run.bench / f"{db}.out").stat().st_size > 0
        assert (faulty_run.bench / f"{db}.metrics.json").exists()


def test_killed_client_is_recorded_and_the_other_goes_on(faulty_run):
    phase = faulty_run.phase("mongodb")
    assert "client-2" in phase["reason"]
    assert phase["missing_clients"] == [2]
    survivor = client_result(faulty_run, "mongodb", 1)
    assert survivor["docs_ok"] == DOCS and survivor["errors"] == 0


def test_prometheus_outage_is_a_recorded_gap_not_invented_samples(faulty_run):
    metrics = json.loads((faulty_run.bench / "mongodb.metrics.json").read_text())
    db_gaps = [g for g in metrics["gaps"] if g["service"] == "mongodb"]
    assert db_gaps, metrics["gaps"]
    assert max(g["seconds"] for g in db_gaps) >= 8
    with gzip.open(faulty_run.bench / "timeseries" / "mongodb.csv.gz", "rt") as f:
        rows = list(csv.DictReader(f))
    gap = max(db_gaps, key=lambda g: g["seconds"])
    inside = [r for r in rows if r.get("service") == "mongodb"
              and gap["from"] + 1 < float(r["time"]) < gap["to"] - 1]
    assert inside == []


def test_killed_database_fails_its_phase_with_the_reason(faulty_run):
    phase = faulty_run.phase("postgres")
    assert "database container stopped during the phase" in phase["reason"]
    for i in (1, 2):
        result = client_result(faulty_run, "postgres", i)
        assert result is not None
        assert result["errors"] > 0 or result["gave_up"]
        assert result["docs_ok"] < DOCS


def test_no_database_or_client_container_left(faulty_run):
    left = subprocess.run(["docker", "ps", "-a", "--format", "{{.Names}}", "--filter",
                           f"label=com.docker.compose.project={PROJECT}"],
                          capture_output=True, text=True, check=True).stdout.split()
    assert [n for n in left if "client" in n or "mongodb" in n or "postgres" in n] == [], left
