"""report.md's section of the GlobalSign study's own figures (analysis/render/study_report.py): the
study's throughput and p99 at its saturation beside the lab's achieved rate and p99 per operation and
database, labelled as the study's; the 1 MB variant's insert p99; the index proof per phase, a plan
without the index shown as such; nothing for any other workload."""
from analysis.render import study_report


def _run(db, stage="run", ops=("insert", "update", "range"), proof=None, workload="globalsign"):
    return {"database": db, "phase": db if stage == "run" else f"{db}-load", "stage": stage, "workload": workload,
            "stand_in": True, "window": {"start": 0, "end": 10, "seconds": 10.0},
            "operations": {op: {"ok": 200, "latency_ms": {"p99": 2.5}} for op in ops},
            **({"index_proof": proof} if proof else {})}


PROOF = {"index": "globalsign_age_band", "used": True, "index_used": "globalsign_age_band",
         "plan_nodes": ["Bitmap Heap Scan", "Bitmap Index Scan on globalsign_age_band"]}


def test_the_study_figures_stand_beside_the_labs_labelled_as_the_studys():
    result = {"runs": [_run("mongodb", proof=PROOF), _run("postgres", proof={**PROOF, "used": False, "index_used": None,
                                                                             "plan_nodes": ["Seq Scan"]}),
                       _run("mysql")], "config": {"run": {"PAD_BYTES": "0"}}}
    text = "\n".join(study_report.report_lines(result))
    assert "The study's figures are its own, at its saturation" in text
    assert "| mongodb | insert | 18,070 | 13 | 20 | 2.5 |" in text
    assert "| postgres | insert | 25,244 | 4 | 20 | 2.5 |" in text
    assert "| postgres | update | 26,085 | 4 |" in text and "| mongodb | update | 22,304 | 11 |" in text
    assert "| postgres | range | 27,778 | 3 |" in text and "| mongodb | range | 18,960 | 12 |" in text
    assert "| mysql | insert | — | — | 20 | 2.5 |" in text  # the study ran no MySQL
    assert "| mongodb | globalsign_age_band | yes | globalsign_age_band | Bitmap Heap Scan > Bitmap Index Scan on globalsign_age_band |" in text
    assert "| postgres | globalsign_age_band | **no** | — | Seq Scan |" in text
    assert "| mysql | — | no proof (count printed none) |" in text


def test_the_1mb_variant_shows_the_insert_p99_of_the_study():
    result = {"runs": [_run("mongodb", ops=("insert",)), _run("postgres", ops=("insert",))],
              "config": {"run": {"PAD_BYTES": "1048576"}}}
    text = "\n".join(study_report.report_lines(result))
    assert "| mongodb | insert (1 MiB padding) | 4.5 s | 20 | 2.5 |" in text
    assert "| postgres | insert (1 MiB padding) | 1.5 s | 20 | 2.5 |" in text


def test_nothing_for_another_workload():
    assert study_report.report_lines({"runs": [_run("mongodb", workload="ycsb")]}) == []
    assert study_report.report_lines({"runs": []}) == []
