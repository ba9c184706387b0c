"""lab/driver/placement.py: the placement keys (DATABASE_HOST, DATABASE_HOST_<db>, CLIENT_HOST,
MONITORING_HOST) read from bench.env, --set, the environment and .env, and checked against real Docker
contexts before anything starts: an unknown context, an engine that does not answer (refused, or
silent until the short timeout) and hosts whose cgroups differ are refused naming the source, the key
and the context. The contexts live in a Docker configuration folder of the test's own (DOCKER_CONFIG),
so nothing of this machine's contexts changes; the reachable one is this machine's engine."""
import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from lab.driver import placement
from lab.driver.placement import PlacementError

LAB_ROOT = Path(__file__).resolve().parents[2]
needs_docker = pytest.mark.skipif(not shutil.which("docker"), reason="needs the docker CLI")


def bench(tmp_path, text="DESCRIPTION=x\nDATABASES=\"mongodb postgres\"\n", name="bench-p"):
    d = tmp_path / name
    d.mkdir()
    (d / "bench.env").write_text(text)
    return str(d / "bench.env")


def test_no_placement_is_the_single_host_and_asks_docker_nothing(tmp_path):
    p = placement.of_bench(bench(tmp_path), environ={"PATH": os.environ["PATH"]})
    assert not p.placed and p.databases == {"mongodb": "", "postgres": ""} and p.client == "" and p.monitoring == ""

    def facts(*a):
        raise AssertionError("docker asked although nothing is placed")
    assert placement.check_engines(p, facts=facts) == {}


def test_sources_in_order_set_bench_environment_env_file(tmp_path):
    env_file = tmp_path / "lab.env"
    env_file.write_text("DATABASE_HOST=from-env-file\nCLIENT_HOST=c-env-file\nMONITORING_HOST=m-env-file\n"
                        "DATABASE_HOST_mysql=not-run-here\nLAB_ADDRESSES=\"from-bench=10.0.0.2 pg-bench=10.0.0.3 "
                        "m-environment=10.0.0.4 m-env-file=10.0.0.6\"\n")
    f = bench(tmp_path, "DESCRIPTION=x\nDATABASES=\"mongodb postgres\"\nDATABASE_HOST=from-bench\n"
                        "DATABASE_HOST_postgres=pg-bench\nCLIENT_HOST=c-bench\n")
    p = placement.of_bench(f, ["CLIENT_HOST=c-set"], environ={"MONITORING_HOST": "m-environment"},
                           env_file=str(env_file))
    assert p.databases == {"mongodb": "from-bench", "postgres": "pg-bench"}
    assert p.client == "c-set" and p.monitoring == "m-environment"
    assert p.settings["CLIENT_HOST"].source == "--set"
    assert p.settings["DATABASE_HOST"].source == f
    assert p.settings["MONITORING_HOST"].source == "the environment"
    # .env's DATABASE_HOST_mysql is a lab-wide default for benches that run mysql: not this bench's
    assert "DATABASE_HOST_mysql" not in p.settings
    assert p.record()["databases"] == {"mongodb": "from-bench", "postgres": "pg-bench"}
    assert p.addresses == {"from-bench": "10.0.0.2", "pg-bench": "10.0.0.3", "m-environment": "10.0.0.4",
                           "m-env-file": "10.0.0.6"}
    assert p.settings["LAB_ADDRESSES"].source == str(env_file)
    # an empty --set leaves the role on the controller's engine
    p = placement.of_bench(f, ["CLIENT_HOST=", "DATABASE_HOST_postgres="], environ={}, env_file=str(env_file))
    assert p.client == "" and p.databases == {"mongodb": "from-bench", "postgres": "from-bench"}


