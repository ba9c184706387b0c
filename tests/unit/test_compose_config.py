"""What `docker compose config` resolves for the official and the stand-in path: no healthcheck in a
database container, readiness not a compose condition, the containerd socket for cAdvisor 0.60."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]
PATHS = {"official": ["compose.yaml"], "standins": ["compose.yaml", "compose.standins.yaml"]}

pytestmark = pytest.mark.skipif(shutil.which("docker") is None, reason="needs the docker CLI with compose")


def compose(path, *args, **env_vars):
    # --env-file /dev/null: the compose files' own defaults, whatever a checkout's .env says (and
    # with no .env at all: a fresh checkout); the passwords a .env would hold are given here.
    files = [a for f in PATHS[path] for a in ("-f", str(LAB_ROOT / f))]
    env = dict(os.environ, MONGO_PASSWORD="x", POSTGRES_PASSWORD="x", MYSQL_PASSWORD="x", GRAFANA_ADMIN_PASSWORD="x",
               **env_vars)
    r = subprocess.run(["docker", "compose", "--env-file", os.devnull, *files, *args],
                       capture_output=True, text=True, env=env, cwd=LAB_ROOT)
    assert r.returncode == 0, r.stderr
    return r.stdout


def config(path, profiles=("client",), **env_vars):
    profile_args = [a for p in profiles for a in ("--profile", p)]
    return json.loads(compose(path, *profile_args, "config", "--format", "json", **env_vars))["services"]


@pytest.mark.parametrize("path", PATHS)
def test_no_service_runs_a_healthcheck(path):
    """Every service of the lab, on both paths and in every profile, has its healthcheck off: an
    image's own HEALTHCHECK (the official cAdvisor image: a shell and wget every 30 s) is a process
    the lab did not start, in a container whose CPU a run counts (cAdvisor's and Prometheus's are
    results.json `monitoring`; the databases' are the figures). Readiness is checked from outside
    (docs/contracts.md §3). A service that needs one would be named here with the reason."""
    profiles = compose(path, "config", "--profiles").split()
    services = config(path, profiles)
    assert {"cadvisor", "prometheus", "grafana", "client", "mongodb", "postgres"} <= set(services)
    on = {name: s.get("healthcheck") for name, s in services.items() if s.get("healthcheck") != {"disable": True}}
    assert on == {}, f"{path}: healthcheck not disabled in {sorted(on)}"


@pytest.mark.parametrize("path", PATHS)
def test_database_containers_run_no_healthcheck(path):
    services = config(path)
    for db in ("mongodb", "postgres"):
        assert services[db]["healthcheck"] == {"disable": True}, services[db].get("healthcheck")
    assert all(d.get("condition") == "service_started" for d in services["client"]["depends_on"].values())


def test_cadvisor_sees_the_containerd_socket_on_the_official_path_only():
    mounts = lambda path: {(v["source"], v["target"], v.get("read_only", False))  # noqa: E731
                           for v in config(path)["cadvisor"]["volumes"]}
    assert ("/run/containerd", "/run/containerd", True) in mounts("official")
    assert not any(t == "/run/containerd" for _, t, _ in mounts("standins"))
    assert mounts("official") - mounts("standins") == {("/run/containerd", "/run/containerd", True)}


def _official_mongodb_start(tmp_path, prelude_exit):
    """Runs the official mongodb service's resolved entrypoint + command with stand-ins for the two
    programs it calls: `python3` (the image's docker-entrypoint.py) and `mongod`, each recording its
    pid and arguments. What the upstream python script does inside stays unverified here."""
    svc = config("official")["mongodb"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, tail in (("python3", f"exit {prelude_exit}"), ("mongod", "exit 0")):
        (bin_dir / name).write_text(f'#!/bin/sh\necho "$$ $*" >>"{tmp_path}/{name}.calls"\n{tail}\n')
        (bin_dir / name).chmod(0o755)
    # `compose config` keeps compose's `$$` escape; the container gets a single `$`.
    argv = [a.replace("$$", "$") for a in [*svc["entrypoint"], *svc["command"]]]
    assert argv[0] == "bash"
    p = subprocess.Popen(argv, env={"PATH": f"{bin_dir}:/usr/bin:/bin"}, stdout=subprocess.DEVNULL)
    code = p.wait(timeout=30)
    calls = lambda name: [l.split(" ", 1) for l in (tmp_path / f"{name}.calls").read_text().splitlines()] \
        if (tmp_path / f"{name}.calls").exists() else []  # noqa: E731
    return p.pid, code, calls("python3"), calls("mongod"), svc["command"]


def test_official_mongod_is_pid_1_with_auth_after_the_entrypoints_first_start_work(tmp_path):
    pid, code, prelude, mongod, command = _official_mongodb_start(tmp_path, 0)
    assert code == 0
    assert [args for _, args in prelude] == ["/usr/local/bin/docker-entrypoint.py mongod --version"]
    # exec: the server replaces the container's first process (PID 1 in the container), once.
    assert mongod == [[str(pid), " ".join(command[1:] + ["--auth"])]]


def test_official_mongod_does_not_start_when_the_entrypoints_first_start_work_fails(tmp_path):
    _, code, prelude, mongod, _ = _official_mongodb_start(tmp_path, 3)
    assert code == 3 and len(prelude) == 1 and mongod == []


def test_official_mongod_with_topology_replset_gets_replset_and_the_keyfile_it_requires(tmp_path, monkeypatch):
    """TOPOLOGY=replset (lab/stack.sh sets MONGO_TOPOLOGY_ARGS): mongod refuses --auth with --replSet
    without a keyFile ("security.keyFile is required when authorization is enabled with replica
    sets"), so the entrypoint writes one (base64, mode 0600) before exec'ing mongod with both."""
    keyfile = Path("/tmp/jsonbench-keyfile")
    keyfile.unlink(missing_ok=True)
    monkeypatch.setenv("MONGO_TOPOLOGY_ARGS", "--replSet rs0 --keyFile /tmp/jsonbench-keyfile")
    try:
        pid, code, prelude, mongod, command = _official_mongodb_start(tmp_path, 0)
        assert code == 0 and len(prelude) == 1
        assert mongod == [[str(pid), " ".join(command[1:] + ["--auth", "--replSet", "rs0", "--keyFile", str(keyfile)])]]
        key = keyfile.read_text()
        assert keyfile.stat().st_mode & 0o777 == 0o600
        assert 6 <= len(key) <= 1024 and set(key) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
    finally:
        keyfile.unlink(missing_ok=True)


def _yaml(path):
    """A compose file as YAML; compose's own tags (!reset, !override) read as their plain values."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass
    Loader.add_multi_constructor("!", lambda loader, tag, node: loader.construct_sequence(node)
                                 if isinstance(node, yaml.SequenceNode) else None)
    return yaml.load((LAB_ROOT / path).read_text(), Loader=Loader)


def _included(top):
    """The files a top compose file includes (its `include:` list)."""
    doc = _yaml(top)
    return [i if isinstance(i, str) else i["path"] for i in doc.get("include", [])]


def test_each_lab_database_brings_its_service_from_its_folder_and_a_run_branch_keeps_those_files():
    """compose.yaml and compose.standins.yaml include each database's own files (databases/<name>/),
    the service the manifest names comes from there, and runme.sh's branch keeps exactly those files
    (lab/stack.sh database_compose_files): a run's branch holds the configuration it ran with."""
    from databases import manifests
    names = manifests.names()
    # a database without a stand-in (no_standin) has no compose.standins.yaml to include; every
    # database of the lab has one now (TimescaleDB's: Debian's Apache edition)
    with_standin = [n for n in names if "standin" in manifests.load(n)]
    assert set(names) == set(with_standin)
    assert _included("compose.yaml") == [f"databases/{n}/compose.yaml" for n in names]
    assert _included("compose.standins.yaml") == [f"databases/{n}/compose.standins.yaml" for n in with_standin]
    for n in names:
        service = manifests.load(n)["service"]
        assert service in yaml_services(f"databases/{n}/compose.yaml") and service in config("official")
        label = config("standins")[service]["labels"]["jsonbench.stand_in"]
        # no stand-in: the official image's container would carry an empty label
        assert label == (manifests.load(n)["standin"]["label"] if n in with_standin else "")
    from lab.driver.__main__ import database_compose_files
    kept = database_compose_files(str(LAB_ROOT))
    # each database's two files, and the folder of each service its compose.yaml includes (PgBouncer's)
    nested = {n: [str(Path(i).parent) for i in _included(f"databases/{n}/compose.yaml")] for n in names}
    assert nested["postgres"] == ["pgbouncer"]
    assert kept == [f for n in names for f in (f"databases/{n}/compose.yaml",
                                                              *([f"databases/{n}/compose.standins.yaml"] if n in with_standin else []),
                                                              *(f"databases/{n}/{d}" for d in nested[n]))]


def yaml_services(path):
    return _yaml(path)["services"]


@pytest.mark.parametrize("path", PATHS)
def test_timescaledb_image_of_ones_own_replaces_the_official_image_and_the_stand_in(path):
    """TIMESCALEDB_IMAGE (database.json own_image) wins on both paths, labelled as that image; unset,
    the official image (empty label) or the stand-in (its manifest's label, its versioned tag)."""
    from databases import manifests
    m = manifests.load("timescaledb")
    unset = config(path, TIMESCALEDB_IMAGE="")["timescaledb"]
    if path == "standins":
        assert unset["image"] == m["standin"]["image"] and unset["labels"]["jsonbench.stand_in"] == m["standin"]["label"]
    else:
        assert unset["image"] == "timescale/timescaledb:2.28.3-pg17" and unset["labels"]["jsonbench.stand_in"] == ""
    mine = config(path, TIMESCALEDB_IMAGE="me/timescaledb:tsl")["timescaledb"]
    assert mine["image"] == "me/timescaledb:tsl"
    assert mine["labels"]["jsonbench.stand_in"] == ("image of the user's own, me/timescaledb:tsl (TIMESCALEDB_IMAGE), standing in "
                                                    "for timescale/timescaledb:2.28.3-pg17: not a result of the official image")
