"""Query phases (stage `query`, docs/contracts.md §2 "query"): per-query figures of one run and the
top-level `queries` comparison across databases (results.json), and its REPEAT summary.

A query phase's client ran K executions of one query type; its result file's `query` object holds
each execution's answer digest and the first normalised rows of each answer. Here:
- `run_query(run, clients, bench_dir)`: the run's `query` section: status (ok | unsupported |
  incomplete), the digest over the K executions, and the cost per query (latency percentiles,
  CPU, instructions, network and disk bytes divided by the answered executions) with the plan file;
- `compare(runs)`: per query name, both databases side by side: digests, `answers_equal`, and
  mongodb/postgres ratios of the per-query figures only when the answers are equal. On a mismatch
  the comparison fails (`status: "answers differ"`, no ratio) and the first differing execution's
  rows of each side are shown. A side the server refused is `unsupported`, with the server's words.
- `repeat_summary(per_rep, ratios)`: with REPEAT > 1, each query's ratios with their confidence
  intervals from the repeat machinery (analysis/experiments/repeat.py pairs `mongodb-q-X` with `postgres-q-X`),
  kept only if every repetition's answers were equal.
"""
from ..common import databases
from ..bench import folder
from ..common.labels import fmt, fmt_ratio

PER_QUERY_FIELDS = ("latency_p50_ms", "latency_p99_ms", "service_p50_ms", "service_p99_ms", "cpu_us", "cpu_us_gross",
                    "cpu_us_net", "instructions", "net_bytes", "read_bytes", "write_bytes")
QUERY_PREFIX = "-q-"


def query_name_of(phase_id):
    """`mongodb-q-olap-a` -> `olap-a`; None for another phase."""
    return phase_id.split(QUERY_PREFIX, 1)[1] if QUERY_PREFIX in phase_id else None


def _div(v, n, scale=1.0):
    return None if v is None or not n else v * scale / n


def run_query(run, clients, bench_dir):
    """The `query` section of a query phase's run (clients: [(path, result)] of the phase)."""
    q = next((c.get("query") for _, c in clients if c.get("query")), None)
    name = query_name_of(run["phase"])
    plan = f"{run['phase']}.plan.json"
    plan_file = plan if folder.of(bench_dir).exists(plan) else None
    if q is None:
        return {"name": name, "status": "missing", "reason": "no client result file with a `query` object",
                "executions": None, "answered": 0, "digest": None, "per_execution": [], "answers": [],
                "params_of_first": None, "plan_file": plan_file, "per_query": None}
    answered = int(q.get("answered") or 0)
    op = (run.get("operations") or {}).get(name) or {}
    lat = op.get("latency_ms") or run.get("latency_ms") or {}
    svc = op.get("service_ms") or run.get("service_ms") or {}
    cpu = run.get("cpu") or {}
    cpu_s = None if cpu.get("user_s") is None or cpu.get("system_s") is None else cpu["user_s"] + cpu["system_s"]
    net = run.get("network") or {}
    net_b = None if net.get("rx_bytes") is None or net.get("tx_bytes") is None else net["rx_bytes"] + net["tx_bytes"]
    disk = run.get("disk") or {}
    usage = cpu.get("usage") or {}
    reasons = []
    if answered and usage.get("net_s") is None:
        reasons.append(f"cpu_us_net: {usage.get('reason') or 'no idle-netted CPU'}")
    if not answered:
        reasons.append("no execution answered: no per-query figure")
    if cpu.get("instructions") is None:
        reasons.append(f"instructions: {cpu.get('perf_reason') or 'no hardware counters on this host'}")
    if disk.get("reason"):
        reasons.append(f"disk: {disk['reason']}")
    per_query = {
        "executions": answered,
        "about": ("the phase window's resources (its guard seconds of idle database included) divided by the "
                  "answered executions; cpu_us_net: the window's CPU (nanosecond counter) less the database's idle "
                  "rate over the same time, over the answered executions; cpu_us_gross: the same counter without "
                  "that subtraction; cpu_us: user + system ticks, gross"),
        "latency_p50_ms": lat.get("p50") if answered else None,
        "latency_p99_ms": lat.get("p99") if answered else None,
        "latency_max_ms": lat.get("max") if answered else None,
        # service: from hand-off to answer (latency also holds lateness behind the schedule)
        "service_p50_ms": svc.get("p50") if answered else None,
        "service_p99_ms": svc.get("p99") if answered else None,
        "cpu_us": _div(cpu_s, answered, 1e6),
        # the nanosecond counter: gross over the window, and net of the database's idle rate
        # (analysis/collect/idle.py); net is the query's own cost, gross what the window held
        "cpu_us_gross": _div(usage.get("gross_s"), answered, 1e6),
        "cpu_us_net": _div(usage.get("net_s"), answered, 1e6),
        "idle_rate_cores": (usage.get("idle") or {}).get("rate_cores"),
        "instructions": _div(cpu.get("instructions"), answered),
        "net_bytes": _div(net_b, answered),
        "read_bytes": _div(disk.get("read_bytes"), answered),
        "write_bytes": _div(disk.get("write_bytes"), answered),
        "reason": "; ".join(reasons) or None,
    }
    return {
        "name": q.get("name") or name,
        "about": q.get("about"),
        "status": q.get("status") or "ok",
        "reason": q.get("reason"),
        "executions": q.get("executions"),
        "answered": answered,
        "rate": q.get("rate"),
        "paced": q.get("paced"),
        "params_of_first": q.get("params_of_first"),
        "form_of_first": q.get("form_of_first"),
        "normalisation": q.get("normalisation"),
        "digest": q.get("digest"),
        "per_execution": q.get("per_execution") or [],
        "answers": q.get("answers") or [],
        "standin_gaps": q.get("standin_gaps") or [],
        "plan_file": plan_file,
        "per_query": per_query,
    }


