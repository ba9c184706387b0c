"""`check`: does a (short) run's results.json hold every figure, or say why not? (`./runme.sh check`)

Table-driven: each ROW names where its figure lives (results.json run, its phase manifest, the
bench folder) and where a reason for its absence may be written. A row whose source field does not
exist at all prints "not checked (field absent)": fields added later by other parts of the lab
(reconciliation, foreign processes, monitoring CPU, disk devices, profile info) then need one row
each and never break older results. A figure that is null with no reason anywhere is MISSING:
that, a failed phase or a missing phase is what makes the check fail (exit 1).
"""
import math
import os
import re
from dataclasses import dataclass
from typing import Callable, Optional

from ..common.errors import AnalysisError
from ..bench import folder, plan
from ..collect.cadvisor_cause import cause
from ..collect.prom import Prometheus
from ..figures.profile_samples import perf_samples, server_comms

ABSENT = object()  # the source field does not exist in this results.json (older or newer lab)

OK, UNAVAILABLE, MISSING, WARN, NOT_CHECKED = "ok", "unavailable", "missing", "warn", "not checked"


@dataclass
class Cell:
    state: str
    text: str  # the value shown, or the reason / what is missing

    def short(self, footnote=None):
        if self.state == OK:
            return self.text
        if self.state == UNAVAILABLE:
            return f"not measured [{footnote}]"
        if self.state == WARN:
            return f"WARNING [{footnote}]"
        if self.state == MISSING:
            return "MISSING"
        return self.text


@dataclass
class Ctx:
    ph: folder.Phase  # the phase's files (bench/folder.py), each read once for every row
    results: dict
    run: dict
    phase: dict
    run_env: dict
    prometheus: Optional[str]


def get(obj, path):
    """results.json field by dotted path; ABSENT when a key on the way does not exist."""
    for key in path.split("."):
        if not isinstance(obj, dict) or key not in obj:
            return ABSENT
        obj = obj[key]
    return obj


def fmt_bytes(v):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(v) >= size:
            return f"{v / size:.1f} {unit}"
    return f"{v:.0f} B"


def fmt_seconds(v):
    return f"{v:.2f} s"


def fmt_count(v):
    return f"{v:,.0f}"


def note_reason(ctx, *words):
    """A run note (results.json runs[].notes) that mentions every word: the stated reason."""
    service = ctx.run.get("service") or ctx.run.get("database")
    notes = [n for n in ctx.run.get("notes") or [] if all(w in n for w in words)]
    own = [n[len(service) + 2:] for n in notes if n.startswith(f"{service}: ")]
    return (own or notes or [None])[0]


def _query_system_zero(run):
    """A query phase of a few fast queries can spend no kernel time the cgroup's user/system split
    records (it counts in 10 ms ticks): its system CPU is then a true 0, its user CPU not."""
    user = get(run, "cpu.user_s")
    if run.get("stage") == "query" and isinstance(user, (int, float)) and user > 0:
        return "query phase: kernel time below the cgroup's 10 ms accounting tick"
    return None


def value_row(path, fmt, metric, host_may_lack=False, reason_paths=(), zero_ok=None):
    """A figure read from the run: data, or null with a reason, or MISSING.

    Only a figure the host may not provide (host_may_lack: block I/O bytes, which depend on the
    host's block layer and cgroup accounting) takes a run note naming its metric ("no ... series in
    Prometheus") as its reason. For CPU, memory and network that note is a symptom of a broken
    export, not a property of the host: MISSING, with the note shown. Those also must be > 0: a
    database that took 20 s of inserts spent some CPU, memory and network. zero_ok(run) -> the
    reason a 0 is a true reading for that run (else None)."""
    def check(ctx):
        v = get(ctx.run, path)
        if v is ABSENT:
            return Cell(NOT_CHECKED, "not checked (field absent)")
        if v is not None and (host_may_lack or v > 0):
            return Cell(OK, fmt(v))
        why_zero = zero_ok(ctx.run) if zero_ok and v == 0 else None
        if why_zero:
            return Cell(OK, f"{fmt(v)} ({why_zero})")
        if v is not None:
            return Cell(MISSING, f"{path} is {v}: no data for a phase under load")
        for rp in reason_paths:
            r = get(ctx.run, rp)
            if isinstance(r, str) and r:
                return Cell(UNAVAILABLE, r)
        note = note_reason(ctx, metric)
        if note and host_may_lack:
            return Cell(UNAVAILABLE, note)
        return Cell(MISSING, f"{path} is null and no reason is given" + (f" (results.json notes: {note})" if note else ""))
    return check


