"""One CPU figure per comparison, named (issue 25 items 5 and 8). A run's CPU per operation has a gross
figure (the window's user + system ticks, its idle guard seconds included) and one net of the
database's idle rate (analysis/collect/idle.py); results.json `per_op.cpu_us_net` carries the net one and its
ratio, and:
- a REPEAT of query phases reports the net CPU per query a single run reports (2.0x for 2 ms against
  1 ms), not the ratio of the idle rates that fill the query windows;
- a booking report's per-operation CPU line and its transactions sentence give the same figure."""
import json
import shutil

import pytest

from analysis.figures import queries, results
from analysis.experiments import figures, repeat
from analysis.render.report import bench_report
from analysis.tests.helpers import client_result

from . import txn_fixture

IDLE = 0.048  # cores: a database's background work, what a short query's window mostly holds
SPAN = 10.0   # seconds the window's CPU reading spans
K = 10        # executions


def _metrics(db, net_s):
    gross = IDLE * SPAN + net_s
    return {"services": {db: {"counters": {"container_cpu_user_seconds_total": {"delta": gross},
                                           "container_cpu_system_seconds_total": {"delta": 0.0}}}},
            "cpu_usage": {"metric": "container_cpu_usage_seconds_total", "gross_s": gross, "span_s": SPAN,
                          "idle": {"rate_cores": IDLE, "seconds": 4.0, "pairs": 3, "reason": None},
                          "net_s": net_s, "reason": None}}


def _query_bench(path):
    """Two query phases with equal answers: mongodb's queries 2 ms of CPU each, postgres's 1 ms."""
    (path / "clients").mkdir(parents=True)
    (path / "bench.env").write_text('DESCRIPTION="q"\nWORKLOAD=events\nQUERIES="olap-a"\nDATABASES="mongodb postgres"\n')
    # the query phases alone (their load phases are not part of this comparison)
    (path / "plan.txt").write_text("".join(f"phase={db}-q-olap-a database={db} stage=query\n" for db in ("mongodb", "postgres")))
    for db, per_query_s in (("mongodb", 0.002), ("postgres", 0.001)):
        ph = f"{db}-q-olap-a"
        (path / f"{ph}.count.json").write_text(json.dumps({"database": db, "documents": 0, "table_bytes": 8192,
                                                         "index_bytes": 8192, "total_bytes": 16384}))
        (path / f"{ph}.phase.json").write_text(json.dumps({
            "database": db, "phase": ph, "stage": "query", "service": db, "status": "ok", "reason": "",
            "clients": 1, "window": {"start": 100.0, "end": 110.0}, "query": "olap-a"}))
        (path / f"{ph}.metrics.json").write_text(json.dumps(_metrics(db, per_query_s * K)))
        per_execution = [{"k": k, "digest": f"d{k}", "rows": 1} for k in range(K)]
        (path / "clients" / f"{ph}-client-1.json").write_text(json.dumps(client_result(
            database=db, workload="events", stage="query", phase=ph, docs_ok=K, docs_target=K,
            operations={"olap-a": {"ok": K, "errors": 0, "dropped": 0, "docs": K}},
            query={"name": "olap-a", "status": "ok", "executions": K, "answered": K, "digest": "same",
                   "normalisation": {"columns": ["repo", "n"]}, "per_execution": per_execution,
                   "answers": [{"k": 0, "rows": [["r", 1]]}]})))
    r = results.build(str(path))
    assert r["complete"], r["incomplete"]
    return r