def _first_difference(a, b):
    """The first execution whose digests differ, with both sides' normalised rows."""
    da = {e["k"]: e for e in a.get("per_execution") or []}
    db = {e["k"]: e for e in b.get("per_execution") or []}
    rows_a = {e["k"]: e for e in a.get("answers") or []}
    rows_b = {e["k"]: e for e in b.get("answers") or []}
    for k in sorted(set(da) | set(db)):
        ea, eb = da.get(k), db.get(k)
        if not ea or not eb or ea["digest"] != eb["digest"]:
            return {"k": k, "digests": [ea and ea["digest"], eb and eb["digest"]],
                    "rows": [ea and ea["rows"], eb and eb["rows"]],
                    "answers": [(rows_a.get(k) or {}).get("rows"), (rows_b.get(k) or {}).get("rows")]}
    return None


def _empty(q):
    """Every execution answered, each with 0 rows."""
    execs = q.get("per_execution") or []
    return bool(execs) and all(e.get("rows") == 0 for e in execs)


def compare(runs, numerator=None, denominator=None):
    """{query name: comparison} over the query runs (runs[] entries with a `query` section); the
    ratio numerator/denominator by default the stated baseline (databases/baseline.json)."""
    numerator, denominator = databases.pair(numerator, denominator)
    by_name = {}
    for r in runs:
        if r.get("stage") == "query" and r.get("query"):
            by_name.setdefault(r["query"]["name"], {})[r["database"]] = r
    out = {}
    for name, sides in by_name.items():
        num, den = sides.get(numerator), sides.get(denominator)
        entry = {
            "about": next((s["query"].get("about") for s in sides.values() if s["query"].get("about")), None),
            "numerator": numerator, "denominator": denominator,
            "databases": {db: {
                "phase": s["phase"], "run_status": s["status"], "status": s["query"]["status"],
                "reason": s["query"].get("reason"), "stand_in": s.get("stand_in"), "digest": s["query"]["digest"],
                "executions": s["query"]["executions"], "answered": s["query"]["answered"],
                "rows_first": (s["query"]["per_execution"] or [{}])[0].get("rows"),
                "per_query": s["query"]["per_query"], "plan_file": s["query"]["plan_file"],
            } for db, s in sides.items()},
            "answers_equal": None, "status": None, "reason": None, "ratio": None, "first_difference": None,
            "stand_in": any(s.get("stand_in") for s in sides.values()),
        }
        # a database beyond the pair is compared with the baseline's denominator, as the numerator is
        others = databases.others(sides)
        compared = [db for db in (numerator, *others) if db in sides]
        missing = [db for db in (numerator, denominator) if db not in sides and not (db == numerator and others)]
        unsupported = [db for db, s in sides.items() if s["query"]["status"] == "unsupported"]
        unfinished = [db for db, s in sides.items()
                      if s["query"]["status"] not in ("ok", "unsupported") or s["status"] not in ("ok", "suspect")]
        if unsupported:
            entry["status"] = "unsupported"
            entry["reason"] = "; ".join(f"{db}: {sides[db]['query']['reason']}" for db in unsupported)
        elif missing or unfinished:
            entry["status"] = "incomplete"
            entry["reason"] = "; ".join([f"{db}: no query phase" for db in missing]
                                        + [f"{db}: {sides[db]['query']['status']} / phase {sides[db]['status']}"
                                           + (f" ({sides[db]['query']['reason'] or sides[db].get('reason')})"
                                              if sides[db]['query']['reason'] or sides[db].get('reason') else "")
                                           for db in unfinished])
        else:
            qb = den["query"]

            def same(db):
                qa = sides[db]["query"]
                return qa["digest"] is not None and qa["digest"] == qb["digest"] and qa.get("normalisation") == qb.get("normalisation")
            differ = [db for db in compared if not same(db)]
            entry["answers_equal"] = not differ
            if differ:
                entry["status"] = "answers differ"
                first = differ[0]
                diff = _first_difference(sides[first]["query"], qb)
                entry["first_difference"] = diff and {
                    "k": diff["k"], first: {"digest": diff["digests"][0], "rows": diff["rows"][0], "answer": diff["answers"][0]},
                    denominator: {"digest": diff["digests"][1], "rows": diff["rows"][1], "answer": diff["answers"][1]}}
                entry["reason"] = (f"execution {diff['k']}: {first} answered {diff['rows'][0]} rows, {denominator} "
                                   f"{diff['rows'][1]} rows, digests differ: the figures are not compared"
                                   if diff else "the normalisations differ")
                if others:  # three databases or more: which ones agree with the denominator
                    agree = [db for db in compared if db not in differ]
                    entry["differ"] = differ
                    entry["reason"] += (f"; answers differ from {denominator}'s on {', '.join(differ)}"
                                        + (f", equal on {', '.join(agree)}" if agree else ""))
            elif _empty(qb) and all(_empty(sides[db]["query"]) for db in compared):
                # empty answers agree on nothing: the query selected no data here
                entry["answers_equal"] = None
                entry["status"] = "empty"
                entry["reason"] = (f"{'both' if not others else 'all ' + str(len(compared) + 1)} databases answered 0 rows "
                                   "in every execution: the answer was empty (the query selects nothing in this data set), "
                                   "so equal digests prove nothing; no ratio")
            else:
                entry["status"] = "ok"
                pb = qb["per_query"] or {}
                flagged = [f"{db} phase suspect ({sides[db].get('reason')})"
                           for db in dict.fromkeys([*compared[:1], denominator, *compared[1:]])
                           if sides[db]["status"] == "suspect"]

                def ratio(db):
                    pa = sides[db]["query"]["per_query"] or {}
                    return {f: (pa.get(f) / pb[f] if pa.get(f) is not None and pb.get(f) else None) for f in PER_QUERY_FIELDS}
                if flagged:  # the answers agree, but a window held work the lab did not send
                    entry["reason"] = "no ratio: " + "; ".join(flagged)
                else:
                    if num is not None:
                        entry["ratio"] = ratio(numerator)
                    if others:
                        entry["other_ratios"] = {f"{db}/{denominator}": ratio(db) for db in others}
        out[name] = entry
    return out


