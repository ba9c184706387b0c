"""lab/preflight.py against real sockets and this host's real memory."""
import socket
import subprocess
import sys
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]


def preflight(env_file, *args, env=None):
    return subprocess.run([sys.executable, str(LAB_ROOT / "lab" / "preflight.py"),
                           "--env-file", str(env_file), *args],
                          capture_output=True, text=True, env=env)


def listening_socket():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s


def test_port_in_use_is_named_with_file_key_and_value(tmp_path):
    with listening_socket() as s:
        port = s.getsockname()[1]
        env = tmp_path / ".env"
        env.write_text(f"PG_PORT={port}\nDB_MEMORY=256m\n")
        r = preflight(env)
    assert r.returncode == 2
    assert f"{env}: PG_PORT={port} is already in use on 127.0.0.1" in r.stderr


def test_port_held_by_the_labs_own_container_is_fine(tmp_path):
    with listening_socket() as s:
        port = s.getsockname()[1]
        env = tmp_path / ".env"
        env.write_text(f"PG_PORT={port}\n")
        assert preflight(env, "--own-ports", str(port)).returncode == 0


def test_environment_overrides_env_file_like_compose(tmp_path):
    with listening_socket() as s:
        env = tmp_path / ".env"
        env.write_text(f"PG_PORT={s.getsockname()[1]}\n")
        with socket.socket() as free:
            free.bind(("127.0.0.1", 0))
            free_port = free.getsockname()[1]
        r = preflight(env, env={"PG_PORT": str(free_port)})
    assert r.returncode == 0, r.stderr


def test_memory_beyond_the_host_is_refused(tmp_path):
    env = tmp_path / ".env"
    env.write_text("DB_MEMORY=4096g\n")
    r = preflight(env)
    assert r.returncode == 2
    assert "DB_MEMORY=4096g x 2 databases exceeds this host's memory" in r.stderr
    assert "allowed: at most" in r.stderr


def test_malformed_values_are_refused(tmp_path):
    env = tmp_path / ".env"
    env.write_text("PROMETHEUS_PORT=ninety\nDB_MEMORY=lots\n")
    r = preflight(env)
    assert r.returncode == 2
    assert "PROMETHEUS_PORT='ninety' is not a port; allowed: 1-65535" in r.stderr
    assert "DB_MEMORY='lots' is not a size" in r.stderr
