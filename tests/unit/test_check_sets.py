"""lab/check.sh checks every bench with the run's --set overrides, the second and later benches too
(remove_check, called after each bench's check, once emptied them). Runs the real check_benches,
check_bench, write_run_plan and the client's `plan --check-size`; only what needs the Docker stack
(run_bench, analysis check, removing the database containers) is replaced by a function that keeps
the keys each check would run with (its plan.json settings.given: run.env is no longer written)."""
import os
import subprocess
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]
BENCH = "DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nFIELDS=10\nFIELD_BYTES=100\nCLIENTS=1\nRATE=10\nDOCS=10\nQUIET_S=0\n"

SCRIPT = r'''
LAB_ROOT=$1; KEPT=$2; shift 2
set -Eeuo pipefail
. "$LAB_ROOT/lab/phase.sh"; . "$LAB_ROOT/lab/plan.sh"; . "$LAB_ROOT/lab/bench.sh"; . "$LAB_ROOT/lab/check.sh"
INTERRUPTED=0
# the parts that need the running stack: keep the keys each bench's check was given
run_bench() { python3 "$LAB_ROOT/lab/plan-read.py" given "$1/plan.json" >"$KEPT/$(basename "$1").given"; }
analysis() { :; }
remove_databases() { :; }
CHECK_SETS=(RATE=7 FIELD_BYTES=50)
check_benches "$@"
'''


def test_every_bench_is_checked_with_the_set_overrides(tmp_path):
    benches = []
    for name in ("bench-a", "bench-b", "bench-c"):
        d = tmp_path / name
        d.mkdir()
        (d / "bench.env").write_text(BENCH)
        benches.append(str(d))
    kept = tmp_path / "kept"
    kept.mkdir()
    check_tmp = tmp_path / "tmp"
    check_tmp.mkdir()
    r = subprocess.run(["bash", "-c", SCRIPT, "check", str(LAB_ROOT), str(kept), *benches],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, TMPDIR=str(check_tmp)))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    for name in ("bench-a", "bench-b", "bench-c"):
        given = (kept / f"{name}-check.given").read_text().splitlines()
        assert "RATE=7" in given and "FIELD_BYTES=50" in given, (name, given)
        # the check's own size at the overridden rate: 7 docs/s x 20 s
        assert "DOCS=140" in given, (name, given)
    assert list(check_tmp.iterdir()) == []  # every temporary copy removed
