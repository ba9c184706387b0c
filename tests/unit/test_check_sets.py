"""The check (lab/driver/check.py) checks every bench with the run's --set overrides, the second and
later benches too, sized by the client's `plan --check-size` at the overridden rate. The real
check_benches, check_bench, write_run_plan and `plan --check-size`; only what needs the Docker stack
(run_bench, analysis's check, removing the databases) is a stand-in that keeps the keys each check ran
with (its plan.json settings.given)."""
import os
from pathlib import Path

import pytest

from driver_standin import SMALL, StandInLab, bench
from lab.driver import check

LAB_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tmpdir_env(tmp_path, monkeypatch):
    d = tmp_path / "tmp"
    d.mkdir()
    monkeypatch.setenv("TMPDIR", str(d))
    monkeypatch.delenv("CHECK_SECONDS", raising=False)
    return d


def test_every_bench_is_checked_with_the_set_overrides(tmp_path, tmpdir_env):
    benches = [bench(tmp_path, name, SMALL) for name in ("bench-a", "bench-b", "bench-c")]
    lab = StandInLab()
    verdicts = []
    rc = check.check_benches(lab, benches, ["RATE=7", "FIELD_BYTES=50"], verdict=lambda d, p: verdicts.append(d) or True)
    assert rc == 0
    assert [os.path.basename(d) for d in lab.ran] == ["bench-a-check", "bench-b-check", "bench-c-check"]
    for d in lab.ran:
        given = lab.given[d]
        assert given["RATE"] == "7" and given["FIELD_BYTES"] == "50", given
        # the check's own size at the overridden rate: 7 docs/s x 20 s; quiet 3 s, 5 s of perf record
        assert (given["DOCS"], given["QUIET_S"], given["PERF_RECORD_S"]) == ("140", "3", "5"), given
    assert verdicts == lab.ran and lab.removed == 3
    assert list(tmpdir_env.iterdir()) == []  # every temporary copy removed
    assert lab.said[-1] == (None, "check passed: every figure will be measured, or the table says why not")
    assert all(sorted(os.listdir(b)) == ["bench.env"] for b in benches)  # nothing written into the bench


def test_a_failed_check_is_named_and_a_failing_run_bench_still_cleans_up(tmp_path, tmpdir_env):
    benches = [bench(tmp_path, name, SMALL) for name in ("bench-a", "bench-b")]
    lab = StandInLab(fail_at=1)
    rc = check.check_benches(lab, benches, [], verdict=lambda d, p: "bench-b" not in d)
    assert rc == 1 and lab.removed == 2 and list(tmpdir_env.iterdir()) == []
    # bench-a: run_bench failed (the verdict passed); bench-b: the verdict failed
    assert lab.said[-1] == (None, "check FAILED for: bench-a bench-b (the table above names what is missing)")
    assert lab.run_failed is False


def test_a_refused_plan_fails_that_check_and_leaves_nothing(tmp_path, tmpdir_env, capfd):
    benches = [bench(tmp_path, "bench-a", SMALL)]
    lab = StandInLab()
    rc = check.check_benches(lab, benches, ["RATE=0"], verdict=lambda d, p: True)
    assert rc == 1 and lab.ran == [] and lab.removed == 1 and list(tmpdir_env.iterdir()) == []
    assert "the --set overrides are invalid for bench-a-check" in capfd.readouterr().err


def test_an_interrupt_stops_before_the_next_bench(tmp_path, tmpdir_env):
    benches = [bench(tmp_path, name, SMALL) for name in ("bench-a", "bench-b")]
    lab = StandInLab(interrupt_after=1)
    assert check.check_benches(lab, benches, [], verdict=lambda d, p: True) == 130
    assert len(lab.ran) == 1 and list(tmpdir_env.iterdir()) == []
