"""The provisioned Grafana files, checked without Grafana: structure, and every query run
against a real Prometheus (parse errors fail; values are checked on a made-up lab run)."""
import json
import math
import os
import re
import subprocess
import sys

import pytest
import yaml

import dashboard_queries as dq
import lab_metrics as lab

GRAFANA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DASHBOARDS = os.path.join(GRAFANA, "dashboards")
FILES = {"databases.json": "jsonbench-databases", "clients.json": "jsonbench-clients"}
UNITS = {"s", "bytes", "Bps", "iops", "ops", "short"}
SVC = "container_label_com_docker_compose_service"
PRJ = "container_label_com_docker_compose_project"


def load(name):
    with open(os.path.join(DASHBOARDS, name), encoding="utf-8") as f:
        return json.load(f)


def panels(dashboard):
    return list(dq._panels(dashboard["panels"]))


# ---- provisioning -------------------------------------------------------------------------

def test_datasource_is_pinned_default_and_read_only():
    with open(os.path.join(GRAFANA, "provisioning/datasources/prometheus.yaml")) as f:
        doc = yaml.safe_load(f)
    assert doc["apiVersion"] == 1
    [ds] = doc["datasources"]
    assert (ds["type"], ds["uid"], ds["url"]) == ("prometheus", "prometheus", "http://prometheus:9090")
    assert ds["isDefault"] is True and ds["editable"] is False


def test_dashboard_provider_loads_the_mounted_folder_read_only():
    with open(os.path.join(GRAFANA, "provisioning/dashboards/dashboards.yaml")) as f:
        doc = yaml.safe_load(f)
    [provider] = doc["providers"]
    assert provider["type"] == "file"
    assert provider["options"]["path"] == "/var/lib/grafana/dashboards"
    assert provider["allowUiUpdates"] is False


# ---- dashboard structure ------------------------------------------------------------------

def test_only_the_expected_dashboards_with_stable_uids():
    assert sorted(f for f in os.listdir(DASHBOARDS) if f.endswith(".json")) == sorted(FILES)
    for name, uid in FILES.items():
        d = load(name)
        assert d["uid"] == uid and d["title"]
        assert 36 <= d["schemaVersion"] <= 41
        assert d["refresh"] == "5s"
        assert d["time"] == {"from": "now-1h", "to": "now"}
        assert "id" not in d or d["id"] is None  # a fixed id would clash across Grafana instances


@pytest.mark.parametrize("name", FILES)
def test_panels_ids_datasource_units_legends(name):
    d = load(name)
    ps = panels(d)
    ids = [p["id"] for p in ps]
    assert len(ids) == len(set(ids)), f"duplicate panel ids in {name}: {ids}"
    for p in ps:
        if p["type"] == "row":
            continue
        assert p["datasource"] == {"type": "prometheus", "uid": "prometheus"}, p["title"]
        assert p["fieldConfig"]["defaults"]["unit"] in UNITS, p["title"]
        assert p["targets"], p["title"]
        for t in p["targets"]:
            assert t["datasource"]["uid"] == "prometheus", (p["title"], t["refId"])
            # every line names the service or database it belongs to
            assert re.search(r"\{\{(%s|database)\}\}" % SVC, t["legendFormat"]), (p["title"], t)
        refs = [t["refId"] for t in p["targets"]]
        assert len(refs) == len(set(refs)), p["title"]


@pytest.mark.parametrize("name", FILES)
def test_panels_do_not_overlap(name):
    taken = {}
    for p in panels(load(name)):
        g = p["gridPos"]
        assert 0 <= g["x"] and g["x"] + g["w"] <= 24, p["title"]
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                assert (x, y) not in taken, f"{p['title']!r} overlaps {taken[(x, y)]!r}"
                taken[(x, y)] = p["title"]


@pytest.mark.parametrize("name", FILES)
def test_phases_annotation_on_target_rate(name):
    d = load(name)
    [phases] = [a for a in d["annotations"]["list"] if a.get("name") == "Phases"]
    assert phases["datasource"] == {"type": "prometheus", "uid": "prometheus"}
    assert phases["enable"] is True
    assert "jsonbench_client_target_rate" in phases["expr"]
    assert "{{bench}}" in phases["titleFormat"] and "{{database}}" in phases["titleFormat"]


