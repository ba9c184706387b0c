"""Hosts with too old a Python or Node.js (Ubuntu 22.04's apt gives Node 12) are told which version
was found and which is needed, before anything starts. The old versions are fakes first on PATH."""
import os
import subprocess
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])


def fake(tmp_path, name, script):
    d = tmp_path / "fakebin"
    d.mkdir(exist_ok=True)
    (d / name).write_text("#!/bin/sh\n" + script)
    (d / name).chmod(0o755)
    return dict(os.environ, PATH=f"{d}:{os.environ['PATH']}")


def test_tools_refuse_an_older_python_with_both_versions(tmp_path):
    """ensure_venv names the Python found and the one needed before creating anything."""
    env = fake(tmp_path, "python3", "case \"$*\" in *version_info*) echo 3.8.10;; *) echo 'Python 3.8.10';; esac\n")
    venv = tmp_path / "venv"
    p = subprocess.run(["bash", "-c", f'LAB_ROOT={ROOT}; . {ROOT}/host/setup-host.sh; . {ROOT}/host/node-python.sh; '
                        f'VENV={venv}; ensure_venv'], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode != 0
    assert "3.8.10" in p.stderr and "3.10" in p.stderr, p.stderr
    assert not venv.exists()


def test_runme_refuses_node_12_naming_found_and_needed(tmp_path):
    env = fake(tmp_path, "node", 'case "$1" in --version) echo v12.22.9;; *) echo "node 12 ran $*" >&2; exit 1;; esac\n')
    env["COMPOSE_PROJECT_NAME"] = "jsonbench-oldnode"
    r = subprocess.run([f"{ROOT}/runme.sh", "--no-branch", "bench1"], cwd=ROOT, env=env, capture_output=True,
                       text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Node.js 12.22.9 found" in r.stderr and "needs Node.js >= 18" in r.stderr, r.stderr
    assert "node 12 ran" not in r.stderr  # refused before node ran anything
    ps = subprocess.run(["docker", "ps", "-aq", "--filter", "label=com.docker.compose.project=jsonbench-oldnode"],
                        capture_output=True, text=True)
    assert ps.stdout.split() == []


def test_version_comparison_is_numeric():
    for found, needed, ok in [("18.0.0", "18", True), ("16.20.1", "18", False), ("20.9.0", "18.17", True),
                              ("3.10.12", "3.10", True), ("3.9.18", "3.10", False), ("3.13.0", "3.10", True)]:
        r = subprocess.run(["bash", "-c", f'. {ROOT}/host/node-python.sh; version_at_least {found} {needed}'])
        assert (r.returncode == 0) == ok, (found, needed)
