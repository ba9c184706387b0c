"""A host's series on the controller's clock (issue 27): cAdvisor stamps each sample with its own
host's clock, the window marks are the controller's. With a host's offset read at each mark
(phase.json `clock`: offsets below), a sample stamped t on that host happened at
t - offset(t) on the controller's clock, the offset taken linearly between the two marks. The export
reads every series through this wrapper when some host's offset is not zero, so each figure
(counters, gauges, the monitoring's and the idle CPU) sees samples in the controller's window; with
no offset (one host) the export reads Prometheus itself, unchanged."""


def offsets(phase_doc):
    """{context: (offset at the start mark, offset at the end mark)} of every host read at both marks
    with a non-zero offset, what the export shifts its series by (a null reading makes the phase
    suspect: analysis/figures/clock.py)."""
    clock = (phase_doc or {}).get("clock") or {}
    out = {}
    for context, marks in (clock.get("hosts") or {}).items():
        s, e = ((marks or {}).get(k) or {} for k in ("start", "end"))
        a, b = s.get("offset_s"), e.get("offset_s")
        if a is None and b is None:
            continue
        a = b if a is None else a
        b = a if b is None else b
        if a or b:
            out[context] = (a, b)
    return out


class ShiftedPrometheus:
    def __init__(self, prom, offsets, start, end):
        """OFFSETS: {host label: (offset at START, offset at END)} in seconds; START, END: the window
        on the controller's clock."""
        self.prom = prom
        self.url = prom.url
        self.offsets = offsets
        self.start, self.end = start, end
        self.pad = max((abs(o) for pair in offsets.values() for o in pair), default=0.0)

    def offset_at(self, host, t):
        """HOST's offset at its own time T, between its marks (held beyond them)."""
        a, b = self.offsets[host]
        lo, hi = self.start + a, self.end + b
        f = 0.0 if hi <= lo else min(1.0, max(0.0, (t - lo) / (hi - lo)))
        return a + (b - a) * f

    def shift(self, labels, samples):
        host = labels.get("host")
        if host not in self.offsets:
            return samples
        return [(t - self.offset_at(host, t), v) for t, v in samples]

    def raw_samples(self, selector, start, end):
        """Prometheus's raw_samples on the controller's clock: samples in (start, end] once shifted."""
        raw = self.prom.raw_samples(selector, start - self.pad, end + self.pad)
        out = []
        for labels, samples in raw:
            kept = [(t, v) for t, v in self.shift(labels, samples) if start < t <= end]
            if kept:
                out.append((labels, kept))
        return out

    def query(self, expr, at):
        return self.prom.query(expr, at)
