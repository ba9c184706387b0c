"""lab/check.sh check_size: the sizes `./runme.sh check` gives a bench so that it takes about
CHECK_SECONDS per database; for query benches the first query type, 10 executions."""
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def check_size(*args):
    r = subprocess.run(["bash", "-c", f'LAB_ROOT="{ROOT}"; . "{ROOT}/lab/check.sh"; check_size "$@"', "_", *args],
                       capture_output=True, text=True, check=True)
    return r.stdout.split()


def test_insert_and_ycsb_get_their_operations():
    assert check_size("insert", "300", str(ROOT / "bench1/bench.env")) == ["DOCS=300"]
    assert check_size("ycsb", "1000", str(ROOT / "ycsb-a/bench.env")) == ["OPS=1000"]


def test_tsbs_ingest_gets_the_span_of_client_1s_events():
    # 100 hosts over 4 clients: client 1 has 25 hosts; 400 events = 16 ticks of 10 s
    assert check_size("tsbs", "400", str(ROOT / "tsbs-ingest/bench.env")) == ["SPAN_S=160"]


def test_tsbs_queries_keep_12_hours_and_run_the_first_query_only():
    # 2000 events of 25 hosts = 80 ticks, stretched over the 12 h the longest TSBS window needs
    assert check_size("tsbs", "2000", str(ROOT / "tsbs-queries/bench.env")) == [
        "SPAN_S=43200", "INTERVAL_S=540", "QUERIES=single-groupby-1-1-1", "QUERY_RUNS=10"]


def test_events_get_a_small_generated_set_unless_a_dataset():
    env = str(ROOT / "events-olap/bench.env")
    assert check_size("events", "0", env, "") == ["EVENTS=5000", "QUERIES=olap-a", "QUERY_RUNS=10"]
    assert check_size("events", "0", env, "/data/own.ndjson") == ["QUERIES=olap-a", "QUERY_RUNS=10"]


def test_the_check_runs_20_seconds_per_database_unless_told():
    # the e2e check runs shorter (CHECK_SECONDS=6): the default is proven here
    r = subprocess.run(["bash", "-c", f'LAB_ROOT="{ROOT}"; unset CHECK_SECONDS; . "{ROOT}/lab/check.sh"; echo "$CHECK_SECONDS"'],
                       capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["20"]
