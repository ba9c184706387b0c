import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ci_skips import pytest_runtest_makereport  # noqa: E402,F401  (under CI=true an unexpected skip fails)
from checkout_guard import pytest_sessionfinish, pytest_sessionstart  # noqa: E402,F401  (tests write nothing into the checkout)
