"""An enum sweep (`--sweep MODEL=event,bucket,native`): points in the order given, categories on the
x axis, one side-by-side plot of per-event CPU, WAL and storage per model for both databases, and
a point that did not run a database (native on the stand-ins: DATABASES=postgres) is n/a with the
reason, never a value; the ingest figures (storage per event / host-hour) come along."""
import copy
import json
import os
import shutil

import pytest

from analysis.figures import ingest, results
from analysis.experiments import sweep


@pytest.fixture
def base(fixture_benches):
    for path in fixture_benches.values():
        r = results.build(path)
        if {x["database"] for x in r["runs"]} == {"mongodb", "postgres"} and all(x["status"] == "ok" for x in r["runs"]):
            return path, r
    pytest.skip("no fixture bench with both databases ok")


# (model, {db: (cpu_us per event, wal bytes per event or None, storage bytes per event)})
POINTS = [
    ("event", {"mongodb": (120.0, None, 300.0), "postgres": (90.0, 600.0, 350.0)}),
    ("bucket", {"mongodb": (200.0, None, 120.0), "postgres": (400.0, 9000.0, 180.0)}),
    ("native", {"postgres": (60.0, 250.0, 110.0)}),  # mongodb not run (stand-ins)
]


def _sweep(tmp_path, base):
    path, r0 = base
    sweep_dir = tmp_path / "tsbs9" / "sweep-MODEL"
    sweep_dir.mkdir(parents=True)
    # the order runme.sh gives, not the alphabetical one
    (sweep_dir / "values").write_text("event\nbucket\nnative\n")
    for model, by_db in POINTS:
        point = sweep_dir / f"MODEL={model}"
        point.mkdir()
        shutil.copy(os.path.join(path, "bench.env"), point / "bench.env")
        r = copy.deepcopy(r0)
        r["runs"] = [run for run in r["runs"] if run["database"] in by_db]
        r["config"]["run"] = dict(r["config"].get("run") or {}, MODEL=model, DATABASES=" ".join(by_db))
        for run in r["runs"]:
            cpu, wal, storage = by_db[run["database"]]
            run["per_op"].update(cpu_us=cpu, wal_bytes=wal)
            run["wal"] = {"bytes": None, "reason": "FerretDB has no WAL counter"} if wal is None else run["wal"]
            run["ingest"] = {"model": model, "events": 1000, "host_hours": 8, "storage_bytes_per_event": storage,
                             "storage_bytes_per_host_hour": storage * 1000 / 8, "reason": None}
        (point / "results.json").write_text(json.dumps(r))
    return sweep_dir


def test_enum_sweep_in_the_given_order_with_the_side_by_side_plot(tmp_path, base):
    sweep_dir = _sweep(tmp_path, base)
    res = sweep.write(str(sweep_dir))
    assert res["values"] == ["event", "bucket", "native"] and res["categorical"] is True
    assert [p["folder"] for p in res["points"]] == ["MODEL=event", "MODEL=bucket", "MODEL=native"]
    storage = res["series"]["postgres"]["ingest.storage_bytes_per_event"]
    assert [(s["value"], s["mean"]) for s in storage] == [("event", 350.0), ("bucket", 180.0), ("native", 110.0)]
    assert [s["value"] for s in res["series"]["mongodb"]["per_op.cpu_us"]] == ["event", "bucket"]
    assert "plots/categories.png" in res["plots"]
    with open(sweep_dir / "plots" / "categories.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    # every missing bar with its reason: FerretDB's WAL, and mongodb not run at native
    why = {(a["run"], a["value"], a["figure"]): a["reason"] for a in res["absent"]}
    assert why[("mongodb", "event", "per_op.wal_bytes")] == "FerretDB has no WAL counter"
    assert why[("mongodb", "native", "per_op.cpu_us")] == "not run at this point (DATABASES=postgres)"
    assert ("postgres", "native", "per_op.cpu_us") not in why
    text = (sweep_dir / "report.md").read_text()
    assert "- mongodb at MODEL=native, CPU (µs/op, gross): not run at this point (DATABASES=postgres)" in text
    assert "## storage (B/event) against MODEL" in text
    assert "| bucket | 120 | 180 | 0.667x |" in text


def test_ingest_figures_of_a_phase():
    clients = [("c1", {"tsbs": {"model": "bucket", "host_hours": 4, "hosts": 2, "events": 500},
                       "operations": {"bucket": {"ok": 500}}}),
               ("c2", {"tsbs": {"model": "bucket", "host_hours": 4, "hosts": 2, "events": 500},
                       "operations": {"bucket": {"ok": 499}}})]
    out = ingest.ingest(clients, {"documents": 999, "rows": 8}, 80000)
    assert out["model"] == "bucket" and out["events"] == 999 and out["events_acknowledged"] == 999
    assert out["host_hours"] == 8 and out["rows"] == 8 and out["events_planned"] == 1000
    assert out["storage_bytes_per_event"] == pytest.approx(80000 / 999)
    assert out["storage_bytes_per_host_hour"] == 10000
    assert ingest.ingest(clients, None, None)["reason"].startswith("no storage figure")
    assert ingest.ingest([("c", {"operations": {}})], None, 1) is None


def test_the_ingest_section_names_the_indexes_it_maintained():
    run = {"phase": "postgres", "database": "postgres", "ingest": {"model": "event", "events": 10}, "per_op": {}}
    with_idx = "\n".join(ingest.report_lines({"runs": [run], "indexes": {
        "postgres": ["create index jsonbench_time on jsonbench ((data #>> '{time}'))"]}}))
    assert "Secondary indexes during the ingest on postgres (the query set's, created before it): " \
           "`create index jsonbench_time on jsonbench ((data #>> '{time}'))`" in with_idx
    assert "Secondary indexes during the ingest: none" in "\n".join(ingest.report_lines({"runs": [run], "indexes": None}))