def check_phase(ctx):
    status = ctx.run.get("status")
    if status == "ok":
        return Cell(OK, "ok")
    if status == "suspect":
        # every figure is there; the window held work the lab did not send (or two readings of its
        # CPU disagree): a WARNING with the counters, which does not stop the run (README)
        return Cell(WARN, "phase suspect: foreign work or readings that disagree, figures kept and flagged: "
                          + (ctx.run.get("reason") or "no reason given"))
    return Cell(MISSING, f"phase {status}: {ctx.run.get('reason') or 'no reason given'}")


def check_instructions(ctx):
    cpu = ctx.run.get("cpu") or {}
    if cpu.get("instructions") is not None:
        return Cell(OK, f"{fmt_count(cpu['instructions'])} ({cpu.get('instructions_event')})")
    soft = ", ".join(sorted((cpu.get("perf_events") or {}).keys()))
    note = note_reason(ctx, "instructions not counted")
    if note:  # "instructions not counted (WHY); software events only"
        m = re.search(r"instructions not counted \((.*)\)", note)
        note = m.group(1) if m else note
    why = cpu.get("perf_reason") or note or (get(ctx.results, "host.hardware_counters.reason") or None)
    if isinstance(why, str) and why:
        if soft:
            why = f"{why}; software events used instead: {soft}"
        return Cell(UNAVAILABLE, why)
    return Cell(MISSING, "cpu.instructions is null and no reason is given")


def check_perf_events(ctx):
    cpu = ctx.run.get("cpu") or {}
    events = cpu.get("perf_events") or {}
    counted = [k for k, v in events.items() if v is not None]
    if counted:
        return Cell(OK, f"{len(counted)} events")
    why = cpu.get("perf_reason") or get(ctx.phase, "perf.reason")
    if isinstance(why, str) and why:
        return Cell(UNAVAILABLE, why)
    return Cell(MISSING, "no perf stat event counted and no reason given")


def check_perf_samples(ctx):
    db, ph = ctx.run.get("database"), ctx.run.get("phase") or ctx.run.get("database")
    path = ctx.ph.profile_path()  # D.perf, else D.perf.gz, not empty
    if path is None:
        # The phase manifest's own reasons only: results.json's fallback for a manifest without
        # perf.profile ("older run") says nothing about why this host recorded no profile.
        for why in (get(ctx.phase, "perf.reason"), get(ctx.phase, "perf.profile.reason")):
            if isinstance(why, str) and why:
                return Cell(UNAVAILABLE, why)
        if str(ctx.run_env.get("PERF_RECORD_S", "")).strip() == "0":
            return Cell(UNAVAILABLE, "PERF_RECORD_S=0: no profile asked for")
        return Cell(MISSING, f"no {ph}.perf profile and no reason given")
    server = server_comms(db)
    total, own, comms = perf_samples(ctx.ph.profile_samples(), server)
    if own == 0:
        return Cell(MISSING, f"{os.path.basename(path)}: {total} samples, none of the server "
                             f"({'/'.join(sorted(server))}); comms: {', '.join(comms) or 'none'}")
    return Cell(OK, f"{own}/{total} {'/'.join(c for c in comms if c in server) or 'server'}")


def _phase_id(ctx):
    return ctx.run.get("phase") or ctx.run.get("database")


def check_compose_labels(ctx):
    metrics = ctx.ph.metrics()
    if metrics is None:
        return Cell(MISSING, f"{_phase_id(ctx)}.metrics.json missing: the export found nothing")
    service = ctx.run.get("service") or ctx.run.get("database")
    found = get(metrics, f"services.{service}.containers")
    if found and found is not ABSENT:
        return Cell(OK, f"{len(found)} container(s)")
    why = cause(ctx.prometheus, (ctx.run.get("window") or {}).get("end") or 0)
    return Cell(MISSING, f"no cAdvisor series with compose labels project={metrics.get('project')!r} "
                         f"service={service!r}" + (f": {why}" if why else ""))


