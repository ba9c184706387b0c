"""The smoke check's sizes (`./runme.sh check`, lab/driver/check.py): `node client plan --check-size SECONDS
FILE` prints the KEY=VALUE words that make client 1 run about SECONDS per database at the bench's own
rate, sized by the workload's file (client/src/workloads/<name>.workload.js checkSize); for query
benches the first query type, 10 executions. The sizes below are those lab/check.sh's `check_size`
(bash with Python embedded) gave every shipped bench before the sizing moved into the workload files:
the check must keep giving exactly these."""
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def check_size(seconds, file):
    r = subprocess.run(["node", str(ROOT / "client"), "plan", "--check-size", str(seconds), str(file)],
                       capture_output=True, text=True, check=True)
    return r.stdout.split()


DOCS_20_6_1 = (["DOCS=300"], ["DOCS=90"], ["DOCS=15"])
YCSB_20_6_1 = (["OPS=1000"], ["OPS=300"], ["OPS=50"])
EVENTS = ["EVENTS=5000", "QUERIES=olap-a", "QUERY_RUNS=10"]
TSBS_Q = ["QUERIES=single-groupby-1-1-1", "QUERY_RUNS=10"]

# bench folder -> the words at CHECK_SECONDS 20 (the default), 6 (the e2e test's) and 1
PINNED = {
    "bench1": DOCS_20_6_1, "bench2": DOCS_20_6_1, "bench3": DOCS_20_6_1, "bench4": DOCS_20_6_1,
    "doc-size": DOCS_20_6_1, "sizes-10x100": DOCS_20_6_1, "sizes-5x10": DOCS_20_6_1,
    "events-olap": (EVENTS, EVENTS, EVENTS),
    "oltp": (["OPS=2000"], ["OPS=600"], ["OPS=100"]),
    "oltp-fit": (["OPS=2000"], ["OPS=600"], ["OPS=100"]), "oltp-xl": (["OPS=2000"], ["OPS=600"], ["OPS=100"]),
    "tsbs-ingest": (["SPAN_S=400"], ["SPAN_S=120"], ["SPAN_S=20"]),
    "tsbs-queries": (["SPAN_S=43200", "INTERVAL_S=540", *TSBS_Q], ["SPAN_S=43200", "INTERVAL_S=1800", *TSBS_Q],
                     ["SPAN_S=43200", "INTERVAL_S=10800", *TSBS_Q]),
    "tsbs-timescale": (["SPAN_S=43200", "INTERVAL_S=561.039", *TSBS_Q], ["SPAN_S=43200", "INTERVAL_S=1800", *TSBS_Q],
                       ["SPAN_S=43200", "INTERVAL_S=10800", *TSBS_Q]),
    "txn-booking": (["OPS=500"], ["OPS=150"], ["OPS=25"]),
    "txn-grid": (["OPS=200"], ["OPS=60"], ["OPS=10"]),
    "ycsb-a": YCSB_20_6_1, "ycsb-a-nested": YCSB_20_6_1, "ycsb-a-large": YCSB_20_6_1, "ycsb-b": YCSB_20_6_1,
    "ycsb-c": YCSB_20_6_1, "ycsb-c-fit": YCSB_20_6_1, "ycsb-c-xl": YCSB_20_6_1, "ycsb-d": YCSB_20_6_1,
    "storage-forms": YCSB_20_6_1,
    "ycsb-e": (["OPS=400"], ["OPS=120"], ["OPS=20"]), "ycsb-f": YCSB_20_6_1,
}


def test_every_shipped_bench_is_pinned():
    assert sorted(p.parent.name for p in ROOT.glob("*/bench.env")) == sorted(PINNED)


@pytest.mark.parametrize("bench", sorted(PINNED))
def test_the_check_sizes_of_every_shipped_bench_are_unchanged(bench):
    for seconds, words in zip((20, 6, 1), PINNED[bench]):
        assert check_size(seconds, ROOT / bench / "bench.env") == words, (bench, seconds)


def test_tsbs_ingest_gets_the_span_of_client_1s_events():
    # RATE 50 x 8 s = 400 events; 100 hosts over 4 clients: client 1 has 25 hosts, 16 ticks of 10 s
    assert check_size(8, ROOT / "tsbs-ingest/bench.env") == ["SPAN_S=160"]


def test_tsbs_queries_keep_12_hours_unless_the_data_already_spans_them(tmp_path):
    text = (ROOT / "tsbs-queries/bench.env").read_text()
    # without queries, no 12 h floor
    (tmp_path / "none.env").write_text(text + "\nQUERIES=none\n")
    assert [w for w in check_size(20, tmp_path / "none.env") if not w.startswith("SPAN_S=")] == []
    # a span already longer than 12 h keeps its own, stretched no further
    assert check_size(100000, ROOT / "tsbs-queries/bench.env")[0].startswith("SPAN_S=")
    assert int(check_size(100000, ROOT / "tsbs-queries/bench.env")[0][len("SPAN_S="):]) > 43200


def test_events_get_a_small_generated_set_unless_a_dataset(tmp_path):
    env = tmp_path / "run.env"
    # the generator's keys do not apply with a DATASET
    kept = [line for line in (ROOT / "events-olap/bench.env").read_text().splitlines()
            if not re.match(r"(EVENTS|REPOS|ACTORS|SKEW)=", line)]
    env.write_text("\n".join(kept) + "\nDATASET=/data/own.ndjson\n")
    assert check_size(20, env) == ["QUERIES=olap-a", "QUERY_RUNS=10"]


def test_bad_seconds_are_refused_naming_them():
    r = subprocess.run(["node", str(ROOT / "client"), "plan", "--check-size", "soon", str(ROOT / "bench1/bench.env")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "SECONDS" in r.stderr and "soon" in r.stderr


def test_the_check_computes_no_size_itself():
    # the sizing is the workload files' (plan --check-size); the driver only passes the words on
    text = (ROOT / "lab/driver/check.py").read_text()
    assert "--check-size" in text
    assert not re.search(r"python3 -c|node -e|DOCS *=|OPS *=|SPAN_S *=", text)


def test_the_check_runs_20_seconds_per_database_unless_told(monkeypatch):
    # the e2e check runs shorter (CHECK_SECONDS=6): the default is proven here
    from lab.driver.check import check_seconds
    monkeypatch.delenv("CHECK_SECONDS", raising=False)
    assert check_seconds() == 20
    monkeypatch.setenv("CHECK_SECONDS", "6")
    assert check_seconds() == 6
