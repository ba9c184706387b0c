"""PNG plots of one bench (matplotlib, Agg backend: no display needed)."""
import io
import os
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ..common import databases  # noqa: E402
from ..common.labels import run_label  # noqa: E402

# each database's colour, from its manifest (databases/<name>/database.json)
COLORS = databases.colors()
BAR_FIGURES = [("cpu_us", "CPU µs per document (gross)"), ("instructions", "instructions per document"),
               ("write_bytes", "disk bytes written per document"), ("storage_bytes", "storage bytes per document")]


def _save(fig, path):
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)
    return path


def _title_suffix(runs, width=110):
    """The stand-in marks, wrapped so that no line is wider than the figure."""
    marks = list(dict.fromkeys(run_label(dict(r, stage="run")) for r in runs if r.get("stand_in")))  # per database
    return ("\n" + "\n".join(textwrap.wrap("; ".join(marks), width))) if marks else ""


def short_label(run):
    """A bar's x label: short enough that two bars' labels never overlap (the stand-in's full name
    is in the title)."""
    return run["database"] + (" load" if run.get("stage") == "load" else "") + (" (stand-in)" if run.get("stand_in") else "")


def _hatch(run):
    """A load phase's bar is hatched: same database colour, told apart from its run phase."""
    return "//" if run.get("stage") == "load" else None


def _empty_reason(runs, field):
    """Why a per-document figure is null in every run: the runs' own reason where they give one."""
    if field in ("write_bytes", "read_bytes"):
        why = {(r.get("disk") or {}).get("reason") for r in runs} - {None}
    elif field == "instructions":
        why = {(r.get("cpu") or {}).get("instructions_reason") for r in runs} - {None}
    else:
        why = set()
    return "; ".join(sorted(why)) if len(why) == 1 else "not measured on this host (see report)"


def _say_empty(ax, text, width=48):
    """A panel the run could not fill says why, instead of showing an empty axis."""
    ax.set_yticks([])
    ax.text(0.5, 0.5, "\n".join(textwrap.wrap(text, width)), transform=ax.transAxes, ha="center", va="center",
            fontsize=8)


def per_doc_figure(result):
    # insert costs only: a run phase of reads/updates has per_op figures instead (per_doc.reason)
    runs = [r for r in result["runs"] if not r["per_doc"].get("reason")] or result["runs"]
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    labels = [short_label(r) for r in runs]
    for ax, (field, title) in zip(axes.flat, BAR_FIGURES):
        values = [r["per_doc"].get(field) for r in runs]
        heights = [v if v is not None else 0 for v in values]
        bars = ax.bar(range(len(runs)), heights, color=[COLORS.get(r["database"], "#888") for r in runs],
                      hatch=[_hatch(r) for r in runs], edgecolor="white")
        for b, v in zip(bars, values):
            if all(x is None for x in values):
                break  # said once for the panel below
            ax.annotate("n/a" if v is None else (f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"), (b.get_x() + b.get_width() / 2, b.get_height()),
                        ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(runs)), [lbl.replace(" (", "\n(") for lbl in labels], fontsize=8)
        ax.set_title(title, fontsize=10)
        if all(v is None for v in values):
            _say_empty(ax, _empty_reason(runs, field))
    suffix = _title_suffix(runs)
    fig.suptitle(f"{result['bench']}: per-document cost{suffix}", fontsize=11 if not suffix else 9)
    fig.tight_layout()  # makes room for the suptitle's lines
    return fig


def per_doc_bars(result, path):
    return _save(per_doc_figure(result), path)


def memory_bars(result, path):
    runs = result["runs"]
    kinds = [("rss", "rss"), ("cache", "cache"), ("working_set", "working set")]
    fig, ax = plt.subplots(figsize=(9, 5))
    width = 0.8 / max(1, len(runs))
    for i, r in enumerate(runs):
        xs = [k + i * width for k in range(len(kinds))]
        means = [(r["memory"][k]["mean"] or 0) / 2**20 for k, _ in kinds]
        maxes = [(r["memory"][k]["max"] or 0) / 2**20 for k, _ in kinds]
        ax.bar(xs, means, width, label=f"{short_label(r)} mean", color=COLORS.get(r["database"], "#888"),
               hatch=_hatch(r), edgecolor="white")
        ax.scatter(xs, maxes, marker="_", s=400, color="black", zorder=3, label="max" if i == 0 else None)
    ax.set_xticks([k + width * (len(runs) - 1) / 2 for k in range(len(kinds))], [n for _, n in kinds])
    ax.set_ylabel("MiB")
    ax.legend(fontsize=8)
    suffix = _title_suffix(runs, 100)
    ax.set_title(f"{result['bench']}: database memory over the window (bar mean, tick max){suffix}", fontsize=10 if not suffix else 8)
    fig.tight_layout()
    return _save(fig, path)