def test_a_repeat_of_query_phases_reports_the_net_cpu_per_query(tmp_path):
    single = _query_bench(tmp_path / "one")
    q = single["queries"]["olap-a"]
    assert q["ratio"]["cpu_us_net"] == pytest.approx(2.0)
    gross = q["ratio"]["cpu_us_gross"]
    assert gross == pytest.approx((IDLE * SPAN + 0.02) / (IDLE * SPAN + 0.01))  # ~1.02: the idle rates' ratio
    by = {r["database"]: r for r in single["runs"]}
    assert by["mongodb"]["per_op"]["cpu_us_net"] == pytest.approx(2000.0)
    assert single["ratios"].get("per_op") is not None
    bench = tmp_path / "bench9"
    bench.mkdir()
    shutil.copy(tmp_path / "one" / "bench.env", bench / "bench.env")
    (bench / "run.env").write_text((tmp_path / "one" / "bench.env").read_text() + "REPEAT=3\n")
    for i, wobble in enumerate((1.0, 1.02, 0.98), 1):
        rep = bench / f"repeat-{i}"
        rep.mkdir()
        r = json.loads(json.dumps(single))
        for run in r["runs"]:  # a little run-to-run noise on both sides
            for pq in (run["query"]["per_query"], run["per_op"]):
                for f in ("cpu_us_net",):
                    pq[f] *= wobble
        r["queries"] = queries.compare(r["runs"])
        (rep / "results.json").write_text(json.dumps(r))
    res = repeat.write(str(bench))
    s = res["queries"]["olap-a"]["ratio"]["cpu_us_net"]
    assert s["mean"] == pytest.approx(2.0) and s["n"] == 3
    # the gross figures stay beside it, named as the single run names them
    assert res["queries"]["olap-a"]["ratio"]["cpu_us_gross"]["mean"] == pytest.approx(gross)
    text = (bench / "report.md").read_text()
    section = text.split("## Queries", 1)[1].split("\n## ", 1)[0]
    head = next(ln for ln in section.splitlines() if ln.startswith("| query |"))
    row = next(ln for ln in section.splitlines() if ln.startswith("| olap-a |"))
    cells = dict(zip([c.strip() for c in head.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
    assert cells["CPU per query, net of idle"].startswith("2.000x"), section
    # the answer names its CPU figure: the net one, not the gross one beside it
    answer = text.split("## The answer", 1)[1].split("\n## ", 1)[0]
    assert "- CPU (µs/op, net of idle):" in answer and "2.000x" in answer.split("- CPU (µs/op, net of idle):")[1].split("\n")[0]
    assert "- CPU (µs/op, gross)" not in answer


def _booking(tmp_path, nets):
    d = tmp_path / "booking"
    txn_fixture.build(str(d))
    for db, net_s in nets.items():
        p = d / f"{db}.metrics.json"
        m = json.loads(p.read_text())
        m["cpu_usage"] = {"metric": "container_cpu_usage_seconds_total", "gross_s": 2.5, "span_s": 28.0,
                          "idle": {"rate_cores": 0.05, "seconds": 4.0, "pairs": 3, "reason": None},
                          "net_s": net_s, "reason": None}
        p.write_text(json.dumps(m))
    results.write(str(d))
    bench_report(str(d))
    text = (d / "report.md").read_text()
    return results.build(str(d)), text.split("## The answer", 1)[1].split("\n## ", 1)[0]


def test_the_booking_answer_gives_one_cpu_figure_named(tmp_path):
    res, answer = _booking(tmp_path, {"mongodb": 0.6, "postgres": 0.2})
    net = (0.6 / 60) / (0.2 / 58)
    assert res["ratios"]["per_op"]["cpu_us_net"] == pytest.approx(net)
    txn = next(ln for ln in answer.splitlines() if ln.startswith("**CPU per committed transaction**"))
    cpu = next(ln for ln in answer.splitlines() if ln.startswith("- **CPU"))
    assert f"**{net:.2f}x**" in txn and "(net of idle)" in txn, txn
    assert cpu.startswith("- **CPU** (net of idle):") and f"**{net:.2f}x**" in cpu, cpu
    gross = res["ratios"]["per_op"]["cpu_us"]
    assert f"{gross:.2f}x" not in answer


def test_without_a_net_figure_on_one_side_both_lines_are_gross_and_say_why(tmp_path):
    res, answer = _booking(tmp_path, {"postgres": 0.2})
    cpu = next(ln for ln in answer.splitlines() if ln.startswith("- **CPU"))
    gross = res["ratios"]["per_op"]["cpu_us"]
    assert cpu.startswith("- **CPU** (gross: the window's idle guard seconds included; mongodb has no net figure: "
                          "no cpu_usage in the metrics export):"), cpu
    assert f"**{gross:.2f}x**" in cpu
    txn = next(ln for ln in answer.splitlines() if ln.startswith("**CPU per committed transaction**"))
    assert f"**{gross:.2f}x**" in txn and "(gross)" in txn, txn


def test_figures_name_both_cpu_figures():
    assert figures.name("per_op.cpu_us_net") == "CPU (µs/op, net of idle)"
    assert figures.name("per_op.cpu_us") == "CPU (µs/op, gross)"
    assert figures.headline(["per_op.cpu_us", "per_op.cpu_us_net"]) == ["per_op.cpu_us_net"]
    assert figures.headline(["per_op.cpu_us"]) == ["per_op.cpu_us"]
