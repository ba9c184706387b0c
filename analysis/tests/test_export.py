"""export against a REAL Prometheus (the version the lab runs: tests/real_prometheus.py) scraping an exporter this test serves on
127.0.0.1 with cAdvisor's label names; the test controls every value, so deltas are exact."""
import csv
import gzip
import json
import os
import threading
import time

import pytest
import requests
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

import real_prometheus  # tests/ (analysis/tests/conftest.py puts it on sys.path)
from analysis.collect.export import export

PROJECT = "jsonbench"
LABELS = ["id", "name", "image", "container_label_com_docker_compose_project",
          "container_label_com_docker_compose_service"]


class FakeCadvisor:
    """Per container: counters (per device/interface) and gauges; a container can be hidden."""

    def __init__(self):
        self.lock = threading.Lock()
        self.containers = {}
        self.hidden = set()
        self.hidden_series = set()  # (container, metric, device/interface): one series left out of a scrape

    def set(self, name, service, metric, value, sub=None):
        with self.lock:
            c = self.containers.setdefault(name, {"service": service, "values": {}})
            c["values"][(metric, sub)] = value

    def collect(self):
        with self.lock:
            fams = {}
            for name, c in self.containers.items():
                if name in self.hidden:
                    continue
                for (metric, sub), value in c["values"].items():
                    if (name, metric, sub) in self.hidden_series:
                        continue
                    extra = []
                    if sub:
                        extra = ["interface"] if "network" in metric else ["device"]
                    if metric not in fams:
                        cls = CounterMetricFamily if metric.endswith("_total") else GaugeMetricFamily
                        name_ = metric[:-len("_total")] if metric.endswith("_total") else metric
                        fams[metric] = cls(name_, metric, labels=LABELS + extra)
                    base = [f"/docker/{name}", name, "img", PROJECT, c["service"]]
                    fams[metric].add_metric(base + ([sub] if sub else []), value)
            return list(fams.values())


@pytest.fixture
def prom_stack(tmp_path):
    fake = FakeCadvisor()
    with real_prometheus.scraping_collector(tmp_path, fake) as url:
        yield fake, url


def wait_scraped(url, metric, samples):
    """Prometheus applies new scrape targets only every few seconds: wait for real samples first."""
    deadline = time.time() + 20
    while True:
        r = requests.get(f"{url}/api/v1/query", params={"query": f'count_over_time({metric}{{name="db1"}}[1m])'}).json()
        if r["data"]["result"] and float(r["data"]["result"][0]["value"][1]) >= samples:
            return
        assert time.time() < deadline, "prometheus never scraped the test exporter"
        time.sleep(0.3)


def facts(db_state):
    """lab/phase.schema.json `facts` of a phase whose database container was `db_state` after the window."""
    return {"client_exit_codes": [0], "wait": {"expected_s": 10, "limit_s": 140, "timed_out": False},
            "lab_error_exit_code": None,
            "database": {"state": db_state, "exit_code": None, "restarted_for_check": False},
            "count": {"outcome": "ok", "problems": None}, "interrupted": False}


def phase_folder(tmp_path, name, start, end, db_state=None):
    """A bench folder with postgres.phase.json for the window; db_state: the lab's recorded facts
    (the recorded fixture's phase file, as the lab writes it since it records facts), else none."""
    bench = tmp_path / name
    bench.mkdir()
    phase = {"database": "postgres", "service": "postgres", "project": PROJECT,
             "window": {"start": start, "end": end}, "status": "ok"}
    if db_state:
        with open(os.path.join(os.path.dirname(__file__), "fixtures", "ci-standin-run", "postgres.phase.json")) as f:
            recorded = json.load(f)
        phase = {**recorded, **phase, "phase": "postgres", "stage": "run", "settled_after": None, "query": None,
                 "idle": {"quiet": {"start": start - 5, "end": start - 1}, "guard": {"start": start, "end": start + 1}},
                 "cgroup_processes": None, "pooler": None, "image_os": None, "reason": "", "facts": facts(db_state)}
    (bench / "postgres.phase.json").write_text(json.dumps(phase))
    return bench


def wait_until(t0, offset):
    delay = t0 + offset - time.time()
    if delay > 0:
        time.sleep(delay)


