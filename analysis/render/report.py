"""`report`: from the files alone, benchN/report.md + benchN/plots/*.png, and a cross-bench report.md."""
import glob
import os

from ..common import databases
from ..common.errors import AnalysisError
from ..common.fileio import write_text_atomic
from ..common.labels import PER_DOC, fmt, fmt_bytes, fmt_ratio, phase_id, run_label
from ..bench import folder
from ..collect import thp
from ..figures import fairness, ingest, pooler, queries, results
from . import answer, groups_report, hosts as hosts_section, plots, read_io_report, study_report, timeline_plot


def load_result(bench_dir):
    """results.json of a bench (its folder's path or its Bench, bench/folder.py), else built from
    the folder's files (not written: report only reads)."""
    bench = folder.of(bench_dir)
    result = bench.results_json()
    return result if result is not None else results.build(bench)


def _per_doc_table(result):
    # insert costs: the phases that only inserted (a run phase of reads/updates says why not)
    runs = [r for r in result["runs"] if not (r.get("per_doc") or {}).get("reason")]
    ratios = result.get("ratios") or {}
    others = result.get("other_ratios") or {}
    if runs and all(r.get("stage") == "load" for r in runs):
        ratios = result.get("load_ratios") or {}
        others = result.get("other_load_ratios") or {}
    head = ["per document"] + [run_label(r) for r in runs]
    # the baseline's pair first, then each further database against the baseline's denominator
    every = [ratios] + list(others.values())
    for rt in every:
        ratio_head = "/".join(databases.pair(rt.get("numerator"), rt.get("denominator")))
        if rt.get("stand_in"):
            ratio_head += " (stand-in involved)"
        head.append(ratio_head)
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for field, name, unit in PER_DOC:
        cells = [f"{name} ({unit})"] + [fmt(r["per_doc"].get(field)) for r in runs] + [fmt_ratio(rt.get(field)) for rt in every]
        rows.append("| " + " | ".join(cells) + " |")
    for rt in every:
        if rt.get("reason"):  # a side is not ok: its ratios are left out (results.ratios)
            prefix = "" if rt is ratios else "/".join((rt["numerator"], rt["denominator"])) + ": "
            rows.append(f"\n{prefix}{rt['reason']}")
    return "\n".join(rows)


def _image_os(run):
    """The image's OS and C library as the lab read them (runs[].image_os), or why not."""
    o = run.get("image_os")
    if o is None:
        return "not read (a run before it)"
    said = " / ".join(v for v in (o.get("os"), o.get("libc")) if v)
    return f"{said} ({o['reason']})" if o.get("reason") else said


def _runs_table(result):
    runs = result["runs"]
    fields = [
        ("status", lambda r: r["status"] + (f" ({r['reason']})" if r.get("reason") else "")),
        ("server", lambda r: f"{r.get('product') or '?'} {r.get('server_version') or ''}".strip()),
        ("image", lambda r: f"`{r.get('image')}`"),
        ("image OS / libc", _image_os),
        ("window (s)", lambda r: fmt(r["window"].get("seconds"))),
        ("clients", lambda r: str(r["clients"])),
        ("docs ok / in db", lambda r: f"{fmt(r['docs_ok'])} / {fmt(r['docs_in_db'])}"),
        ("errors / dropped", lambda r: f"{fmt(r['errors'])} / {fmt(r['dropped'])}"),
        ("target / achieved docs/s", lambda r: f"{fmt(r['target_rate'])} / {fmt(r['achieved_rate'])}"),
        ("latency p50 / p99 / max (ms)", lambda r: " / ".join(fmt(r["latency_ms"][k]) for k in ("p50", "p99", "max"))),
        ("service p50 / p99 / max (ms)", lambda r: " / ".join(fmt(r["service_ms"][k]) for k in ("p50", "p99", "max"))),
        # Start lag = waiting behind the previous insert + the client's own lateness; the
        # second figure shows whether a late start was the client's fault.
        ("start lag p99 / client's own lateness p99 (ms)",
         lambda r: f"{fmt(r['start_lag_ms']['p99'])} / {fmt((r.get('scheduler_lag_ms') or {}).get('p99'))}"),
        ("CPU user / system (s)", lambda r: f"{fmt(r['cpu']['user_s'])} / {fmt(r['cpu']['system_s'])}"),
        ("instructions", lambda r: fmt(r["cpu"]["instructions"]) if r["cpu"]["instructions"] is not None
         else "n/a (no hardware counters)"),
        ("client CPU user / system (s)", lambda r: f"{fmt(r['client_cpu']['user_s'])} / {fmt(r['client_cpu']['system_s'])}"),
        ("memory rss mean / max", lambda r: f"{fmt_bytes(r['memory']['rss']['mean'])} / {fmt_bytes(r['memory']['rss']['max'])}"),
        ("memory cache mean / max", lambda r: f"{fmt_bytes(r['memory']['cache']['mean'])} / {fmt_bytes(r['memory']['cache']['max'])}"),
        ("working set mean / max", lambda r: f"{fmt_bytes(r['memory']['working_set']['mean'])} / {fmt_bytes(r['memory']['working_set']['max'])}"),
        ("disk read / write", lambda r: f"{fmt_bytes(r['disk']['read_bytes'])} / {fmt_bytes(r['disk']['write_bytes'])}"),
        ("disk read / write ops", lambda r: f"{fmt(r['disk']['read_ops'])} / {fmt(r['disk']['write_ops'])}"),
        ("network rx / tx", lambda r: f"{fmt_bytes(r['network']['rx_bytes'])} / {fmt_bytes(r['network']['tx_bytes'])}"),
        ("storage table / index / total", lambda r: " / ".join(fmt_bytes(r["storage"][k]) for k in ("table_bytes", "index_bytes", "total_bytes"))),
        # `count` reads the sizes, flushes (CHECKPOINT / {fsync: 1}) and reads them again
        ("storage total before / after the settle", _settle_cell),
        # What watching cost (analysis/collect/monitoring.py): the monitoring shares the host's cores.
        ("monitoring CPU cAdvisor + Prometheus (s; % of one core)", _monitoring_cell),
        ("metric gaps / counter resets", lambda r: f"{r['metrics_quality']['gaps']} / {r['metrics_quality']['counter_resets']}"),
    ]
    if any(r.get("form") for r in runs):
        # the storage form of the documents (a run of the forms: POSTGRES_FORM, MYSQL_FORM, ...)
        fields.insert(4, ("storage form", lambda r: r.get("form") or "n/a (not named by its clients)"))
    head = [""] + [run_label(r) for r in runs]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, get in fields:
        rows.append("| " + " | ".join([name] + [get(r) for r in runs]) + " |")
    return "\n".join(rows)


