"""host/setup-host.sh _compose_from_debian: on a host whose distribution has no Compose v2 plugin
(Debian 12), ensure_compose takes Debian 13's docker-compose package (the v2 plugin) from Debian's
archive instead of building Compose with Go: its binary, cached under $JSONBENCH_CACHE/bin, is the
pinned version and answers as a Docker CLI plugin; another version than the pinned one is not used,
and that is said. Fetched for real from the archive the host's apt uses."""
import subprocess
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]


def from_debian(cache, pin=None):
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "JSONBENCH_CACHE": str(cache)}
    if pin:
        env["JSONBENCH_COMPOSE_DEBIAN"] = pin
    return subprocess.run(["bash", "-c", f'. "{LAB_ROOT}/host/setup-host.sh"; _compose_from_debian'], env=env,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def test_the_pinned_debian_compose_is_fetched_cached_and_answers_as_a_plugin(tmp_path):
    r = from_debian(tmp_path / "cache")
    assert r.returncode == 0, r.stderr
    binary = Path(r.stdout.strip())
    pin = subprocess.run(["bash", "-c", f'. "{LAB_ROOT}/host/setup-host.sh"; echo $JSONBENCH_COMPOSE_DEBIAN'],
                         capture_output=True, text=True).stdout.strip()
    assert binary == tmp_path / "cache" / "bin" / f"docker-compose-debian-{pin}"
    assert f"fetched Compose {pin}-" in r.stderr
    # the CLI plugin protocol: docker finds it in $DOCKER_CONFIG/cli-plugins and asks its version
    plugins = tmp_path / "config" / "cli-plugins"
    plugins.mkdir(parents=True)
    (plugins / "docker-compose").symlink_to(binary)
    v = subprocess.run(["docker", "compose", "version", "--short"], env={"PATH": "/usr/bin:/bin",
                       "DOCKER_CONFIG": str(tmp_path / "config")}, capture_output=True, text=True, timeout=60)
    assert v.returncode == 0 and v.stdout.strip().startswith(pin + "-"), v.stdout + v.stderr
    again = from_debian(tmp_path / "cache")  # cached: no second download
    assert again.returncode == 0 and again.stdout == r.stdout and "fetched" not in again.stderr


def test_another_version_than_the_pinned_one_is_not_used(tmp_path):
    r = from_debian(tmp_path / "cache", pin="2.0.0")
    assert r.returncode == 1 and r.stdout == ""
    assert "the lab is tested with 2.0.0: building Compose instead" in r.stderr, r.stderr
    assert not list((tmp_path / "cache").glob("bin/docker-compose*"))
