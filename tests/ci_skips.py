"""Under CI=true a skipped test fails the run, unless its skip is listed in ALLOWED with the reason
it is allowed: a test that skips on every CI run tests nothing while the run says green (two runme.sh
tests did, for months, unseen without -rs). Loaded by the conftest.py of every pytest suite that
lab/test.sh runs (tests/, analysis/tests, grafana/tests); outside CI a skip stays a skip."""
import os

import pytest

# test (its node id without parameters) -> the start of the skip reason that is allowed in CI, and why.
ALLOWED = {
    **{f"tests/input/test_runme_standins_must_be_asked_for.py::{name}":
       ("the official images are present here",
        "a CI runner with Docker Hub has the official images: no registry probe, so none to fail")
       for name in ("test_failed_probe_stops_a_bench_with_the_error_and_the_fix",
                    "test_asked_for_standins_go_on_after_a_failed_probe")},
    "tests/e2e/test_lab_end_to_end.py::test_stand_ins_are_labelled_everywhere":
        ("the real MongoDB ran",
         "a CI runner with Docker Hub runs the official images: there is no stand-in to label"),
    "tests/unit/test_lab_standins.py::test_the_built_stand_in_runs_the_pinned_version":
        ("the stand-in images are not built",
         "a CI runner with Docker Hub runs the official images (JSONBENCH_STANDINS=0): lab/test.sh builds no stand-in"),
    "tests/unit/test_cgroup_processes.py::test_a_real_cgroup_of_this_host_lists_exactly_its_processes":
        ("no cgroup v1 pids hierarchy",
         "a cgroup v2-only host has no v1 hierarchy; the same test runs on the v2 hierarchy there"),
    "tests/unit/test_cgroup_processes.py::test_watch_sees_processes_that_live_some_milliseconds":
        ("no cgroup v1 pids hierarchy",
         "a cgroup v2-only host has no v1 hierarchy; the same test runs on the v2 hierarchy there"),
}


def in_ci():
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def skip_reason(report):
    """The reason text of a skipped report ("Skipped: " taken off)."""
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


def allowed(nodeid, reason):
    rule = ALLOWED.get(nodeid.split("[", 1)[0])
    return rule is not None and reason.startswith(rule[0])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not (report.skipped and in_ci()) or hasattr(report, "wasxfail"):
        return
    reason = skip_reason(report)
    if allowed(report.nodeid, reason):
        return
    report.outcome = "failed"
    report.longrepr = (f"skipped under CI=true, which only the skips listed in tests/ci_skips.py may: {reason}\n"
                       "Make the test run here (build or start what it needs first), or list the skip there "
                       "with the reason it is expected on a CI host.")
