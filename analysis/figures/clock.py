"""Each host's clock against the controller's at the phase's window marks (phase.json `clock`, read by
lab/driver/clock.py, issue 27): beyond the threshold (0.1 s) the phase is `suspect`, since the window's
edges on that host's series are then uncertain by more than the lab's CPU cross-check allows for; a
host whose clock could not be read makes it suspect too (its series could not be placed in the window).
A run on one host records no `clock`: its status is decided as before."""

THRESHOLD_S = 0.1  # lab/driver/clock.py THRESHOLD_S, the default of a phase file that names none


def _edges(clock):
    for context, marks in sorted((clock.get("hosts") or {}).items()):
        for edge in ("start", "end"):
            yield context, edge, (marks or {}).get(edge)


def skew(phase_doc):
    """The reason the phase is suspect for its clocks, or None."""
    clock = (phase_doc or {}).get("clock")
    if not clock:
        return None
    limit = clock.get("threshold_s") or THRESHOLD_S
    out = []
    for context, edge, r in _edges(clock):
        if not r or r.get("offset_s") is None:
            out.append(f"the clock of host {context} was not read at the window {edge}"
                       + (f" ({r['reason']})" if r and r.get("reason") else ""))
        elif abs(r["offset_s"]) > limit:
            out.append(f"the clock of host {context} is {r['offset_s'] * 1000:+.1f} ms off the controller's at the "
                       f"window {edge} (± {r['uncertainty_s'] * 1000:.1f} ms), beyond {limit * 1000:g} ms")
    return "; ".join(out) or None


def summary(phase_doc):
    """results.json runs[] `clock`: the phase file's readings, None for a run that recorded none."""
    return (phase_doc or {}).get("clock")
