"""The CLI as runme.sh calls it: python -m analysis <command> from the repository root."""
from analysis.tests.helpers import hardware_bench, stand_in_bench
import json
import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "analysis", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": REPO})


def test_host_info_is_json_with_the_host_facts():
    p = cli("host-info")
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert info["cores"] == os.cpu_count()
    assert info["kernel"] == os.uname().release
    assert info["memory_bytes"] > 0
    # whether perf counts instructions here, read from perf's own CSV line (a number, or <not supported>)
    expected = False
    if shutil.which("perf"):
        err = subprocess.run(["perf", "stat", "-x,", "-e", "instructions", "true"], capture_output=True, text=True).stderr
        line = next((l for l in err.splitlines() if ",instructions" in l), "")
        expected = line.split(",")[0].replace(".", "").isdigit()
    assert info["hardware_counters"]["available"] is expected, info["hardware_counters"]


def test_results_then_summary_then_report(fixture_benches, tmp_path):
    b = fixture_benches[hardware_bench(fixture_benches)]
    p = cli("results", "--bench-dir", b)
    assert p.returncode == 0 and "complete" in p.stdout, p.stderr
    p = cli("summary", "--bench-dir", b)
    assert p.returncode == 0 and "postgres" in p.stdout
    p = cli("report", b, "--out-dir", str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "report.md").exists()


def test_report_of_a_bench_writes_into_its_folder_only(fixture_benches, tmp_path):
    """A bench's report (what every run does, lab/driver/bench.py) goes into the bench folder: without
    --out-dir no cross-bench report.md is written into the working directory (runme.sh's is the
    checkout's root)."""
    b = fixture_benches[hardware_bench(fixture_benches)]
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    p = cli("report", b, cwd=cwd)
    assert p.returncode == 0, p.stderr
    assert list(cwd.iterdir()) == []
    assert os.path.exists(os.path.join(b, "report.md"))
    assert all(line.startswith(b + os.sep) for line in p.stdout.splitlines()), p.stdout


def test_bad_input_names_the_flag_and_value(tmp_path):
    p = cli("results", "--bench-dir", str(tmp_path / "missing"))
    assert p.returncode == 2 and "missing" in p.stderr and "does not exist" in p.stderr
    p = cli("export", "--bench-dir", str(tmp_path), "--database", "cassandra", "--prometheus", "http://127.0.0.1:1")
    assert p.returncode == 2 and "cassandra" in p.stderr and "mongodb" in p.stderr
    (tmp_path / "postgres.phase.json").write_text(json.dumps({"window": {"start": 10, "end": 20}, "project": "p"}))
    p = cli("export", "--bench-dir", str(tmp_path), "--database", "postgres", "--prometheus", "http://127.0.0.1:9")
    assert p.returncode == 2 and "--prometheus http://127.0.0.1:9" in p.stderr and "Traceback" not in p.stderr
    (tmp_path / "postgres.phase.json").write_text(json.dumps({"window": {"start": 30, "end": 20}, "project": "p"}))
    p = cli("export", "--bench-dir", str(tmp_path), "--database", "postgres", "--prometheus", "http://127.0.0.1:9")
    assert p.returncode == 2 and "not after start" in p.stderr
    p = cli("flamegraph", str(tmp_path / "none.perf"), "-o", str(tmp_path / "x.svg"))
    assert p.returncode == 2 and "none.perf" in p.stderr
