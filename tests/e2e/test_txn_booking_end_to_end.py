"""A tiny booking bench through ./runme.sh on both databases (the stand-ins: SecantusDB as a replica
set): one flight on one day, transactions held open 20 ms from 2 clients x 3 sessions, so the audit
row is hot and conflicts are retried on both sides (PostgreSQL at SERIALIZABLE). The data is loaded
by init and settled outside the windows; after each phase count checks nothing was lost against the
clients' committed transactions; results.json holds the merged transactions; report.md opens with
the answer per isolation level. Kept short (QUIET_S=2, 2 s phases, no perf record): CI's budget."""
import json
import subprocess
import time

import pytest

from conftest import LAB_ROOT, lab_env, remove_project

OPS, CLIENTS = 40, 2
BENCH = f"""\
DESCRIPTION="end-to-end booking transactions"
WORKLOAD=booking
KEY=uuidv7
LAYOUT=clustered
TOPOLOGY=replset
ISOLATION=serializable
FLIGHTS=1
DAY_RANGE=1
BOOKING_SLEEP_MS=20
MAX_ATTEMPTS=100
CLIENTS={CLIENTS}
SESSIONS=3
RATE=20
OPS={OPS}
SEED=7
QUIET_S=2
PERF_RECORD_S=0
"""


@pytest.fixture(scope="module")
def booking_run(workdir):
    remove_project()
    bench = workdir / "bench-e2e-booking"
    bench.mkdir()
    (bench / "bench.env").write_text(BENCH)
    started = time.monotonic()
    proc = subprocess.run([str(LAB_ROOT / "runme.sh"), "--no-branch", "--no-check", str(bench)], cwd=LAB_ROOT,
                          env=lab_env(), capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    (workdir / "runme-booking.log").write_text(proc.stdout + proc.stderr)
    print(f"booking bench through runme.sh: {time.monotonic() - started:.0f} s")
    yield bench, proc
    remove_project()


def test_the_run_is_ok_and_nothing_was_lost_on_either_database(booking_run):
    bench, proc = booking_run
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    results = json.loads((bench / "results.json").read_text())
    assert results["complete"], results["incomplete"]
    assert [r["phase"] for r in results["runs"]] == ["mongodb", "postgres"]
    for run in results["runs"]:
        t, check = run["transactions"], run["booking_check"]
        assert run["status"] == "ok", (run["phase"], run["reason"], run["reconciliation"]["reasons"])
        committed = sum(json.loads((bench / "clients" / f"{run['phase']}-client-{i}.json").read_text())["docs_ok"]
                        for i in range(1, CLIENTS + 1))
        assert committed == CLIENTS * OPS == t["committed"]
        assert check["ok"] and check["seats"] == check["payments"] == committed == check["committed"]
        assert check["audit_seats"] == committed and check["audit_mismatches"] == []
        # the audit row was contended: conflicts happened, were retried and every attempt counted
        assert t["retries"] > 0, (run["phase"], t)
        assert t["attempts"] == t["committed"] + t["aborted_attempts"] and t["gave_up"] == 0
        assert t["sessions"] == 3 and run["reconciliation"]["lab_work"]["client_sessions"] == CLIENTS * 3
        assert t["cpu_us_per_committed"] > 0 and t["last_attempt_count"] == committed
    pg = next(r for r in results["runs"] if r["database"] == "postgres")
    assert set(pg["transactions"]["aborts"]) <= {"serialization_failure", "deadlock_detected"}
    assert pg["reconciliation"]["checks"]["transactions"]["verdict"] == "ok"
    # settled after init, outside the windows
    for db in ("mongodb", "postgres"):
        assert "settle: " in (bench / f"{db}.out").read_text()
    assert "vacuum (analyze) aircraft, schedule, seat, payment, audit; CHECKPOINT" in (bench / "postgres.out").read_text()


def test_the_report_opens_with_the_answer_per_isolation_level(booking_run):
    bench, _ = booking_run
    report = (bench / "report.md").read_text()
    answer = report[report.index("## The answer"):]
    lines = answer.splitlines()
    assert lines[2] == "### Transactions (booking) per isolation level"
    rows = [x for x in lines[:12] if x.startswith("| mongodb") or x.startswith("| postgres")]
    assert rows[0].startswith("| mongodb (stand-in) (snapshot read concern, majority write concern) | ok |") or \
        rows[0].startswith("| mongodb (snapshot read concern, majority write concern) | ok |")
    assert "(SERIALIZABLE) | ok |" in rows[1]
    assert all(f"committed {CLIENTS * OPS} |" in r for r in rows), rows
    assert "| transaction isolation |" in report and "ISOLATION=serializable" in report
