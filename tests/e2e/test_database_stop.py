"""`docker stop` ends each database container cleanly and quickly (issue 9, section 3): the server
is the container's PID 1 (the official MongoDB image's python3 entrypoint would be PID 1, ignore
SIGTERM and be SIGKILLed with mongod after Docker's 10 s), so SIGTERM (postgres: the image's
STOPSIGNAL SIGINT) reaches the server itself. A fresh database pair in a project of its own,
started and checked for readiness exactly as the lab does (`refresh_databases`: up -d, wait-ready)."""
import json
import subprocess
import time

import pytest

from conftest import LAB_ROOT, PROJECT, PORTS, lab_env

STOP_PROJECT = f"{PROJECT}-stop"
SERVER_COMMS = {"mongodb": {"mongod", "ferretdb"}, "postgres": {"postgres"}}


def sh(script, env):
    return subprocess.run(["bash", "-c", f'. lab/setup-host.sh; LAB_ROOT=$PWD; . lab/stack.sh; '
                                         f'load_env_defaults "$LAB_ROOT/.env"; {script}'],
                          cwd=LAB_ROOT, env=env, capture_output=True, text=True, timeout=600)


def remove(project):
    ids = subprocess.run(["docker", "ps", "-aq", "--filter", f"label=com.docker.compose.project={project}"],
                         capture_output=True, text=True).stdout.split()
    if ids:
        subprocess.run(["docker", "rm", "-f", "-v", *ids], capture_output=True)
    for kind in ("volume", "network"):
        objs = subprocess.run(["docker", kind, "ls", "-q", "--filter", f"label=com.docker.compose.project={project}"],
                              capture_output=True, text=True).stdout.split()
        if objs:
            subprocess.run(["docker", kind, "rm", *objs], capture_output=True)


@pytest.fixture(scope="module")
def database_pair(lab_run):  # lab_run: the client image is built and the stand-in choice made
    env = dict(lab_env(), COMPOSE_PROJECT_NAME=STOP_PROJECT, BENCH_KEYS="", BENCH_NAME="stop-test",
               PG_PORT=str(int(PORTS["PG_PORT"]) + 1000), MONGO_PORT=str(int(PORTS["MONGO_PORT"]) + 1000),
               PROMETHEUS_PORT=str(int(PORTS["PROMETHEUS_PORT"]) + 1000),
               GRAFANA_PORT=str(int(PORTS["GRAFANA_PORT"]) + 1000))
    remove(STOP_PROJECT)
    r = sh("refresh_databases 'mongodb postgres' && for s in mongodb postgres; do echo $s=$(container_of $s); done", env)
    try:
        assert r.returncode == 0, r.stdout + r.stderr
        yield dict(line.split("=", 1) for line in r.stdout.split() if "=" in line)
    finally:
        remove(STOP_PROJECT)


@pytest.mark.parametrize("db", ["mongodb", "postgres"])
def test_docker_stop_is_clean_and_quick(database_pair, db):
    cid = database_pair[db]
    state = json.loads(subprocess.run(["docker", "inspect", "-f", "{{json .State}}", cid],
                                      capture_output=True, text=True, check=True).stdout)
    with open(f"/proc/{state['Pid']}/comm") as f:
        pid1 = f.read().strip()
    assert pid1 in SERVER_COMMS[db], f"{db}: PID 1 of the container is {pid1!r}, not the server"
    t0 = time.monotonic()
    subprocess.run(["docker", "stop", cid], check=True, capture_output=True)  # Docker's default 10 s
    seconds = time.monotonic() - t0
    code = int(subprocess.run(["docker", "inspect", "-f", "{{.State.ExitCode}}", cid],
                              capture_output=True, text=True, check=True).stdout)
    print(f"{db}: PID 1 {pid1}, docker stop {seconds:.2f}s, exit code {code}")
    assert code != 137, f"{db} was SIGKILLed after {seconds:.1f}s"
    assert seconds < 5, f"{db} took {seconds:.1f}s to stop"
