"""Foreign work in a window is detected, not silently counted (issue 9, section 2).

The lab reads each server's own counters at the window edges and analysis reconciles their deltas
with what the lab sent. A clean run (the shared `lab_run`) reconciles; a run during which a loop
from outside the lab reads the whole table every 1-3 s through the published port (a new connection
each time, like a monitoring job) is `suspect` in results.json, report.md and the summary line, its
figures still reported.
Named to run after test_lab_end_to_end: it removes the project, whose Prometheus the shared
lab_run's tests query.
"""
import json
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import BIND_ADDRESS, LAB_ROOT, PORTS, Run, lab_env, make_bench, remove_project

LOOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "foreign-query-loop.js")
LOOP_MAX_S = 90


def env_file():
    env = {}
    for line in (LAB_ROOT / ".env").read_text().splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            k, _, v = line.partition("=")
            env[k.strip()] = v.strip()
    return env


def host_uri(db):
    e = env_file()
    if db == "postgres":
        return (f"postgres://{e.get('POSTGRES_USER', 'jsonbench')}:{e['POSTGRES_PASSWORD']}@{BIND_ADDRESS}:"
                f"{PORTS['PG_PORT']}/{e.get('POSTGRES_DB', 'jsonbench')}")
    return (f"mongodb://{e.get('MONGO_USER', 'jsonbench')}:{e['MONGO_PASSWORD']}@{BIND_ADDRESS}:"
            f"{PORTS['MONGO_PORT']}/?authSource=admin")


@pytest.fixture(scope="module")
def foreign_run(workdir):
    """2 clients x 300 docs per database; a foreign read loop on each database during its phase."""
    remove_project()
    bench = make_bench(workdir, "bench-e2e-foreign", docs=300, perf_s=0)
    proc = subprocess.Popen([str(LAB_ROOT / "runme.sh"), "--no-branch", "--no-check", str(bench)], cwd=LAB_ROOT, env=lab_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)
    lines, loops, loop_out = [], {}, {}
    try:
        for line in proc.stdout:
            lines.append(line)
            m = re.search(r"\] (mongodb|postgres): (phase starts|phase \w+)", line)
            if not m:
                continue
            db = m.group(1)
            if m.group(2) == "phase starts":
                loops[db] = subprocess.Popen(["node", LOOP, db, host_uri(db), str(LOOP_MAX_S)],
                                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            elif db in loops:  # the phase ended: stop its loop
                loops[db].send_signal(signal.SIGTERM)
                loop_out[db] = loops[db].communicate(timeout=30)[0]
        proc.wait(timeout=1800)
    finally:
        for p in loops.values():
            if p.poll() is None:
                p.kill()
                p.wait()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, "".join(lines), "")
    (workdir / "runme-foreign.log").write_text(done.stdout + "\n".join(f"--- {k} loop ---\n{v}" for k, v in loop_out.items()))
    print(done.stdout[-4000:])
    print(loop_out)
    yield Run(bench, done), loop_out
    remove_project()


def run_entry(run, db):
    return next(r for r in run.results["runs"] if r["database"] == db)


def brief(rec):
    return {k: (c["expected"], c["observed"], c["tolerance"], c["verdict"]) for k, c in rec["checks"].items()}


def healthcheck_interval_s(db):
    """The Docker healthcheck compose gives the database service, in seconds, or None. A healthcheck
    that runs during a window is foreign work (issue 9, section 1) and the reconciliation sees it."""
    files = [a for f in ("compose.yaml", "compose.standins.yaml") for a in ("-f", str(LAB_ROOT / f))]
    out = subprocess.run(["docker", "compose", "--project-directory", str(LAB_ROOT), *files, "--env-file",
                          str(LAB_ROOT / ".env"), "config", "--format", "json"], env=lab_env(),
                         capture_output=True, text=True, check=True).stdout
    hc = json.loads(out)["services"][db].get("healthcheck")
    if not hc or hc.get("disable") or hc.get("test") in (["NONE"], "NONE"):
        return None
    m = re.fullmatch(r"(\d+(?:\.\d+)?)s", str(hc.get("interval", "30s")))
    return float(m.group(1)) if m else None


def command_deltas(stats):
    a, b = stats["start"].get("commands") or {}, stats["end"].get("commands") or {}
    return {k: b[k] - a.get(k, 0) for k in b if b[k] != a.get(k, 0)}


