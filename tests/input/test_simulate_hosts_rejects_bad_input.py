"""./runme.sh simulate-hosts N refuses a bad N before anything starts: exit code 2 and a message naming
the argument and the allowed values. "Before anything starts" is checked by the tools a simulated
host is made with: each is found first on PATH as a stand-in that only writes down that it was
called, and none may be (a comparison of the machine's namespaces and contexts before and after
would race with the end-to-end test of simulated hosts, which lab/test.sh may run at the same time)."""
import os
import subprocess
from pathlib import Path

import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]
ALLOWED = "allowed: an integer from 0 to 8"
TOOLS = ("ip", "nsenter", "dockerd", "docker", "iptables", "setsid", "mount", "umount", "rm", "mkdir")


@pytest.mark.parametrize("args,named", [
    (["-1"], "N '-1'"), (["abc"], "N 'abc'"), (["99"], "N '99'"), (["9"], "N '9'"), (["08"], "N '08'"),
    ([""], "N ''"), ([], "takes one argument N, got 0"), (["1", "2"], "takes one argument N, got 2"),
])
def test_bad_n_is_refused_naming_the_argument_and_the_allowed_values(tmp_path, args, named):
    called = tmp_path / "called"
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in TOOLS:
        (tools / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >>"{called}"\nexit 1\n')
        (tools / tool).chmod(0o755)
    env = dict(os.environ, PATH=f"{tools}:{os.environ['PATH']}")
    r = subprocess.run([str(LAB_ROOT / "runme.sh"), "simulate-hosts", *args], cwd=LAB_ROOT, env=env,
                       capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert named in r.stderr and ALLOWED in r.stderr, r.stderr
    assert r.stdout == ""
    assert not called.exists(), called.read_text()
