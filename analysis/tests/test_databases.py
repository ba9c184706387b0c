"""Analysis takes the databases and the ratio's sides from the manifests (analysis/common/databases.py):
the stated baseline decides which phases pair and which side is the numerator."""
import subprocess
import sys
from pathlib import Path

from analysis.common import databases
from analysis.figures import profile_samples, results
from analysis.experiments import figures

ROOT = Path(__file__).resolve().parents[2]
KEYS = ["mongodb-load", "mongodb", "mongodb-q-olap-a", "mongodb-q-olap-b",
        "postgres-load", "postgres", "postgres-q-olap-a"]


def test_the_baseline_is_the_original_studys_pair():
    assert databases.baseline() == ("mongodb", "postgres")
    assert databases.pair() == ("mongodb", "postgres") and databases.pair(None, "mysql") == ("mongodb", "mysql")


def test_phases_pair_by_id_on_the_baseline():
    assert figures.ratio_pairs(KEYS) == [("mongodb-load", "postgres-load"), ("mongodb", "postgres"),
                                         ("mongodb-q-olap-a", "postgres-q-olap-a")]
    # a phase id that merely contains the numerator's name is not the numerator's phase
    assert figures.ratio_pairs(["postgres-q-mongodb-x", "postgres-q-postgres-x"]) == []


def test_another_baseline_turns_the_pairs_and_the_ratio(monkeypatch):
    monkeypatch.setattr(databases, "baseline", lambda: ("postgres", "mongodb"))
    assert figures.ratio_pairs(KEYS) == [("postgres-load", "mongodb-load"), ("postgres", "mongodb"),
                                         ("postgres-q-olap-a", "mongodb-q-olap-a")]
    figs = {"postgres": {"per_doc.cpu_us": 30.0}, "mongodb": {"per_doc.cpu_us": 10.0}}
    assert figures.ratios(figs) == {"postgres/mongodb": {"per_doc.cpu_us": 3.0}}
    run = lambda db, cpu: {"database": db, "phase": db, "stage": "run", "status": "ok", "stand_in": False,  # noqa: E731
                           "per_doc": {f: None for f in results.PER_DOC_FIELDS} | {"cpu_us": cpu}}
    r = results.ratios([run("mongodb", 10.0), run("postgres", 30.0)])
    assert (r["numerator"], r["denominator"], r["cpu_us"]) == ("postgres", "mongodb", 3.0)


def test_server_processes_and_the_reading_servers_database():
    assert profile_samples.server_comms("mongodb") == {"mongod", "secantusd-py", "ferretdb"}
    assert profile_samples.server_comms("postgres") == {"postgres"}
    assert profile_samples.server_comms("oracle") == set()
    assert [databases.of_server_stats_name(n) for n in ("mongod", "secantus", "postgres", "oracle")] == \
        ["mongodb", "mongodb", "postgres", None]


def test_export_refuses_a_database_without_a_manifest_naming_the_known_ones(tmp_path):
    r = subprocess.run([sys.executable, "-m", "analysis", "export", "--bench-dir", str(tmp_path), "--database", "oracle",
                        "--prometheus", "http://127.0.0.1:1"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "invalid choice: 'oracle'" in r.stderr and "'mongodb'" in r.stderr and "'postgres'" in r.stderr