def _settle_cell(r):
    st = r["storage"]
    before = (st.get("before_settle") or {}).get("total_bytes")
    if before is None:
        return f"n/a ({st.get('settle_reason') or 'no reading before the settle'})"
    return (f"{fmt_bytes(before)} / {fmt_bytes(st.get('total_bytes'))} ({st.get('settle') or 'not flushed'}"
            + (f": {st['settle_reason']}" if st.get("settle_reason") else "") + ")")


def _monitoring_cell(r):
    m = r.get("monitoring") or {}
    if m.get("per_s") is None:
        return "n/a" + (f" ({m['reason']})" if m.get("reason") else "")
    return f"{fmt(m['cadvisor_cpu_s'])} + {fmt(m['prometheus_cpu_s'])} ({100 * m['per_s']:.2f}%)"


def _profile_line(bench, run):
    """The links to a phase's profile, with its rate: the Firefox Profiler counts 1 ms per sample,
    so its times are right only at 1000 Hz and are stated as off by a factor otherwise. bench: a
    Bench (bench/folder.py) or its folder's path."""
    bench = folder.of(bench)
    db, p = phase_id(run), run.get("profile") or {}
    kept = next((f for f in (f"{db}.perf", f"{db}.perf.gz") if bench.exists(f)), None)
    if not kept:
        return f"Profile: none ({p.get('reason') or 'no profile file in this folder'})."
    hz = p.get("frequency_hz")
    if hz == 1000:
        rate = "1000 Hz: the profiler's times are CPU time"
    elif hz:
        rate = (f"{hz} Hz: a sample stands for {1000 / hz:.3g} ms of CPU but the profiler counts 1 ms, "
                f"so its times are off by a factor {1000 / hz:.3g}")
    else:
        rate = "sampling rate not recorded: the profiler's times may not be CPU time"
    samples = f"{p['samples']} samples, " if p.get("samples") is not None else ""
    svg = f"flame graph [{db}.svg]({db}.svg); " if bench.exists(f"{db}.svg") else ""
    return (f"Profile: {svg}for the Firefox Profiler (https://profiler.firefox.com/, *Load a profile "
            f"from file*): [{kept}]({kept}) ({samples}{rate}).")


def stand_in_warning(runs):
    # one mention per database, not per phase
    s = list(dict.fromkeys(run_label(dict(r, stage="run")) for r in runs if r.get("stand_in")))
    if not s:
        return ""
    return ("> **Stand-in:** " + "; ".join(s) + ". These figures are not results of the real product; "
            f"ratios that involve them say nothing about {databases.products(r['database'] for r in runs)}.\n\n")


