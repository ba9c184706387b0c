"""./runme.sh check refuses a bad bench or a bad --set before anything starts (exit 2, no
container), and never writes into the bench folder it checks."""
from test_runme_rejects_bad_input import LAB_ROOT, PROJECT, bench, containers

import os
import subprocess


def check(*args):
    env = dict(os.environ, COMPOSE_PROJECT_NAME=PROJECT)
    return subprocess.run([str(LAB_ROOT / "runme.sh"), "check", *args], cwd=LAB_ROOT, env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600)


def test_bad_bench_value(tmp_path):
    b = bench(tmp_path, KEY="uuidv9")
    r = check(str(b))
    assert r.returncode == 2, r.stderr[-2000:]
    assert f"{b}/bench.env" in r.stderr and "KEY" in r.stderr and "allowed: one of uuidv7, uuidv4, sequence" in r.stderr
    assert containers() == []
    assert sorted(p.name for p in b.iterdir()) == ["bench.env"]


def test_bad_set_override(tmp_path):
    b = bench(tmp_path)
    r = check("--set", "RATE=0", str(b))
    assert r.returncode == 2, r.stderr[-2000:]
    assert "RATE" in r.stderr and "allowed: a number > 0" in r.stderr
    assert "the --set overrides are invalid for bench-bad" in r.stderr
    assert containers() == []
    assert sorted(p.name for p in b.iterdir()) == ["bench.env"]


def test_unknown_option(tmp_path):
    r = check("--frobnicate", str(bench(tmp_path)))
    assert r.returncode == 2 and "unknown option '--frobnicate'" in r.stderr