# figures.py paths of the per-query figures: the query run's `query.per_query`, the very figures a
# single run compares (CPU per query net of idle beside the gross ones, each named)
def _repeat_paths(name):
    return {f: f"query.per_query.{f}" for f in PER_QUERY_FIELDS}


def repeat_summary(per_rep, ratios, numerator=None, denominator=None):
    """{query name: {answers_equal per repetition, status, ratio: {field: repeat summary with CI}}}."""
    numerator, denominator = databases.pair(numerator, denominator)
    names = []
    for r in per_rep:
        for n in ((r or {}).get("queries") or {}):
            if n not in names:
                names.append(n)
    out = {}
    for name in names:
        entries = [((r or {}).get("queries") or {}).get(name) for r in per_rep]
        equal = [e.get("answers_equal") if e else None for e in entries]
        statuses = [e.get("status") if e else None for e in entries]
        pair = ratios.get(f"{numerator}-q-{name}/{denominator}-q-{name}") or {}
        entry = {"answers_equal": equal, "statuses": statuses, "status": None, "reason": None, "ratio": None}
        if any(s == "unsupported" for s in statuses):
            entry["status"] = "unsupported"
            entry["reason"] = next(e["reason"] for e in entries if e and e.get("status") == "unsupported")
        elif any(s == "answers differ" for s in statuses):
            entry["status"] = "answers differ"
            entry["reason"] = "repetitions " + ", ".join(str(i + 1) for i, s in enumerate(statuses) if s == "answers differ") + \
                ": the databases' answers differ; no ratio"
        elif any(s == "empty" for s in statuses):
            entry["status"] = "empty"
            entry["reason"] = "repetitions " + ", ".join(str(i + 1) for i, s in enumerate(statuses) if s == "empty") + \
                ": both databases' answers were empty; no ratio"
        elif all(s == "ok" for s in statuses):
            entry["status"] = "ok"
            entry["ratio"] = {f: (pair.get(p) if p else None) for f, p in _repeat_paths(name).items()}
            # three databases or more: each further one's against the denominator, as the pair's
            ran = [k.split("/")[0].split(QUERY_PREFIX)[0] for k in ratios]
            more = {db: ratios[f"{db}-q-{name}/{denominator}-q-{name}"] for db in databases.others(ran)
                    if f"{db}-q-{name}/{denominator}-q-{name}" in ratios}
            if more:
                entry["other_ratios"] = {f"{db}/{denominator}": {f: (r.get(p) if p else None) for f, p in _repeat_paths(name).items()}
                                         for db, r in more.items()}
        else:
            entry["status"] = "incomplete"
            entry["reason"] = "not every repetition compared this query: " + ", ".join(map(str, statuses))
        out[name] = entry
    return out


