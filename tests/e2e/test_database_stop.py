"""`docker stop` ends each database container cleanly and quickly (issue 9, section 3): the server
is the container's PID 1 (the official MongoDB image's python3 entrypoint would be PID 1, ignore
SIGTERM and be SIGKILLed with mongod after Docker's 10 s), so SIGTERM (postgres: the image's
STOPSIGNAL SIGINT) reaches the server itself. A fresh database pair in a project of its own, from
the lab's compose files; it is stopped once its PID 1 is the server (each entrypoint execs the
server only after its first-start work) and the server has had a few seconds to open its port."""
import json
import subprocess
import time

import pytest

from conftest import LAB_ROOT, PROJECT, PORTS, lab_env

STOP_PROJECT = f"{PROJECT}-stop"
SERVER_COMMS = {"mongodb": {"mongod", "secantusd-py"}, "postgres": {"postgres"}}


def sh(script, env):
    return subprocess.run(["bash", "-c", f'. host/setup-host.sh; LAB_ROOT=$PWD; . lab/stack.sh; . host/ulimits.sh; '
                                         f'load_env_defaults "$LAB_ROOT/.env"; clamp_mongo_nofile_to_engine; {script}'],
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
def database_pair(lab_run):  # after the shared run: its stand-in images are built
    env = dict(lab_env(), COMPOSE_PROJECT_NAME=STOP_PROJECT,
               PG_PORT=str(int(PORTS["PG_PORT"]) + 1000), MONGO_PORT=str(int(PORTS["MONGO_PORT"]) + 1000),
               PROMETHEUS_PORT=str(int(PORTS["PROMETHEUS_PORT"]) + 1000),
               GRAFANA_PORT=str(int(PORTS["GRAFANA_PORT"]) + 1000))
    remove(STOP_PROJECT)
    r = sh("compose up -d mongodb postgres >&2 && for s in mongodb postgres; do echo $s=$(container_of $s); done", env)
    try:
        assert r.returncode == 0, r.stdout + r.stderr
        ids = dict(line.split("=", 1) for line in r.stdout.split() if "=" in line)
        deadline = time.monotonic() + 120
        while not all(pid1_comm(ids[db]) in SERVER_COMMS[db] for db in ids):
            assert time.monotonic() < deadline, {db: pid1_comm(ids[db]) for db in ids}
            time.sleep(0.5)
        time.sleep(3)
        yield ids
    finally:
        remove(STOP_PROJECT)


def pid1_comm(cid):
    state = json.loads(subprocess.run(["docker", "inspect", "-f", "{{json .State}}", cid],
                                      capture_output=True, text=True, check=True).stdout)
    try:
        with open(f"/proc/{state['Pid']}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


@pytest.mark.parametrize("db", ["mongodb", "postgres"])
def test_docker_stop_is_clean_and_quick(database_pair, db):
    cid = database_pair[db]
    pid1 = pid1_comm(cid)
    assert pid1 in SERVER_COMMS[db], f"{db}: PID 1 of the container is {pid1!r}, not the server"
    t0 = time.monotonic()
    subprocess.run(["docker", "stop", cid], check=True, capture_output=True)  # Docker's default 10 s
    seconds = time.monotonic() - t0
    code = int(subprocess.run(["docker", "inspect", "-f", "{{.State.ExitCode}}", cid],
                              capture_output=True, text=True, check=True).stdout)
    print(f"{db}: PID 1 {pid1}, docker stop {seconds:.2f}s, exit code {code}")
    assert code != 137, f"{db} was SIGKILLed after {seconds:.1f}s"
    assert seconds < 5, f"{db} took {seconds:.1f}s to stop"