def check_database_gaps(ctx):
    """Holes in the database's own cAdvisor series inside the window (D.metrics.json gaps): its
    figures are then deltas across the hole. Clients' gaps are expected (created in the window)."""
    metrics = ctx.ph.metrics()
    if metrics is None or "gaps" not in metrics:
        return Cell(NOT_CHECKED, "not checked (no gaps in the metrics export)")
    service = ctx.run.get("service") or ctx.run.get("database")
    gaps = [g for g in metrics["gaps"] or [] if g.get("service") == service]
    if not gaps:
        return Cell(OK, "none")
    longest = max(float(g.get("seconds") or 0) for g in gaps)
    return Cell(WARN, f"{len(gaps)} hole(s) in the database's cAdvisor series in the window, longest "
                      f"{longest:.1f} s (scrape interval {metrics.get('scrape_interval_s')} s)")


CLIENT_LINGER_S = 10  # a query client's metrics linger (8 s) and one scrape interval (2 s)


def check_client_metrics(ctx):
    if not ctx.prometheus:
        return Cell(NOT_CHECKED, "not checked (no --prometheus)")
    w = ctx.run.get("window") or {}
    if w.get("start") is None or w.get("end") is None:
        return Cell(MISSING, "no phase window")
    # A query phase's window ends when its last query returns; the client keeps /metrics up 8 s more
    # (lab/driver/bench.py) so a fast query's client is scraped after the window: look that far beyond it.
    after = CLIENT_LINGER_S if ctx.run.get("stage") == "query" else 0
    rng = max(1, math.ceil(w["end"] + after - w["start"]))
    expr = f'max_over_time(jsonbench_client_docs_ok_total{{database="{ctx.run.get("database")}"}}[{rng}s])'
    try:
        series = Prometheus(ctx.prometheus, timeout=10).query(expr, w["end"] + after).get("result") or []
    except AnalysisError as e:
        return Cell(MISSING, f"Prometheus query failed: {e}")
    if not series:
        return Cell(MISSING, "no jsonbench_client_docs_ok_total series in Prometheus in the window")
    total = sum(float(s["value"][1]) for s in series)
    # one series per client and operation type (label `op`): count the clients
    clients = len({(s.get("metric") or {}).get("client_id", i) for i, s in enumerate(series)})
    unit = "docs" if {(s.get("metric") or {}).get("op", "insert") for s in series} == {"insert"} else "ops"
    return Cell(OK, f"{clients} client(s), {fmt_count(total)} {unit}")


def check_documents(ctx):
    # documents the clients' acknowledged inserts leave in the database (this phase's and the
    # database's earlier phases'); older results: the phase's acknowledged documents
    ok, counted = ctx.run.get("docs_expected_in_db", ctx.run.get("docs_ok")), ctx.run.get("docs_in_db")
    check = ctx.run.get("booking_check")
    if check is not None:  # booking: count's nothing-lost check decides (it knows the in-doubt commits)
        if not check.get("ok"):
            return Cell(MISSING, "nothing-lost check failed: " + "; ".join(check.get("problems") or []))
        if check.get("ids_checked") is None:
            return Cell(MISSING, "nothing-lost check ran without the clients' outcomes: no booking looked for by id")
        return Cell(OK, f"{fmt_count(check['ids_checked'])} booking ids looked for: every one of the "
                        f"{fmt_count(check.get('committed'))} committed there, seats {fmt_count(check.get('seats'))}")
    if ok is None or counted is None:
        return Cell(MISSING, f"documents acknowledged {ok}, counted {counted}")
    if not ok:
        return Cell(MISSING, "no document acknowledged")
    if ok != counted:
        return Cell(MISSING, f"counted {counted} != acknowledged {ok}")
    return Cell(OK, f"{fmt_count(counted)} = {fmt_count(ok)}")


def check_reconciliation(ctx):
    """results.json runs[].reconciliation (analysis/figures/reconcile.py): verdict ok | suspect | unavailable."""
    rec = get(ctx.run, "reconciliation")
    if rec is ABSENT:
        return Cell(NOT_CHECKED, "not checked (field absent)")
    rec = rec if isinstance(rec, dict) else {}
    verdict = rec.get("verdict")
    if verdict == "suspect":
        # Figures are there but include work the lab did not ask for: said loudly, does not stop a run.
        return Cell(WARN, "server counters show work the lab did not ask for: "
                          + "; ".join(map(str, rec.get("reasons") or [])))
    if verdict == "unavailable" or verdict is None:
        why = rec.get("unavailable") or rec.get("reason")
        return Cell(UNAVAILABLE, str(why)) if why else Cell(MISSING, "reconciliation without a verdict or a reason")
    return Cell(OK, str(verdict))