def test_a_database_host_for_a_database_not_run_is_refused_from_the_bench(tmp_path):
    f = bench(tmp_path, "DESCRIPTION=x\nDATABASES=postgres\nDATABASE_HOST_mongodb=h1\n")
    with pytest.raises(PlacementError, match=f"{f}: DATABASE_HOST_mongodb=h1: mongodb is not one of this run's "
                                             "databases; allowed: DATABASE_HOST_postgres"):
        placement.of_bench(f, environ={})
    with pytest.raises(PlacementError, match="--set: DATABASE_HOST=no/such: not a Docker context name"):
        placement.of_bench(f, ["DATABASE_HOST=no/such"], environ={})


def test_clients_on_another_host_dial_the_database_host_lab_address(tmp_path):
    f = bench(tmp_path, "DESCRIPTION=x\nDATABASES=\"mongodb postgres\"\nDATABASE_HOST=db1\nDATABASE_HOST_mongodb=cl1\n"
                        "CLIENT_HOST=cl1\n")
    with pytest.raises(PlacementError, match=f"{f}: DATABASE_HOST=db1: postgres's clients run on another host \\(cl1\\), "
                                             "so they dial db1's address on the lab network: LAB_ADDRESSES has none for db1"):
        placement.of_bench(f, environ={})
    # mongodb is on the clients' host: dialled by its service name there, no address needed
    p = placement.of_bench(f, ["LAB_ADDRESSES=db1=10.199.1.2"], environ={})
    assert p.addresses == {"db1": "10.199.1.2"} and p.dialled_across("postgres") and not p.dialled_across("mongodb")
    for bad, why in (("db1=0.0.0.0", "a wildcard"), ("db1=::", "a wildcard"), ("db1", "allowed: space-separated"),
                     ("db1=db1.example", "allowed: space-separated")):
        with pytest.raises(PlacementError, match=f"--set: LAB_ADDRESSES: '{bad}'[:;] .*{why}"):
            placement.of_bench(f, [f"LAB_ADDRESSES={bad}"], environ={})
    # a database left on the controller while its clients are elsewhere: its address is not known
    with pytest.raises(PlacementError, match="postgres stays on the controller's engine while its clients run on cl1"):
        placement.of_bench(f, ["DATABASE_HOST="], environ={})
    # LAB_ADDRESSES alone places nothing
    assert not placement.of_bench(bench(tmp_path, name="b2"), environ={"LAB_ADDRESSES": "db1=10.0.0.2"}).placed


def test_hosts_whose_cgroups_differ_are_refused_naming_both(tmp_path):
    # Two engines with different cgroup layouts cannot run on this machine (one kernel, one layout):
    # the readings are given here; the reading itself is tested against real engines below.
    f = bench(tmp_path, "DESCRIPTION=x\nDATABASES=postgres\nDATABASE_HOST=db1\nCLIENT_HOST=cl1\nMONITORING_HOST=mon\n"
                        "LAB_ADDRESSES=\"db1=10.0.0.2 mon=10.0.0.5\"\n")
    p = placement.of_bench(f, environ={})
    layouts = {"db1": ("1", "cgroupfs"), "cl1": ("2", "systemd"), "mon": ("2", "systemd"), "": ("1", "cgroupfs")}
    with pytest.raises(PlacementError) as e:
        placement.check_engines(p, facts=lambda ctx, *a: layouts[ctx])
    assert f"{f}: CLIENT_HOST=cl1 has cgroup v2 systemd, but {f}: DATABASE_HOST=db1 has cgroup v1 cgroupfs" in str(e.value)
    # the monitoring's host holds no measured container: its layout does not matter
    layouts["cl1"] = ("1", "cgroupfs")
    assert placement.check_engines(p, facts=lambda ctx, *a: layouts[ctx])["mon"] == ("2", "systemd")
    # a role left on the controller's engine is a measured host too
    p = placement.of_bench(f, ["CLIENT_HOST="], environ={})
    layouts[""] = ("2", "systemd")
    with pytest.raises(PlacementError, match=r"the controller's own engine \(where CLIENT_HOST is unset\) has cgroup v2"):
        placement.check_engines(p, facts=lambda ctx, *a: layouts[ctx])