_ROWS = (("latency p50 (ms)", "latency_p50_ms"), ("latency p99 (ms)", "latency_p99_ms"),
         ("service time p50 (ms)", "service_p50_ms"), ("service time p99 (ms)", "service_p99_ms"),
         ("CPU per query, net of idle (µs)", "cpu_us_net"), ("CPU per query, gross (µs)", "cpu_us_gross"),
         ("CPU per query, gross user+system ticks (µs)", "cpu_us"), ("instructions per query (user mode)", "instructions"),
         ("network per query (B)", "net_bytes"), ("disk read per query (B)", "read_bytes"),
         ("disk write per query (B)", "write_bytes"))


def _label(db):
    return (databases.known_manifests().get(db) or {}).get("label", db)


def _other_verdict(q, db):
    """A database's cell of the digest row when three or more ran: its answers against the denominator's."""
    if q.get("answers_equal") is None and not q.get("differ"):
        return "n/a"
    return "differ" if db in (q.get("differ") or []) else "equal"


def _short(digest):
    return f"`{digest[:12]}`" if digest else "n/a"


def report_lines(result, numerator=None, denominator=None):
    """report.md's "Queries" section (empty without query phases)."""
    numerator, denominator = databases.pair(numerator, denominator)
    qs = result.get("queries") or {}
    if not qs:
        return []
    # three databases or more: each further one's ratio is against the baseline's denominator
    many = any(len(q.get("databases") or {}) > 2 for q in qs.values())
    both = "every database" if many else "both databases"
    lines = ["## Queries", "",
             f"Each query type ran in its own window, K executions by one client with the same parameters on {both}; every answer was digested after normalisation (docs/contracts.md §2 `query`). Costs per "
             "query are the window's resources (its idle guard seconds included) over the answered executions; "
             "\"net of idle\" subtracts the database's idle CPU rate, read in the same phase just before the "
             "clients started, over the window's length (analysis/collect/idle.py). "
             f"A ratio is shown only when {both} gave the same answers"
             + (f"; a database beyond {numerator}/{denominator} is set against {denominator}." if many else "."), ""]
    for db, stmts in (result.get("indexes") or {}).items():
        lines += [f"Indexes on {db} (declared once by the query set, created before the load): "
                  + "; ".join(f"`{x}`" for x in stmts), ""]
    for name, q in qs.items():
        dbs = q.get("databases") or {}
        cols = [db for db in (numerator, denominator) if db in dbs] + [db for db in dbs if db not in (numerator, denominator)]
        lines += [f"### {name}", ""]
        if q.get("about"):
            lines += [q["about"], ""]
        verdict = {"ok": f"**answers equal** (same digest on {'all' if len(dbs) > 2 else 'both'})", "answers differ": "**ANSWERS DIFFER**: the figures are "
                   "not compared", "unsupported": "**unsupported**", "incomplete": "**incomplete**",
                   "empty": f"**EMPTY ANSWER** on {'all' if len(dbs) > 2 else 'both'}: nothing compared"}.get(q["status"], q["status"])
        lines += [f"Status: {verdict}" + (f" ({q['reason']})" if q.get("reason") else "")
                  + "".join(f" - a {_label(db)} stand-in is involved: not a {_label(db)} result"
                            for db in cols if dbs[db].get("stand_in")), ""]
        more = list(q.get("other_ratios") or {}) or [f"{db}/{denominator}" for db in databases.others(cols)]
        head = [""] + cols + [f"{numerator}/{denominator}"] + more
        rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for label, f in _ROWS:
            cells = [label] + [fmt(((dbs[db].get("per_query") or {}).get(f))) for db in cols]
            cells.append(fmt_ratio((q.get("ratio") or {}).get(f)))
            cells += [fmt_ratio(((q.get("other_ratios") or {}).get(pair) or {}).get(f)) for pair in more]
            rows.append("| " + " | ".join(cells) + " |")
        rows.append("| " + " | ".join(["executions answered / K"] + [f"{dbs[db]['answered']} / {dbs[db]['executions']}" for db in cols] + [""] * (1 + len(more))) + " |")
        rows.append("| " + " | ".join(["answer digest"] + [_short(dbs[db].get("digest")) for db in cols]
                                      + [_other_verdict(q, numerator) if q.get("differ") else
                                         "equal" if q.get("answers_equal") else ("differ" if q.get("answers_equal") is False else "n/a")]
                                      + [_other_verdict(q, pair.split("/")[0]) for pair in more]) + " |")
        rows.append("| " + " | ".join(["status"] + [dbs[db]["status"] + (f": {dbs[db]['reason']}" if dbs[db].get("reason") else "")
                                                    for db in cols] + [""] * (1 + len(more))) + " |")
        rows.append("| " + " | ".join(["plan"] + [f"[{dbs[db]['plan_file']}]({dbs[db]['plan_file']})" if dbs[db].get("plan_file")
                                                  else "n/a" for db in cols] + [""] * (1 + len(more))) + " |")
        lines += rows + [""]
        d = q.get("first_difference")
        if d:
            lines += [f"First differing execution: k = {d['k']}.", ""]
            for db in [k for k in d if k != "k"]:  # the first database that differs, then the denominator
                side = d.get(db) or {}
                lines += [f"{db} ({side.get('rows')} rows, digest {_short(side.get('digest'))}):", "", "```",
                          *[str(r) for r in (side.get("answer") or [])[:20]], "```", ""]
    return lines


