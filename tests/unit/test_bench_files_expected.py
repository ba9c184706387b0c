"""The files a finished insert bench leaves (tests/bench_files_expected.py), which both e2e runs hold
their folders to: one host (test_lab_end_to_end's shared run) and roles placed on two simulated hosts
(test_simulated_hosts). A placed run holds the single host's files and its own two records, nothing else."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_files_expected import expected_files  # noqa: E402


def plan(databases, perf_record_s, clients=2):
    return {"settings": {"values": {"PERF_RECORD_S": str(perf_record_s)}},
            "databases": [{"name": db} for db in databases],
            "phases": [{"id": db, "database": db, "clients": clients} for db in databases]}


def test_one_host_two_databases_with_perf_record():
    got = expected_files(plan(["mongodb", "postgres"], 3), placed=False, perf=True)
    per_db = lambda d: [f"{d}.count.json", f"{d}.log", f"{d}.metrics.json", f"{d}.out", f"{d}.perf",  # noqa: E731
                        f"{d}.perfstat.csv", f"{d}.phase.json", f"{d}.server-stats.json", f"{d}.settings.json",
                        f"{d}.svg", f"clients/{d}-client-1.json", f"clients/{d}-client-2.json",
                        f"plots/timeseries-{d}.png", f"timeseries/{d}.csv.gz"]
    assert got == sorted(["bench.env", "plan.json", "host.json", "hosts.json", "results.json", "report.md",
                          "plots/memory.png", "plots/per_doc.png", "plots/timeline.png",
                          *per_db("mongodb"), *per_db("postgres")])


def test_a_placed_run_holds_the_single_host_s_files_and_its_own_two_records():
    p = plan(["mongodb"], 2)
    assert expected_files(p, placed=True, perf=True) == sorted(
        expected_files(p, placed=False, perf=True) + ["placement.json", "canary.json"])


def test_without_perf_or_without_a_recording_no_perf_files():
    without_perf = expected_files(plan(["mongodb"], 2), placed=False, perf=False)
    assert not [f for f in without_perf if f.endswith((".perf", ".svg", ".perfstat.csv"))], without_perf
    no_record = expected_files(plan(["mongodb"], 0), placed=False, perf=True)
    assert "mongodb.perfstat.csv" in no_record and "mongodb.perf" not in no_record and "mongodb.svg" not in no_record
    # a recording that held no sample: its phase has perf stat's counters but no profile nor flame graph
    p = plan(["mongodb", "postgres"], 2)
    empty = expected_files(p, placed=False, perf=True, unprofiled={"mongodb"})
    assert "mongodb.perfstat.csv" in empty and "mongodb.perf" not in empty and "mongodb.svg" not in empty
    assert "postgres.perf" in empty and "postgres.svg" in empty
