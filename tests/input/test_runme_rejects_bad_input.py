"""./runme.sh refuses bad input before anything starts: exit code 2, a message naming the bench
file, the key, the value given and what is allowed, and no container created."""
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]
PROJECT = "jsonbench-badinput"
GOOD = {"DESCRIPTION": "x", "KEY": "uuidv7", "LAYOUT": "heap", "FIELDS": "10", "FIELD_BYTES": "100",
        "CLIENTS": "1", "RATE": "10", "DOCS": "10", "QUIET_S": "0"}


def containers():
    return subprocess.run(["docker", "ps", "-aq", "--filter", f"label=com.docker.compose.project={PROJECT}"],
                          capture_output=True, text=True, check=True).stdout.split()


def runme(*args, env=None, timeout=600):
    full_env = dict(os.environ, COMPOSE_PROJECT_NAME=PROJECT, **(env or {}))
    return subprocess.run([str(LAB_ROOT / "runme.sh"), "--no-branch", *args], cwd=LAB_ROOT, env=full_env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout)


def bench(tmp_path, name="bench-bad", **changes):
    d = tmp_path / name
    d.mkdir()
    settings = {**GOOD, **changes}
    d.joinpath("bench.env").write_text("".join(f"{k}={v}\n" for k, v in settings.items() if v is not None))
    return d


def assert_refused(r, *fragments):
    assert r.returncode == 2, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    for fragment in fragments:
        assert fragment in r.stderr, (fragment, r.stderr[-2000:])
    assert containers() == []


NUMBERS = {"RATE": "allowed: a number > 0", "DOCS": "allowed: an integer >= 1",
           "CLIENTS": "allowed: an integer >= 1", "FIELDS": "allowed: an integer >= 1",
           "FIELD_BYTES": "allowed: an integer >= 1"}


@pytest.mark.parametrize("key,value,allowed", [
    ("KEY", "uuidv9", "allowed: one of uuidv7, uuidv4, sequence"),
    ("LAYOUT", "columnar", "allowed: one of clustered, heap"),
    ("FIELD_BYTES", "1.5", NUMBERS["FIELD_BYTES"]),
] + [(key, value, allowed) for key, allowed in NUMBERS.items() for value in ("abc", "0", "-3")])
def test_bad_value_names_bench_key_value_and_allowed(tmp_path, key, value, allowed):
    b = bench(tmp_path, **{key: value})
    r = runme(str(b))
    assert_refused(r, f"{b}/bench.env", key, f'"{value}"', allowed)


def test_document_over_mongodb_limit(tmp_path):
    b = bench(tmp_path, FIELDS="20", FIELD_BYTES="1000000")
    assert_refused(runme(str(b)), f"{b}/bench.env", "FIELD_BYTES=1000000", "16 MiB")


def test_misspelled_setting_gets_a_suggestion(tmp_path):
    b = bench(tmp_path, LAYOUT=None, LAYUOT="heap")
    assert_refused(runme(str(b)), f"{b}/bench.env", "unknown key LAYUOT", "did you mean LAYOUT?")


def test_bench_folder_that_does_not_exist():
    assert_refused(runme("bench-that-is-not-here"), "bench folder 'bench-that-is-not-here' does not exist",
                   "bench1")


def test_bad_override_on_the_command_line(tmp_path):
    b = bench(tmp_path)
    assert_refused(runme("--set", "KEY=uuidv9", str(b)), "KEY", '"uuidv9"', "--set overrides")