def test_export_exact_deltas_resets_gaps_and_timeseries(prom_stack, tmp_path):
    fake, url = prom_stack
    cpu = "container_cpu_user_seconds_total"
    fake.set("db1", "postgres", cpu, 100.0)
    fake.set("db1", "postgres", "container_cpu_system_seconds_total", 10.0)
    fake.set("db1", "postgres", "container_fs_writes_bytes_total", 1000.0, "sda")
    fake.set("db1", "postgres", "container_fs_writes_bytes_total", 500.0, "sdb")
    fake.set("db1", "postgres", "container_network_receive_bytes_total", 7.0, "eth0")
    fake.set("db1", "postgres", "container_memory_rss", 1e6)
    fake.set("other", "mongodb", cpu, 5.0)  # another service: must not be counted
    # Prometheus applies new scrape targets only every few seconds: wait for real samples first
    deadline = time.time() + 20
    while True:
        r = requests.get(f"{url}/api/v1/query", params={"query": f'count_over_time({cpu}{{name="db1"}}[1m])'}).json()
        if r["data"]["result"] and float(r["data"]["result"][0]["value"][1]) >= 3:
            break
        assert time.time() < deadline, "prometheus never scraped the test exporter"
        time.sleep(0.3)
    start = time.time()
    fake.set("db1", "postgres", cpu, 150.0)
    fake.set("db1", "postgres", "container_memory_rss", 3e6)
    wait_until(start, 2.5)
    fake.set("c1", "client", cpu, 3.0)  # client created inside the window
    fake.set("db1", "postgres", cpu, 20.0)  # restarted container: counter reset
    fake.set("db1", "postgres", "container_fs_writes_bytes_total", 1300.0, "sda")
    wait_until(start, 5.0)
    fake.set("c1", "client", cpu, 5.0)
    fake.set("db1", "postgres", cpu, 70.0)
    fake.set("db1", "postgres", "container_network_receive_bytes_total", 17.0, "eth0")
    with fake.lock:
        fake.hidden.add("db1")  # scrape hole of ~5 s for the database container
    wait_until(start, 10.5)
    with fake.lock:
        fake.hidden.discard("db1")
    wait_until(start, 13.5)
    end = time.time()
    wait_until(end, 1.5)  # let the last scrape land

    # the lab saw the database container started again during the phase (facts.database.state)
    bench = phase_folder(tmp_path, "bench1", start, end, db_state="restarted")
    out = export(str(bench), "postgres", url)

    pg = out["services"]["postgres"]
    assert pg["counters"][cpu]["delta"] == pytest.approx(120.0)  # +50, reset to 20 (+20), +50
    assert pg["counters"][cpu]["resets"] == 1
    assert pg["counters"]["container_cpu_system_seconds_total"]["delta"] == 0.0
    assert pg["counters"]["container_fs_writes_bytes_total"]["delta"] == pytest.approx(300.0)
    assert pg["counters"]["container_network_receive_bytes_total"]["delta"] == pytest.approx(10.0)
    assert pg["containers"] == ["db1"]
    rss = pg["gauges"]["container_memory_rss"]
    assert rss["max"] == 3e6
    assert 1e6 <= rss["mean"] <= 3e6

    client = out["services"]["client"]
    assert client["counters"][cpu]["delta"] == pytest.approx(5.0)
    assert client["counters"][cpu]["per_container"]["c1"]["created_in_window"] is True
    assert any("c1" in n and "taken as 0" in n for n in out["notes"])
    assert any("counter reset" in n for n in out["notes"])

    db_gaps = [g for g in out["gaps"] if g["container"] == "db1"]
    assert db_gaps, out["gaps"]
    assert all(g["seconds"] > 3.0 for g in db_gaps)
    assert any(4.0 <= g["seconds"] <= 8.0 and cpu in g["metrics"] for g in db_gaps)
    assert not [g for g in out["gaps"] if g["container"] == "c1"]

    # the delta equals Prometheus' own values at the window edges (no reset on this counter)
    def direct(expr, at):
        r = requests.get(f"{url}/api/v1/query", params={"query": expr, "time": at}).json()
        return float(r["data"]["result"][0]["value"][1])
    sel = 'sum(container_fs_writes_bytes_total{container_label_com_docker_compose_service="postgres"})'
    assert direct(sel, end) - direct(sel, start) == pytest.approx(300.0)

    with gzip.open(bench / "timeseries" / "postgres.csv.gz", "rt") as f:
        rows = list(csv.DictReader(f))
    assert set(rows[0]) == {"time", "metric", "service", "container", "series", "value"}
    assert {r["service"] for r in rows} == {"postgres", "client"}
    assert all(start <= float(r["time"]) <= end for r in rows)
    writes = [r for r in rows if r["metric"] == "container_fs_writes_bytes_total"]
    # one row per device: a device missing from one scrape cannot make the container's sum drop
    assert {(r["series"], float(r["value"])) for r in writes} <= {("sda", 1000.0), ("sda", 1300.0), ("sdb", 500.0)}
    assert {r["series"] for r in rows if r["metric"] == cpu} == {""}
    rss_rows = [float(r["value"]) for r in rows if r["metric"] == "container_memory_rss"]
    assert sum(rss_rows) / len(rss_rows) == pytest.approx(rss["mean"])
    # no interpolation: no database row inside the hole
    hole = max(db_gaps, key=lambda g: g["seconds"])
    assert not [r for r in rows if r["container"] == "db1" and hole["from"] < float(r["time"]) < hole["to"]]
    assert json.loads((bench / "postgres.metrics.json").read_text())["schema_version"] == 1

    # The same samples, the database container running since the phase began: its counter cannot
    # have restarted, so the decrease is a misread series; counting 20 as new CPU would invent it.
    for name, state in (("running", "running"), ("no-facts", None)):
        kept = export(str(phase_folder(tmp_path, name, start, end, db_state=state)), "postgres", url)
        c = kept["services"]["postgres"]["counters"][cpu]
        assert c["delta"] is None, c
        assert c["reason"].startswith(f"db1: {cpu} decreased at "), c["reason"]
        assert ("150.0 -> 20.0" in c["reason"] and
                ("kept running" in c["reason"] if state else "records no state" in c["reason"])), c["reason"]
        assert any(n.startswith(f"postgres/{c['reason']}") for n in kept["notes"]), kept["notes"]
        # the other counters of the container stand
        assert kept["services"]["postgres"]["counters"]["container_fs_writes_bytes_total"]["delta"] == pytest.approx(300.0)