def check_foreign_processes(ctx):
    """cgroup_processes.foreign: the comms other than the server seen in the database container
    during the window (D.phase.json; results.json if it repeats it)."""
    for source in (ctx.run, ctx.phase):
        foreign = get(source, "cgroup_processes.foreign")
        if foreign is ABSENT:
            continue
        why = get(source, "cgroup_processes.reason")
        if foreign is None or (not foreign and isinstance(why, str) and why):
            # a watch that could not read the cgroup saw nothing: not "none"
            return Cell(UNAVAILABLE, why) if isinstance(why, str) and why else \
                Cell(MISSING, "cgroup_processes.foreign is null and no reason is given")
        if foreign:
            return Cell(WARN, f"processes other than the server in the measured cgroup: {', '.join(map(str, foreign))}")
        return Cell(OK, "none")
    return Cell(NOT_CHECKED, "not checked (field absent)")


def check_profile(ctx):
    """runs[].profile (or D.phase.json perf.profile): {file, samples, frequency_hz, reason}."""
    for source, path in ((ctx.run, "profile"), (ctx.phase, "perf.profile")):
        p = get(source, path)
        if p is ABSENT:
            continue
        p = p if isinstance(p, dict) else {}
        if p.get("file"):
            return Cell(OK, f"{p.get('samples')} samples at {p.get('frequency_hz')} Hz")
        if p.get("reason"):
            return Cell(UNAVAILABLE, str(p["reason"]))
        return Cell(MISSING, "no profile file and no reason given")
    return Cell(NOT_CHECKED, "not checked (field absent)")


def check_monitoring(ctx):
    """runs[].monitoring: cAdvisor's and Prometheus's own CPU in the window {cadvisor_cpu_s,
    prometheus_cpu_s, per_s, reason}."""
    mon = get(ctx.run, "monitoring")
    if mon is ABSENT:
        return Cell(NOT_CHECKED, "not checked (field absent)")
    mon = mon if isinstance(mon, dict) else {}
    if mon.get("per_s") is not None:
        return Cell(OK, f"{mon['per_s'] * 100:.1f}% of a core")
    if mon.get("reason"):
        return Cell(UNAVAILABLE, str(mon["reason"]))
    return Cell(MISSING, "monitoring CPU is null and no reason is given")


def check_disk_devices(ctx):
    """runs[].disk.devices: the block device(s) of Docker's data root the disk figures count, or
    disk.reason when none (results.py says why: no device found, no series on it, older export)."""
    devices, reason = get(ctx.run, "disk.devices"), get(ctx.run, "disk.reason")
    if devices is ABSENT:
        return Cell(NOT_CHECKED, "not checked (field absent)")
    if devices:
        return Cell(OK, summarise(devices))
    if isinstance(reason, str) and reason:
        return Cell(UNAVAILABLE, reason)
    metrics = ctx.ph.metrics()
    if metrics is not None and "disk_devices" not in metrics:
        return Cell(NOT_CHECKED, "not checked (the export predates the device filter)")
    return Cell(MISSING, "disk.devices is empty and no reason is given")


def first_present(*paths):
    """A value row over the first of several places a field may live (run, then results)."""
    def check(ctx):
        for p in paths:
            where, _, path = p.partition(":")
            v = get(ctx.run if where == "run" else ctx.phase if where == "phase" else ctx.results, path)
            if v is ABSENT:
                continue
            if v is None or v == {} or v == []:
                return Cell(MISSING, f"{path} is empty and no reason is given")
            if isinstance(v, dict) and v.get("reason") and all(x is None for k, x in v.items() if k != "reason"):
                return Cell(UNAVAILABLE, v["reason"])
            return Cell(OK, summarise(v))
        return Cell(NOT_CHECKED, "not checked (field absent)")
    return check


def summarise(v):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return f"{v:.3g}"
    if isinstance(v, list):
        return ", ".join(str(x.get("name", x)) if isinstance(x, dict) else str(x) for x in v)[:40]
    if isinstance(v, dict):
        return ", ".join(f"{k}={summarise(x)}" for k, x in list(v.items())[:2] if not isinstance(x, (dict, list)))[:40] or "present"
    return str(v)[:40]


