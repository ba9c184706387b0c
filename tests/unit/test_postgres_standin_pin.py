"""The PostgreSQL stand-in is the minor version it was tested with, and says so: its Dockerfile's
ARG POSTGRES_VERSION is the version its label names (database.json standin.label, which compose's
label and build.sh's repeat), the built image's server reports that version, and a build asked for
another minor (as when Debian's mirror moves on) is refused with a message saying what to pin."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lab_images import STANDIN, present

LAB_ROOT = Path(__file__).resolve().parents[2]
FOLDER = LAB_ROOT / "databases/postgres"


def pinned():
    m = re.search(r"^ARG POSTGRES_VERSION=(\d+\.\d+)$", (FOLDER / "standin/Dockerfile").read_text(), re.M)
    assert m, "databases/postgres/standin/Dockerfile has no ARG POSTGRES_VERSION=<major>.<minor>"
    return m.group(1)


def test_the_label_names_the_pinned_version_and_the_official_image_it_stands_in_for():
    label = json.loads((FOLDER / "database.json").read_text())["standin"]["label"]
    official = re.search(r"^ {4}image: *(\S+)$", (FOLDER / "compose.yaml").read_text(), re.M).group(1)
    assert label.startswith(f"PostgreSQL {pinned()} ("), label
    assert label.endswith(f"standing in for {official}"), label
    assert f'jsonbench.stand_in: "{label}"' in (FOLDER / "compose.standins.yaml").read_text()


def image_or_skip():
    if shutil.which("docker") is None:
        pytest.skip("needs the docker CLI")
    if not present(STANDIN):
        pytest.skip(f"{STANDIN} is not built (lab/standins/build.sh postgres; lab/test.sh builds it first)")
    return STANDIN


def test_the_image_runs_the_pinned_version():
    image = image_or_skip()
    out = subprocess.run(["docker", "run", "--rm", "--network", "none", "--entrypoint", "postgres", image, "--version"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert re.match(rf"postgres \(PostgreSQL\) {re.escape(pinned())} \(Debian {re.escape(pinned())}-", out.stdout), out.stdout


def test_a_build_of_another_minor_is_refused_naming_what_to_pin():
    """The same Dockerfile with POSTGRES_VERSION set to a minor the mirror does not give. The install
    layer does not depend on the ARG, so on the engine that built the image it comes from the build
    cache and only the check runs (elsewhere the build installs from the mirror first)."""
    image_or_skip()
    base = re.search(r"^ARG BASE=(\S+)$", (FOLDER / "standin/Dockerfile").read_text(), re.M).group(1)
    if not present(base):
        pytest.skip(f"the base {base} is not there (lab/standins/build.sh postgres makes it)")
    major, minor = pinned().split(".")
    other = f"{major}.{int(minor) + 1}"  # the next minor: what the mirror would give once it moves on
    r = subprocess.run(["docker", "build", "--network", "host", "--force-rm", "--build-arg", f"POSTGRES_VERSION={other}",
                        str(FOLDER / "standin")], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, DOCKER_BUILDKIT="0"))
    assert r.returncode != 0, r.stdout[-2000:]
    said = r.stdout + r.stderr
    assert re.search(rf"postgresql-17 {re.escape(pinned())}-\S+ is not {re.escape(other)}, the version this stand-in was tested with", said), said[-2000:]
    assert "ARG POSTGRES_VERSION in databases/postgres/standin/Dockerfile" in said
    assert "standin.label" in said
