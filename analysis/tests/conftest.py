import os
import shutil
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if REPO_ROOT not in sys.path:
    sys.path.insert(0, REPO_ROOT)
sys.path.insert(0, os.path.join(REPO_ROOT, "tests"))
from ci_skips import pytest_runtest_makereport  # noqa: E402,F401  (under CI=true an unexpected skip fails)
from checkout_guard import pytest_sessionfinish, pytest_sessionstart  # noqa: E402,F401  (tests write nothing into the checkout)

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


@pytest.fixture
def fixture_benches(tmp_path):
    """Copies of every fixture bench folder (tests write into them)."""
    out = {}
    for name in sorted(os.listdir(FIXTURES)):
        src = os.path.join(FIXTURES, name)
        if os.path.isdir(src) and os.path.exists(os.path.join(src, "bench.env")):
            dst = tmp_path / name
            shutil.copytree(src, dst)
            out[name] = str(dst)
    return out

