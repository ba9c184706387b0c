"""A paired sweep (one --sweep K1+K2=v1+w1,...: only the pairs given) and a sweep's comparison of its
points: fixtures/tsbs-timescale-sweep holds the three points of a real tsbs-timescale run on this
machine (MongoDB per event and per host-hour on SecantusDB, TimescaleDB 2.28.3 hand-built; 10 hosts
x 13 h, 8 clients, 3 executions per query), trimmed to the runs' figures and query sections."""
import json
import os
import shutil

import pytest

from analysis.experiments import sweep, sweep_args
from analysis.common.errors import AnalysisError

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "tsbs-timescale-sweep", "sweep-MODEL+DATABASES")
SPECS = {"MODEL": {"type": "enum", "values": ["event", "bucket", "native"], "allowed": "one of event, bucket, native"},
         "DATABASES": {"type": "list", "values": ["mongodb", "postgres", "timescaledb"], "allowed": "a subset of ..."},
         "CLIENTS": {"type": "int", "allowed": "an integer >= 1"},
         "DESCRIPTION": {"type": "text", "allowed": "text"}}
SIDES = ["event, mongodb: mongodb", "bucket, mongodb: mongodb", "native, timescaledb: timescaledb"]


def test_a_paired_sweep_is_its_pairs_only():
    assert sweep_args.parse("MODEL+DATABASES=event+mongodb,bucket+mongodb,native+timescaledb", SPECS) == \
        ("MODEL+DATABASES", ["event+mongodb", "bucket+mongodb", "native+timescaledb"])
    assert sweep_args.parse("CLIENTS+MODEL=2+event,8+bucket", SPECS) == ("CLIENTS+MODEL", ["2+event", "8+bucket"])


BAD = [
    ("MODEL+DATABASES=event+mongodb,bucket+cassandra", "'cassandra' is not a value of DATABASES"),
    ("MODEL+DATABASES=event+mongodb,bucket", "'bucket' is not 2 values joined by '+'"),
    ("MODEL+DATABASES=event+mongodb,event+mongodb", "a point is given twice"),
    ("MODEL+DATABASES=event+mongodb", "--set MODEL=event --set DATABASES=mongodb"),
    ("MODEL+MODEL=event+bucket,bucket+event", "two different keys"),
    ("MODEL+DESCRIPTION=event+a,bucket+b", "DESCRIPTION is neither numeric, an enum nor a list"),
    ("MODEL+CLIENT=event+1,bucket+2", "CLIENT is not a bench key (did you mean CLIENTS?)"),
    ("CLIENTS+MODEL=two+event,8+bucket", "'two' is not a number"),
]


def test_a_bad_paired_sweep_names_the_key_and_what_is_allowed():
    for arg, message in BAD:
        with pytest.raises(AnalysisError, match=None) as e:
            sweep_args.parse(arg, SPECS)
        assert message in str(e.value), (arg, str(e.value))


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    d = tmp_path_factory.mktemp("paired") / "sweep-MODEL+DATABASES"
    shutil.copytree(FIXTURE, d)
    return d, sweep.write(str(d))


def point(name):
    with open(os.path.join(FIXTURE, name, "results.json"), encoding="utf-8") as f:
        return json.load(f)


def test_the_three_designs_ingest_side_by_side(result):
    d, r = result
    assert r["key"] == "MODEL+DATABASES" and r["values"] == ["event, mongodb", "bucket, mongodb", "native, timescaledb"]
    assert "pairs of MODEL and DATABASES" in r["description"]
    assert list(r["ingest"]) == SIDES
    for side, folder in zip(SIDES, ["MODEL=event+DATABASES=mongodb", "MODEL=bucket+DATABASES=mongodb",
                                    "MODEL=native+DATABASES=timescaledb"]):
        run = next(x for x in point(folder)["runs"] if x["stage"] == "run")
        got = r["ingest"][side]
        assert got["model"] == folder.split("+")[0].split("=")[1] and got["events"] == 7800 and got["host_hours"] == 130
        assert got["storage_bytes_per_host_hour"] == run["ingest"]["storage_bytes_per_host_hour"]
        assert got["cpu_us_per_event"] == run["per_op"]["cpu_us"]
    assert r["ingest"][SIDES[2]]["chunks"] == 2 and r["ingest"][SIDES[0]]["chunks"] is None
    # TimescaleDB's WAL per event (PostgreSQL's counter); the MongoDB stand-in has none, and says so
    assert r["ingest"][SIDES[2]]["wal_bytes_per_event"] == pytest.approx(3983456 / 7800)
    assert r["ingest"][SIDES[0]]["wal_bytes_per_event"] is None and "SecantusDB" in r["ingest"][SIDES[0]]["wal_reason"]
    # each database runs at its own points only: never listed as missing elsewhere
    assert not any("not run at this point" in a["reason"] for a in r.get("absent") or [])
    text = (d / "report.md").read_text()
    assert "One complete bench per pair of MODEL and DATABASES" in text and "Time-series ingest, point by point" in text


