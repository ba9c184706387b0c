"""The MongoDB stand-in's entrypoint (databases/mongodb/standin/entrypoint.sh), run as compose.standins.yaml
resolves it, with recording stand-ins for `secantusd-py` and the user-creation script: mongod's flags
mapped to SecantusDB's, the topology, the first-start temporary server, a flag it cannot map refused.
The e2e tests run the real image."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = LAB_ROOT / "databases/mongodb/standin/entrypoint.sh"

pytestmark = pytest.mark.skipif(shutil.which("docker") is None, reason="needs the docker CLI with compose")


def standin_service(topology_args=None):
    files = ["-f", str(LAB_ROOT / "compose.yaml"), "-f", str(LAB_ROOT / "compose.standins.yaml")]
    env = dict(os.environ, MONGO_PASSWORD="pw", POSTGRES_PASSWORD="x", GRAFANA_ADMIN_PASSWORD="x")
    env.pop("MONGO_TOPOLOGY_ARGS", None)
    if topology_args:
        env["MONGO_TOPOLOGY_ARGS"] = topology_args
    r = subprocess.run(["docker", "compose", *files, "config", "--format", "json"],
                       capture_output=True, text=True, env=env, cwd=LAB_ROOT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["services"]["mongodb"]


def start(tmp_path, svc, initialized=False, extra=()):
    """Runs the service's entrypoint + command; returns (pid, exit code, secantusd-py calls, log)."""
    bin_dir, db = tmp_path / "bin", tmp_path / "db"
    bin_dir.mkdir()
    db.mkdir()
    if initialized:
        (db / "WiredTiger").write_text("")
    calls = tmp_path / "calls"
    # The temporary server: ready once its SIGTERM handler is set (secantusd-py answers SIGTERM with
    # exit 0); the user-creation stand-in waits for it, as the real script waits for a ping.
    (bin_dir / "secantusd-py").write_text(
        f'#!/bin/sh\necho "$$ $*" >>"{calls}"\n'
        f'[ "$2" != 127.0.0.1 ] || {{ trap "exit 0" TERM; touch "{tmp_path}/ready"; '
        'while :; do sleep 0.1 </dev/null >/dev/null 2>&1; done; }\n')
    (bin_dir / "standin-create-root-user.py").write_text(
        f'#!/bin/sh\nwhile [ ! -e "{tmp_path}/ready" ]; do sleep 0.05; done\n'
        f'echo "create-root-user $* $MONGO_INITDB_ROOT_USERNAME" >>"{calls}"\n')
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    argv = [a.replace("$$", "$").replace("/usr/local/bin/standin-entrypoint.sh", str(ENTRYPOINT))
            for a in [*svc["entrypoint"], *svc["command"], "--dbpath", str(db), *extra]]
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", **svc["environment"]}
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
    lines = [l.split(" ", 1) for l in calls.read_text().splitlines()] if calls.exists() else []
    return p, lines


def test_standalone_maps_mongods_flags_and_creates_the_user_on_a_temporary_local_server(tmp_path):
    svc = standin_service()
    assert svc["labels"]["jsonbench.stand_in"].startswith("SecantusDB 0.7.0b3")
    assert svc["command"][0] == "mongod" and "--wiredTigerCacheSizeGB" in svc["command"]  # compose.yaml's, kept
    p, calls = start(tmp_path, svc)
    assert p.returncode == 0, p.stderr
    db = str(tmp_path / "db")
    temp, user, real = calls
    # the temporary server: loopback only, no auth, standalone (no --replSet, as upstream)
    assert temp[1] == f"--host 127.0.0.1 --port 27017 --standalone --storage-path {db} --sync-on-commit --cache-size 4096M"
    assert user == ["create-root-user", f"27017 {temp[0]} jsonbench"]  # waits on that server's pid
    # the real server: exec'd (the entrypoint's own pid), all interfaces, auth, durable commits
    assert real[1] == f"--host 0.0.0.0 --port 27017 --storage-path {db} --sync-on-commit --cache-size 4096M --standalone --auth"
    assert temp[0] != real[0]
    assert "--wiredTigerJournalCompressor snappy: SecantusDB has no such knob" in p.stderr


def test_a_second_start_skips_the_user_creation(tmp_path):
    p, calls = start(tmp_path, standin_service(), initialized=True)
    assert p.returncode == 0 and len(calls) == 1 and calls[0][1].endswith("--standalone --auth")


def test_topology_replset_runs_secantusdb_without_standalone_and_says_what_it_is(tmp_path):
    p, calls = start(tmp_path, standin_service("--replSet rs0 --keyFile /tmp/jsonbench-keyfile"), initialized=True)
    assert p.returncode == 0, p.stderr
    assert calls[0][1].endswith("--sync-on-commit --cache-size 4096M --auth")
    assert "single-node replica set named 'secantus'" in p.stderr and "no replSetInitiate" in p.stderr
    assert "--keyFile /tmp/jsonbench-keyfile: SecantusDB has no internal member authentication" in p.stderr


def test_a_mongod_flag_the_stand_in_cannot_map_is_refused(tmp_path):
    p, calls = start(tmp_path, standin_service(), initialized=True, extra=["--nojournal"])
    assert p.returncode == 1 and calls == []
    assert "mongod argument '--nojournal' has no SecantusDB mapping" in p.stderr