def test_export_counts_only_the_device_under_dockers_data_root(prom_stack, tmp_path):
    """LVM: one write accounted on /dev/dm-0 and again on /dev/sda; host.json names dm-0."""
    fake, url = prom_stack
    w = "container_fs_writes_bytes_total"
    fake.set("db1", "postgres", "container_cpu_user_seconds_total", 1.0)
    for dev in ("/dev/dm-0", "/dev/sda"):
        fake.set("db1", "postgres", w, 1000.0, dev)
    deadline = time.time() + 20
    while True:
        r = requests.get(f"{url}/api/v1/query", params={"query": f'count_over_time({w}{{name="db1"}}[1m])'}).json()
        if r["data"]["result"] and float(r["data"]["result"][0]["value"][1]) >= 3:
            break
        assert time.time() < deadline, "prometheus never scraped the test exporter"
        time.sleep(0.3)
    start = time.time()
    wait_until(start, 1.5)
    for dev in ("/dev/dm-0", "/dev/sda"):
        fake.set("db1", "postgres", w, 1400.0, dev)
    wait_until(start, 4.0)
    end = time.time()
    wait_until(end, 1.5)

    bench = tmp_path / "bench1"
    bench.mkdir()
    (bench / "postgres.phase.json").write_text(json.dumps({
        "database": "postgres", "service": "postgres", "project": PROJECT,
        "window": {"start": start, "end": end}, "status": "ok"}))
    summed = export(str(bench), "postgres", url)  # no host.json: every device, and it says so
    assert summed["services"]["postgres"]["counters"][w]["delta"] == pytest.approx(800.0)
    assert "every device summed" in summed["disk_devices"]["reason"]
    (bench / "host.json").write_text(json.dumps({"disk_devices": {
        "count": [{"name": "dm-0", "major_minor": "253:0", "dm_name": "ubuntu--vg-ubuntu--lv"}]}}))
    out = export(str(bench), "postgres", url)
    assert out["services"]["postgres"]["counters"][w]["delta"] == pytest.approx(400.0)
    assert out["disk_devices"]["counted"] == ["dm-0"] and out["disk_devices"]["excluded"] == ["/dev/sda"]
    assert out["disk_devices"]["reason"] is None


