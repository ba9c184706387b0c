from analysis.tests.helpers import hardware_bench, stand_in_bench
import os
import struct
import zlib

from analysis.figures import results
from analysis.render import report, summary
from analysis.common.labels import fmt

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def assert_valid_png(path):
    data = open(path, "rb").read()
    assert data[:8] == PNG_MAGIC, path
    # walk every chunk and check its CRC: a truncated or corrupt file fails here
    pos, kinds = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"{path}: bad CRC in {kind!r}"
        kinds.append(kind)
        pos += 12 + length
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND", path
    width, height = struct.unpack(">II", data[16:24])
    assert width > 300 and height > 200


def test_report_writes_markdown_and_every_plot(fixture_benches, tmp_path):
    benches = [fixture_benches[n] for n in sorted(fixture_benches)]
    for b in benches:
        results.write(b)
    made = report.run(benches, str(tmp_path))
    for b in benches:
        expected = ["report.md", "plots/per_doc.png", "plots/memory.png"]
        expected += [f"plots/timeseries-{d}.png" for d in ("mongodb", "postgres")
                     if os.path.exists(os.path.join(b, "timeseries", f"{d}.csv.gz"))]
        assert len(expected) >= 4
        for f in expected:
            assert os.path.join(b, f) in [os.path.normpath(m) for m in made]
            assert os.path.getsize(os.path.join(b, f)) > 0
        for png in os.listdir(os.path.join(b, "plots")):
            assert_valid_png(os.path.join(b, "plots", png))
    top = (tmp_path / "report.md").read_text()
    b1 = open(os.path.join(fixture_benches[stand_in_bench(fixture_benches)], "report.md")).read()
    # stand-in marked in every table row that shows the stand-in run
    assert "mongodb (stand-in: FerretDB" in b1 and "Stand-in:" in b1
    for line in top.splitlines():
        if line.startswith("| bench1 | mongodb"):
            assert "stand-in" in line
    assert "(stand-in involved)" in top
    # figures in the tables are the results' figures
    r2 = results.build(fixture_benches[hardware_bench(fixture_benches)])
    pg = next(r for r in r2["runs"] if r["database"] == "postgres")
    assert f"{pg['per_doc']['cpu_us']:,.0f}" in top
    assert f"{r2['ratios']['cpu_us']:.2f}x" in top
    assert "n/a" in b1  # no instructions without hardware counters: said, not invented


def test_report_reads_files_only_without_results_json(fixture_benches, tmp_path):
    b = fixture_benches[stand_in_bench(fixture_benches)]
    assert not os.path.exists(os.path.join(b, "results.json"))
    report.run([b], str(tmp_path))
    assert not os.path.exists(os.path.join(b, "results.json"))  # report never writes results
    assert os.path.exists(os.path.join(b, "report.md"))


def test_summary_lines(fixture_benches):
    text = summary.lines(fixture_benches[hardware_bench(fixture_benches)])
    assert len(text.splitlines()) == 2
    assert "instructions" in text and "docs/s" in text
    text1 = summary.lines(fixture_benches[stand_in_bench(fixture_benches)])
    assert "CPU s" in text1 and "stand-in" in text1


def test_report_shows_start_lag_and_the_clients_own_part(fixture_benches, tmp_path):
    b = next(iter(fixture_benches.values()))
    res = results.write(b)
    report.run([b], str(tmp_path))
    text = open(os.path.join(b, "report.md")).read()
    row = next(line for line in text.splitlines() if line.startswith("| start lag p99 / client's own lateness p99 (ms)"))
    for run in res["runs"]:
        # fixture clients predate the scheduler lag: said as n/a, not invented
        assert f"{fmt(run['start_lag_ms']['p99'])} / n/a" in row, row


def test_instructions_say_they_are_user_mode_only(fixture_benches):
    """perf counts instructions:u (lab/driver/probe.py): the kernel's share for the server is not in it."""
    from analysis.common import labels
    from analysis.figures import results
    from analysis.experiments import figures
    runs = results.build(fixture_benches["bench2"])["runs"]
    assert all(r["cpu"]["instructions_event"] == "instructions:u" for r in runs)
    assert all(r["cpu"]["instructions_scope"].startswith("user mode only (instructions:u)") for r in runs)
    assert "user mode" in figures.name("per_doc.instructions") and "user mode" in figures.name("per_op.instructions")
    assert dict((f, h) for f, h, _ in labels.PER_DOC)["instructions"] == "instructions (user mode)"


def test_the_storage_form_the_clients_name_is_in_results_and_the_runs_table(fixture_benches, tmp_path):
    """A run of the storage forms (POSTGRES_FORM, ...): each client result names the form its documents
    went into; results.json runs[].form and report.md's Runs table say it. Runs before the forms name
    none: no field, no row (their outputs unchanged)."""
    import glob
    import json
    b = fixture_benches["bench1"]
    before = results.write(b)
    assert all("form" not in r for r in before["runs"])
    report.run([b], str(tmp_path))
    assert "| storage form |" not in open(os.path.join(b, "report.md")).read()
    for path in glob.glob(os.path.join(b, "clients", "*.json")):
        with open(path) as f:
            doc = json.load(f)
        doc["form"] = "relational" if os.path.basename(path).startswith("postgres") else "bson"
        with open(path, "w") as f:
            json.dump(doc, f)
    res = results.write(b)
    assert {r["database"]: r["form"] for r in res["runs"]} == {"mongodb": "bson", "postgres": "relational"}
    report.run([b], str(tmp_path))
    row = next(line for line in open(os.path.join(b, "report.md")).read().splitlines() if line.startswith("| storage form |"))
    assert row == "| storage form | bson | relational |"