@pytest.mark.parametrize("db", ["mongodb", "postgres"])
def test_clean_run_reconciles(lab_run, db):
    stats = json.loads((lab_run.bench / f"{db}.server-stats.json").read_text())
    assert stats["start"] and stats["end"], stats
    entry = run_entry(lab_run, db)
    rec = entry["reconciliation"]
    print(db, "clean", rec["interval_s"], "s", rec["lab_work"], json.dumps(brief(rec)))
    print(db, "command deltas", command_deltas(stats))
    inserts = rec["observed"].get("rows_written", rec["observed"].get("inserts"))
    if db == "mongodb" and str(rec.get("server", "")).startswith("secantus"):
        # The SecantusDB stand-in counts insert commands, not documents (analysis/counters.py): the
        # check is unavailable with that reason, never reconciled against a reinterpreted counter.
        check = rec["checks"]["inserts"]
        assert inserts is None and check["verdict"] == "unavailable", check
        assert "insert commands" in check["reason"], check
        assert entry["docs_ok"] == 1200
    else:
        assert inserts == entry["docs_ok"] == 1200
    interval = healthcheck_interval_s(db)
    if interval is None:
        assert rec["verdict"] == "ok", rec["reasons"]
        assert entry["status"] == "ok"
        assert "SUSPECT" not in (lab_run.bench / "report.md").read_text()
        return
    # A Docker healthcheck still runs in the container every `interval` s: the reconciliation must
    # flag exactly that and nothing else (one session / one authenticated ping per check).
    checks = {k for k, c in rec["checks"].items() if c["verdict"] == "suspect"}
    runs = rec["interval_s"] / interval
    if db == "postgres":
        assert checks and checks <= {"sessions", "transactions", "rows_read"}, rec["reasons"]
        extra = rec["observed"]["sessions"] - rec["expected"]["sessions"]
    else:
        assert checks == {"commands"}, rec["reasons"]
        extra = command_deltas(stats).get("ping", 0) - rec["lab_work"]["client_sessions"] - 1
    print(db, f"healthcheck every {interval} s: {extra} extra sessions/pings for {runs:.1f} expected checks")
    assert abs(extra - runs) <= 3, (extra, runs)
    assert entry["status"] == "suspect"


@pytest.mark.parametrize("db", ["mongodb", "postgres"])
def test_foreign_query_loop_makes_the_phase_suspect(foreign_run, db):
    run, loop_out = foreign_run
    assert run.returncode == 0, run.stdout[-3000:]
    queries = int(re.search(r"queries (\d+) rows", loop_out[db]).group(1))
    assert queries >= 2, loop_out[db]
    entry = run_entry(run, db)
    rec = entry["reconciliation"]
    print(db, "foreign", queries, "queries", rec["interval_s"], "s", json.dumps(brief(rec)))
    assert rec["verdict"] == "suspect" and entry["status"] == "suspect", rec
    # flagged by what the loop did (reading the data), not only by a healthcheck still configured
    flagged = {k for k, c in rec["checks"].items() if c["verdict"] == "suspect"}
    assert flagged >= ({"user_table_reads", "rows_read", "sessions"} if db == "postgres" else {"reads"}), flagged
    if db == "mongodb":
        assert rec["observed"]["reads"] >= queries - 2  # a find (+ getMore) per query inside the interval
    assert entry["reason"] and entry["cpu"]["user_s"] is not None, "figures kept, only flagged"
    top = (run.bench / "report.md").read_text().split("## Per-document cost")[0]
    assert "**SUSPECT:**" in top
    assert re.search(rf"{db}.*status SUSPECT \(", run.stdout), run.stdout[-2000:]
    assert run.results["complete"] is True


@pytest.fixture(scope="module")
def cluster_foreign_run(workdir):
    """PostgreSQL alone, 2 clients x 600 docs; 4 s after its phase starts, one session on database
    `postgres` (another database of the same cluster) runs generate_series(1, 1e7) and a CHECKPOINT."""
    remove_project()
    bench = make_bench(workdir, "bench-e2e-cluster-foreign", docs=600, perf_s=0)
    with open(bench / "bench.env", "a") as f:
        f.write("DATABASES=postgres\n")
    proc = subprocess.Popen([str(LAB_ROOT / "runme.sh"), "--no-branch", "--no-check", str(bench)], cwd=LAB_ROOT, env=lab_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)
    lines, work = [], None
    try:
        for line in proc.stdout:
            lines.append(line)
            if work is None and re.search(r"\] postgres: phase starts", line):
                uri = re.sub(r"/[^/]+$", "/postgres", host_uri("postgres"))  # .env exists once runme started
                work = subprocess.Popen(["node", os.path.join(os.path.dirname(LOOP), "foreign-cluster-work.js"), uri, "4",
                                         "10000000"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        proc.wait(timeout=1800)
        work_out = work.communicate(timeout=120)[0] if work else "never started"
    finally:
        for p in (work, proc):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, "".join(lines), "")
    (workdir / "runme-cluster-foreign.log").write_text(done.stdout + "\n--- foreign ---\n" + work_out)
    print(done.stdout[-3000:])
    print(work_out)
    yield Run(bench, done), work_out
    remove_project()


def test_work_on_another_database_of_the_cluster_makes_the_phase_suspect(cluster_foreign_run):
    """The lab database's own counters see nothing of it; the whole-cluster reading does."""
    run, work_out = cluster_foreign_run
    assert run.returncode == 0, run.stdout[-3000:]
    assert work_out.startswith("done generate_series"), work_out
    entry = run_entry(run, "postgres")
    rec = entry["reconciliation"]
    print("cluster foreign", rec["interval_s"], "s", json.dumps(brief(rec)))
    assert rec["verdict"] == "suspect" and entry["status"] == "suspect", rec
    flagged = {k for k, c in rec["checks"].items() if c["verdict"] == "suspect"}
    assert "checkpoints_requested" in flagged, flagged
    assert flagged & {"other_databases_sessions", "other_databases_active_ms", "other_database_sessions_at_end"}, flagged
    assert rec["checks"]["user_table_reads"]["verdict"] == "ok", "the lab database alone saw nothing"
    assert re.search(r"postgres.*status SUSPECT \(", run.stdout), run.stdout[-2000:]