def test_a_gap_across_the_window_start_makes_the_database_figure_null_not_its_whole_counter(prom_stack, tmp_path):
    """The database container's series has no sample in the 10 s lookback (a scrape hole across
    the window start). Counting from 0 as if it were created in the window made 546 CPU-s of a
    true 45; the clients, created in every window, still start from 0."""
    fake, url = prom_stack
    cpu = "container_cpu_user_seconds_total"
    fake.set("db1", "postgres", cpu, 501.0)
    wait_scraped(url, cpu, 2)
    with fake.lock:
        fake.hidden.add("db1")
    time.sleep(11.5)  # longer than the lookback (10 scrape intervals)
    start = time.time()
    fake.set("db1", "postgres", cpu, 546.0)
    fake.set("c1", "client", cpu, 2.0)
    with fake.lock:
        fake.hidden.discard("db1")
    wait_until(start, 4.0)
    end = time.time()
    wait_until(end, 1.5)
    out = export(str(phase_folder(tmp_path, "bench", start, end)), "postgres", url)
    pg = out["services"]["postgres"]["counters"][cpu]
    assert pg["delta"] is None, pg
    assert pg["per_container"]["db1"]["no_baseline"] is True
    assert any(n.startswith(f"postgres/db1: no {cpu} sample in the 10 s before the window start")
               and "null" in n for n in out["notes"]), out["notes"]
    assert not any("db1" in n and "taken as 0" in n for n in out["notes"])
    assert out["services"]["client"]["counters"][cpu]["delta"] == pytest.approx(2.0)


def wait_missed(url, container, metric, present, missing, since):
    """Until Prometheus holds a scrape since `since` with the `present` interface's sample and without
    the `missing` one's (the test left it out of the exporter's answer)."""
    deadline = time.time() + 20
    rng = f"{max(1, int(time.time() - since) + 1)}s"

    def count(iface):
        r = requests.get(f"{url}/api/v1/query", params={
            "query": f'count_over_time({metric}{{name="{container}",interface="{iface}"}}[{rng}])'}).json()
        return float(r["data"]["result"][0]["value"][1]) if r["data"]["result"] else 0.0
    while count(present) <= count(missing):
        assert time.time() < deadline, "prometheus never scraped the exporter without the hidden series"
        time.sleep(0.3)
        rng = f"{max(1, int(time.time() - since) + 1)}s"


def test_a_missed_scrape_on_one_interface_is_not_a_counter_reset(prom_stack, tmp_path):
    """Issue 25 item 7: the database's eth1 is missing from one scrape. Summed per timestamp before
    the deltas, the container's sum dropped by eth1's whole counter, the drop read as a reset, and
    14,040,000 B were counted for a true 20,000 B. Per series, then summed: 20,000."""
    fake, url = prom_stack
    rx, tx = "container_network_receive_bytes_total", "container_network_transmit_bytes_total"
    fake.set("db1", "postgres", "container_cpu_user_seconds_total", 1.0)
    for iface in ("eth0", "eth1"):
        fake.set("db1", "postgres", rx, 7_000_000.0, iface)
        fake.set("db1", "postgres", tx, 3_000_000.0, iface)
    wait_scraped(url, rx, 6)  # both interfaces, three scrapes
    start = time.time()
    wait_until(start, 1.5)
    for iface in ("eth0", "eth1"):
        fake.set("db1", "postgres", rx, 7_010_000.0, iface)
        fake.set("db1", "postgres", tx, 3_001_000.0, iface)
    wait_until(start, 3.0)
    hidden = time.time()
    with fake.lock:
        fake.hidden_series.add(("db1", rx, "eth1"))
    wait_missed(url, "db1", rx, "eth0", "eth1", hidden)
    with fake.lock:
        fake.hidden_series.discard(("db1", rx, "eth1"))
    wait_until(time.time(), 2.5)
    end = time.time()
    wait_until(end, 1.5)

    out = export(str(phase_folder(tmp_path, "bench", start, end, db_state="running")), "postgres", url)
    pg = out["services"]["postgres"]["counters"]
    assert pg[rx]["delta"] == pytest.approx(20_000.0), pg[rx]
    assert pg[rx]["resets"] == 0
    assert pg[tx]["delta"] == pytest.approx(2_000.0)
    per = pg[rx]["per_container"]["db1"]["series"]
    assert {k: v["delta"] for k, v in per.items()} == {"eth0": pytest.approx(10_000.0), "eth1": pytest.approx(10_000.0)}
    assert not any("decreased" in n or "reset" in n for n in out["notes"]), out["notes"]
    # the raw series keep eth1's hole as a hole: no row, nothing filled in
    with gzip.open(tmp_path / "bench" / "timeseries" / "postgres.csv.gz", "rt") as f:
        rows = [r for r in csv.DictReader(f) if r["metric"] == rx]
    eth0 = {r["time"] for r in rows if r["series"] == "eth0"}
    eth1 = {r["time"] for r in rows if r["series"] == "eth1"}
    assert eth1 < eth0, (sorted(eth0), sorted(eth1))


