"""WORKLOAD=tsbs MODEL=native on the stand-ins (JSONBENCH_STANDINS=1) is refused before anything
starts: SecantusDB makes a plain collection for `timeseries`. A plain run, a --set and a --sweep over the
models all exit 2 naming the file, MODEL and what is allowed; nothing is created or written. With
DATABASES=postgres (no stand-in MongoDB phase) the same bench is valid."""
import subprocess

from test_runme_rejects_bad_input import LAB_ROOT, assert_refused, bench, runme

TSBS = {"FIELDS": None, "FIELD_BYTES": None, "DOCS": None, "WORKLOAD": "tsbs", "HOSTS": "2", "SPAN_S": "60"}
STANDINS = {"JSONBENCH_STANDINS": "1"}
WHY = "MODEL=native cannot run on the stand-ins (JSONBENCH_STANDINS=1): SecantusDB 0.7.0b3, which stands in for MongoDB, has no time-series collections"
ALLOWED = "allowed on the stand-ins: MODEL=event or MODEL=bucket, or MODEL=native with DATABASES=postgres"


def test_native_bench_refused(tmp_path):
    b = bench(tmp_path, **TSBS, MODEL="native")
    assert_refused(runme(str(b), env=STANDINS), f"{b}/bench.env:", WHY, ALLOWED)
    assert sorted(p.name for p in b.iterdir()) == ["bench.env"]


def test_native_by_set_refused(tmp_path):
    b = bench(tmp_path, **TSBS)
    assert_refused(runme("--set", "MODEL=native", str(b), env=STANDINS), WHY, "--set overrides")


def test_sweep_over_the_models_refused_at_native(tmp_path):
    b = bench(tmp_path, **TSBS)
    assert_refused(runme("--sweep", "MODEL=event,bucket,native", str(b), env=STANDINS),
                   "--sweep MODEL=native is refused for bench-bad", WHY)
    assert sorted(p.name for p in b.iterdir()) == ["bench.env"]


def test_native_with_postgres_only_is_valid_on_the_standins(tmp_path):
    b = bench(tmp_path, **TSBS, MODEL="native", DATABASES='"postgres"')
    r = subprocess.run(["node", str(LAB_ROOT / "client"), "validate-bench", "--stand-ins", str(b / "bench.env")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "tsbs MODEL=native" in r.stdout and "stand-ins" in r.stdout
