"""Each host's clock against the controller's (lab/driver/clock.py, issue 27): a reading is the host's
time between two of the controller's, offset against their midpoint, uncertain by half the round trip,
the shortest of a few kept; read through a real engine here (the same machine: zero by construction,
within its uncertainty); and phase.json `clock` matches lab/phase.schema.json."""
import json
import sys
from pathlib import Path

import jsonschema
import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(LAB_ROOT))
from lab.driver import clock  # noqa: E402


def controller(times):
    it = iter(times)
    return lambda: next(it)


def test_a_reading_is_the_host_s_time_against_the_midpoint_of_the_shortest_round_trip():
    # three readings: round trips 0.2, 0.02 and 0.1 s; the host is 0.25 s ahead
    ctl = controller([100.0, 100.2, 101.0, 101.02, 102.0, 102.1])
    host = iter([100.1 + 0.25, 101.01 + 0.25, 102.05 + 0.25])
    r = clock.reading(lambda: next(host), controller=ctl)
    assert r["offset_s"] == pytest.approx(0.25)
    assert r["round_trip_s"] == pytest.approx(0.02) and r["uncertainty_s"] == pytest.approx(0.01)
    assert r["reason"] is None


def test_a_host_that_cannot_be_read_has_null_figures_and_the_reason():
    def fail():
        raise RuntimeError("connection refused")
    r = clock.reading(fail)
    assert r == {"offset_s": None, "uncertainty_s": None, "round_trip_s": None,
                 "reason": "the host's time could not be read: " + "; ".join(["RuntimeError: connection refused"] * 3)}


def test_the_engine_s_system_time_is_parsed_to_the_nanosecond():
    assert clock.parse_time("2026-11-28T17:57:09.417739215Z") == 1795888629.417739215
    assert clock.parse_time("2026-11-28T18:57:09.5+01:00") == 1795888629.5
    try:
        clock.parse_time("yesterday")
    except ValueError as e:
        assert "not an RFC 3339 time" in str(e)
    else:
        raise AssertionError("parsed")


def test_the_local_engine_s_clock_is_the_controller_s_within_the_uncertainty():
    import subprocess
    context = subprocess.run(["docker", "context", "show"], capture_output=True, text=True).stdout.strip()
    r = clock.marks({context: clock.engine_reader(context)})[context]
    assert r["reason"] is None and 0 < r["round_trip_s"] < 30, r
    # the same kernel's clock: the offset is only where in the round trip the engine read it
    assert abs(r["offset_s"]) <= r["uncertainty_s"] + 0.005, r


def test_phase_clock_matches_the_phase_schema():
    start = {"db1": {"offset_s": 0.01, "uncertainty_s": 0.02, "round_trip_s": 0.04, "reason": None}}
    end = {"db1": clock.reading(lambda: 1 / 0)}
    doc = {"clock": clock.phase_clock(start, end)}
    assert doc["clock"]["threshold_s"] == 0.1 and doc["clock"]["hosts"]["db1"]["end"]["offset_s"] is None
    schema = json.loads((LAB_ROOT / "lab" / "phase.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
