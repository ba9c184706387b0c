"""report.md's client groups (results.json runs[].groups, analysis/figures/groups.py): one row per
stream of a run of GROUPS, its asked and achieved rate and its latency percentiles per operation, so
each stream is read on its own beside the others (a stalled one shows in plots/timeline.png too)."""
from ..common.labels import fmt, run_label


def _ms(v):
    return "n/a" if v is None else f"{v:.2f}"


def report_lines(result):
    runs = [r for r in result.get("runs") or [] if r.get("groups")]
    if not runs:
        return []
    lines = ["## Client groups", "",
             "Each stream of the run phase on its own: its clients, the operations per second it asked (RATE x "
             "clients) and achieved, and its latency percentiles per operation from its clients' merged "
             "histograms (from the intended start: a late operation counts its wait).", "",
             "| run | group | clients | operation | asked op/s | achieved op/s | ok | errors | dropped | p50 ms | p99 ms | max ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        for g in r["groups"]:
            for op, o in (g.get("operations") or {}).items():
                lat = o.get("latency_ms") or {}
                lines.append(f"| {run_label(r)} | {g['name']} | {g['clients']} | {op} | {fmt(g['asked_rate'])} | "
                             f"{fmt(g['achieved_rate'])} | {o.get('ok')} | {o.get('errors')} | {o.get('dropped')} | "
                             f"{_ms(lat.get('p50'))} | {_ms(lat.get('p99'))} | {_ms(lat.get('max'))} |")
    return lines + [""]
