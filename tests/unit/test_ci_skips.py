"""tests/ci_skips.py: under CI=true a skip not listed there fails the run; a listed one (by test and
reason) stays a skip; outside CI nothing changes. Proved on a pytest run of its own."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(LAB_ROOT / "tests"))
import ci_skips  # noqa: E402

SUITE = '''
import pytest

def test_unlisted():
    pytest.skip("the image is not built")

@pytest.mark.skipif(True, reason="no cgroup v1 here")
def test_unlisted_mark():
    pass

def test_listed():
    pytest.skip("fine on a CI host: because")

def test_listed_other_reason():
    pytest.skip("something else")

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False
'''
CONFTEST = f'''
import sys
sys.path.insert(0, {str(LAB_ROOT / "tests")!r})
import ci_skips
from ci_skips import pytest_runtest_makereport
ci_skips.ALLOWED = {{
    "test_suite.py::test_listed": ("fine on a CI host", "why"),
    "test_suite.py::test_listed_other_reason": ("fine on a CI host", "why"),
}}
'''


def run_suite(tmp_path, ci):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_suite.py").write_text(SUITE)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_under_ci_an_unlisted_skip_fails_and_a_listed_one_stays_a_skip(tmp_path):
    r = run_suite(tmp_path, "true")
    assert r.returncode == 1, r.stdout
    summary = r.stdout
    assert "2 failed, 1 skipped, 1 xfailed, 1 error" in summary, summary
    assert "FAILED test_suite.py::test_unlisted " in summary, summary
    assert "FAILED test_suite.py::test_listed_other_reason " in summary, summary
    # a skipif mark skips in setup: it becomes an error of that test
    assert "ERROR test_suite.py::test_unlisted_mark " in summary, summary
    assert "SKIPPED [1] test_suite.py" in summary and "fine on a CI host: because" in summary, summary
    assert "XFAIL test_suite.py::test_xfail" in summary, summary
    assert "skipped under CI=true, which only the skips listed in tests/ci_skips.py may: " \
           "the image is not built" in summary, summary


@pytest.mark.parametrize("ci", [None, "false"])
def test_outside_ci_a_skip_stays_a_skip(tmp_path, ci):
    r = run_suite(tmp_path, ci)
    assert r.returncode == 0, r.stdout
    assert "4 skipped, 1 xfailed" in r.stdout, r.stdout


def test_every_allowed_skip_names_a_test_that_exists():
    """A rule for a renamed test would silently allow nothing; a rule must name a real function."""
    for nodeid in ci_skips.ALLOWED:
        path, name = nodeid.split("::")
        tree = ast.parse((LAB_ROOT / path).read_text())
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert name in names, nodeid