def test_a_normal_run_prints_only_what_needs_a_look_and_keeps_every_note(prom_stack, tmp_path, capsys):
    """Issue 25, what a newcomer sees: every normal run printed "N gap(s), M note(s)" for conditions
    every run has (clients created in their own window and ended before its end, a host without block
    I/O accounting). Those stay in the file; the console shows what needs a look."""
    from analysis.__main__ import main
    fake, url = prom_stack
    cpu, tx = "container_cpu_user_seconds_total", "container_network_transmit_bytes_total"
    # every series cAdvisor exports on a host without block I/O accounting: no container_fs_*
    every = {"container_cpu_system_seconds_total": 1.0, "container_network_receive_bytes_total": 700.0,
             "container_memory_rss": 1e6, "container_memory_cache": 2e6, "container_memory_working_set_bytes": 3e6}
    for name, svc in (("db1", "postgres"), ("c1", "client")):
        for metric, v in every.items():
            fake.set(name, svc, metric, v, "eth0" if "network" in metric else None)
    with fake.lock:
        fake.hidden.add("c1")
    fake.set("db1", "postgres", cpu, 10.0)
    fake.set("db1", "postgres", tx, 5000.0, "eth0")
    wait_scraped(url, cpu, 3)
    start = time.time()
    fake.set("c1", "client", cpu, 1.0)  # a client created in the window
    fake.set("c1", "client", tx, 100.0, "eth0")
    with fake.lock:
        fake.hidden.discard("c1")
    fake.set("db1", "postgres", cpu, 12.0)
    fake.set("db1", "postgres", tx, 9000.0, "eth0")
    wait_until(start, 3.0)
    with fake.lock:
        fake.hidden.add("c1")  # the client ended: its series stop before the window's end
    wait_until(start, 8.0)
    end = time.time()
    fake.set("db1", "postgres", tx, 100.0, "eth0")  # after the window: a misread the next one holds
    wait_until(end, 2.5)
    later = time.time()
    wait_until(later, 1.5)

    normal = phase_folder(tmp_path, "normal", start, end, db_state="running")
    assert main(["export", "--bench-dir", str(normal), "--database", "postgres", "--prometheus", url]) == 0
    assert capsys.readouterr().out == f"{normal}/postgres.metrics.json written\n"
    kept = json.loads((normal / "postgres.metrics.json").read_text())
    assert any("c1" in n and "created in the window" in n for n in kept["notes"])
    assert any(n.startswith("postgres: no container_fs_writes_bytes_total series") for n in kept["notes"])
    assert [g["container"] for g in kept["gaps"]] == ["c1"] and kept["gaps"][0]["to"] == end
    assert kept["services"]["postgres"]["counters"][cpu]["delta"] == pytest.approx(2.0)

    misread = phase_folder(tmp_path, "misread", start, later, db_state="running")
    assert main(["export", "--bench-dir", str(misread), "--database", "postgres", "--prometheus", url]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{misread}/postgres.metrics.json written; to look at:"
    assert len(lines) == 2 and lines[1].startswith(f"  note: postgres/db1: {tx} on eth0 decreased at "), lines