def test_variables():
    v = {x["name"]: x for x in load("databases.json")["templating"]["list"]}
    assert v["service"]["multi"] is True
    # the databases are the ones the clients ran against (no list of names in the dashboards):
    # "All" without an allValue, which Grafana expands to every listed value, (a|b|c)
    for var in (v["service"], {x["name"]: x for x in load("clients.json")["templating"]["list"]}["database"]):
        assert var["query"]["query"] == "label_values(jsonbench_client_target_rate,database)"
        assert var["includeAll"] and var["multi"] and "allValue" not in var and var["current"]["value"] == ["$__all"]
    assert v["project"]["query"]["query"] == f"label_values(container_cpu_user_seconds_total,{PRJ})"
    c = {x["name"]: x for x in load("clients.json")["templating"]["list"]}
    assert set(c) == {"bench", "database", "project"}
    assert c["bench"]["allValue"] == ".*"


@pytest.mark.parametrize("name", FILES)
def test_multi_value_variables_only_inside_regex_matchers(name):
    # Grafana renders several values as (a|b): with = instead of =~ that matches nothing.
    d = load(name)
    multi = {v["name"] for v in d["templating"]["list"] if v.get("multi") or v.get("includeAll")}
    exprs = [a["expr"] for a in d["annotations"]["list"] if a.get("expr")]
    exprs += [t["expr"] for p in panels(d) for t in p.get("targets", [])]
    for expr in exprs:
        for m in re.finditer(r"(=~|=|!=|!~)\"\$\{?(\w+)", expr):
            if m.group(2) in multi:
                assert m.group(1) == "=~", f"${m.group(2)} used with {m.group(1)} in {expr}"


# ---- dashboard_queries: the list the end-to-end test runs ----------------------------------

def test_queries_cover_every_target_and_annotation():
    rows = dq.dashboard_queries({"project": "p", "service": ["mongodb", "postgres"], "database": ["mongodb", "postgres"]})
    for name, uid in FILES.items():
        d = load(name)
        want = sum(len(p.get("targets", [])) for p in panels(d))
        want += sum(1 for a in d["annotations"]["list"] if a.get("expr"))
        got = [r for r in rows if r["dashboard"] == uid and r["kind"] != "variable"]
        assert len(got) == want
    for r in rows:
        assert "$" not in r["expr"] and "[[" not in r["expr"], r


def test_queries_substitute_values_and_builtins():
    rows = dq.dashboard_queries({"project": "lab1", "service": ["postgres"], "database": ["postgres"], "__range": "20m"})
    cpu = next(r for r in rows if r["panel"] == "CPU seconds in the time range [A]")
    assert cpu["instant"] is True
    assert f'{SVC}=~"postgres"' in cpu["expr"] and f'{PRJ}="lab1"' in cpu["expr"]
    assert "[20m]" in cpu["expr"]
    three = dq.dashboard_queries({"project": "lab1", "service": ["mongodb", "postgres", "mysql"], "database": ["mysql"]})
    rss = next(r for r in three if r["panel"] == "Memory rss (anonymous) [A]")
    assert f'{SVC}=~"(mongodb|postgres|mysql)"' in rss["expr"]
    # the databases have no fixed default: Grafana lists them from Prometheus
    with pytest.raises(dq.QueryError, match=r"\$service has no value; give --var service=VALUE"):
        dq.dashboard_queries({"project": "lab1", "database": ["mysql"]})


def run_cli(*args):
    return subprocess.run([sys.executable, os.path.join(GRAFANA, "dashboard_queries.py"), *args],
                          capture_output=True, text=True, timeout=30)


def test_cli_prints_json_lines():
    r = run_cli("--var", "project=jsonbench", "--var", "service=postgres", "--var", "database=postgres")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert rows and {"dashboard", "panel", "kind", "instant", "expr"} <= set(rows[0])
    assert rows == dq.dashboard_queries({"project": "jsonbench", "service": "postgres", "database": "postgres"})


