"""Tests write nothing into the checkout: a pytest session fails when the checkout's `git status`
(untracked and ignored files included) differs at its end from its start. A run's report.md left in
the checkout's root by the end-to-end tests went unseen this way, being git-ignored. Loaded by the
conftest.py of every pytest suite that lab/test.sh runs (tests/, analysis/tests, grafana/tests), as
tests/ci_skips.py is; what existed before the session (.venv, client/node_modules, a developer's own
files) is compared, not judged."""
import os
import subprocess

import pytest

LAB_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Written into the checkout on purpose, with the reason.
ALLOWED = {
    ".env": "the lab's configuration with generated passwords: the first runme.sh (or lab/test.sh, before "
            "the suites) creates it, once, by design",
}
# Python's and pytest's own caches, written by the interpreter that runs the tests.
CACHES = ("__pycache__/", ".pytest_cache/")

_STATE = {}


def checkout_state(root=None):
    """The set of `git status --porcelain --ignored` entries (untracked and ignored files, modified
    tracked ones), without the caches; None outside a git checkout."""
    r = subprocess.run(["git", "-C", str(root or LAB_ROOT), "status", "--porcelain=v1", "-z", "--ignored", "--untracked-files=normal"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    entries = {e for e in r.stdout.split("\0") if e}
    return {e for e in entries if not any(c in e for c in CACHES) and e[3:] not in ALLOWED}


def differences(before, after):
    return sorted([f"appeared: {e}" for e in after - before] + [f"gone or changed: {e}" for e in before - after])


def pytest_sessionstart(session):
    # every suite's conftest imports this hook: the first call records, the others see it recorded
    _STATE.setdefault("before", checkout_state())


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    before = _STATE.get("before")
    if before is None or _STATE.get("checked"):
        return
    _STATE["checked"] = True
    changed = differences(before, checkout_state() or set())
    if not changed:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    text = ("the tests changed the checkout (tests write nothing into it: use tmp_path, or the folder a "
            "command is told to write into; tests/checkout_guard.py):\n  " + "\n  ".join(changed))
    if reporter:
        reporter.write_line(text, red=True)
    else:
        print(text)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
