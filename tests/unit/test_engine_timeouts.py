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


def _processes_with(marker):
    """The pids whose command line holds MARKER."""
    pids = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    pids.append(int(entry))
        except (OSError, ValueError):
            pass
    return pids


@pytest.fixture
def fast_watch(monkeypatch):
    import lab.driver.engine as engine_module
    monkeypatch.setattr(engine_module, "CALL_TIMEOUT_S", 2)
    monkeypatch.setattr(engine_module, "WATCH_INTERVAL_S", 1)


@needs_docker
def test_a_long_call_ends_when_an_engine_it_depends_on_goes_silent(silent_context, fast_watch):
    """A one-shot's count on the clients' host, its database on a host gone silent: the call and the
    processes under it end within a watch (interval + call timeout), as exit 124 naming that engine."""
    here = Engine(str(ROOT), "jsonbench-unit-silent", False, dict(os.environ))
    there = here.on(silent_context)
    marker = f"{os.getpid()}{time.monotonic_ns() % 1000:03d}"  # sleep 300.<marker>: a number, and ours
    t0 = time.monotonic()
    r = here.run_watched(["sh", "-c", f"sleep 300.{marker} & wait"], watch=[there], what="a count")
    took = time.monotonic() - t0
    assert took < 1 + 2 + 5, took
    assert r.returncode == 124, r
    assert r.stderr.startswith("a count: ended, the engine of docker --context " + silent_context), r.stderr
    assert "no answer within 2 s" in r.stderr
    time.sleep(0.2)
    assert _processes_with(f"sleep 300.{marker}") == []  # the shell's child too


@needs_docker
def test_compose_on_a_silent_engine_ends_and_a_one_shot_says_why_in_its_file(silent_context, fast_watch, tmp_path):
    engine = Engine(str(ROOT), "jsonbench-unit-silent", False, dict(os.environ), context=silent_context)
    t0 = time.monotonic()
    r = engine.compose(["ps", "-q", "postgres"])
    assert time.monotonic() - t0 < 1 + 2 + 5
    assert r.returncode == 124 and r.stderr.startswith(f"docker --context {silent_context} compose ps postgres: ended"), r
    out = tmp_path / "D.out"
    out.write_text("before\n")
    r = engine.compose_to(["run", "--rm", "--no-deps", "-T", "-e", "URI", "-v", "/x:/bench:ro", "client", "count",
                           "--plan", "/bench/plan.json"], dict(os.environ), stdout=str(tmp_path / "count.json"),
                          stderr=str(out))
    assert r.returncode == 124
    said = out.read_text()
    assert said.startswith("before\n") and f"docker --context {silent_context} compose run client count: ended, " \
        f"the engine of docker --context {silent_context} does not answer" in said, said


@needs_docker
def test_a_refusing_engine_ends_a_long_call_at_the_first_watch(fast_watch, tmp_path):
    """An engine that stopped (its socket refuses): no timeout to wait out, the first watch ends it."""
    name = f"jsonbench-unit-refusing-{os.getpid()}"
    r = subprocess.run(["docker", "context", "create", name, "--docker", f"host=unix://{tmp_path}/gone.sock"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    try:
        here = Engine(str(ROOT), "jsonbench-unit-silent", False, dict(os.environ))
        t0 = time.monotonic()
        r = here.run_watched(["sleep", "60"], watch=[here.on(name)])
        assert time.monotonic() - t0 < 1 + 5
        assert r.returncode == 124 and f"the engine of docker --context {name} does not answer" in r.stderr, r
    finally:
        subprocess.run(["docker", "context", "rm", "-f", name], capture_output=True)


@needs_docker
def test_a_long_call_on_answering_engines_runs_to_its_end_with_its_output(fast_watch):
    """Watched three times or more (1 s interval, a 3.5 s call): the call's own exit code and output,
    and the input it was given, all of it (written across the watches)."""
    here = Engine(str(ROOT), "jsonbench-unit-silent", False, dict(os.environ))
    data = b"x" * (1 << 20)
    r = here.run_watched(["sh", "-c", "sleep 3.5; wc -c; exit 3"], watch=[here], input=data, text=False)
    assert r.returncode == 3 and r.stdout.strip() == str(len(data)).encode(), r


@needs_docker
def test_the_bench_files_of_a_silent_host_fail_naming_it(silent_context, fast_watch):
    from lab.driver.files import BenchFiles, FilesError
    engine = Engine(str(ROOT), "jsonbench-unit-silent", False, dict(os.environ), context=silent_context)
    t0 = time.monotonic()
    with pytest.raises(FilesError, match=f"could not be made on {silent_context}: .*does not answer"):
        BenchFiles(engine, "debian", "bench-x").create()
    assert time.monotonic() - t0 < 3 * (1 + 2 + 5)
