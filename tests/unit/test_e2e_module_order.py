"""The e2e session's lab_run stack stays up for the modules that read it live (its Prometheus, the
`prometheus_url` fixture); a module whose own fixture removes the project (remove_project()) must
not run between the first lab_run user and the last live reader, or it pulls the stack from under
them (pytest runs the files in name order)."""
from pathlib import Path

E2E = Path(__file__).resolve().parents[1] / "e2e"


def test_modules_that_remove_the_project_do_not_run_before_the_live_readers_are_done():
    modules = sorted(p for p in E2E.glob("test_*.py"))
    uses = lambda p, word: f"{word}," in p.read_text() or f"{word})" in p.read_text()  # noqa: E731 (a fixture argument)
    users = [p.name for p in modules if uses(p, "lab_run")]
    # a module that reads Prometheus over its own fixture's run (the booking bench) is not a live reader
    # of lab_run's stack: only modules using both lab_run and prometheus_url are
    live = [p.name for p in modules if uses(p, "prometheus_url") and uses(p, "lab_run")]
    removers = [p.name for p in modules if "remove_project()" in p.read_text() and p.name not in users]
    assert users and live, (users, live)
    inside = [m for m in removers if users[0] < m < live[-1]]
    assert not inside, f"{inside} remove the project between {users[0]} (first lab_run user) and {live[-1]} (reads its Prometheus)"