def test_published_port_in_use(tmp_path):
    b = bench(tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = runme(str(b), env={"PROMETHEUS_PORT": str(port)})
    assert_refused(r, f"PROMETHEUS_PORT={port} is already in use on 127.0.0.1", "allowed: a free port")


def test_memory_limit_beyond_the_host(tmp_path):
    b = bench(tmp_path)
    r = runme(str(b), env={"DB_MEMORY": "4096g"})
    assert_refused(r, "DB_MEMORY=4096g x 2 databases exceeds this host's memory", "allowed: at most")


def test_the_bench_s_memory_limit_beyond_the_host(tmp_path):
    b = bench(tmp_path, DB_MEMORY_MB="4194304")
    assert_refused(runme(str(b)), f"{b}/bench.env: DB_MEMORY_MB=4194304 x 2 databases exceeds this host's memory",
                   "allowed: at most")
    assert_refused(runme("--sweep", "DB_MEMORY_MB=1024,4194304", str(b)), "--sweep DB_MEMORY_MB=4194304",
                   "DB_MEMORY_MB=4194304 x 2 databases exceeds this host's memory")
    # the cache as each database's folder allows it (database.json `cache`: WiredTiger's 256 MiB minimum),
    # and within the container with room beside it
    assert_refused(runme(str(bench(tmp_path, "bench-cache", CACHE_MB="200"))),
                   "CACHE_MB=200 is below mongodb's minimum, 256 MiB (databases/mongodb/database.json key 'cache': "
                   "--wiredTigerCacheSizeGB; WiredTiger's cache takes 0.25 GB at least",
                   "allowed: CACHE_MB >= 256 for DATABASES=mongodb postgres")
    assert_refused(runme(str(bench(tmp_path, "bench-room", CACHE_MB="512", DB_MEMORY_MB="600"))),
                   "DB_MEMORY_MB=600 leaves less than 256 MiB beside CACHE_MB=512", "allowed: DB_MEMORY_MB >= 768")
    assert not containers()


def as_other_user(user, runme_args, env, *, before="", timeout=120):
    """Runs runme.sh as `user`, from a bind mount of the checkout at a fresh folder under /tmp, in a
    private mount namespace of this test's own: a checkout under a private folder (/root/..., CI's)
    is then reachable by that user, who still cannot write to it or install anything. `before`: shell
    run as root in the namespace first (e.g. to hide a folder)."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("runuser"):
        pytest.skip("needs root, unshare and runuser")
    mnt = Path(tempfile.mkdtemp(prefix="jsonbench-checkout-"))
    mnt.chmod(0o755)
    script = (f"mount --bind {LAB_ROOT} {mnt} && {before} cd {mnt} && "
              f"if ! runuser -u {user} -- test -x {mnt}/runme.sh; then "
              f"echo 'the checkout itself is not readable by other users:' $(stat -c %A {LAB_ROOT}) >&2; exit 97; fi && "
              f"exec runuser -u {user} -- env " + " ".join(f"{k}={v}" for k, v in env.items())
              + f" {mnt}/runme.sh --no-branch " + " ".join(runme_args))
    try:
        r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script], cwd="/",
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout)
    finally:
        mnt.rmdir()  # the bind mount ended with the namespace
    assert r.returncode != 97, r.stderr
    return r


def test_no_docker_engine_gives_the_commands_to_get_one():
    """As a user who may not install anything (not root) and with no engine to talk to."""
    home = Path(tempfile.mkdtemp(prefix="jsonbench-nobody-"))
    try:
        home.chmod(0o755)
        b = bench(home)
        os.chown(b, 65534, 65534)  # nobody
        env = {"DOCKER_HOST": "unix:///nonexistent/docker.sock", "PATH": "/usr/local/bin:/usr/bin:/bin",
               "HOME": str(home)}
        r = as_other_user("nobody", [str(b)], env)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert_refused(r, "no Docker engine answers", "apt-get install -y docker.io")


def test_no_compose_v2_gives_the_commands_to_get_it():
    """A user who reaches the engine (docker group) but has no Compose plugin: the plugin folder is
    hidden by a tmpfs in the test's private mount namespace, and the user is removed."""
    plugins = Path("/usr/local/lib/docker/cli-plugins")
    if os.geteuid() != 0 or not plugins.is_dir() or not shutil.which("useradd"):
        pytest.skip("needs root, useradd and the Compose plugin in /usr/local/lib/docker/cli-plugins")
    user = f"jbtest{os.getpid()}"
    subprocess.run(["useradd", "-M", "-N", "-G", "docker", "-s", "/bin/bash", user], check=True)
    home = Path(tempfile.mkdtemp(prefix="jsonbench-nocompose-"))
    try:
        home.chmod(0o755)
        b = bench(home)
        shutil.chown(b, user)
        shutil.chown(home, user)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "COMPOSE_PROJECT_NAME": PROJECT}
        r = as_other_user(user, [str(b)], env, before=f"mount -t tmpfs none {plugins} &&")
    finally:
        subprocess.run(["userdel", user], capture_output=True)
        shutil.rmtree(home, ignore_errors=True)
    assert_refused(r, "'docker compose' (Compose v2) does not answer", "docker-compose-plugin")
    assert subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0
