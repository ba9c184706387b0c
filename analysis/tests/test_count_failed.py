"""A transaction phase without its count (issue 25 item 3): booking and oltp prove their work by the
count after the phase (the nothing-lost check, the rows there), so a phase whose count is missing is
not ok: no ratio, no REPEAT or sweep statistics, and the report says why. And REPEAT/sweep leave out
a repetition or point whose results.json says `complete: false`, saying so."""
import copy
import json
import os
import shutil

import pytest

from analysis.figures import results
from analysis.experiments import repeat, sweep
from analysis.render.report import bench_report

from . import txn_fixture


@pytest.fixture
def booking_bench(tmp_path):
    d = tmp_path / "booking"
    txn_fixture.build(str(d))
    return d


def test_a_booking_phase_without_its_count_fails_and_gives_no_ratio(booking_bench):
    os.remove(booking_bench / "postgres.count.json")
    r = results.build(str(booking_bench))
    pg = next(run for run in r["runs"] if run["database"] == "postgres")
    assert pg["status"] == "failed" and pg["booking_check"] is None
    assert pg["reason"].startswith("no count after the phase (postgres.count.json missing)"), pg["reason"]
    assert "nothing lost" in pg["reason"]
    assert r["ratios"]["per_op"]["cpu_us"] is None and r["ratios"]["reason"].startswith("no ratio: postgres status failed")
    assert not r["complete"] and any(i.startswith("postgres: status failed") for i in r["incomplete"])
    results.write(str(booking_bench))
    text = (booking_bench / "report.md").read_text() if bench_report(str(booking_bench)) else ""
    assert "(stand-in)'s postgres phase failed** (no count after the phase" in text
    assert "CPU per committed transaction: no comparison: postgres status failed" in text


def test_an_insert_phase_without_its_count_stays_ok_and_the_run_incomplete(fixture_benches):
    d = fixture_benches["bench1"]
    os.remove(os.path.join(d, "postgres.count.json"))
    r = results.build(d)
    assert {run["database"]: run["status"] for run in r["runs"]} == {"mongodb": "ok", "postgres": "ok"}
    assert "postgres: missing postgres.count.json" in r["incomplete"]


def _ok_bench(fixture_benches):
    d = fixture_benches["bench1"]
    base = results.build(d)
    assert base["complete"] and all(run["status"] == "ok" for run in base["runs"])
    return d, base


def _repetitions(tmp_path, d, base, cpu, incomplete_at):
    bench = tmp_path / "bench9"
    bench.mkdir()
    shutil.copy(os.path.join(d, "bench.env"), bench / "bench.env")
    (bench / "run.env").write_text(open(os.path.join(d, "run.env")).read() + f"REPEAT={len(cpu)}\n")
    for i, (m, p) in enumerate(cpu, 1):
        (bench / f"repeat-{i}").mkdir()
        r = copy.deepcopy(base)
        for run in r["runs"]:
            run["per_doc"]["cpu_us"] = m if run["database"] == "mongodb" else p
        if i == incomplete_at:  # every phase ok, but the run is not whole (a count missing)
            r["complete"], r["incomplete"] = False, ["postgres: missing postgres.count.json"]
        (bench / f"repeat-{i}" / "results.json").write_text(json.dumps(r))
    return bench


def test_repeat_leaves_an_incomplete_repetition_out_and_says_so(tmp_path, fixture_benches):
    d, base = _ok_bench(fixture_benches)
    bench = _repetitions(tmp_path, d, base, [(200.0, 100.0), (900.0, 100.0), (220.0, 100.0)], incomplete_at=2)
    res = repeat.write(str(bench))
    cpu = res["figures"]["mongodb"]["per_doc.cpu_us"]
    assert cpu["values"] == [200.0, None, 220.0] and cpu["n"] == 2
    assert res["ratios"]["mongodb/postgres"]["per_doc.cpu_us"]["n"] == 2
    assert "repetition 2: incomplete (postgres: missing postgres.count.json): its figures are left out" in res["notes"]
    text = (bench / "report.md").read_text()
    assert "repetition 2: incomplete (postgres: missing postgres.count.json): its figures are left out" in text


def test_a_sweep_leaves_an_incomplete_single_point_out_and_says_so(tmp_path, fixture_benches):
    d, base = _ok_bench(fixture_benches)
    sweep_dir = tmp_path / "bench9" / "sweep-FIELD_BYTES"
    sweep_dir.mkdir(parents=True)
    for value, complete in ((100, True), (1000, False)):
        point = sweep_dir / f"FIELD_BYTES={value}"
        point.mkdir()
        shutil.copy(os.path.join(d, "bench.env"), point / "bench.env")
        (point / "run.env").write_text(open(os.path.join(d, "run.env")).read() + f"FIELD_BYTES={value}\n")
        r = copy.deepcopy(base)
        if not complete:
            r["complete"], r["incomplete"] = False, ["postgres: missing postgres.count.json"]
        (point / "results.json").write_text(json.dumps(r))
    res = sweep.write(str(sweep_dir))
    cpu = {s["value"]: s for s in res["series"]["mongodb"]["per_doc.cpu_us"]}
    assert cpu[100]["mean"] is not None and 1000 not in cpu
    ratio = {s["value"]: s for s in res["ratios"]["mongodb/postgres"]["per_doc.cpu_us"]}
    assert ratio[100]["mean"] is not None and 1000 not in ratio
    row = next(ln for ln in (sweep_dir / "report.md").read_text().splitlines() if ln.startswith("| 1000 |"))
    assert set(row.strip("| ").split(" | ")[1:]) == {"n/a"}, row
    said = "FIELD_BYTES=1000: incomplete (postgres: missing postgres.count.json): its figures are left out"
    assert said in res["notes"] and said in (sweep_dir / "report.md").read_text()