def test_all_13_queries_answer_alike_on_the_three_designs(result):
    d, r = result
    assert len(r["queries"]) == 13
    for name, q in r["queries"].items():
        assert list(q["sides"]) == SIDES, name
        assert (q["status"], q["answers_equal"], q["differ"]) == ("ok", True, []), name
        assert len({s["digest"] for s in q["sides"].values()}) == 1, name
        assert all(s["cpu_us_net"] is not None and s["latency_p50_ms"] is not None for s in q["sides"].values()), name
    assert (d / "report.md").read_text().count("equal on all 3") == 13


def test_a_differing_answer_is_named_with_its_rows(tmp_path):
    d = tmp_path / "sweep-MODEL+DATABASES"
    shutil.copytree(FIXTURE, d)
    path = d / "MODEL=native+DATABASES=timescaledb" / "results.json"
    r = json.loads(path.read_text())
    q = next(x for x in r["runs"] if x["phase"] == "timescaledb-q-lastpoint")["query"]
    q["digest"] = "0" * 64
    q["per_execution"][0]["digest"] = "f" * 64
    path.write_text(json.dumps(r))
    built = sweep.build(str(d))["queries"]
    out = built["lastpoint"]
    assert (out["status"], out["answers_equal"], out["differ"]) == ("answers differ", False, [SIDES[2]])
    assert out["first_difference"]["k"] == 0 and out["first_difference"][SIDES[2]]["digest"] == "f" * 64
    assert "differ from event, mongodb: mongodb's" in out["reason"]
    # the other queries are untouched
    assert built["high-cpu-1"]["status"] == "ok"


def _set_run(path, phase, **changes):
    r = json.loads(path.read_text())
    run = next(x for x in r["runs"] if x["phase"] == phase)
    for key, value in changes.items():
        if key == "cpu_factor":
            run["query"]["per_query"]["cpu_us_net"] *= value
        elif key == "digest":
            run["query"]["digest"] = value
        else:
            run[key] = value
    path.write_text(json.dumps(r))
    return r


def test_a_suspect_sides_cpu_is_marked(tmp_path):
    d = tmp_path / "sweep-MODEL+DATABASES"
    shutil.copytree(FIXTURE, d)
    _set_run(d / "MODEL=bucket+DATABASES=mongodb" / "results.json", "mongodb-q-lastpoint",
             status="suspect", reason="reads 9 > expected 5 + tolerance 0")
    r = sweep.write(str(d))
    side = r["queries"]["lastpoint"]["sides"][SIDES[1]]
    assert side["figures_from"] == "suspect" and side["suspect"] == "reads 9 > expected 5 + tolerance 0"
    text = (d / "report.md").read_text()
    row = next(ln for ln in text.splitlines() if ln.startswith("| lastpoint |"))
    assert row.split(" | ")[3].endswith("(SUSPECT)"), row
    assert f"- SUSPECT {SIDES[1]}: reads 9 > expected 5 + tolerance 0" in text
    other = next(ln for ln in text.splitlines() if ln.startswith("| high-cpu-1 |"))
    assert "SUSPECT" not in other


def test_a_repeated_point_is_compared_on_every_repetition(tmp_path):
    """The native point run 3 times: every repetition's answers are compared, and its figures are the
    mean over the ok repetitions (a suspect third left out), said in the table."""
    d = tmp_path / "sweep-MODEL+DATABASES"
    shutil.copytree(FIXTURE, d)
    native = d / "MODEL=native+DATABASES=timescaledb"
    original = native / "results.json"
    cpu = next(x for x in json.loads(original.read_text())["runs"]
               if x["phase"] == "timescaledb-q-lastpoint")["query"]["per_query"]["cpu_us_net"]
    for i in (1, 2, 3):
        (native / f"repeat-{i}").mkdir()
        shutil.copy(original, native / f"repeat-{i}" / "results.json")
    _set_run(native / "repeat-2" / "results.json", "timescaledb-q-lastpoint", cpu_factor=2.0)
    _set_run(native / "repeat-2" / "results.json", "timescaledb-q-high-cpu-1", digest="0" * 64)
    _set_run(native / "repeat-3" / "results.json", "timescaledb-q-lastpoint", cpu_factor=10.0,
             status="suspect", reason="user_table_reads 4 > expected 0 + tolerance 0")
    (native / "bench.env").write_text("WORKLOAD=tsbs\n")
    (native / "run.env").write_text("WORKLOAD=tsbs\nREPEAT=3\n")
    original.unlink()
    from analysis.experiments import repeat
    repeat.write(str(native))
    r = sweep.write(str(d))
    side = r["queries"]["lastpoint"]["sides"][SIDES[2]]
    assert side["repetitions"] == [1, 2] and side["of"] == 3
    assert side["cpu_us_net"] == pytest.approx(1.5 * cpu)
    assert side["suspect"] == "repetition 3: user_table_reads 4 > expected 0 + tolerance 0"
    high = r["queries"]["high-cpu-1"]
    assert high["status"] == "answers differ" and high["differ"] == [SIDES[2]]
    assert f"{SIDES[2]} (repetition 2)" in high["reason"]
    text = (d / "report.md").read_text()
    row = next(ln for ln in text.splitlines() if ln.startswith("| lastpoint |"))
    assert row.split(" | ")[4].endswith("(mean of reps 1, 2 of 3; a repetition suspect, left out) |"), row
