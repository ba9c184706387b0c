"""The first lines of a bench's report.md: the answer, per operation: which database spent how
much more CPU, WAL/journal, network and storage, and at what latency. Then the per-operation
tables. Everything is read from results.json (runs[].per_op, operations, wal, per_doc); every ratio
is results.json's (`ratios`, `load_ratios`, `other_ratios`, `other_load_ratios`), so a ratio it
refuses (a side not ok: its `reason`) is refused here too, with its reason."""
from ..common import databases
from ..common.labels import fmt, fmt_bytes, phase_id
from . import txn_report

FIGURES = [  # (where, field, what, unit)
    ("per_op", "cpu_us", "CPU", "µs"),
    ("per_op", "wal_bytes", "WAL/journal", "B"),
    ("per_op", "net_bytes", "network", "B"),
]


def _name(run):
    return run["database"] + (" (stand-in)" if run.get("stand_in") else "")


def _mix_text(mix):
    return " / ".join(f"{op} {w}" for op, w in (mix or {}).items())


def _basis(phases):
    r = phases[0]
    p = r.get("per_op") or {}
    if p.get("op"):
        return f"per {p['op']}"
    mix = p.get("mix") or next((x.get("per_op", {}).get("mix") for x in phases if x.get("per_op", {}).get("mix")), None)
    return f"per operation of the mix ({_mix_text(mix) or ', '.join(r.get('operations') or {})}; not split by type)"


def _why_null(run, where, field):
    if field == "wal_bytes":
        return (run.get("wal") or {}).get("reason") or "no WAL figure"
    if field == "cpu_us":
        return "no CPU figure (see the notes)"
    if field == "cpu_us_net":
        return (run.get("per_op") or {}).get("cpu_net_reason") or "no CPU figure net of idle"
    return "not measured (see the notes)"


def _compare(what, unit, a_run, a, b_run, b, why_a, why_b, ratio, refused, which=None):
    """`X spent 1.64x the CPU of Y (3,495 vs 2,127 µs)` from results.json's ratio a/b (the higher side
    first), or each side's figure (or why it has none) and why there is no ratio. which: what the
    figure is, said after its name (CPU: net of idle or gross)."""
    head = f"**{what}**" + (f" ({which})" if which else "") + ": "
    if ratio is not None and ratio > 0 and a is not None and b is not None:
        (hi_run, hi), (lo_run, lo), times = (((a_run, a), (b_run, b), ratio) if ratio >= 1 else
                                             ((b_run, b), (a_run, a), 1 / ratio))
        verb = "used" if what.startswith("storage") else "spent"
        return (f"{head}{_name(hi_run)} {verb} **{times:.2f}x** the {what} of {_name(lo_run)} "
                f"({fmt(hi)} vs {fmt(lo)} {unit})")
    parts = []
    for run, v, why in ((a_run, a, why_a), (b_run, b, why_b)):
        parts.append(f"{_name(run)} {fmt(v)} {unit}" if v is not None else f"{_name(run)} n/a ({why})")
    return head + "; ".join(parts) + (f" ({refused})" if refused and a is not None and b is not None else "")


def cpu_figure(a, b):
    """Which CPU per operation two runs are compared on, one figure for the whole answer: (field of
    per_op, what it is). Net of the database's idle rate when both have it (the figure a query's and
    a transaction's comparison use), else gross for both, saying why."""
    if all((r.get("per_op") or {}).get("cpu_us_net") is not None for r in (a, b)):
        return "cpu_us_net", "net of idle"
    missing = {r["database"]: (r.get("per_op") or {}).get("cpu_net_reason") or "none in this results.json"
               for r in (a, b) if (r.get("per_op") or {}).get("cpu_us_net") is None}
    if len(missing) == 2 and len(set(missing.values())) == 1:
        why = "neither side has a net figure: " + next(iter(missing.values()))
    else:
        why = "; ".join(f"{db} has no net figure: {reason}" for db, reason in missing.items())
    return "cpu_us", f"gross: the window's idle guard seconds included; {why}"


def _ratios_of(result, stage, a, b):
    """results.json's ratios of run a against run b in this stage: the baseline pair's `ratios` /
    `load_ratios`, a further database's `other_ratios` / `other_load_ratios`; {} when it has none."""
    load = stage == "load"
    candidates = [result.get("load_ratios" if load else "ratios") or {}]
    candidates += list((result.get("other_load_ratios" if load else "other_ratios") or {}).values())
    return next((rt for rt in candidates
                 if rt.get("numerator") == a["database"] and rt.get("denominator") == b["database"]), {})