def check_operations(ctx):
    """runs[].operations: per op type, ok = the latencies its merged histogram holds (a client records a
    latency for each successful operation only: client/src/runner.js sendOne counts an error in its
    catch and records nothing, so errors are not in the histogram)."""
    ops = get(ctx.run, "operations")
    if ops is ABSENT:
        return Cell(NOT_CHECKED, "not checked (field absent)")
    if not ops:
        return Cell(MISSING, "no operation counted (no client result file?)")
    bad = [op for op, o in ops.items() if (o.get("ok") or 0) != o.get("latency_count")]
    if bad:
        return Cell(MISSING, "ok differs from the merged latency histogram's count for " + ", ".join(bad))
    if not sum(o.get("ok") or 0 for o in ops.values()):
        return Cell(MISSING, "no operation succeeded")
    return Cell(OK, ", ".join(f"{op} {fmt_count(o['ok'])}" for op, o in ops.items())[:40])


def check_per_op_instructions(ctx):
    v = get(ctx.run, "per_op.instructions")
    if v is ABSENT:
        return Cell(NOT_CHECKED, "not checked (field absent)")
    if v is not None:
        return Cell(OK, f"{v:,.0f}")
    cell = check_instructions(ctx)  # the phase's instruction count, or why there is none
    return cell if cell.state != OK else Cell(MISSING, "instructions counted but per_op.instructions is null")


def check_wal(ctx, path="wal.bytes", fmt=fmt_bytes):
    def check(c):
        v, w = get(c.run, path), get(c.run, "wal")
        if v is ABSENT or w is ABSENT:
            return Cell(NOT_CHECKED, "not checked (field absent)")
        if v is not None:
            return Cell(OK, f"{fmt(v)} ({w.get('source')})")
        why = (w or {}).get("reason")
        return Cell(UNAVAILABLE, why) if why else Cell(MISSING, f"{path} is null and no reason is given")
    return check(ctx) if ctx is not None else check


def check_timeline(ctx):
    tl = get(ctx.run, "timeline")
    if tl is ABSENT:
        return Cell(NOT_CHECKED, "not checked (field absent)")
    seconds = (tl or {}).get("seconds") or []
    if seconds:
        return Cell(OK, f"{len(seconds)} s")
    why = (tl or {}).get("reason")
    return Cell(UNAVAILABLE, why) if why else Cell(MISSING, "timeline has no second and no reason is given")


def check_query(ctx):
    """runs[].query of a query phase: the answers' digest over the K executions, or why there is none."""
    q = get(ctx.run, "query")
    if q is ABSENT:
        return Cell(NOT_CHECKED, "not checked (field absent)")
    if q.get("status") == "unsupported":
        return Cell(UNAVAILABLE, q.get("reason") or "the server refused the query")
    if q.get("digest"):
        return Cell(OK, f"{q['answered']}/{q['executions']} answered, {q['digest'][:10]}")
    return Cell(MISSING, f"query {q.get('name')}: status {q.get('status')}, no digest ({q.get('reason') or 'no reason given'})")


# A query the server refused has no operation and no per-query figure (and its database may have
# done too little to count a CPU tick): those rows say why.
_REFUSED_ROWS = ("CPU user", "CPU system", "operations per type (= latencies)", "CPU per operation",
                 "CPU per operation, net of idle", "instructions per operation",
                 "network per operation", "WAL/journal bytes per operation")


def _refused(run, label, cell):
    q = run.get("query") or {}
    if cell.state == MISSING and q.get("status") == "unsupported" and label in _REFUSED_ROWS:
        return Cell(UNAVAILABLE, f"{q.get('name')}: {q.get('reason')}")
    return cell


@dataclass
class Row:
    label: str
    check: Callable[[Ctx], Cell]
    # the workload fact (plan.json `workload`, analysis/bench/plan.py workload_facts) the row needs, and
    # what a workload without it lacks: its phases are not checked on this row
    fact: Optional[str] = None
    lacks: str = ""

    def cell(self, ctx, facts):
        if self.fact and not facts.get(self.fact):
            return Cell(NOT_CHECKED, f"not checked (WORKLOAD={ctx.run.get('workload') or 'insert'} {self.lacks})")
        return self.check(ctx)


