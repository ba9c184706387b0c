"""lab/driver/files.py against the real engine: the files the clients of another host read go into a
volume there through a box that never runs, a client container writing its result as the driver's
user finds the clients/ folder writable, and only finished results come back into the controller's
bench folder; remove() leaves neither the box nor the volume. (The same path through a simulated
host's context: tests/e2e/test_simulated_hosts.py.)"""
import os
import shutil
import subprocess

import pytest

from lab.driver.engine import Engine
from lab.driver.files import BenchFiles

IMAGE = "jsonbench-standin/debian:bookworm"
PROJECT = f"jsonbench-test-files-{os.getpid()}"

pytestmark = pytest.mark.skipif(not shutil.which("docker") or subprocess.run(
    ["docker", "image", "inspect", IMAGE], capture_output=True).returncode != 0, reason=f"needs docker and {IMAGE}")


def test_files_go_to_the_clients_host_and_results_come_back(tmp_path):
    engine = Engine(str(tmp_path), PROJECT, False, dict(os.environ))
    files = BenchFiles(engine, IMAGE, "bench-x")
    bench = tmp_path / "bench-x"
    bench.mkdir()
    (bench / "plan.json").write_text('{"plan": 1}\n')
    (tmp_path / "events.ndjson").write_text('{"e": 1}\n')
    try:
        files.create()
        files.push({"plan.json": str(bench / "plan.json"), "dataset/events.ndjson": str(tmp_path / "events.ndjson")})
        # a client: reads the plan and the dataset, writes its result (and a half-written temp file)
        # as the driver's user, as `compose run --user` does
        r = subprocess.run(["docker", "run", "--rm", "--network", "none", "--user", f"{os.getuid()}:{os.getgid()}",
                            "-v", f"{files.volume}:/bench", IMAGE, "sh", "-c",
                            "cat /bench/plan.json /bench/dataset/events.ndjson && echo '{\"ok\": 1}' > "
                            "/bench/clients/p-client-1.json && echo half > /bench/clients/p-client-2.json.tmp-9"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert r.stdout == '{"plan": 1}\n{"e": 1}\n'
        # the box never ran: no process of the lab on the clients' host for a copy
        state = subprocess.run(["docker", "inspect", "-f", "{{.State.Status}}", files.box], capture_output=True,
                               text=True).stdout.strip()
        assert state == "created"
        assert files.pull_clients(str(bench)) == ["p-client-1.json"]
        assert sorted(os.listdir(bench / "clients")) == ["p-client-1.json"]
        assert (bench / "clients" / "p-client-1.json").read_text() == '{"ok": 1}\n'
    finally:
        files.remove()
    gone = subprocess.run(["docker", "ps", "-aq", "--filter", f"name={files.box}"], capture_output=True, text=True)
    assert gone.stdout.strip() == ""
    assert subprocess.run(["docker", "volume", "inspect", files.volume], capture_output=True).returncode != 0