def suspect_warning(runs):
    s = [f"{run_label(r)}: {r.get('reason')}" for r in runs if r.get("status") == "suspect"]
    if not s:
        return ""
    return ("> **SUSPECT:** " + "; ".join(s) + ". The server did work the lab did not ask for during the "
            "window; the figures below include it (see Server counters vs the lab's work).\n\n")


def _reconciliation_section(result):
    runs = [r for r in result["runs"] if r.get("reconciliation")]
    if not runs:
        return []
    lines = ["## Server counters vs the lab's work", "",
             "Deltas of each server's own counters between readings at the window edges, against what the "
             "clients and the lab sent; a check fails when observed > expected + tolerance "
             "(analysis/figures/reconcile.py; the tolerance rule is in results.json).", ""]
    for r in runs:
        rec = r["reconciliation"]
        head = f"### {run_label(r)}: {rec['verdict']}"
        lines += [head, ""]
        if rec.get("unavailable"):
            lines += [f"Not reconciled: {rec['unavailable']}", ""]
        if rec.get("checks"):
            lines += ["| check | expected | observed | tolerance | verdict |", "|---|---|---|---|---|"]
            for name, c in rec["checks"].items():
                verdict = c["verdict"] + (f" ({c['reason']})" if c.get("reason") else "") + (
                    f" (over its tolerance, explained: {c['explained_by']})" if c.get("explained_by") else "")
                lines.append(f"| {name} | {fmt(c['expected'])} | {fmt(c['observed'])} | {fmt(c['tolerance'])} | {verdict} |")
            lines.append("")
        lines += [f"- {x}" for x in rec.get("reasons") or []] + ([""] if rec.get("reasons") else [])
    return lines