def check_transactions(ctx):
    """booking, oltp: the merged transactions (analysis/figures/transactions.py): commits, retries, CPU per commit."""
    t = ctx.run.get("transactions")
    if not t:
        return Cell(NOT_CHECKED, "not checked (not a transaction phase)")
    if not t.get("committed"):
        return Cell(MISSING, "no transaction committed")
    if t.get("cpu_us_per_committed") is None:
        return (Cell(UNAVAILABLE, t["reason"]) if t.get("reason") else
                Cell(MISSING, "CPU per committed transaction null without a reason"))
    return Cell(OK, f"{fmt_count(t['committed'])} committed, {t.get('retries_per_committed') or 0:.2g} retries each, "
                    f"{t['cpu_us_per_committed']:.3g} µs CPU each")


def check_ingest(ctx):
    """tsbs: storage per event and per host-hour (analysis/figures/ingest.py), or the reason."""
    ing = ctx.run.get("ingest")
    if not ing:
        return Cell(NOT_CHECKED, "not checked (not a tsbs ingest phase)")
    per_event, per_hh = ing.get("storage_bytes_per_event"), ing.get("storage_bytes_per_host_hour")
    if per_event is not None and per_hh is not None:
        return Cell(OK, f"{per_event:,.0f} B/event, {fmt_bytes(per_hh)}/host-hour ({ing.get('model')})")
    if ing.get("reason"):
        return Cell(UNAVAILABLE, ing["reason"])
    return Cell(MISSING, "ingest storage per event is null and no reason is given")


ROWS = [
    Row("phase status", check_phase),
    Row("CPU user", value_row("cpu.user_s", fmt_seconds, "container_cpu_user_seconds_total")),
    Row("CPU system", value_row("cpu.system_s", fmt_seconds, "container_cpu_system_seconds_total", zero_ok=_query_system_zero)),
    Row("memory rss (mean)", value_row("memory.rss.mean", fmt_bytes, "container_memory_rss")),
    Row("memory cache (mean)", value_row("memory.cache.mean", fmt_bytes, "container_memory_cache")),
    Row("memory working set (mean)", value_row("memory.working_set.mean", fmt_bytes,
                                               "container_memory_working_set_bytes")),
    Row("disk read bytes (block I/O)", value_row("disk.read_bytes", fmt_bytes, "container_fs_reads_bytes_total", True,
                                                 ("disk.reason", "disk.read_bytes_reason"))),
    Row("disk write bytes (block I/O)", value_row("disk.write_bytes", fmt_bytes, "container_fs_writes_bytes_total", True,
                                                  ("disk.reason", "disk.write_bytes_reason"))),
    Row("disk read ops", value_row("disk.read_ops", fmt_count, "container_fs_reads_total", True, ("disk.reason",))),
    Row("disk write ops", value_row("disk.write_ops", fmt_count, "container_fs_writes_total", True, ("disk.reason",))),
    Row("disk devices counted", check_disk_devices),
    Row("network rx", value_row("network.rx_bytes", fmt_bytes, "container_network_receive_bytes_total")),
    Row("network tx", value_row("network.tx_bytes", fmt_bytes, "container_network_transmit_bytes_total")),
    Row("instructions", check_instructions),
    Row("perf stat events", check_perf_events),
    Row("perf samples, server comm", check_perf_samples),
    Row("perf profile info", check_profile),
    Row("client metrics in Prometheus", check_client_metrics),
    Row("compose labels in cAdvisor", check_compose_labels),
    Row("database series without gaps", check_database_gaps),
    Row("documents counted = acknowledged", check_documents),
    Row("server counters reconcile", check_reconciliation),
    Row("foreign processes in cgroup", check_foreign_processes),
    Row("monitoring CPU (cAdvisor + Prometheus)", check_monitoring),
    Row("operations per type (= latencies)", check_operations),
    Row("CPU per operation", value_row("per_op.cpu_us", lambda v: f"{v:.3g} µs", "container_cpu_user_seconds_total")),
    Row("CPU per operation, net of idle", value_row("per_op.cpu_us_net", lambda v: f"{v:.3g} µs",
                                                    "container_cpu_usage_seconds_total", reason_paths=("per_op.cpu_net_reason",))),
    Row("instructions per operation", check_per_op_instructions),
    Row("network per operation", value_row("per_op.net_bytes", fmt_bytes, "container_network_receive_bytes_total")),
    Row("WAL/journal bytes", check_wal(None)),
    Row("WAL/journal bytes per operation", check_wal(None, "per_op.wal_bytes", lambda v: f"{v:,.0f} B")),
    Row("timeline per second", check_timeline),
    Row("storage per event / host-hour (tsbs)", check_ingest, "ingest", "has no ingest figures"),
    Row("transactions committed, retries, CPU each", check_transactions, "transactions", "runs no transactions"),
    Row("query answers digested", check_query),
]


