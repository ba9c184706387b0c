"""The phase loop's decisions as pure functions of their inputs, unit tested without Docker
(tests/unit/test_driver_decisions.py): how long a phase may run, when its profile is recorded, what
state its database was left in, which clients left no result."""
import math

# Seconds of idle database kept inside the window at each end, so that the window's first and last
# Prometheus samples (cAdvisor housekeeping 1 s + scrape 1 s) see the database before and after the
# load: the exported deltas then cover all of the phase's work.
WINDOW_GUARD_S = 5
PROGRESS_EVERY_S = 30
QUIET_STEP_S = 10


def expected_seconds(plan_expected_s):
    """The plan's expected seconds rounded up to whole seconds, the unit of the wait's arithmetic."""
    return int(math.ceil(float(plan_expected_s)))


def wait_limit_s(expected_s):
    """How long the lab waits for a phase's clients before it stops them: far past the expected time
    (twice it, plus two minutes for start-up and a slow host), so a slow run is kept and a stuck one
    is not waited for forever (phase.json facts.wait.limit_s; facts.wait.timed_out past it)."""
    return expected_s * 2 + 120


def perf_record_delay_s(expected_s, record_s):
    """The profile is recorded in the middle of the expected load: the clients' start-up and end stay
    out of it; a phase shorter than the recording starts it at once."""
    return (expected_s - record_s) // 2 if expected_s > record_s else 0


def perf_record_seconds(expected_s, record_s):
    """How long the profile records: PERF_RECORD_S, but never longer than the expected load (a
    recording that outlasts the window held the next phase back by the difference: 5.5 s of a 9.6 s
    gap between two 20 s windows, and it sampled an idle server). A back-to-back phase (no expected
    time) records PERF_RECORD_S."""
    return min(record_s, expected_s) if expected_s > 0 else record_s


def quiet_steps(quiet_s):
    """The quiet period in steps of at most QUIET_STEP_S (one progress line each): [(left, step)]."""
    steps, left = [], int(quiet_s)
    while left > 0:
        step = min(left, QUIET_STEP_S)
        steps.append((left, step))
        left -= step
    return steps


def database_state(state, started_at_window):
    """The database container after the window, from its `docker inspect` State (None: gone):
    (running | stopped | restarted | gone, exit code or None). `restarted`: running, but started
    again since the window began (its StartedAt moved)."""
    if state is None:
        return "gone", None
    if not state.get("Running"):
        return "stopped", state.get("ExitCode")
    if state.get("StartedAt") != started_at_window:
        return "restarted", None
    return "running", None


def missing_clients(written):
    """The clients (1-based) whose result file is missing, from [written?] in client order."""
    return [i + 1 for i, ok in enumerate(written) if not ok]


def remaining_s(expected_s, elapsed_s):
    return max(expected_s - elapsed_s, 0)
