"""host/setup-host.sh compose_answers: a Compose older than the lab's compose files need (include:
of each database's compose file, 2.20; compose.standins.yaml's !override, 2.24.4) does not count as
answering, and says so; ensure_compose then installs a newer one (or says how, when not root)."""
import subprocess
from pathlib import Path

import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]


def answers(tmp_path, printed):
    """compose_answers with a `docker` that prints `printed` for `docker compose version --short`."""
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "docker").write_text(f'#!/bin/sh\n[ "$1 $2 $3" = "compose version --short" ] && echo "{printed}" && exit 0\nexit 1\n')
    (fake / "docker").chmod(0o755)
    return subprocess.run(["bash", "-c", f'. "{LAB_ROOT}/host/setup-host.sh"; compose_answers'],
                          env={"PATH": f"{fake}:/usr/bin:/bin"}, capture_output=True, text=True)


@pytest.mark.parametrize("printed", ["2.29.7", "v2.24.4", "2.30.0-desktop.1", "5.0.0"])
def test_a_compose_as_new_as_the_files_need_answers(tmp_path, printed):
    r = answers(tmp_path, printed)
    assert r.returncode == 0 and r.stderr == ""


@pytest.mark.parametrize("printed", ["2.24.3", "v2.20.2", "2.19.1", "1.29.2"])
def test_an_older_compose_does_not_answer_and_is_named(tmp_path, printed):
    r = answers(tmp_path, printed)
    assert r.returncode == 1
    assert f"docker compose {printed.lstrip('v')} is older than 2.24.4" in r.stderr
