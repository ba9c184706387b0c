"""report.md's answer gives the ratios results.json gives, and refuses those it refuses (issue 25
item 4): a side that is not ok has no ratio in results.json (`ratios.reason`), so the answer shows
each side's figure and the reason, never a ratio of its own."""
import json
import os

import pytest

from analysis.figures import results
from analysis.render import report


def _bench(fixture_benches, change):
    d = fixture_benches["bench1"]
    res = results.build(d)
    assert all(r["status"] == "ok" for r in res["runs"])
    change(res)
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(res, f)
    report.bench_report(d)
    text = open(os.path.join(d, "report.md")).read()
    return res, text.split("## The answer", 1)[1].split("\n## ", 1)[0]


def test_a_suspect_side_gets_no_ratio_in_the_answer(fixture_benches):
    def suspect(res):
        for r in res["runs"]:
            r["per_op"]["cpu_us"] = 300.0 if r["database"] == "mongodb" else 100.0
            if r["database"] == "mongodb":
                r.update(status="suspect", reason="reads 9 > expected 5 + tolerance 0")
        res["ratios"] = results.ratios(res["runs"])
    res, answer = _bench(fixture_benches, suspect)
    assert res["ratios"]["per_op"]["cpu_us"] is None
    assert res["ratios"]["reason"] == "no ratio: mongodb status suspect (reads 9 > expected 5 + tolerance 0)"
    assert "3.00x" not in answer and "**x**" not in answer
    line = next(ln for ln in answer.splitlines() if ln.startswith("- **CPU**"))
    assert line.endswith("mongodb (stand-in) 300 µs; postgres 100 µs (no ratio)"), line
    # the refusal's reason, once, above the figures
    assert ("- No ratio: mongodb status suspect (reads 9 > expected 5 + tolerance 0): each side's figure alone."
            in answer.splitlines())
    # no latency ratio either
    assert "higher on" not in answer


def test_the_answer_ratio_is_results_json_s(fixture_benches):
    """The answer prints results.json's ratio (here set apart from the sides' quotient to tell them
    apart), the higher side first."""
    def mark(res):
        res["ratios"]["per_op"]["cpu_us"] = 1.234
        res["ratios"]["per_op"]["net_bytes"] = 0.5
        op = next(iter(res["ratios"]["latency"]))
        res["ratios"]["latency"][op]["p99"] = 0.8
    res, answer = _bench(fixture_benches, mark)
    cpu = next(ln for ln in answer.splitlines() if ln.startswith("- **CPU**"))
    assert "mongodb (stand-in) spent **1.23x** the CPU of postgres" in cpu, cpu
    net = next(ln for ln in answer.splitlines() if ln.startswith("- **network**"))
    assert "postgres spent **2.00x** the network of mongodb (stand-in)" in net, net
    assert "p99 **1.25x** higher on postgres" in answer
