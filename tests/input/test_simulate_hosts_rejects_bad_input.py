"""./runme.sh simulate-hosts N refuses a bad N before anything starts: exit code 2, a message naming
the argument and the allowed values, and no simulated host (namespace, context, engine folder) made."""
import glob
import subprocess
from pathlib import Path

import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]
ALLOWED = "allowed: an integer from 0 to 8"


def traces():
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    contexts = subprocess.run(["docker", "context", "ls", "--format", "{{.Name}}"], capture_output=True, text=True).stdout
    return ([n for n in namespaces.split() if n.startswith("jsonbench-sim")],
            [c for c in contexts.split() if c.startswith("jsonbench-sim")],
            glob.glob("/run/jsonbench-sim-*"))


@pytest.mark.parametrize("args,named", [
    (["-1"], "N '-1'"), (["abc"], "N 'abc'"), (["99"], "N '99'"), (["9"], "N '9'"), (["08"], "N '08'"),
    ([""], "N ''"), ([], "takes one argument N, got 0"), (["1", "2"], "takes one argument N, got 2"),
])
def test_bad_n_is_refused_naming_the_argument_and_the_allowed_values(args, named):
    before = traces()
    r = subprocess.run([str(LAB_ROOT / "runme.sh"), "simulate-hosts", *args], cwd=LAB_ROOT, capture_output=True,
                       text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert named in r.stderr and ALLOWED in r.stderr, r.stderr
    assert r.stdout == ""
    assert traces() == before
