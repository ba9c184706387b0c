"""The driver's two entry points (analysis/entry.py) do what the lab's bash does at those moments:
bench_finished writes the same bytes as `results`, `flamegraph` per profile, `report` and `summary`
run one after the other; phase_finished decides and writes the status as `phase-status` does and
says, rather than raises, an export that cannot reach Prometheus."""
import contextlib
import io
import json
import os
import re
import shutil

from analysis import entry
from analysis.__main__ import main
from analysis.tests.test_phase_status import lab_phase_file

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
WRITTEN_AT = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")


def cli(*argv):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main([str(a) for a in argv])
    return code, buf.getvalue()


def files(root):
    out = {}
    for dirpath, _, filenames in os.walk(root):
        for f in filenames:
            with open(os.path.join(dirpath, f), "rb") as fh:
                # results.json's generated_at, and report.md quoting it, are the clock's
                out[os.path.relpath(os.path.join(dirpath, f), root)] = WRITTEN_AT.sub(b"@NOW@", fh.read())
    return out


def test_bench_finished_writes_what_the_lab_s_commands_write(tmp_path):
    for name in ("bench1", "ci-standin-run"):
        by_cli, by_entry = tmp_path / "cli" / name, tmp_path / "entry" / name
        shutil.copytree(os.path.join(FIXTURES, name), by_cli)
        shutil.copytree(os.path.join(FIXTURES, name), by_entry)
        # lab/driver/bench.py `Bench.run`, after the phases
        assert cli("results", "--bench-dir", by_cli)[0] == 0
        for phase in ("mongodb", "postgres"):
            assert cli("flamegraph", by_cli / f"{phase}.perf", "-o", by_cli / f"{phase}.svg")[0] == 0
        assert cli("report", by_cli)[0] == 0
        code, summary = cli("summary", "--bench-dir", by_cli)

        lines, said = entry.bench_finished(str(by_entry))
        assert said == []
        assert lines + "\n" == summary.replace(str(by_cli), str(by_entry))
        assert {"results.json", "report.md", "mongodb.svg", "postgres.svg"} <= set(files(by_entry))
        assert files(by_entry) == files(by_cli)


def test_bench_finished_says_a_failed_step_and_goes_on(tmp_path):
    bench = tmp_path / "bench1"
    shutil.copytree(os.path.join(FIXTURES, "bench1"), bench)
    (bench / "postgres.count.json").write_text("{not json")
    lines, said = entry.bench_finished(str(bench))
    assert said and said[0].startswith("results.json could not be written: ") and "postgres.count.json" in said[0]
    assert (bench / "mongodb.svg").exists() and (bench / "postgres.svg").exists()  # the next steps ran


def test_phase_finished_decides_the_status_and_says_an_unreachable_prometheus(tmp_path):
    by_cli, by_entry = tmp_path / "cli", tmp_path / "entry"
    by_cli.mkdir()
    by_entry.mkdir()
    path_cli = lab_phase_file(by_cli, wait={"timed_out": True})
    path_entry = lab_phase_file(by_entry, wait={"timed_out": True})
    code, verdict = cli("phase-status", "--phase-file", path_cli)

    got, metrics, said = entry.phase_finished(str(by_entry), "postgres", "postgres", "http://127.0.0.1:9")
    assert got + "\n" == verdict and got.startswith("failed (")
    with open(path_entry) as a, open(path_cli) as b:
        assert json.load(a) == json.load(b)
    assert metrics is None
    assert len(said) == 1 and said[0].startswith("postgres: metrics export failed; the phase's other files are kept: ")
    assert "cannot reach Prometheus" in said[0]
    assert not (by_entry / "postgres.metrics.json").exists()