def evaluate(bench_dir, prometheus=None):
    """[(label, {database: Cell})], databases."""
    bench = folder.Bench(bench_dir)  # each file of the folder read once, for every row and phase
    results = bench.results_json()
    if results is None:
        raise AnalysisError(f"{os.path.join(bench_dir, 'results.json')} missing: the check's run wrote no results")
    run_env = plan.settings(bench) or {}  # plan.json's settings, else run.env's
    runs = results.get("runs") or []
    table = []
    ctxs = []
    # one column per phase (the database for the insert workload; `<db>-load` and `<db>` otherwise)
    col = lambda run: run.get("phase") or run.get("database")  # noqa: E731
    for run in runs:
        ph = bench.phase(col(run))
        ctxs.append(Ctx(ph, results, run, ph.doc() or {}, run_env, prometheus))
    # what each phase's workload has (ingest figures, transactions): the plan's, else the old facts
    facts = [plan.workload_facts(bench, c.run.get("workload")) for c in ctxs]
    for row in ROWS:
        table.append((row.label, {col(c.run): _refused(c.run, row.label, row.cell(c, f)) for c, f in zip(ctxs, facts)}))
    expected = plan.expected_phases(bench, run_env)
    for ph in expected:
        if ph not in {col(c.run) for c in ctxs}:
            table.insert(0, ("phase status", {ph: Cell(MISSING, "no run in results.json")}))
    return table, [col(c.run) for c in ctxs]


def render(table, databases, bench_name=""):
    """The table, its footnotes (reasons), the verdict line; and whether it passes."""
    notes, lines = [], []
    cols = sorted({db for _, cells in table for db in cells}, key=lambda d: (databases + [d]).index(d))

    def footnote(text):
        if text not in notes:
            notes.append(text)
        return notes.index(text) + 1

    rows = []
    for label, cells in table:
        shown = []
        for db in cols:
            c = cells.get(db)
            if c is None:
                shown.append("-")
                continue
            shown.append(c.short(footnote(f"{label}: {c.text}") if c.state in (UNAVAILABLE, WARN) else None))
        rows.append((label, shown))
    w0 = max(len(r[0]) for r in rows + [("figure", [])])
    ws = [max([len(db)] + [len(r[1][i]) for r in rows]) for i, db in enumerate(cols)]
    lines.append("  ".join(["figure".ljust(w0)] + [db.ljust(w) for db, w in zip(cols, ws)]).rstrip())
    lines.append("  ".join(["-" * w0] + ["-" * w for w in ws]))
    for label, shown in rows:
        lines.append("  ".join([label.ljust(w0)] + [s.ljust(w) for s, w in zip(shown, ws)]).rstrip())
    if notes:
        lines.append("")
        lines.append("Not measured on this host, and why (or warnings):")
        lines.extend(f"  [{i}] {t}" for i, t in enumerate(notes, 1))
    missing = [(label, db, c.text) for label, cells in table for db, c in cells.items() if c.state == MISSING]
    warns = sum(1 for _, cells in table for c in cells.values() if c.state == WARN)
    unavailable = sum(1 for _, cells in table for c in cells.values() if c.state == UNAVAILABLE)
    if missing:
        lines.append("")
        lines.append("Missing without a reason:")
        lines.extend(f"  {label} ({db}): {text}" for label, db, text in missing)
    lines.append("")
    name = f"{bench_name}: " if bench_name else ""
    if missing:
        lines.append(f"check {name}FAIL: {len(missing)} figure(s) missing without a reason")
    else:
        lines.append(f"check {name}PASS: every figure has data or a stated reason "
                     f"({unavailable} not measured on this host{f', {warns} warning(s)' if warns else ''})")
    return "\n".join(lines), not missing


def run(bench_dir, prometheus=None, name=None):
    table, dbs = evaluate(bench_dir, prometheus)
    return render(table, dbs, name if name is not None else os.path.basename(os.path.normpath(bench_dir)))
