"""A bench run that had to start the Docker engine itself leaves it running at the end, so that
Prometheus and Grafana stay up to be read (README: the monitoring stays up after a run), and prints
how to stop it; that command stops it. runme.sh's own exit handler (`cleanup`) is run on a process
of this test standing in for the dockerd it started (`sleep`), never on the shared engine; lab/test.sh
(`./runme.sh test`) still stops the engine it started, with the same stop_started_dockerd."""
import re
import subprocess
import threading
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parents[2]


def alive(proc):
    return proc.returncode is None


def test_a_bench_run_leaves_the_engine_it_started_running_and_says_how_to_stop_it(tmp_path):
    engine = subprocess.Popen(["sleep", "300"])  # stands in for the dockerd ensure_docker started
    # reaped the moment it ends, as the engine's parent would: stop_started_dockerd waits for the pid to go
    threading.Thread(target=engine.wait, daemon=True).start()
    try:
        script = ('. "$1/runme.sh"; JSONBENCH_CACHE=$2; JSONBENCH_DOCKERD_PID=$3; STACK_UP=0; INTERRUPTED=0; '
                  'true; cleanup')
        r = subprocess.run(["bash", "-c", script, "runme", str(LAB_ROOT), str(tmp_path), str(engine.pid)],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        out = r.stdout + r.stderr
        assert r.returncode == 0, out
        assert alive(engine), "runme.sh stopped the engine it had started: " + out
        assert "Prometheus and Grafana" in out, out
        stop = re.search(r"to stop it: (.*)$", out, re.MULTILINE)
        assert stop and f"stop_started_dockerd {engine.pid}" in stop.group(1), out
        # the printed command is the one that stops it (lab/test.sh's trap runs the same function)
        cmd = stop.group(1).split(" && ")[-1]
        assert cmd.startswith(str(LAB_ROOT / "host" / "setup-host.sh")), cmd
        s = subprocess.run(["bash", "-c", f"JSONBENCH_CACHE={tmp_path} {cmd}"], capture_output=True, text=True,
                           timeout=60)
        assert s.returncode == 0, s.stderr
        engine.wait(timeout=30)
        assert not alive(engine)
    finally:
        if alive(engine):
            engine.kill()
            engine.wait()
