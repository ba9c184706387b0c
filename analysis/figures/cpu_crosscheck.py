"""cAdvisor's CPU of the database container against the cgroup CPU the lab reads itself at the
window marks (phase.json `cgroup_cpu_seconds` {start, end}, lab/driver/phase.py), in every run.

Both count the same cgroup, but cAdvisor's delta runs from its last sample at or before each mark
(scraped every `interval`), so the two may differ by what the container spent in up to one scrape
interval at each edge. Beyond that (TOLERANCE) one of them is wrong (a scrape gap, a counter
misread as a reset): the phase is `suspect` with both numbers in the reason."""
from .cpu import total_s

TOLERANCE = {
    "relative": 0.10,  # of the cgroup figure
    "edge_intervals": 2,  # scrape intervals at the phase's mean CPU rate (one at each edge)
    "absolute_s": 0.1,  # cAdvisor's user/system come in 10 ms ticks
}


def crosscheck(cadvisor_s, cgroup_s, window_s, interval_s):
    """None when the two agree (or one is missing: nothing to compare), else the reason."""
    if cadvisor_s is None or cgroup_s is None or not window_s:
        return None
    t = TOLERANCE
    allowed = (t["relative"] * cgroup_s + t["edge_intervals"] * (interval_s or 1.0) * cgroup_s / window_s
               + t["absolute_s"])
    if abs(cadvisor_s - cgroup_s) <= allowed:
        return None
    return (f"cAdvisor CPU {cadvisor_s:.2f} s differs from the cgroup CPU {cgroup_s:.2f} s read at the window "
            f"marks by more than the tolerance {allowed:.2f} s (10% + 2 scrape intervals at the phase's rate "
            "+ 0.1 s): one of the figures is wrong")


def of_phase(ph, cpu):
    """crosscheck() of a phase (bench/folder.py Phase) and its cpu block (figures/cpu.py)."""
    window = (ph.doc() or {}).get("window") or {}
    start, end = window.get("start"), window.get("end")
    return crosscheck(total_s(cpu), cpu["cgroup_cpu_s"], (end - start) if start and end else None,
                      (ph.metrics() or {}).get("scrape_interval_s"))
