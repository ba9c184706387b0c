"""A host's clock against the controller's at the window marks (phase.json `clock`, issue 27), with
injected readings: beyond 100 ms the phase is suspect (analysis/figures/clock.py), and the export reads
that host's series shifted by its offset (analysis/collect/clock_shift.py), here against a real
Prometheus whose target carries the `host` label as the lab's file_sd targets do."""
import json
import os
import time

import pytest
import requests

import real_prometheus  # tests/ (analysis/tests/conftest.py puts it on sys.path)
from analysis.collect.export import export
from analysis.figures import clock, results
from analysis.tests.helpers import hardware_bench
from analysis.tests.test_export import FakeCadvisor, phase_folder, wait_until


def reading(offset, uncertainty=0.004):
    return {"offset_s": offset, "uncertainty_s": uncertainty, "round_trip_s": 2 * uncertainty, "reason": None}


def clock_of(host, start, end):
    return {"threshold_s": 0.1, "hosts": {host: {"start": start, "end": end}}}


def test_beyond_100_ms_or_unread_the_phase_is_suspect():
    assert clock.skew({"clock": clock_of("db1", reading(0.099), reading(-0.0999))}) is None
    why = clock.skew({"clock": clock_of("db1", reading(0.05), reading(-0.101))})
    assert why == "the clock of host db1 is -101.0 ms off the controller's at the window end (± 4.0 ms), beyond 100 ms"
    unread = {"offset_s": None, "uncertainty_s": None, "round_trip_s": None, "reason": "the host's time could not be read: x"}
    assert clock.skew({"clock": clock_of("db1", unread, reading(0))}) == (
        "the clock of host db1 was not read at the window start (the host's time could not be read: x)")
    assert clock.skew({}) is None  # one host: no clock recorded, nothing to say


def test_the_skew_reaches_the_run_s_status_and_the_readings_its_clock(fixture_benches):
    b = fixture_benches[hardware_bench(fixture_benches)]
    phase_path = next(os.path.join(b, f) for f in sorted(os.listdir(b)) if f.endswith(".phase.json"))
    with open(phase_path) as f:
        doc = json.load(f)
    phase_id = os.path.basename(phase_path)[:-len(".phase.json")]
    for offset, status in ((0.05, "ok"), (0.15, "suspect")):
        doc["clock"] = clock_of("db1", reading(offset), reading(offset))
        with open(phase_path, "w") as f:
            json.dump(doc, f)
        run = next(r for r in results.write(b)["runs"] if r["phase"] == phase_id)
        assert run["status"] == status and run["clock"] == doc["clock"], (run["status"], run["reason"])
        if status == "suspect":
            assert "the clock of host db1 is +150.0 ms off" in run["reason"]
            assert any(n.startswith("SUSPECT: the clock of host db1") for n in run["notes"])


@pytest.fixture
def host_stack(tmp_path):
    """A real Prometheus scraping a cAdvisor-like exporter as target of host `sim-2` (the label the
    lab's targets files give every series)."""
    fake = FakeCadvisor()
    with real_prometheus.scraping_collector(tmp_path, fake, {"host": "sim-2"}) as url:
        yield fake, url


def test_the_export_reads_a_host_s_series_shifted_by_its_clock_offset(host_stack, tmp_path):
    """The host's clock is 3 s ahead of the controller's (the exporter's samples, stamped by this
    machine's clock, stand for the host's). The database's CPU steps +50 at t_a and +7 at t_b; the
    controller's window [t_a - 1, t_b] is [t_a + 2, t_b + 3] on the host's clock: the +7 step only."""
    fake, url = host_stack
    cpu = "container_cpu_user_seconds_total"
    fake.set("db1", "postgres", cpu, 100.0)
    deadline = time.time() + 20
    while True:
        r = requests.get(f"{url}/api/v1/query", params={"query": f'count_over_time({cpu}{{name="db1",host="sim-2"}}[1m])'}).json()
        if r["data"]["result"] and float(r["data"]["result"][0]["value"][1]) >= 3:
            break
        assert time.time() < deadline, "prometheus never scraped the test exporter"
        time.sleep(0.3)
    t_a = time.time()
    fake.set("db1", "postgres", cpu, 150.0)
    wait_until(t_a, 6.0)
    t_b = time.time()
    fake.set("db1", "postgres", cpu, 157.0)
    wait_until(t_b, 5.0)  # the host's window end, t_b + 3, scraped

    start, end = t_a - 1, t_b
    plain = export(str(phase_folder(tmp_path, "plain", start, end)), "postgres", url)
    assert plain["services"]["postgres"]["counters"][cpu]["delta"] == pytest.approx(50.0)  # read on the wrong clock

    bench = phase_folder(tmp_path, "shifted", start, end)
    doc = json.loads((bench / "postgres.phase.json").read_text())
    doc["clock"] = clock_of("sim-2", reading(3.0), reading(3.0))
    (bench / "postgres.phase.json").write_text(json.dumps(doc))
    shifted = export(str(bench), "postgres", url)
    c = shifted["services"]["postgres"]["counters"][cpu]
    assert c["delta"] == pytest.approx(7.0), c
    # every sample the time series keeps is on the controller's clock, inside its window
    per = c["per_container"]["db1"]
    assert start - 10 <= per["start_time"] <= start and start < per["end_time"] <= end, per