@pytest.mark.parametrize("args, message", [
    ((), "$database has no value; give --var database=VALUE"),
    (("--var", "database=x"), "$project has no value; give --var project=VALUE"),
    (("--var", "project=a\"b"), "--var project='a\"b': allowed characters"),
    (("--var", "project=x", "--var", "__range=soon"), "--var __range='soon': expected a Prometheus duration"),
    (("--var", "noequals"), "--var 'noequals': expected NAME=VALUE"),
    (("--var", "project=x", "--dashboards", "/nonexistent"), "--dashboards '/nonexistent'"),
])
def test_cli_bad_input_exits_2_naming_it(args, message):
    r = run_cli(*args)
    assert r.returncode == 2 and message in r.stderr, r.stderr


# ---- every query against a real Prometheus ------------------------------------------------

# "All" of the databases: Grafana expands it to the databases Prometheus lists (the lab run's)
ALL = {"project": lab.PROJECT, "service": list(lab.PHASES), "database": list(lab.PHASES)}
VARIANTS = [
    ALL,
    {"project": lab.PROJECT, "service": "mongodb", "database": "mongodb", "bench": lab.BENCH},
    {"project": lab.PROJECT, "service": "postgres", "database": "postgres", "bench": lab.BENCH},
]


def test_a_parse_error_is_detected(prometheus):
    # the check below is only worth something if a broken expression really fails it
    r = prometheus.query('sum by (x (container_memory_rss{a="b"})', prometheus.end)
    assert r["status"] == "error" and r["errorType"] == "bad_data"


@pytest.mark.parametrize("variables", VARIANTS, ids=lambda v: "all" if isinstance(v["service"], list) else v["service"])
def test_every_expression_parses(prometheus, variables):
    for row in dq.dashboard_queries(variables):
        r = prometheus.query(row["expr"], prometheus.end)
        assert r["status"] == "success", f"{row['dashboard']} / {row['panel']}: {r.get('error')}\n{row['expr']}"


def finite(result):
    values = result.get("values") or [result["value"]]
    return [float(v) for _, v in values if math.isfinite(float(v))]


@pytest.mark.parametrize("variables", VARIANTS, ids=lambda v: "all" if isinstance(v["service"], list) else v["service"])
def test_every_expression_returns_data_on_a_lab_run(prometheus, variables):
    span = f"{lab.DURATION_S}s"
    for row in dq.dashboard_queries(dict(variables, __range=span)):
        if row["instant"]:
            r = prometheus.query(row["expr"], prometheus.end)
        else:
            r = prometheus.query_range(row["expr"], prometheus.start, prometheus.end)
        where = f"{row['dashboard']} / {row['panel']}\n{row['expr']}"
        assert r["status"] == "success", f"{where}: {r.get('error')}"
        assert any(finite(s) for s in r["data"]["result"]), f"no data: {where}"


def by_legend(prometheus, variables, panel, at, key):
    [row] = [r for r in dq.dashboard_queries(variables) if r["panel"] == panel]
    r = prometheus.query(row["expr"], at)
    assert r["status"] == "success", r
    return {s["metric"].get(key): float(s["value"][1]) for s in r["data"]["result"]}


def test_database_panels_sum_devices_and_keep_to_the_project(prometheus):
    mid = prometheus.start + 300
    v = ALL
    exp = {svc: c for svc, c in lab.CONTAINERS.items() if svc != "client"}

    def check(panel, pick):
        got = by_legend(prometheus, v, panel, mid, SVC)
        assert set(got) == set(exp), (panel, got)
        for svc, c in exp.items():
            assert got[svc] == pytest.approx(pick(c), rel=0.01), (panel, svc)

    check("CPU user and system [A]", lambda c: c[0])
    check("CPU user and system [B]", lambda c: c[1])
    check("Memory rss (anonymous) [A]", lambda c: c[2])
    check("Memory cache (file) [A]", lambda c: c[3])
    check("Memory working set [A]", lambda c: c[4])
    check("Disk read and write bytes [A]", lambda c: sum(d[0] for d in c[5].values()))
    check("Disk read and write bytes [B]", lambda c: sum(d[1] for d in c[5].values()))
    check("Disk read and write operations [A]", lambda c: sum(d[2] for d in c[5].values()))
    check("Disk read and write operations [B]", lambda c: sum(d[3] for d in c[5].values()))
    check("Network receive and transmit bytes [A]", lambda c: sum(n[0] for n in c[6].values()))
    check("Network receive and transmit bytes [B]", lambda c: sum(n[1] for n in c[6].values()))
    # increase over the whole range: the CPU seconds of the run
    got = by_legend(prometheus, dict(v, __range=f"{lab.DURATION_S}s"),
                    "CPU seconds in the time range [A]", prometheus.end, SVC)
    assert got["postgres"] == pytest.approx(lab.CONTAINERS["postgres"][0] * lab.DURATION_S, rel=0.01)


