"""plots/timeline.png: operations per second and p99 latency per second, per operation type, both
databases on the same axes (results.json runs[].timeline, merged across clients). The view that
shows stalls and checkpoints: a database that pauses shows a dip in ops/s and a p99 spike."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

from .plots import COLORS, _save, _title_suffix, short_label  # noqa: E402

STYLES = ["-", "--", ":", "-."]


def _lone(points):
    """A series of one second (a phase shorter than two) drawn as a marker: a line needs two points,
    and the series would not show at all."""
    return {"marker": "o", "markersize": 4} if len(points) == 1 else {}


def has_timeline(runs):
    return any((r.get("timeline") or {}).get("seconds") for r in runs)


def timeline(result, runs, path, what="run phase"):
    """runs: the phases to draw (one stage); x = seconds since each phase's window start."""
    fig, (ax_rate, ax_p99) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    ops = list(dict.fromkeys(op for r in runs for s in (r.get("timeline") or {}).get("seconds") or [] for op in s["ops"]))
    for r in runs:
        tl = r.get("timeline") or {}
        seconds = tl.get("seconds") or []
        if not seconds:
            continue
        start = tl.get("start") or (r.get("window") or {}).get("start") or seconds[0]["t"]
        # a run of client groups (GROUPS): each stream's operations per second on its own line, so a
        # stall of one shows beside the others (the p99 panel stays per operation type)
        for k, g in enumerate(r.get("groups") or []):
            pts = [(s["t"] - start, s["ok"]) for s in g.get("seconds") or []]
            if pts:
                ax_rate.plot([t for t, _ in pts], [v for _, v in pts], color=COLORS.get(r["database"], "#888"),
                             linestyle=STYLES[k % len(STYLES)], marker=".", markersize=3,
                             label=f"{short_label(r)} group {g['name']}")
        for op in ops:
            if r.get("groups"):  # the rate panel has the groups' lines; the p99 panel the operations',
                # each drawn as the first group that runs it, so one stream looks alike in both panels
                k = next((i for i, g in enumerate(r["groups"]) if op in (g.get("operations") or {})), ops.index(op))
                pts = [(s["t"] - start, s["ops"][op]) for s in seconds if op in s["ops"]]
                p99 = [(t, c["p99_ms"]) for t, c in pts if c.get("p99_ms") is not None]
                ax_p99.plot([t for t, _ in p99], [v for _, v in p99], color=COLORS.get(r["database"], "#888"),
                            linestyle=STYLES[k % len(STYLES)], label=f"{short_label(r)} {op}", **_lone(p99))
                continue
            pts = [(s["t"] - start, s["ops"][op]) for s in seconds if op in s["ops"]]
            if not pts:
                continue
            style = dict(color=COLORS.get(r["database"], "#888"), linestyle=STYLES[ops.index(op) % len(STYLES)],
                         label=f"{short_label(r)} {op}")
            ax_rate.plot([t for t, _ in pts], [c["ok"] for _, c in pts], **style, **_lone(pts))
            p99 = [(t, c["p99_ms"]) for t, c in pts if c.get("p99_ms") is not None]
            ax_p99.plot([t for t, _ in p99], [v for _, v in p99], **style, **_lone(p99))
            errs = [(t, c["errors"]) for t, c in pts if c.get("errors")]
            if errs:
                ax_rate.scatter([t for t, _ in errs], [v for _, v in errs], marker="x",
                                color=style["color"], label=f"{short_label(r)} {op} errors/s")
    ax_rate.set_ylabel("operations/s (ok)")
    ax_rate.set_title("throughput per second, per " + ("client group" if any(r.get("groups") for r in runs) else "operation type"),
                      fontsize=10)
    ax_p99.set_ylabel("p99 latency (ms)")
    ax_p99.set_yscale("log")  # a stall's spike and the steady state on one axis
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ax_p99.yaxis.set_major_formatter(plain)
    ax_p99.set_title("p99 latency per second (from the intended start), per operation type", fontsize=10)
    ax_p99.set_xlabel("seconds since the phase's window start")
    lo, hi = ax_p99.get_ylim()
    # minor tick labels only within about a decade (across several they overprint each other)
    ax_p99.yaxis.set_minor_formatter(plain if lo > 0 and hi / lo < 20 else NullFormatter())
    for ax in (ax_rate, ax_p99):
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="best")
        else:
            ax.text(0.5, 0.5, "no per-second data", transform=ax.transAxes, ha="center")
    fig.suptitle(f"{result['bench']}: {what} over time{_title_suffix(runs)}",
                 fontsize=11 if not _title_suffix(runs) else 9)
    fig.tight_layout()
    return _save(fig, path)
