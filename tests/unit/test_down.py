"""`./runme.sh down` on the other Docker contexts (lab/driver/down.py, issue 27): everything labelled
with the project on a context is removed, nothing else; a context whose engine is silent is named, not
waited for without end. On the real engine, reached through a context of this test's own."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab.driver import down  # noqa: E402
from lab_images import postgres_image, present  # noqa: E402

SMALL_IMAGE = "jsonbench-standin/debian:bookworm"
PROJECT = f"jsonbench-unit-down-{os.getpid()}"
OTHER = f"jsonbench-unit-down-other-{os.getpid()}"


def docker(*args, context=None):
    return subprocess.run(["docker", *(["--context", context] if context else []), *args], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)


@pytest.fixture
def context():
    """A context of its own on the engine the tests use (its socket), removed afterwards."""
    name = f"jsonbench-unit-down-{os.getpid()}"
    host = docker("context", "inspect", "default", "-f", "{{.Endpoints.docker.Host}}").stdout.strip()
    assert docker("context", "create", name, "--docker", f"host={host}").returncode == 0
    try:
        yield name
    finally:
        docker("context", "rm", "-f", name)


def labelled(project):
    return ["--label", f"com.docker.compose.project={project}"]


def test_down_removes_the_project_s_containers_volumes_and_networks_on_a_context_and_nothing_else(context):
    image = SMALL_IMAGE if present(SMALL_IMAGE) else postgres_image()
    assert image, "no small image on the engine"
    made = {}
    try:
        for project in (PROJECT, OTHER):
            net = docker("network", "create", *labelled(project), f"{project}-net", context=context).stdout.strip()
            vol = docker("volume", "create", *labelled(project), f"{project}-vol", context=context).stdout.strip()
            cid = docker("run", "-d", *labelled(project), "--network", f"{project}-net", "-v", f"{vol}:/data",
                         "--entrypoint", "sleep", image, "300", context=context).stdout.strip()
            assert net and vol and cid, project
            made[project] = (cid, vol, net)
        done = down.clean(context, PROJECT)
        assert done["error"] is None, done
        cid, vol, net = made[PROJECT]
        assert [c[:12] for c in done["containers"]] == [cid[:12]] and done["volumes"] == [vol], done
        assert len(done["networks"]) == 1, done
        # gone from the engine; the other project's are all there
        assert docker("inspect", cid).returncode != 0
        assert docker("volume", "inspect", vol).returncode != 0 and docker("network", "inspect", net).returncode != 0
        ocid, ovol, onet = made[OTHER]
        assert docker("inspect", ocid).returncode == 0 and docker("volume", "inspect", ovol).returncode == 0
        assert docker("network", "inspect", onet).returncode == 0
        # and this test's context is one of the contexts `down` cleans (not the current one)
        assert context in down.other_contexts() and "default" not in down.other_contexts()
    finally:
        for cid, vol, net in made.values():
            docker("rm", "-f", cid)
            docker("volume", "rm", "-f", vol)
            docker("network", "rm", net)


def test_a_silent_engine_is_named_within_the_timeout_not_waited_for():
    name = f"jsonbench-unit-down-silent-{os.getpid()}"
    assert docker("context", "create", name, "--docker", f"host=unix:///nonexistent/{name}.sock").returncode == 0
    try:
        t0 = time.monotonic()
        done = down.clean(name, PROJECT, timeout=5)
        assert time.monotonic() - t0 < 30
        assert done["error"] and name in done["error"], done
        assert done["containers"] == done["volumes"] == done["networks"] == []
    finally:
        docker("context", "rm", "-f", name)


def test_no_project_name_is_refused_not_read_as_every_project():
    with pytest.raises(ValueError, match="no project name"):
        down.clean("default", "")
    assert down.main([""]) == 2