def indexes(bench_dir, databases):
    """{database: [the DDL / createIndex call `init` ran for each declared index]} from the `index: `
    lines `node client init` prints into <db>.out; None when no database created any."""
    out = {}
    bench = folder.of(bench_dir)
    for db in databases:
        lines = [ln.strip()[len("index: "):] for ln in bench.lines(f"{db}.out") or () if ln.strip().startswith("index: ")]
        if lines:
            out[db] = lines
    return out or None


def repeat_report_lines(summary):
    """The REPEAT report's "Queries" section from repeat_summary's output (None: no section)."""
    if not summary:
        return []
    lines = ["## Queries", "", "Per query: were both databases' answers equal in every repetition, and the "
             "mongodb/postgres ratio per query with its 95% interval (only when they all were). CPU per query is "
             "net of the database's idle rate, as a single run's report gives it (the gross figure, the window's "
             "idle guard seconds included, is in the tables below).", "",
             "| query | answers equal per repetition | status | latency p50 | CPU per query, net of idle | network per query |",
             "|---|---|---|---|---|---|"]

    def cell(s):
        if not s or s.get("mean") is None:
            return "n/a"
        ci = s.get("ci")
        if ci is None:
            return f"{s['mean']:.3f}x" + (" (one value)" if s.get("n", 0) < 2 else " (identical values: no interval)")
        return f"{s['mean']:.3f}x [{ci['low']:.3f}, {ci['high']:.3f}]"
    for name, q in summary.items():
        r = q.get("ratio") or {}
        eq = ", ".join("n/a" if e is None else ("yes" if e else "NO") for e in q["answers_equal"])
        lines.append(f"| {name} | {eq} | {q['status']}" + (f": {q['reason']}" if q.get("reason") else "")
                     + f" | {cell(r.get('latency_p50_ms'))} | {cell(r.get('cpu_us_net'))} | {cell(r.get('net_bytes'))} |")
        for pair, o in (q.get("other_ratios") or {}).items():  # a further database, against the denominator
            lines.append(f"| {name} ({pair}) | {eq} | {q['status']} | {cell(o.get('latency_p50_ms'))} | "
                         f"{cell(o.get('cpu_us_net'))} | {cell(o.get('net_bytes'))} |")
    return lines + [""]
