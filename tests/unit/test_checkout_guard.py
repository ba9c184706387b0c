"""tests/checkout_guard.py sees what a test writes into a checkout, ignored files included (a run's
report.md at the root is git-ignored), and not what was there before, the caches or .env. On a
git repository of its own in tmp_path; the guard itself watches the real checkout in every session."""
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from checkout_guard import checkout_state, differences  # noqa: E402


def git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def checkout(root):
    root.mkdir()
    (root / "README.md").write_text("x\n")
    (root / ".gitignore").write_text("/report.md\n")
    git(root, "init", "-q")
    git(root, "add", ".gitignore", "README.md")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    return root


def test_a_session_that_writes_into_the_checkout_fails(tmp_path):
    """A pytest session with the guard's hooks, as every suite's conftest.py has them, watching a
    checkout of its own: passing tests that write report.md there make the session fail, naming it."""
    root = checkout(tmp_path / "checkout")
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\nimport checkout_guard\n"
        f"checkout_guard.LAB_ROOT = {str(root)!r}\n"
        "from checkout_guard import pytest_sessionfinish, pytest_sessionstart  # noqa: F401\n")
    (suite / "test_writes.py").write_text(
        f"from pathlib import Path\n\ndef test_clean(tmp_path):\n    (tmp_path / 'report.md').write_text('x')\n\n"
        f"def test_dirty():\n    Path({str(root)!r}, 'report.md').write_text('x')\n")
    run = lambda *k: subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *k, str(suite)],  # noqa: E731
                                    cwd=suite, capture_output=True, text=True, timeout=120)
    r = run("-k", "clean")
    assert r.returncode == 0, r.stdout
    r = run()
    assert r.returncode == 1 and "2 passed" in r.stdout, r.stdout
    assert "the tests changed the checkout" in r.stdout and "appeared: !! report.md" in r.stdout, r.stdout


def test_guard_sees_a_new_ignored_file_and_not_what_was_there(tmp_path):
    root = tmp_path / "checkout"
    (root / "client" / "node_modules").mkdir(parents=True)
    (root / "client" / "node_modules" / "x.js").write_text("x\n")
    (root / ".gitignore").write_text("/report.md\nnode_modules\n.venv\n__pycache__/\n.env\n")
    (root / "README.md").write_text("x\n")
    (root / "analysis").mkdir()
    (root / "analysis" / "a.py").write_text("x = 1\n")
    git(root, "init", "-q")
    git(root, "add", ".gitignore", "README.md", "analysis/a.py")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    (root / ".venv").mkdir()
    (root / ".venv" / "pyvenv.cfg").write_text("x\n")
    (root / "notes.txt").write_text("a developer's own file\n")
    before = checkout_state(root)
    assert {"!! .venv/", "!! client/", "?? notes.txt"} <= before
    assert differences(before, checkout_state(root)) == []

    # caches and .env are not the tests' writing; more files in a pre-existing ignored folder are
    # not seen (git lists the folder), a new file anywhere else is
    (root / "analysis" / "__pycache__").mkdir()
    (root / "analysis" / "__pycache__" / "a.pyc").write_bytes(b"x")
    (root / ".env").write_text("K=v\n")
    assert differences(before, checkout_state(root)) == []
    (root / "report.md").write_text("# Results across benches\n")
    (root / "README.md").write_text("changed\n")
    assert differences(before, checkout_state(root)) == ["appeared:  M README.md", "appeared: !! report.md"]


def test_outside_a_git_checkout_the_guard_stands_aside(tmp_path):
    assert checkout_state(tmp_path) is None