def _resource_lines(a, b, rt):
    """One line per figure (CPU, WAL/journal, network, storage per document): a against b, with
    results.json's ratios rt of a/b."""
    refused = rt.get("reason") or ("no ratio in results.json" if not rt else None)
    per_op = rt.get("per_op") or {}
    # a refusal is said once, above the figures it leaves without a ratio
    lines = [f"- {refused[0].upper()}{refused[1:]}: each side's figure alone."] if refused else []
    refused = refused and "no ratio"
    for where, field, what, unit in FIGURES:
        which = None
        if field == "cpu_us":
            field, which = cpu_figure(a, b)
        lines.append("- " + _compare(what, unit, a, (a.get(where) or {}).get(field), b, (b.get(where) or {}).get(field),
                                     _why_null(a, where, field), _why_null(b, where, field), per_op.get(field),
                                     refused, which))
    return lines + ["- " + _compare("storage per document", "B", a, a["per_doc"].get("storage_bytes"), b,
                                    b["per_doc"].get("storage_bytes"), "no count/size after the phase",
                                    "no count/size after the phase", rt.get("storage_bytes"), refused)]


def _p99_tail(result, stage, shown, op):
    """The latency line's ratio: results.json's p99 ratio of each database against the denominator
    (the pair's alone with two databases), or its reason for none."""
    den = databases.baseline()[1]
    by_db = {r["database"]: r for r in shown}
    if den not in by_db:
        return ""
    said, refused = [], []
    for r in shown:
        if r["database"] == den:
            continue
        rt = _ratios_of(result, stage, r, by_db[den])
        v = ((rt.get("latency") or {}).get(op) or {}).get("p99")
        if v:
            said.append((r, v))
        elif rt.get("reason"):
            refused.append("no ratio")
    if len(shown) == 2 and said:
        (r, v), = said
        hi, lo = (r, by_db[den]) if v >= 1 else (by_db[den], r)
        return f"; p99 **{max(v, 1 / v):.2f}x** higher on {_name(hi)}"
    out = "; ".join(f"p99 {r['database']}/{den} **{v:.2f}x**" for r, v in said)
    out += ("; " if out and refused else "") + "; ".join(dict.fromkeys(refused))
    return f"; {out}" if out else ""


def _stage_title(stage, phases, config):
    workload = phases[0].get("workload") or "insert"
    if stage == "load":
        records = config.get("RECORDS") or max((r.get("docs_in_db") or 0 for r in phases), default=0) or "?"
        return f"Load phase (inserts of {records} records, reported as insert costs)"
    if workload == "insert":
        return "Inserts"
    return f"Run phase ({workload}, mix {_mix_text((phases[0].get('per_op') or {}).get('mix')) or ', '.join(phases[0].get('operations') or {})})"


def _documents_line(result, stage):
    """DIGEST=documents: whether the databases hold the same keys and documents after this stage."""
    c = next((c for c in result.get("documents_compared") or [] if c["stage"] == stage), None)
    if not c:
        return []
    dbs = ", ".join(f"{db} {fmt(n)}" for db, n in c["documents"].items())
    if c["equal"] is None:
        return ["", f"- **documents read back**: only {next(iter(c['digests']))} has a digest: nothing to compare"]
    if c["equal"]:
        sha = next(iter(c["digests"].values()))
        return ["", f"- **documents read back**: the same keys and documents on {'all' if len(c['digests']) > 2 else 'both'} "
                f"({dbs} documents; digest `{sha[:12]}`; keys {c.get('keys')})"]
    cells = "; ".join(f"{db} `{s[:12]}`" for db, s in c["digests"].items())
    if c.get("order_dependent") and c.get("keys_equal") is not False:
        keys = "the same keys on all" if c.get("keys_equal") else "keys not compared"
        return ["", f"- **documents read back**: {keys} ({dbs} documents); the documents differ ({c['differ']}: {cells}), "
                f"which concurrent updates of one field can cause: each server keeps the update it applied last"]
    return ["", f"- **documents read back DIFFER** ({c['differ']}): {cells} ({dbs} documents): the databases did not "
            f"end with the same data, so their figures are not for the same work"]


