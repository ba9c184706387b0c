"""python3 -m lab.driver (lab/driver/__main__.py): `validate` as runme.sh calls it (from the caller's
folder, exit 2 and `runme.sh: ...` on stderr), and `run`'s decisions after the stack is up, with a
stand-in Lab: the check before the long part, the exit codes runme.sh gives (0, 1 a failed phase or
check or branch, 2 bad input, 130 interrupted), the branch's folders, and the signal handlers."""
import os
import signal
import time
import subprocess
import sys
from pathlib import Path

from driver_standin import SMALL, StandInLab, Summaries, bench
from lab.driver import __main__ as driver
from lab.driver.engine import Engine
from lab.driver.lab import Lab

ROOT = Path(__file__).resolve().parents[2]


def driver_cli(command, *words, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("JSONBENCH_STANDINS", None)
    return subprocess.run([sys.executable, "-m", "lab.driver", command, *words], cwd=cwd, env=env,
                          capture_output=True, text=True)


def validate(*words, cwd):
    return driver_cli("validate", *words, cwd=cwd)


def test_validate_reads_bench_folders_from_the_callers_folder_and_writes_a_plain_runs_plan(tmp_path):
    bench(tmp_path, "bench-v", SMALL)
    r = validate("--set", "DOCS=20", "bench-v", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "bench-v" / "plan.json").exists()
    # a check or a sweep writes nothing into the bench folder
    (tmp_path / "bench-v" / "plan.json").unlink()
    assert validate("check", "bench-v", cwd=tmp_path).returncode == 0
    assert validate("--sweep", "DOCS=10,20", "bench-v", cwd=tmp_path).returncode == 0
    assert sorted(os.listdir(tmp_path / "bench-v")) == ["bench.env"]


def test_validate_refuses_with_runmes_words_and_exit_2(tmp_path):
    bench(tmp_path, "bench-v", SMALL)
    for words, message in [
        (["--frobnicate"], "runme.sh: unknown option '--frobnicate' (see ./runme.sh help)"),
        (["--set"], "runme.sh: --set needs KEY=VALUE"),
        (["--sweep", "DOCS=1,2"], "runme.sh: --sweep needs the benches to sweep named (e.g. ./runme.sh --sweep DOCS=1,2 bench1)"),
        (["nosuch"], "runme.sh: bench folder 'nosuch' does not exist (benches here: bench1 bench2 bench3 bench4 )"),
        (["--set", "DESCRIPTION=it's", "bench-v"], "runme.sh: --set 'DESCRIPTION=it's': expected KEY=VALUE"),
        (["--set", "RATE=0", "bench-v"], "runme.sh: the --set overrides are invalid for bench-v"),
    ]:
        r = validate(*words, cwd=tmp_path)
        assert r.returncode == 2 and message in r.stderr, (words, r.stderr)
    assert sorted(os.listdir(tmp_path / "bench-v")) == ["bench.env"]
    (tmp_path / "empty").mkdir()
    r = validate("empty", cwd=tmp_path)
    assert r.returncode == 2 and "runme.sh: 'empty' has no bench.env (see README.md, 'Writing a bench')" in r.stderr


def test_folders_names_report_s_folders_from_the_callers_folder_or_every_bench_of_the_checkout(tmp_path):
    bench(tmp_path, "bench-v", SMALL)
    (tmp_path / "bench-v" / "sweep-DOCS" / "10").mkdir(parents=True)
    r = driver_cli("folders", "bench-v", "bench-v/sweep-DOCS", "bench2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [str(tmp_path / "bench-v"), str(tmp_path / "bench-v" / "sweep-DOCS"), str(ROOT / "bench2")]
    # none named: every bench* folder of the checkout with a bench.env, in version order
    assert driver_cli("folders", cwd=tmp_path).stdout.split() == [str(ROOT / f"bench{i}") for i in (1, 2, 3, 4)]
    for words, message in [(["nosuch"], "runme.sh: bench folder 'nosuch' does not exist (benches here: bench1 bench2 bench3 bench4 )"),
                           (["bench-v/sweep-DOCS/10"], "runme.sh: 'bench-v/sweep-DOCS/10' has no bench.env")]:
        r = driver_cli("folders", *words, cwd=tmp_path)
        assert r.returncode == 2 and message in r.stderr and not r.stdout, (words, r.stderr)


class Branches:
    def __init__(self, ok=True):
        self.calls, self.ok = [], ok

    def __call__(self, root, folders, push, allow_incomplete):
        self.calls.append((folders, push, allow_incomplete))
        return self.ok


def run(tmp_path, words, lab=None, verdict=lambda d, p: True, branch=None):
    lab = lab or StandInLab()
    branch = branch or Branches()
    rc = driver.run(words, lab, summaries=Summaries(lab), verdict=verdict, branch=branch)
    return rc, lab, branch


def test_a_run_checks_runs_and_branches(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    a, b = bench(tmp_path, "bench-a", SMALL), bench(tmp_path, "bench-b", SMALL)
    rc, lab, branch = run(tmp_path, ["--push", "origin", "--set", "DOCS=20", a, b])
    assert rc == 0
    assert [os.path.basename(x) for x in lab.ran] == ["bench-a-check", "bench-b-check", "bench-a", "bench-b"]
    assert lab.given[a]["DOCS"] == "20" and lab.containers_removed == 1
    assert branch.calls == [([a, b], "origin", False)]
    assert [m for _, m in lab.said][-2:] == ["monitoring left running for Grafana/Prometheus; ./runme.sh down removes it",
                                             "committing the run to a new branch"]


def test_a_failed_phase_still_branches_incomplete_and_exits_1(tmp_path):
    a = bench(tmp_path, "bench-a", SMALL)
    lab = StandInLab()
    lab.run_bench = lambda d, p=None, f=lab.run_bench: (f(d, p), setattr(lab, "run_failed", True))[0]
    rc, lab, branch = run(tmp_path, ["--no-check", a], lab=lab)
    assert rc == 1 and branch.calls == [([a], "", True)]
    assert lab.said[-1] == (None, "some phases failed: see results.json 'incomplete' in each bench")


def test_no_branch_and_a_branch_that_fails(tmp_path):
    a = bench(tmp_path, "bench-a", SMALL)
    rc, _, branch = run(tmp_path, ["--no-check", "--no-branch", a])
    assert rc == 0 and branch.calls == []
    rc, lab, _ = run(tmp_path, ["--no-check", a], branch=Branches(ok=False))
    assert rc == 1 and lab.said[-1] == (None, "the run's branch could not be created")


def test_a_failed_check_stops_before_the_long_part(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    a = bench(tmp_path, "bench-a", SMALL)
    rc, lab, branch = run(tmp_path, ["--set", "DOCS=20", a], verdict=lambda d, p: False)
    assert rc == 1 and [os.path.basename(x) for x in lab.ran] == ["bench-a-check"] and branch.calls == []
    assert [m for _, m in lab.said][-2:] == [
        "the run stops before the long part: a figure would be missing without a reason (table above).",
        f"to run anyway: ./runme.sh --no-check --set DOCS=20 {a}"]
    # ./runme.sh check: the check's verdict is the exit code, nothing else runs
    assert run(tmp_path, ["check", a], verdict=lambda d, p: False)[0] == 1
    rc, lab, _ = run(tmp_path, ["check", a])
    assert rc == 0 and len(lab.ran) == 1 and lab.containers_removed == 0


def test_a_sweep_is_checked_at_its_first_point_and_branched_as_its_sweep_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    a = bench(tmp_path, "bench-a", SMALL)
    rc, lab, branch = run(tmp_path, ["--sweep", "FIELDS=3,4", a])
    assert rc == 0 and lab.given[lab.ran[0]]["FIELDS"] == "3"
    assert lab.ran[1:] == [f"{a}/sweep-FIELDS/FIELDS=3", f"{a}/sweep-FIELDS/FIELDS=4", ("sweep", f"{a}/sweep-FIELDS")]
    assert branch.calls == [([f"{a}/sweep-FIELDS"], "", False)]


def test_an_interrupt_keeps_what_was_gathered_and_makes_no_branch(tmp_path):
    a, b = bench(tmp_path, "bench-a", SMALL), bench(tmp_path, "bench-b", SMALL)
    rc, lab, branch = run(tmp_path, ["--no-check", a, b], lab=StandInLab(interrupt_after=1))
    assert rc == 130 and lab.ran == [a] and branch.calls == [] and lab.containers_removed == 1
    assert lab.said[-1] == (None, f"interrupted: partial results kept in {a} {b} (marked interrupted); no branch created")


def test_an_error_exits_1_after_writing_the_pending_summaries(tmp_path):
    a = bench(tmp_path, "bench-a", SMALL + "REPEAT=3\n")
    rc, lab, branch = run(tmp_path, ["--no-check", a], lab=StandInLab(fail_at=2))
    assert rc == 1 and branch.calls == []
    assert lab.ran == [f"{a}/repeat-1", f"{a}/repeat-2", ("repeat", a)]


class CountingEngine(Engine):
    """The real Engine, its `docker stop` counted instead of run (no Docker asked for)."""
    stopped = None

    def stop(self, containers, timeout_s=30):
        self.stopped = (self.stopped or []) + [list(containers)]


def test_one_signal_interrupts_and_stops_the_clients_a_second_does_nothing_more(capsys):
    engine = CountingEngine("/nonexistent", "p", False, {})
    lab = Lab("/nonexistent", engine, None, {})
    lab.phase_clients = ["c1", "c2"]
    old = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        driver.install_signals(lab)
        os.kill(os.getpid(), signal.SIGINT)
        assert lab.interrupted and engine.stopped == [["c1", "c2"]]
        started = time.monotonic()
        lab.nap(30)  # a nap after the signal ends at once
        assert time.monotonic() - started < 1
        os.kill(os.getpid(), signal.SIGTERM)
        assert engine.stopped == [["c1", "c2"]]
        assert capsys.readouterr().out.count("interrupted: stopping the clients, keeping what was gathered") == 1
    finally:
        signal.signal(signal.SIGINT, old[0])
        signal.signal(signal.SIGTERM, old[1])