def bench_report(bench_dir):
    bench = folder.Bench(bench_dir)  # each file read once: results.json, each phase's time series
    result = load_result(bench)
    plot_dir = os.path.join(bench_dir, "plots")
    os.makedirs(plot_dir, exist_ok=True)
    made = []
    if result["runs"]:
        made.append(plots.per_doc_bars(result, os.path.join(plot_dir, "per_doc.png")))
        made.append(plots.memory_bars(result, os.path.join(plot_dir, "memory.png")))
    for run in result["runs"]:
        csv_gz = bench.phase(phase_id(run)).timeseries()
        if csv_gz is not None:
            made.append(plots.timeseries_panels(result, run, csv_gz, os.path.join(plot_dir, f"timeseries-{phase_id(run)}.png")))
    timelines = []  # (title, file) per stage with per-second data
    for stage, name, what in (("run", "timeline.png", "run phase"), ("load", "timeline-load.png", "load phase")):
        staged = [r for r in result["runs"] if r.get("stage", "run") == stage]
        if timeline_plot.has_timeline(staged):
            made.append(timeline_plot.timeline(result, staged, os.path.join(plot_dir, name), what))
            timelines.append((what, name))
    host = result.get("host") or {}
    hw = (host.get("hardware_counters") or {})
    lines = [f"# {result['bench']}: {result.get('description') or ''}".rstrip(": "), ""]
    lines.append(stand_in_warning(result["runs"]))
    lines.append(suspect_warning(result["runs"]))
    if not result.get("complete", True):
        lines.append("> **Incomplete run:** " + "; ".join(result.get("incomplete") or []) + "\n")
    lines += [f"Generated from the files in this folder (results.json of {result.get('generated_at', '?')}).", ""]
    lines += answer.answer_lines(result) + read_io_report.report_lines(result)
    lines += study_report.report_lines(result)  # a study's own figures beside the lab's (WORKLOAD=globalsign)
    lines += ingest.report_lines(result) + answer.per_operation_tables(result)
    lines += queries.report_lines(result)
    lines += pooler.report_lines(result)  # POOL=pgbouncer: the pooler beside the server
    lines += groups_report.report_lines(result)  # GROUPS: each stream on its own
    if timelines:
        lines += ["## Per second", "", "Operations per second and p99 latency per second, per operation type, "
                  "merged over the clients: dips and spikes are stalls (checkpoints, vacuum, cache eviction).", ""]
        lines += [f"![{what} per second](plots/{name})\n" for what, name in timelines]
    else:
        lines += ["## Per second", "", "No per-second timeline: "
                  + "; ".join(sorted({(r.get("timeline") or {}).get("reason") or "none" for r in result["runs"]})), ""]
    lines += ["## Per-document cost", "", _per_doc_table(result), "",
              # the answer's and Per operation's CPU is net of idle: say which this one is
              "CPU here is gross: the window's user + system seconds, the database's idle rate included "
              "(net of idle: The answer, Per operation).", "",
              "![per-document cost](plots/per_doc.png)", "", "## Runs", "", _runs_table(result), "",
              "![memory](plots/memory.png)", ""] + _reconciliation_section(result) + ["## Over time", ""]
    for run in result["runs"]:
        if os.path.exists(os.path.join(plot_dir, f"timeseries-{phase_id(run)}.png")):
            lines += [f"### {run_label(run)}", "", f"![{phase_id(run)} over time](plots/timeseries-{phase_id(run)}.png)", ""]
        lines += [_profile_line(bench, run), ""]
    lines += fairness.report_lines(result)
    cfg = (result.get("config") or {}).get("run") or (result.get("config") or {}).get("bench") or {}
    lines += ["## Configuration", "", "| key | value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in cfg.items()]
    lines += ["", "## Host", "",
              f"{host.get('os') or '?'}, kernel {host.get('kernel') or '?'}, {host.get('cpu_model') or '?'}, "
              f"{host.get('cores') or '?'} cores, {fmt_bytes(host.get('memory_bytes'))} memory, cgroup "
              f"{host.get('cgroup_version') or '?'}, Docker {host.get('docker_server') or '?'}, Compose "
              f"{host.get('compose') or '?'}, hardware counters: "
              f"{'yes' if hw.get('available') else 'no' + (' (' + hw['reason'] + ')' if hw.get('reason') else '')}", "",
              thp.describe(host.get("transparent_hugepages")), ""]
    lines += hosts_section.report_lines(result)  # a run that recorded its hosts (hosts.json)
    lines += hosts_section.canary_lines(result)  # a run that measured its network (canary.json)
    notes = _grouped_notes(result.get("notes") or [], [phase_id(r) for r in result["runs"]])
    if notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    path = os.path.join(bench_dir, "report.md")
    write_text_atomic(path, "\n".join(lines))
    return result, [path] + made


def _grouped_notes(notes, phases):
    """A note every phase has ("client containers created in the window") is said once, naming
    the phases it applies to, instead of once per phase."""
    texts = {}
    for n in notes:
        head, sep, text = n.partition(": ")
        if sep and head in phases:
            texts.setdefault(text, []).append(head)
        else:
            texts.setdefault(n, [])
    out = []
    for text, heads in texts.items():
        if not heads:
            out.append(text)
        elif len(heads) == len(phases) and len(phases) > 1:
            out.append(f"every phase: {text}")
        else:
            out.append(f"{', '.join(heads)}: {text}")
    return out


def cross_report(items, out_dir):
    num, den = databases.baseline()
    more = "" if not any(r.get("other_ratios") for _, r in items) else (
        f"; a further database's ratio is against {den} (X/{den})")
    lines = ["# Results across benches", "", "Per-document costs by bench and database; the ratio is "
             f"{num}/{den} for the same bench{more}. Stand-in runs are marked.", ""]
    head = ["bench", "database"] + [f"{name} ({unit})" for _, name, unit in PER_DOC]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for bench_dir, result in items:
        for r in result["runs"]:
            lines.append("| " + " | ".join([result["bench"], run_label(r)] + [fmt(r["per_doc"].get(f)) for f, _, _ in PER_DOC]) + " |")
        for ratios in [result.get("ratios") or {}] + list((result.get("other_ratios") or {}).values()):
            label = ("ratio " + "/".join(databases.pair(ratios.get("numerator"), ratios.get("denominator")))
                     + (" (stand-in involved)" if ratios.get("stand_in") else ""))
            lines.append("| " + " | ".join([result["bench"], f"**{label}**"] + [fmt_ratio(ratios.get(f)) for f, _, _ in PER_DOC]) + " |")
    lines.append("")
    for bench_dir, result in items:
        rel = os.path.relpath(bench_dir, out_dir)
        lines += [f"## {result['bench']}: {result.get('description') or ''}", "", stand_in_warning(result["runs"]),
                  f"Details: [{rel}/report.md]({rel}/report.md)", "", f"![per-document cost]({rel}/plots/per_doc.png)", ""]
    path = os.path.join(out_dir, "report.md")
    write_text_atomic(path, "\n".join(lines))
    return path


def run(benches, out_dir=None):
    """Each bench's report.md and plots in its folder; with OUT_DIR also the cross-bench report.md
    there (never into the working directory unasked: a run's bench may be anywhere)."""
    if not benches:
        benches = sorted(d for d in glob.glob("bench*") if os.path.isdir(d) and os.path.exists(os.path.join(d, "results.json")))
        if not benches:
            raise AnalysisError("no bench folder with results.json here; name the bench folders to report on")
    made, items = [], []
    for b in benches:
        b = os.path.normpath(b)
        result, files = bench_report(b)
        items.append((b, result))
        made += files
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        made.append(cross_report(items, out_dir))
    return made
