"""lab/driver/engine.py's short docker calls on a host that stops answering (issue 27's unreachable
host): a Docker context whose endpoint accepts connections and never answers, as an engine behind a
network that went silent does. Every call returns within its timeout, as "docker cannot say", naming
the context; nothing waits without end. The real docker CLI, a real socket of this test's own."""
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from lab.driver.engine import Engine  # noqa: E402

needs_docker = pytest.mark.skipif(subprocess.run(["docker", "version"], capture_output=True).returncode != 0,
                                  reason="no Docker engine")


@pytest.fixture
def silent_context():
    """A context NAME whose unix socket accepts every connection and answers nothing."""
    folder = tempfile.mkdtemp(prefix="jsonbench-silent-")
    path = os.path.join(folder, "docker.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(16)
    held, stop = [], threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])  # kept open, never read from or written to
            except OSError:
                pass
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    name = f"jsonbench-unit-silent-{os.getpid()}"
    r = subprocess.run(["docker", "context", "create", name, "--docker", f"host=unix://{path}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    try:
        yield name
    finally:
        subprocess.run(["docker", "context", "rm", "-f", name], capture_output=True)
        stop.set()
        thread.join()
        for c in held:
            c.close()
        server.close()
        os.unlink(path)
        os.rmdir(folder)


@needs_docker
def test_a_silent_engine_s_calls_end_at_their_timeout_and_name_the_host(silent_context, monkeypatch):
    import lab.driver.engine as engine_module
    monkeypatch.setattr(engine_module, "CALL_TIMEOUT_S", 2)
    engine = Engine(str(ROOT), "jsonbench-unit-silent", False, dict(os.environ), context=silent_context)
    t0 = time.monotonic()
    r = engine.call(["inspect", "-f", "{{.Id}}", "x"], timeout=2, text=True)
    assert time.monotonic() - t0 < 10
    assert r.returncode == 124 and r.stderr == f"docker --context {silent_context} inspect: no answer within 2 s", r
    # the driver's questions: "docker cannot say" (None, 0, no id), each within its timeout
    t0 = time.monotonic()
    assert engine.state("x") is None and engine.running(["x", "y"]) == 0 and engine.image_id("debian") is None
    assert engine.logs("x").endswith("no answer within 2 s")
    assert time.monotonic() - t0 < 4 * 10


@needs_docker
def test_an_answering_engine_s_calls_are_unchanged():
    """The same calls on this machine's engine: an exit code of docker's own, its output as it gave it."""
    engine = Engine(str(ROOT), "jsonbench-unit-silent", False, dict(os.environ))
    r = engine.call(["inspect", "-f", "{{.Id}}", "jsonbench-no-such-container"], text=True)
    assert r.returncode == 1 and "No such" in r.stderr, r
    assert engine.state("jsonbench-no-such-container") is None
    assert engine.call(["version", "-f", "{{.Server.Version}}"], text=True).stdout.strip()
