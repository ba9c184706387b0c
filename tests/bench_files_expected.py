"""The files a bench folder holds once an insert bench (tests/e2e's tiny bench) ran to its end, as its
plan.json says (docs/contracts.md §4): the same whether the roles ran on one host or were placed on
Docker contexts (issue 27), but for the placed run's own records (placement.json, canary.json). The
e2e runs compare their folders with it: the single host's shared run (test_lab_end_to_end) and the
placed run (test_simulated_hosts), so a file a placed run would lose, or add, is caught without a
single-host copy of the placed bench."""

# every finished bench: its request, plan, hosts, results and report, and the plots of its results
BENCH = ("bench.env", "plan.json", "host.json", "hosts.json", "results.json", "report.md",
         "plots/memory.png", "plots/per_doc.png", "plots/timeline.png")
# every phase D: its count, database log, metrics, output, facts, server counters, time series
PHASE = ("{p}.count.json", "{p}.log", "{p}.metrics.json", "{p}.out", "{p}.phase.json",
         "{p}.server-stats.json", "timeseries/{p}.csv.gz", "plots/timeseries-{p}.png")
# perf on the database's host: perf stat's counters; with PERF_RECORD_S > 0 the recording and its flame graph
PERF_STAT = ("{p}.perfstat.csv",)
PERF_RECORD = ("{p}.perf", "{p}.svg")
# a placed run's own records (lab/driver/bench.py placement_record, measure_canary)
PLACED = ("placement.json", "canary.json")


def expected_files(plan, placed, perf, unprofiled=()):
    """Sorted relative paths. PLAN: plan.json's object; PLACED: a placement key was set; PERF: perf ran
    on the database's host (phase.json perf.reason null); UNPROFILED: the phases whose recording held
    no sample (phase.json perf.profile.file null, its reason said): no profile and no flame graph."""
    values = plan["settings"]["values"]
    record = int(values.get("PERF_RECORD_S") or 0) > 0
    files = set(BENCH) | (set(PLACED) if placed else set())
    files |= {f"{db['name']}.settings.json" for db in plan["databases"]}
    for phase in plan["phases"]:
        shapes = PHASE + ((PERF_STAT + (PERF_RECORD if record and phase["id"] not in unprofiled else ())) if perf else ())
        files |= {s.format(p=phase["id"]) for s in shapes}
        files |= {f"clients/{phase['id']}-client-{i}.json" for i in range(1, phase["clients"] + 1)}
    return sorted(files)
