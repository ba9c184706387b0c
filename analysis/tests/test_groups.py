"""results.json runs[].groups (analysis/figures/groups.py) and report.md's table: each client group's
figures from its own clients' result files, percentiles from the merged histograms, checked against
an independent merge of the raw histograms with the hdrh library."""
import json
import os

from hdrh.histogram import HdrHistogram

from analysis.figures import groups, results, schema
from analysis.render import report

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "ci-standin-run")


def client(name, group=None):
    path = os.path.join(FIXTURE, "clients", name)
    with open(path) as f:
        c = json.load(f)
    if group:
        c["group"] = group
    return path, c


def independent_p99_ms(clients):
    merged = None
    for _, c in clients:
        h = HdrHistogram.decode(c["histograms"]["latency_us"])
        if merged is None:
            merged = h
        else:
            merged.add(h)
    return merged.get_value_at_percentile(99) / 1000.0


def test_each_group_s_figures_are_its_own_clients_merged():
    g1 = [client("postgres-client-1.json", "writers"), client("postgres-client-2.json", "writers")]
    g2 = [client("mongodb-client-1.json", "readers")]
    out = groups.of_phase(g1 + g2)
    assert [g["name"] for g in out] == ["writers", "readers"]
    w, r = out
    assert w["clients"] == 2 and r["clients"] == 1
    assert w["ok"] == sum(c["docs_ok"] for _, c in g1) and r["ok"] == g2[0][1]["docs_ok"]
    assert w["asked_rate"] == sum(c["target_rate"] for _, c in g1)
    assert abs(w["achieved_rate"] - sum(c["achieved_rate"] for _, c in g1)) < 1e-9
    assert w["operations"]["insert"]["latency_ms"]["p99"] == independent_p99_ms(g1)
    assert r["operations"]["insert"]["latency_ms"]["p99"] == independent_p99_ms(g2)
    assert w["operations"]["insert"]["ok"] == w["ok"]


def test_no_group_no_field():
    assert groups.of_phase([client("postgres-client-1.json"), client("postgres-client-2.json")]) is None


def test_a_run_of_groups_gets_them_in_results_and_report(fixture_benches):
    bench = fixture_benches["ci-standin-run"]
    for i, g in ((1, "inserts"), (2, "others")):
        path = os.path.join(bench, "clients", f"postgres-client-{i}.json")
        c = json.load(open(path))
        c["group"] = g
        json.dump(c, open(path, "w"))
    r = results.build(bench)
    schema.validate(r)
    pg = next(x for x in r["runs"] if x["database"] == "postgres")
    assert [g["name"] for g in pg["groups"]] == ["inserts", "others"]
    assert "groups" not in next(x for x in r["runs"] if x["database"] == "mongodb")
    with open(os.path.join(bench, "results.json"), "w") as f:
        json.dump(r, f)
    report.bench_report(bench)
    text = open(os.path.join(bench, "report.md")).read()
    assert "## Client groups" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "| inserts |" in line]
    assert len(rows) == 1 and "| insert |" in rows[0]
