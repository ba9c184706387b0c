"""`summary`'s line for a phase without a CPU figure (cAdvisor had no series of the container, as for
a database on a simulated host, docs/hosts.md) says so; it printed `0 CPU s` before."""
import json
import shutil
from pathlib import Path

from analysis.render import summary
from analysis.render.report import load_result

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "ci-standin-run"


def test_a_phase_without_cpu_figures_says_so_instead_of_zero(tmp_path):
    bench = tmp_path / "ci-standin-run"
    shutil.copytree(FIXTURE, bench)
    result = load_result(str(bench))
    for r in result["runs"]:
        r["cpu"].update(user_s=None, system_s=None, instructions=None)
    (bench / "results.json").write_text(json.dumps(result))
    lines = summary.lines(str(bench)).splitlines()
    assert len(lines) == len(result["runs"]) > 0
    for line in lines:
        assert ", no CPU figure, " in line and "CPU s" not in line, line