def test_client_panels_compute_rates_and_percentiles(prometheus):
    v = ALL
    at = prometheus.start + 200  # in the mongodb phase
    total = lab.CLIENTS * lab.CLIENT_RATE
    assert by_legend(prometheus, v, "Target vs achieved documents per second [A]", at, "database") \
        == {"mongodb": total}
    got = by_legend(prometheus, v, "Target vs achieved documents per second [B]", at, "database")
    assert got["mongodb"] == pytest.approx(total, rel=0.01)
    # linear interpolation inside the buckets of lab_metrics.BUCKETS
    p50 = by_legend(prometheus, v, "Latency from intended start [A]", at, "database")["mongodb"]
    assert p50 == pytest.approx(0.001 + (0.5 - 0.2) / 0.6 * 0.004, rel=0.01)
    p99 = by_legend(prometheus, v, "Service time [B]", at, "database")["mongodb"]
    assert p99 == pytest.approx(0.5 * (0.01 + (0.99 - 0.95) / 0.05 * 0.04), rel=0.01)
    got = by_legend(prometheus, v, "Errors and dropped per second [B]", at, "database")
    assert got["mongodb"] == pytest.approx(lab.CLIENTS * 0.25, rel=0.01)
    got = by_legend(prometheus, v, "Client process CPU [A]", at, "database")
    assert got["mongodb"] == pytest.approx(lab.CLIENTS * 0.02, rel=0.01)
    got = by_legend(prometheus, v, "Client containers CPU [A]", at, SVC)
    assert got == {"client": pytest.approx(lab.CLIENTS * lab.CONTAINERS["client"][0], rel=0.01)}
    docs = by_legend(prometheus, dict(v, __range=f"{lab.DURATION_S}s"),
                     "Totals in the time range [A]", prometheus.end, "database")
    for database, (start, end) in lab.PHASES.items():
        # increase() extrapolates half a scrape interval past the last sample
        assert docs[database] == pytest.approx(total * (end - start), rel=0.01)


def test_transaction_panels_split_attempts_commits_and_aborts_by_reason(prometheus):
    v = ALL
    for database, (start, end) in lab.PHASES.items():
        at = prometheus.start + (start + end) // 2
        aborts = lab.TXN_ABORTS[database]
        got = by_legend(prometheus, v, "Transaction attempts and commits per second [A]", at, "database")
        assert got == {database: pytest.approx(lab.CLIENTS * (lab.TXN_COMMITS + sum(aborts.values())), rel=0.01)}
        got = by_legend(prometheus, v, "Transaction attempts and commits per second [B]", at, "database")
        assert got == {database: pytest.approx(lab.CLIENTS * lab.TXN_COMMITS, rel=0.01)}
        got = by_legend(prometheus, v, "Transaction aborts per second by reason [A]", at, "reason")
        assert got == {r: pytest.approx(lab.CLIENTS * per_s, rel=0.01) for r, per_s in aborts.items()}


def test_phases_annotation_starts_with_each_phase(prometheus):
    [row] = [r for r in dq.dashboard_queries(ALL)
             if r["dashboard"] == "jsonbench-databases" and r["kind"] == "annotation"]
    r = prometheus.query_range(row["expr"], prometheus.start, prometheus.end)
    starts = {}
    for s in r["data"]["result"]:
        assert s["metric"]["bench"] == lab.BENCH
        starts[s["metric"]["database"]] = min(float(t) for t, val in s["values"] if float(val) > 0)
    # the end is not checked: backfilled data has no staleness markers, a scrape would have them
    assert starts == {db: prometheus.start + start for db, (start, _) in lab.PHASES.items()}
