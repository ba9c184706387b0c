"""branch in a temporary repository: the branch holds the run; the user's checkout is untouched."""
from analysis.tests.helpers import hardware_bench, stand_in_bench
import datetime
import re
import json
import os
import shutil
import subprocess

import pytest

from analysis.figures import results
from analysis.experiments import branch
from analysis.common.errors import AnalysisError

ENV = {"GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u", "GIT_COMMITTER_EMAIL": "u@x"}


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, env={**os.environ, **ENV}, check=True,
                          capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path, fixture_benches):
    r = tmp_path / "lab"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    (r / "README.md").write_text("the lab\n")
    (r / "compose.yaml").write_text("services: {}\n")
    (r / ".gitignore").write_text("/bench*/*\n!/bench*/bench.env\n")
    os.makedirs(r / "bench1")
    shutil.copy(os.path.join(fixture_benches[stand_in_bench(fixture_benches)], "bench.env"), r / "bench1" / "bench.env")
    git(r, "add", ".")
    git(r, "commit", "-qm", "lab")
    # a run's outputs, ignored on main, plus some uncommitted user work
    for name in os.listdir(fixture_benches[stand_in_bench(fixture_benches)]):
        src = os.path.join(fixture_benches[stand_in_bench(fixture_benches)], name)
        (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, r / "bench1" / name)
    results.write(str(r / "bench1"))
    (r / "compose.yaml").write_text("services: {changed: {}}\n")  # uncommitted edit
    (r / "notes.txt").write_text("user's file\n")
    git(r, "add", "notes.txt")  # staged by the user
    return r


def state(repo):
    return (git(repo, "rev-parse", "HEAD"), git(repo, "symbolic-ref", "HEAD"), git(repo, "status", "--porcelain", "--ignored"),
            git(repo, "ls-files", "-s"), open(repo / ".git" / "index", "rb").read())


def test_branch_commits_the_run_without_touching_the_checkout(repo, monkeypatch):
    monkeypatch.chdir(repo)
    before = state(repo)
    when = datetime.datetime(2026, 3, 4, 5, 6, tzinfo=datetime.timezone.utc)
    name = branch.run(["bench1"], ["compose.yaml"], now=when)
    desc = json.load(open(repo / "bench1" / "results.json"))["description"]
    assert name == "20260304-0506---" + branch.slugify("bench1 " + desc)
    assert re.fullmatch(r"20260304-0506---bench1-[a-z0-9-]+", name)
    assert state(repo) == before
    files = set(git(repo, "ls-tree", "-r", "--name-only", name).split())
    on_disk = {os.path.relpath(os.path.join(d, f), repo) for d, _, fs in os.walk(repo / "bench1") for f in fs}
    assert on_disk <= files
    assert {"README.md", "compose.yaml", "bench1/results.json", "bench1/bench.env"} <= files
    assert "notes.txt" not in files  # only what was asked for
    assert git(repo, "show", f"{name}:compose.yaml") == "services: {changed: {}}\n"  # the exact file used
    assert git(repo, "show", f"{name}:bench1/results.json") == open(repo / "bench1" / "results.json").read()
    readme = git(repo, "show", f"{name}:README.md")
    assert "Stand-in" in readme and "per-document cost" in readme and "bench1" in readme
    assert git(repo, "rev-parse", f"{name}^") == before[0]
    # a second run in the same minute gets its own branch
    assert branch.run(["bench1"], [], now=when) == name + "-2"


def test_incomplete_run_is_refused_unless_allowed(repo, monkeypatch):
    monkeypatch.chdir(repo)
    path = repo / "bench1" / "results.json"
    r = json.load(open(path))
    r["complete"], r["incomplete"] = False, ["postgres: status interrupted (interrupted by a signal)"]
    json.dump(r, open(path, "w"))
    before = state(repo)
    with pytest.raises(AnalysisError, match="incomplete"):
        branch.run(["bench1"], [])
    name = branch.run(["bench1"], [], allow_incomplete=True)
    assert name.endswith("---INCOMPLETE")
    assert "INCOMPLETE RUN" in git(repo, "show", f"{name}:README.md")
    assert state(repo) == before


def test_no_branch_and_push(repo, monkeypatch, tmp_path):
    monkeypatch.chdir(repo)
    branches = git(repo, "branch", "--list")
    assert branch.run(["bench1"], [], no_branch=True) == ""
    assert git(repo, "branch", "--list") == branches
    with pytest.raises(AnalysisError, match="remote"):
        branch.run(["bench1"], [], push="nowhere")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(repo, "remote", "add", "origin", str(remote))
    name = branch.run(["bench1"], [], push="origin")
    assert git(remote, "rev-parse", name) == git(repo, "rev-parse", name)
