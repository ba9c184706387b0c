"""Each host's clock against the controller's, read at each window mark (issue 27): a host's series are
stamped by its own clock (cAdvisor's timestamps), the window by the controller's, so analysis shifts a
host's series by its offset (analysis/collect/clock_shift.py) and a phase with an offset beyond
THRESHOLD_S is `suspect` (analysis/figures/clock.py).

A reading is the host's time taken between two readings of the controller's: offset = host time minus
the midpoint, uncertainty = half the round trip (the host's time was read somewhere in it); of a few
readings the one with the shortest round trip is kept. The host's time comes from its engine
(`docker --context C info`'s SystemTime, nanoseconds), or from any callable that returns the host's
unix time (a probe on that host answers faster: a smaller uncertainty).

Interface (a placed run calls marks() at each mark and records the result in phase.json `clock`):
  engine_reader(context, environ=None) -> callable   the host's unix time through its engine
  reading(read_host, controller=time.time, tries=TRIES) -> {offset_s, uncertainty_s, round_trip_s, reason}
  marks(readers) -> {context: reading}               every host's reading at one mark
  phase_clock(start, end) -> phase.json `clock`      {threshold_s, hosts: {context: {start, end}}}
"""
import datetime
import os
import re
import subprocess
import time

THRESHOLD_S = 0.1  # beyond it the phase is suspect: a window edge off by more than a tenth of a scrape interval
TRIES = 3

_RFC3339 = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$")


def parse_time(text):
    """An RFC 3339 time with up to nanoseconds (Go's format, as `docker info` gives SystemTime) as unix
    seconds; ValueError when it is not one."""
    m = _RFC3339.match(text.strip())
    if not m:
        raise ValueError(f"not an RFC 3339 time: {text.strip()!r}")
    base, frac, zone = m.groups()
    zone = "+00:00" if zone == "Z" else zone
    whole = datetime.datetime.fromisoformat(base + zone).timestamp()
    return whole + (int(frac) / 10 ** len(frac) if frac else 0.0)


def engine_reader(context, environ=None, timeout=30):
    """A callable returning CONTEXT's engine's time (`docker --context C info`'s SystemTime)."""
    env = dict(os.environ if environ is None else environ)

    def read():
        r = subprocess.run(["docker", "--context", context, "info", "--format", "{{.SystemTime}}"],
                           capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            raise RuntimeError(f"docker --context {context} info: {r.stderr.strip()[-300:] or 'failed'}")
        return parse_time(r.stdout)
    return read


def reading(read_host, controller=time.time, tries=TRIES):
    """The host's offset against the controller: the reading with the shortest round trip of TRIES.
    On failure every figure is null and `reason` says why."""
    best = None
    errors = []
    for _ in range(tries):
        t0 = controller()
        try:
            host = read_host()
        except Exception as e:  # noqa: BLE001  (a figure missing with its reason, not a stop)
            errors.append(f"{type(e).__name__}: {e}")
            continue
        t1 = controller()
        rtt = t1 - t0
        if best is None or rtt < best["round_trip_s"]:
            best = {"offset_s": host - (t0 + t1) / 2, "uncertainty_s": rtt / 2, "round_trip_s": rtt, "reason": None}
    if best is None:
        return {"offset_s": None, "uncertainty_s": None, "round_trip_s": None,
                "reason": "the host's time could not be read: " + "; ".join(errors)}
    return best


def marks(readers):
    """{context: reading} of every host (READERS: {context: callable returning its unix time})."""
    return {context: reading(read) for context, read in sorted(readers.items())}


def phase_clock(start, end):
    """phase.json `clock` from the readings at the window's start and end marks (marks())."""
    return {"threshold_s": THRESHOLD_S,
            "hosts": {c: {"start": start.get(c), "end": end.get(c)} for c in sorted(set(start) | set(end))}}