@pytest.fixture
def contexts(tmp_path):
    """A Docker configuration folder of the test's own with three contexts: `jb-reach` (this machine's
    engine), `jb-gone` (a socket nobody listens on) and `jb-silent` (a socket that accepts and never
    answers, as an engine behind a dead SSH link)."""
    config = tmp_path / "docker-config"
    config.mkdir()
    env = {**os.environ, "DOCKER_CONFIG": str(config)}
    env.pop("DOCKER_CONTEXT", None)
    host = env.pop("DOCKER_HOST", None) or "unix:///var/run/docker.sock"
    silent_path = str(tmp_path / "silent.sock")
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(silent_path)
    silent.listen(8)
    held = []
    stop = threading.Event()

    def accept():
        silent.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(silent.accept()[0])
            except OSError:
                pass
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    for name, endpoint in (("jb-reach", host), ("jb-gone", f"unix://{tmp_path}/gone.sock"),
                           ("jb-silent", f"unix://{silent_path}")):
        r = subprocess.run(["docker", "context", "create", name, "--docker", f"host={endpoint}"], env=env,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    try:
        yield env
    finally:
        stop.set()
        t.join()
        for c in held:
            c.close()
        silent.close()


@needs_docker
def test_real_contexts_known_reachable_unknown_refused_and_silent(tmp_path, contexts):
    f = bench(tmp_path, "DESCRIPTION=x\nDATABASES=\"mongodb postgres\"\nDATABASE_HOST=jb-reach\n"
                        "LAB_ADDRESSES=\"jb-reach=10.0.0.2 jb-gone=10.0.0.3 jb-silent=10.0.0.4\"\n")
    p = placement.validate_bench(f, environ=contexts)
    here = subprocess.run(["docker", "info", "--format", "{{.CgroupVersion}} {{.CgroupDriver}}"],
                          capture_output=True, text=True).stdout.split()
    assert placement.check_engines(p, contexts) == {"jb-reach": tuple(here), "": tuple(here)}

    with pytest.raises(PlacementError) as e:
        placement.validate_bench(f, ["CLIENT_HOST=jb-nope"], environ=contexts)
    assert "--set: CLIENT_HOST=jb-nope: no Docker context 'jb-nope'" in str(e.value), e.value

    with pytest.raises(PlacementError) as e:
        placement.validate_bench(f, ["DATABASE_HOST_postgres=jb-gone"], environ=contexts)
    assert "--set: DATABASE_HOST_postgres=jb-gone: the engine of context 'jb-gone' is unreachable" in str(e.value)

    t0 = time.monotonic()
    with pytest.raises(PlacementError) as e:
        placement.validate_bench(f, ["MONITORING_HOST=jb-silent"], environ=contexts, timeout_s=2)
    took = time.monotonic() - t0
    assert "--set: MONITORING_HOST=jb-silent: the engine of context 'jb-silent' is unreachable: no answer within 2 s" \
        in str(e.value), e.value
    assert took < 30, took


@needs_docker
def test_validate_refuses_a_placed_bench_before_writing_its_plan(tmp_path, contexts):
    """python3 -m lab.driver validate (runme.sh's first step): exit 2 naming the file, key and context,
    and the folder as it was (no plan.json)."""
    d = tmp_path / "bench-placed"
    d.mkdir()
    (d / "bench.env").write_text("DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nFIELDS=2\nFIELD_BYTES=10\nCLIENTS=1\n"
                                 "RATE=10\nDOCS=10\nQUIET_S=0\nDATABASES=postgres\nDATABASE_HOST=jb-nope\n"
                                 "LAB_ADDRESSES=\"jb-nope=10.0.0.2 jb-reach=10.0.0.2\"\n")
    env = {**contexts, "PYTHONPATH": str(LAB_ROOT)}
    r = subprocess.run(["python3", "-m", "lab.driver", "validate", "--no-branch", str(d)], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert f"runme.sh: {d}/bench.env: DATABASE_HOST=jb-nope: no Docker context 'jb-nope'" in r.stderr, r.stderr
    assert sorted(os.listdir(d)) == ["bench.env"]
    # reachable: validated and planned as without placement
    (d / "bench.env").write_text((d / "bench.env").read_text().replace("jb-nope", "jb-reach"))
    r = subprocess.run(["python3", "-m", "lab.driver", "validate", "--no-branch", str(d)], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert sorted(os.listdir(d)) == ["bench.env", "plan.json"]


@needs_docker
def test_an_engine_per_context_speaks_to_that_context(tmp_path, contexts):
    """lab/driver/engine.py: Engine.on(CONTEXT) runs docker and docker compose through that context,
    the controller's Engine is itself for "", and Lab keeps one Engine per context."""
    from lab.driver.engine import Engine
    from lab.driver.lab import Lab
    main = Engine(str(LAB_ROOT), "jsonbench-test-placement", False, contexts)
    assert main.on("") is main and main.docker == ["docker"]
    reach = main.on("jb-reach")
    assert reach.compose_args()[:4] == ["docker", "--context", "jb-reach", "compose"]
    # a tagged image: a rebuilt client image leaves its old one dangling as <none>:<none>, which inspect cannot name
    image = [name for name in subprocess.run(["docker", "image", "ls", "--filter", "dangling=false", "--format",
                                              "{{.Repository}}:{{.Tag}}"], capture_output=True, text=True).stdout.split()
             if "<none>" not in name][0]
    here = subprocess.run(["docker", "image", "inspect", "-f", "{{.Id}}", image], capture_output=True, text=True).stdout.strip()
    assert reach.image_id(image) == here == main.image_id(image)
    assert main.on("jb-gone").image_id(image) is None  # through the context: nobody listens there
    lab = Lab(str(LAB_ROOT), main, None, contexts)
    assert lab.engine_on("jb-reach") is lab.engine_on("jb-reach") and lab.engine_on("") is main
    assert sorted(lab.engines) == ["", "jb-reach"]


@needs_docker
def test_monitoring_on_its_own_host_needs_its_lab_address_and_is_then_accepted(tmp_path, contexts):
    """MONITORING_HOST moves Prometheus and Grafana to a context (lab/driver/placed.py start_monitoring):
    without that host's LAB_ADDRESSES entry (where their ports bind and the driver queries) it is
    refused before anything starts, naming the key and what is allowed; with it the bench is planned."""
    d = tmp_path / "bench-mon"
    d.mkdir()
    (d / "bench.env").write_text("DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nFIELDS=2\nFIELD_BYTES=10\nCLIENTS=1\n"
                                 "RATE=10\nDOCS=10\nQUIET_S=0\nDATABASES=postgres\n")
    env = {**contexts, "PYTHONPATH": str(LAB_ROOT)}
    r = subprocess.run(["python3", "-m", "lab.driver", "validate", "--set", "MONITORING_HOST=jb-reach", str(d)],
                       cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "runme.sh: --set: MONITORING_HOST=jb-reach: Prometheus and Grafana publish their ports on jb-reach's " \
        "address" in r.stderr and "LAB_ADDRESSES has none for jb-reach; allowed: MONITORING_HOST unset, or with " \
        "LAB_ADDRESSES naming its address" in r.stderr, r.stderr
    assert sorted(os.listdir(d)) == ["bench.env"]
    r = subprocess.run(["python3", "-m", "lab.driver", "validate", "--set", "MONITORING_HOST=jb-reach",
                        "--set", "LAB_ADDRESSES=jb-reach=127.0.0.1", str(d)],
                       cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "plan.json" in os.listdir(d)
    p = placement.of_bench(str(d / "bench.env"), ["MONITORING_HOST=jb-reach", "LAB_ADDRESSES=jb-reach=127.0.0.1"],
                           environ={})
    assert p.monitoring == "jb-reach" and p.record()["monitoring"] == "jb-reach"
