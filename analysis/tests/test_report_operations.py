"""report.md of a YCSB bench: opens with the answer per operation, has the per-operation tables and
the timeline plot; the per-document plot's labels are short; shared notes are said once."""
import os

from analysis.figures import results
from analysis.render import report
from analysis.tests import ycsb_fixture


def _report(tmp_path):
    bench = str(tmp_path / "ycsb")
    ycsb_fixture.build(bench)
    results.write(bench)
    files = report.run([bench], str(tmp_path))
    with open(os.path.join(bench, "report.md")) as f:
        return bench, files, f.read()


def test_report_opens_with_the_answer_per_operation(tmp_path):
    bench, files, text = _report(tmp_path)
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections[0] == "## The answer"
    answer = text.split("## The answer", 1)[1].split("\n## ", 1)[0]
    res = results.build(bench)
    by = {r["phase"]: r for r in res["runs"]}
    ratio = by["mongodb"]["per_op"]["cpu_us"] / by["postgres"]["per_op"]["cpu_us"]
    assert f"spent **{ratio:.2f}x** the CPU of postgres" in answer
    assert "per operation of the mix (read 50 / update 50; not split by type)" in answer
    assert "Load phase (inserts of 400 records, reported as insert costs)" in answer
    # WAL: the figure for PostgreSQL, the reason the reading gave for MongoDB's side
    assert "**WAL/journal**" in answer and "has no wiredTiger.log section" in answer
    assert "- **read**:" in answer and "- **update**:" in answer


def test_report_has_the_timeline_plots_and_per_operation_tables(tmp_path):
    bench, files, text = _report(tmp_path)
    for name in ("timeline.png", "timeline-load.png"):
        path = os.path.join(bench, "plots", name)
        assert path in files and os.path.getsize(path) > 10_000
        assert f"(plots/{name})" in text
    assert "| mongodb (stand-in) | read |" in text and "| postgres | op of the mix read 50 / update 50 |" in text


def test_client_containers_created_in_the_window_are_said_once(tmp_path):
    _, _, text = _report(tmp_path)
    notes = text.split("## Notes", 1)[1]
    assert notes.count("created in the window") == 1


def test_per_doc_plot_labels_are_short():
    from analysis.render.plots import short_label
    run = {"database": "mongodb", "stage": "load", "stand_in": True,
           "stand_in_what": "FerretDB 1.24.0 (SQLite) standing in for MongoDB"}
    assert short_label(run) == "mongodb load (stand-in)"