def load_timeseries(csv_gz):
    """export's long format (csv_gz: timeseries/D.csv.gz's bytes, bench/folder.py Phase.timeseries, or
    a path to such a file); `series` (device / interface, "" for CPU and memory) since issue 25: an older file, one row per
    container with its devices summed, reads as one series each."""
    df = pd.read_csv(io.BytesIO(csv_gz) if isinstance(csv_gz, bytes) else csv_gz, compression="gzip")
    df["series"] = df["series"].fillna("").astype(str) if "series" in df.columns else ""
    return df


def _rates(df, metric, start):
    """Per-second rate of a counter per service: per series (container, device / interface) diff / dt,
    then summed per 1 s bucket. Never a difference of sums: a series missing from one scrape would
    make the sum drop and jump back. A decrease gives no rate for that step instead of a negative one."""
    d = df[df.metric == metric].sort_values("time")
    if d.empty:
        return pd.DataFrame(columns=["service", "t", "rate"])
    parts = []
    for (svc, _, _), g in d.groupby(["service", "container", "series"]):
        dv, dt = g.value.diff(), g.time.diff()
        rate = (dv / dt).where(dv >= 0)
        parts.append(pd.DataFrame({"service": svc, "t": (g.time - start).floordiv(1), "rate": rate}).dropna())
    out = pd.concat(parts)
    return out.groupby(["service", "t"], as_index=False).rate.sum()


def _gauge(df, metric, start):
    d = df[df.metric == metric].copy()
    if d.empty:
        return pd.DataFrame(columns=["service", "t", "value"])
    d["t"] = (d.time - start).floordiv(1)
    d = d.sort_values("time").groupby(["service", "container", "series", "t"], as_index=False).value.last()
    return d.groupby(["service", "t"], as_index=False).value.sum()


def _disk_empty_reason(run):
    reason = (run.get("disk") or {}).get("reason")
    return "no disk bytes to draw: " + (reason or "no block I/O series for the database in the window (see the notes)")


def timeseries_figure(result, run, csv_gz):
    df = load_timeseries(csv_gz)
    start = run["window"]["start"] or (df.time.min() if not df.empty else 0)
    db = run.get("service") or run["database"]
    fig, axes = plt.subplots(4, 1, figsize=(10, 11), sharex=True)
    ax = axes[0]
    for metric, kind in (("container_cpu_user_seconds_total", "user"), ("container_cpu_system_seconds_total", "system")):
        r = _rates(df, metric, start)
        for svc, g in r.groupby("service"):
            ax.plot(g.t, g.rate, label=f"{svc} {kind}", linestyle="-" if svc == db else "--")
    ax.set_ylabel("CPU (cores)")
    ax.set_title("CPU")
    ax = axes[1]
    for metric, name in (("container_memory_rss", "rss"), ("container_memory_cache", "cache"),
                         ("container_memory_working_set_bytes", "working set")):
        g = _gauge(df, metric, start)
        for svc, gg in g.groupby("service"):
            ax.plot(gg.t, gg.value / 2**20, label=f"{svc} {name}", linestyle="-" if svc == db else "--")
    ax.set_ylabel("MiB")
    ax.set_title("memory")
    empty = {2: _disk_empty_reason(run)}
    for ax, title, pairs in ((axes[2], "disk (database)", (("container_fs_reads_bytes_total", "read"),
                                                           ("container_fs_writes_bytes_total", "write"))),
                             (axes[3], "network (database)", (("container_network_receive_bytes_total", "rx"),
                                                              ("container_network_transmit_bytes_total", "tx")))):
        for metric, name in pairs:
            r = _rates(df, metric, start)
            r = r[r.service == db]
            if not r.empty:  # a line of no points would put a legend over an empty axis
                ax.plot(r.t, r.rate / 1024, label=f"{db} {name}")
        ax.set_ylabel("KiB/s")
        ax.set_title(title)
    for i, ax in enumerate(axes):
        handles, _ = ax.get_legend_handles_labels()
        if handles:
            ax.legend(fontsize=7, loc="upper right")
        else:
            _say_empty(ax, empty.get(i, "no data in the window"), width=90)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("seconds since window start")
    fig.suptitle(f"{result['bench']}: {run_label(run)} phase over time", fontsize=11)
    fig.tight_layout()
    return fig


def timeseries_panels(result, run, csv_gz, path):
    return _save(timeseries_figure(result, run, csv_gz), path)
