from analysis.tests.helpers import hardware_bench, stand_in_bench
import json
import os
import shutil
import subprocess

import pytest

from analysis.figures import results
from analysis.experiments import compare
from analysis.common.errors import AnalysisError


def scaled_copy(src, dst, factor):
    shutil.copytree(src, dst)
    path = os.path.join(dst, "results.json")
    r = json.load(open(path))
    for run in r["runs"]:
        if run["database"] == "postgres" and run["per_doc"]["cpu_us"] is not None:
            run["per_doc"]["cpu_us"] *= factor
    json.dump(r, open(path, "w"))
    return dst


def test_compare_folders_change_and_noise(fixture_benches, tmp_path):
    b = fixture_benches[hardware_bench(fixture_benches)]
    results.write(b)
    other = scaled_copy(b, str(tmp_path / "x" / "bench2"), 1.10)
    rows, unmatched = compare.compare(compare.load(b), compare.load(other))
    cpu = next(r for r in rows if r["database"] == "postgres" and r["figure"] == "cpu_us")
    assert cpu["change_pct"] == pytest.approx(10.0)
    assert cpu["beyond_noise"] is True
    storage = next(r for r in rows if r["database"] == "postgres" and r["figure"] == "storage_bytes")
    assert storage["change_pct"] == 0 and storage["beyond_noise"] is False
    rows, _ = compare.compare(compare.load(b), compare.load(other), noise_pct=15)
    assert next(r for r in rows if r["figure"] == "cpu_us" and r["database"] == "postgres")["beyond_noise"] is False
    text = compare.run(b, os.path.dirname(other))
    assert "+10.0%" in text and "**yes**" in text


def test_noise_from_repeated_runs_raises_the_threshold(fixture_benches, tmp_path):
    b = fixture_benches[hardware_bench(fixture_benches)]
    results.write(b)
    side = str(tmp_path / "side")
    shutil.copytree(b, os.path.join(side, "bench2"))
    rep = scaled_copy(b, os.path.join(side, "bench2b"), 1.2)  # a repeat of the same config, 20% apart
    r = json.load(open(os.path.join(rep, "results.json")))
    r["bench"] = "bench2b"
    json.dump(r, open(os.path.join(rep, "results.json"), "w"))
    spreads = compare.noise_from_repeats(compare.load(side))
    assert max(v for (k, db, f), v in spreads.items() if db == "postgres" and f == "cpu_us") == pytest.approx(100 * 0.2 / 1.1)


def test_compare_git_refs(fixture_benches, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    run = lambda *a: subprocess.run(["git", *a], cwd=repo, env=env, check=True, capture_output=True)
    run("init", "-q", "-b", "main")
    results.write(fixture_benches[hardware_bench(fixture_benches)])
    shutil.copytree(fixture_benches[hardware_bench(fixture_benches)], repo / "bench2")
    run("add", ".")
    run("commit", "-qm", "one")
    scaled = json.load(open(repo / "bench2" / "results.json"))
    scaled["runs"][1]["per_doc"]["cpu_us"] *= 0.5
    json.dump(scaled, open(repo / "bench2" / "results.json", "w"))
    run("checkout", "-qb", "two")
    run("commit", "-qam", "two")
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        text = compare.run("main:bench2", "two")
        assert "-50.0%" in text
        with pytest.raises(AnalysisError, match="neither a folder nor a git revision"):
            compare.load("no-such-ref")
    finally:
        os.chdir(cwd)
