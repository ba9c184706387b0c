"""`summary`: one line per database, in the spirit of the original study's final lines."""
from ..common.labels import fmt, run_label
from .report import load_result


def _status(r):
    # A suspect phase shouts: its figures include work the lab did not ask for.
    return f"SUSPECT ({r.get('reason')})" if r["status"] == "suspect" else r["status"]


def lines(bench_dir):
    result = load_result(bench_dir)
    out = []
    for r in result["runs"]:
        cpu = r["cpu"]
        # no CPU figure (cAdvisor had no series of the container): said, never printed as 0
        work = (f"{fmt(cpu['instructions'])} instructions" if cpu["instructions"] is not None else
                "no CPU figure" if cpu["user_s"] is None and cpu["system_s"] is None else
                f"{fmt((cpu['user_s'] or 0) + (cpu['system_s'] or 0))} CPU s")
        out.append(f"{result['bench']} {run_label(r)}: {fmt(r['window']['seconds'])} s, {work}, "
                   f"{fmt(r['achieved_rate'])} {'docs' if set(r.get('operations') or {'insert': 0}) == {'insert'} else 'ops'}/s, "
                   f"count {fmt(r['docs_in_db'])}, "
                   f"size {fmt(r['storage']['total_bytes'])} B, status {_status(r)}")
    return "\n".join(out)
