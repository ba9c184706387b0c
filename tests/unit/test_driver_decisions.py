"""The phase loop's decisions (lab/driver/decisions.py), without Docker: the wait's arithmetic, when
the profile is recorded, the quiet period's steps, the database's state after a window."""
import math

from lab.driver import decisions


def test_expected_seconds_round_up_as_math_ceil():
    for value in (0, 15, 15.0, 15.5, 0.001, 9.9, 120.0001, 7200, "15.000", "08"):
        assert decisions.expected_seconds(value) == math.ceil(float(value)), value


def test_the_wait_gives_up_far_past_the_expected_time():
    assert decisions.wait_limit_s(0) == 120
    assert decisions.wait_limit_s(60) == 240
    assert decisions.remaining_s(60, 10) == 50 and decisions.remaining_s(60, 75) == 0


def test_the_profile_is_recorded_in_the_middle_of_the_load():
    assert decisions.perf_record_delay_s(60, 20) == 20   # 20 s of load before, 20 after
    assert decisions.perf_record_delay_s(61, 20) == 20   # whole seconds
    assert decisions.perf_record_delay_s(20, 20) == 0    # as long as the load: at once
    assert decisions.perf_record_delay_s(5, 20) == 0


def test_the_profile_never_records_longer_than_the_expected_load():
    assert decisions.perf_record_seconds(60, 20) == 20
    assert decisions.perf_record_seconds(12, 30) == 12  # not 18 s past the window's load
    assert decisions.perf_record_seconds(0, 30) == 30   # back to back: no expected time


def test_the_quiet_period_counts_down_in_steps_of_ten():
    assert decisions.quiet_steps(25) == [(25, 10), (15, 10), (5, 5)]
    assert decisions.quiet_steps(3) == [(3, 3)]
    assert decisions.quiet_steps(0) == []
    assert sum(step for _, step in decisions.quiet_steps(60)) == 60


def test_the_database_state_after_the_window():
    started = "2026-11-28T10:00:00.1Z"
    assert decisions.database_state(None, started) == ("gone", None)
    assert decisions.database_state({"Running": False, "ExitCode": 137, "StartedAt": started}, started) == ("stopped", 137)
    assert decisions.database_state({"Running": True, "ExitCode": 0, "StartedAt": "2026-11-28T10:05:00Z"}, started) == ("restarted", None)
    assert decisions.database_state({"Running": True, "ExitCode": 0, "StartedAt": started}, started) == ("running", None)


def test_missing_clients_are_named_in_client_order():
    assert decisions.missing_clients([True, False, True, False]) == [2, 4]
    assert decisions.missing_clients([]) == []