def answer_lines(result):
    runs = result.get("runs") or []
    config = (result.get("config") or {}).get("run") or (result.get("config") or {}).get("bench") or {}
    lines = ["## The answer", ""]
    if not runs:
        return lines + ["No phase ran: nothing to compare.", ""]
    # a transaction bench opens with its transactions per isolation level (analysis/render/txn_report.py)
    lines += txn_report.answer_lines(result)
    for stage in ("load", "run"):
        phases = [r for r in runs if r.get("stage", "run") == stage]
        if not phases:
            continue
        lines += [f"### {_stage_title(stage, phases, config)}", ""]
        failed = [r for r in phases if r.get("status") not in ("ok", "suspect")]
        for r in failed:
            lines += [f"> **{_name(r)}'s {r['phase']} phase {r.get('status')}** ({r.get('reason') or 'no reason'}): "
                      f"no ratio is taken with it; its figures cover only the operations it completed "
                      f"({r.get('errors') or 0} errors, {r.get('dropped') or 0} dropped).", ""]
        by_db = {r["database"]: r for r in phases}
        pair = [by_db[d] for d in databases.baseline() if d in by_db]
        if len(pair) == 2:
            lines += [f"Resources {_basis(phases)}:", ""] + _resource_lines(*pair, _ratios_of(result, stage, *pair))
        # a database beyond the pair: the same lines against the baseline's denominator
        den = databases.baseline()[1]
        others = [by_db[d] for d in databases.others(by_db)]
        if others and den in by_db:
            for a in others:
                lines += ["", f"{_name(a)} against {_name(by_db[den])} ({a['database']}/{den}), {_basis(phases)}:", ""]
                lines += _resource_lines(a, by_db[den], _ratios_of(result, stage, a, by_db[den]))
        if len(pair) != 2 and not (others and den in by_db):
            r = pair[0] if pair else phases[0]
            field, which = cpu_figure(r, r)
            lines.append(f"Only {_name(r)} ran: {fmt((r.get('per_op') or {}).get(field))} µs CPU ({which}) {_basis(phases)}.")
        lines += _documents_line(result, stage)
        lines += ["", "Latency from the intended start, per operation type (merged over the clients):", ""]
        shown = (pair + others) or phases
        ops = list(dict.fromkeys(op for r in shown for op in (r.get("operations") or {})))
        for op in ops:
            cells = []
            for r in shown:
                o = (r.get("operations") or {}).get(op)
                if not o:
                    cells.append(f"{_name(r)} none")
                    continue
                lat = o.get("latency_ms") or {}
                cells.append(f"{_name(r)} p50 {fmt(lat.get('p50'))} / p99 {fmt(lat.get('p99'))} ms "
                             f"({fmt(o.get('ok'))} ok, {fmt(o.get('errors'))} errors)")
            lines.append(f"- **{op}**: " + "; ".join(cells) + _p99_tail(result, stage, shown, op))
        lines.append("")
    return lines


def per_operation_tables(result):
    runs = result.get("runs") or []
    if not any(r.get("operations") for r in runs):
        return []
    lines = ["## Per operation", "", "Counts and latency per operation type (milliseconds; HdrHistograms merged "
             "exactly across the clients):", "",
             "| phase | operation | ok | errors | dropped | p50 | p90 | p99 | p99.9 | max | mean |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        for op, o in (r.get("operations") or {}).items():
            lat = o.get("latency_ms") or {}
            lines.append(f"| {phase_id(r)}{' (stand-in)' if r.get('stand_in') else ''} | {op} | {fmt(o.get('ok'))} | "
                         f"{fmt(o.get('errors'))} | {fmt(o.get('dropped'))} | "
                         + " | ".join(fmt(lat.get(k)) for k in ("p50", "p90", "p99", "p999", "max", "mean")) + " |")
    lines += ["", "The database's resources per successful operation of each phase (in a mix: per operation of "
              "the mix, the resources cannot be split by type). WAL/journal bytes are the server's own counter "
              "between readings just outside the window.", "",
              "CPU net of idle: the window's CPU less the database's idle rate over the same time (analysis/collect/idle.py); "
              "gross: the window's user + system seconds, its idle guard seconds included.", "",
              "| phase | per | operations | CPU µs, net of idle | CPU µs, gross | instructions (user mode) | network B | "
              "WAL/journal (phase) | WAL B |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        p, w = r.get("per_op") or {}, r.get("wal") or {}
        per = p.get("op") or ("op of the mix " + _mix_text(p.get("mix"))).strip()
        wal_total = (f"{fmt_bytes(w.get('bytes'))} ({w.get('source')})" if w.get("bytes") is not None
                     else f"n/a ({w.get('reason')})")
        net = fmt(p.get("cpu_us_net")) if p.get("cpu_us_net") is not None else f"n/a ({p.get('cpu_net_reason') or 'not computed'})"
        lines.append(f"| {phase_id(r)} | {per} | {fmt(p.get('ops'))} | {net} | {fmt(p.get('cpu_us'))} | "
                     f"{fmt(p.get('instructions'))} | {fmt(p.get('net_bytes'))} | {wal_total} | {fmt(p.get('wal_bytes'))} |")
    return lines + [""] + _further_log_lines(runs)


def _further_log_lines(runs):
    """A table per log a database keeps beside its WAL (its hooks' LOGS: MySQL's binary log), with
    the runs that have it; nothing for runs without one."""
    lines = []
    logs = {name: what for r in runs for name, (what, _) in (databases.hook(r["database"], "LOGS") or {}).items()}
    for name, what in logs.items():
        having = [r for r in runs if isinstance(r.get(name), dict)]
        if not having:
            continue
        lines += [f"The {what} beside the WAL/journal above, between the same readings:", "",
                  f"| phase | per | {what} (phase) | {what} B |", "|---|---|---|---|"]
        for r in having:
            p, log = r.get("per_op") or {}, r[name]
            total = (f"{fmt_bytes(log.get('bytes'))} ({log.get('source')})" if log.get("bytes") is not None
                     else f"n/a ({log.get('reason')})")
            per = p.get("op") or ("op of the mix " + _mix_text(p.get("mix"))).strip()
            lines.append(f"| {phase_id(r)} | {per} | {total} | {fmt(p.get(f'{name}_bytes'))} |")
        lines.append("")
    return lines
