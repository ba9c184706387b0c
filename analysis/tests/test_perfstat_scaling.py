"""perf stat's multiplexing (issue 25 item 10): with perf record holding a hardware counter, perf stat
may count `instructions:u` only part of the time it was enabled and print a scaled estimate as if it
were a count. perf stat -x, gives the share (its "percentage of measurement time", enabled/running):
kept per event, and a scaled instructions count is no figure (null, the estimate beside it, the
reason). This host has no hardware counters: the scaled lines are written in the format of the real
perf stat runs below (`value,unit,event,cgroup,run time ns,percentage,metric,metric unit`)."""
import glob
import json
import os
import shutil
import subprocess

import pytest

from analysis.bench import perfstat
from analysis.figures import results, schema

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def real_perf_stat(*args):
    if not shutil.which("perf"):
        pytest.skip("perf is not installed")
    r = subprocess.run(["perf", "stat", "-x,", *args, "--", "sleep", "0.2"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stderr


def perf_event_root():
    """Where this host's perf_event cgroups live (v1: its own hierarchy; v2: the unified one)."""
    for root in ("/sys/fs/cgroup/perf_event", "/sys/fs/cgroup"):
        if os.path.isfile(os.path.join(root, "cgroup.procs")) and (
                root.endswith("perf_event") or os.path.isfile(os.path.join(root, "cgroup.controllers"))):
            return root
    return None


@pytest.fixture
def busy_cgroup():
    """A cgroup of the test's own holding a busy process: perf stat -a -G over an idle cgroup (the
    engine's `docker` with no container at work) prints <not counted>, which says nothing about scaling."""
    root = perf_event_root()
    if root is None:
        pytest.skip("no perf_event cgroup hierarchy on this host")
    name = f"jsonbench-perfstat-test-{os.getpid()}"
    path = os.path.join(root, name)
    os.mkdir(path)
    busy = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    try:
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write(str(busy.pid))
        yield name
    finally:
        busy.kill()
        busy.wait()
        os.rmdir(path)


@pytest.mark.parametrize("cgroup", [False, True], ids=["task", "cgroup"])
def test_a_real_perf_stat_run_of_software_events_was_counted_throughout(cgroup, request):
    """perf stat as the brief ran it, and as lab/driver/probe.py runs it (-a -G <cgroup>: one more column)."""
    args = ("-a", "-G", request.getfixturevalue("busy_cgroup")) if cgroup else ()
    text = real_perf_stat("-e", "task-clock,context-switches", *args)
    ev = perfstat.parse(text)
    for name in ("task-clock", "context-switches"):
        assert ev[name]["status"] == "counted", text
        assert ev[name]["running_pct"] == 100.0, text  # software events are never multiplexed
        assert perfstat.scaled(ev, name) is None
    assert ev["task-clock"]["value"] > 0


def test_an_event_the_pmu_does_not_offer_is_not_a_scaled_count():
    text = real_perf_stat("-e", "task-clock,instructions:u")
    ev = perfstat.parse(text)
    if ev["instructions:u"]["status"] == "counted":
        pytest.skip("this host has hardware counters")  # the brief's VM has none
    assert ev["instructions:u"]["running_pct"] is None and perfstat.scaled(ev, "instructions:u") is None


def scaled_csv():
    """A phase's perf stat with hardware counters, perf record's cycles sharing the PMU: instructions:u
    ran 62.50% of its enabled time (perf printed the scaled estimate), the software events 100%."""
    return ("# started on Tue Nov 24 15:12:25 2026\n\n"
            "812345678,,instructions:u,docker/abc,1250000000,62.50,0.90,insn per cycle\n"
            "301234567,,instructions:k,docker/abc,2000000000,100.00,,\n"
            "902345678,,cycles:u,docker/abc,1250000000,62.50,,\n"
            "2000.50,msec,task-clock,docker/abc,2000500000,100.00,0.999,CPUs utilized\n"
            "120,,context-switches,docker/abc,2000500000,100.00,59.985,/sec\n")


def test_the_running_share_is_kept_and_a_scaled_count_said():
    ev = perfstat.parse(scaled_csv())
    assert ev["instructions:u"]["running_pct"] == pytest.approx(62.5)
    assert ev["instructions:k"]["running_pct"] == 100.0
    s = perfstat.scaled(ev, "instructions:u")
    assert s["running_pct"] == pytest.approx(62.5) and s["estimate"] == 812345678
    assert "62.5% of the time it was enabled" in s["reason"] and "scaled" in s["reason"]
    assert perfstat.scaled(ev, "instructions:k") is None


def test_hybrid_pmus_sum_their_running_time():
    """The hybrid fixture: cpu_core ran 100% of 2 s, cpu_atom 50% of 2 s (1 s): the sum ran 75%."""
    ev = perfstat.parse(open(os.path.join(FIXTURES, "perfstat", "hybrid-cgroup.csv")).read())
    assert ev["cpu_core/instructions:u/"]["running_pct"] == 100.0
    assert ev["cpu_atom/instructions:u/"]["running_pct"] == 50.0
    assert ev["instructions:u"]["running_pct"] == pytest.approx(75.0)
    assert perfstat.scaled(ev, "instructions:u")["estimate"] == 5000000
    assert perfstat.scaled(ev, "instructions:k") is None  # the atom PMU never ran it: not counted, not scaled


def bench_with_perfstat(tmp_path, text):
    bench = tmp_path / "bench1"
    shutil.copytree(os.path.join(FIXTURES, "bench1"), bench)
    (bench / "postgres.perfstat.csv").write_text(text)
    phase = json.loads((bench / "postgres.phase.json").read_text())
    phase["perf"] = {**(phase.get("perf") or {}), "hardware_counters": True, "reason": None}
    (bench / "postgres.phase.json").write_text(json.dumps(phase))
    return bench


def test_a_scaled_instructions_count_is_no_figure_in_results_json(tmp_path):
    res = results.build(str(bench_with_perfstat(tmp_path, scaled_csv())))
    schema.validate(res)
    pg = next(r for r in res["runs"] if r["database"] == "postgres")
    cpu = pg["cpu"]
    assert cpu["instructions"] is None and pg["per_doc"]["instructions"] is None
    assert cpu["instructions_scaled"]["estimate"] == 812345678
    assert cpu["instructions_scaled"]["running_pct"] == pytest.approx(62.5)
    assert cpu["perf_running_pct"]["instructions:u"] == pytest.approx(62.5)
    assert cpu["perf_running_pct"]["task-clock"] == 100.0
    assert cpu["perf_events"]["instructions:u"] == 812345678  # perf's own value stays, with its share beside it
    assert "62.5% of the time it was enabled" in cpu["instructions_reason"]
    assert any(n.startswith("postgres: instructions not counted (instructions:u ran 62.5%") for n in res["notes"]), res["notes"]


def test_an_unscaled_instructions_count_stands(tmp_path):
    text = scaled_csv().replace("1250000000,62.50,0.90", "2000000000,100.00,0.90")
    res = results.build(str(bench_with_perfstat(tmp_path, text)))
    schema.validate(res)
    cpu = next(r for r in res["runs"] if r["database"] == "postgres")["cpu"]
    assert cpu["instructions"] == 812345678 and cpu["instructions_scaled"] is None
    assert cpu["instructions_reason"] is None
    assert cpu["perf_running_pct"]["instructions:u"] == 100.0


def test_every_recorded_perf_stat_fixture_was_counted_throughout():
    """The recorded runs (software events only) keep their figures: nothing there is scaled."""
    for path in glob.glob(os.path.join(FIXTURES, "**", "*.perfstat.csv"), recursive=True):
        ev = perfstat.parse(open(path).read())
        assert ev and all(perfstat.scaled(ev, name) is None for name in ev), path
