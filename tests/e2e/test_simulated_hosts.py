"""./runme.sh simulate-hosts (issue 27, docs/hosts.md): two Docker engines on this machine, each a
host of its own in its own network namespace; an image reaches them without a registry; a container
on one reaches a server on the other over the hosts' own addresses; fewer hosts remove the extra
ones and 0 leaves nothing behind. Real engines: every dockerd here is started by runme.sh, and the
module's fixture runs `simulate-hosts 0` whatever happens."""
import glob
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

import pytest

from conftest import BIND_ADDRESS, LAB_ROOT, PORTS, PROJECT, lab_env, remove_project, runme, runme_watched, standins_choice, tiny_bench, write_bench

sys.path.insert(0, str(LAB_ROOT / "tests" / "unit"))
sys.path.insert(0, str(LAB_ROOT / "tests"))
sys.path.insert(0, str(LAB_ROOT))
from lab_images import postgres_image, present  # noqa: E402
import lab.driver.engine as engine_module  # noqa: E402

HOSTS = ("jsonbench-sim-1", "jsonbench-sim-2")
ADDRESS = {"jsonbench-sim-1": "10.199.1.2", "jsonbench-sim-2": "10.199.2.2"}
CACHE = os.environ.get("JSONBENCH_CACHE", "/var/cache/jsonbench")
# A small image with perl and bash (Debian's perl-base and bash are essential packages): the stand-in
# base the stand-in builds make, else the PostgreSQL image the unit tests use (Debian-based too).
SMALL_IMAGE = "jsonbench-standin/debian:bookworm"


# What a placed run takes before its load, at most, on a loaded 2-core host (measured 49 to 57 s for
# the whole engine-stop run): the canary, the clocks, the database's start and the clients' start.
SETUP_S = 120


def mongodb_patient_s():
    """The MongoDB client's longest connection wait (databases/mongodb/client/mongodb.js), in seconds."""
    text = (LAB_ROOT / "databases" / "mongodb" / "client" / "mongodb.js").read_text()
    return int(text.split("const PATIENT_TIMEOUT_MS = ", 1)[1].split(";", 1)[0]) / 1000


def run(*args, timeout=300):
    return subprocess.run(list(args), capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout)


def simulate(n):
    return run(str(LAB_ROOT / "runme.sh"), "simulate-hosts", str(n))


def load_image(context, image):
    return run(str(LAB_ROOT / "host" / "simulate-hosts.sh"), "load_image", context, image)


def engine_pid(host):
    with open(f"/run/{host}/docker.pid") as f:
        return int(f.read())


def alive(pid):
    """PID runs (a zombie waiting for its parent to reap it has ended)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in f)
    except OSError:
        return False


def leftovers():
    """Every trace a simulated host can leave on this machine, by kind (each list empty: none)."""
    cmdlines = {}
    for p in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(p, "rb") as f:
                cmdlines[p] = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            pass
    with open("/proc/self/mountinfo") as f:
        mounts = [line.split()[4] for line in f if "jsonbench-sim" in line]
    return {
        "namespaces": [n for n in run("ip", "netns", "list").stdout.split() if n.startswith("jsonbench-sim")],
        "links": [line.split(": ")[1] for line in run("ip", "-o", "link", "show").stdout.splitlines()
                  if line.split(": ")[1].startswith("jbsim-")],
        "contexts": [c for c in run("docker", "context", "ls", "--format", "{{.Name}}").stdout.split()
                     if c.startswith("jsonbench-sim")],
        "firewall": [r for r in run("iptables", "-S", "FORWARD").stdout.splitlines() if "jsonbench-sim" in r],
        # a command run under `flock /run/jsonbench-sim.lock` (the lock that keeps two users of the
        # simulated hosts apart) names the lock, not a host
        "processes": [c for p, c in cmdlines.items() if "jsonbench-sim" in c.replace("jsonbench-sim.lock", "")
                      and p != f"/proc/{os.getpid()}/cmdline"],
        "cgroups": glob.glob("/sys/fs/cgroup/*/jsonbench-sim-*") + glob.glob("/sys/fs/cgroup/jsonbench-sim-*"),
        "folders": glob.glob("/run/jsonbench-sim-*") + glob.glob(f"{CACHE}/sim-hosts"),
        "mounts": mounts,
    }


MAIN_ID = run("docker", "info", "--format", "{{.ID}}").stdout.strip()


@pytest.fixture(scope="module")
def hosts():
    before = leftovers()
    assert not any(before.values()), ("simulated hosts exist on this machine already; this test would remove "
                                      f"them (./runme.sh simulate-hosts 0 does): {before}")
    try:
        r = simulate(2)
        assert r.returncode == 0, r.stdout + r.stderr
        yield {h: engine_pid(h) for h in HOSTS}
    finally:
        r = simulate(0)
        assert r.returncode == 0, r.stdout + r.stderr


@pytest.fixture(scope="module")
def image(hosts):
    chosen = SMALL_IMAGE if present(SMALL_IMAGE) else postgres_image()
    assert chosen, f"neither {SMALL_IMAGE} nor a PostgreSQL image is on the main engine (lab/test.sh builds or pulls them)"
    return chosen


def test_each_host_is_an_engine_of_its_own_and_again_changes_nothing(hosts):
    infos = {}
    for h in HOSTS:
        r = run("docker", "--context", h, "info", "--format", "{{json .}}", timeout=60)
        assert r.returncode == 0, (h, r.stderr)
        infos[h] = json.loads(r.stdout)
        assert infos[h]["DockerRootDir"] == f"{CACHE}/sim-hosts/{h}/data", infos[h]["DockerRootDir"]
        assert infos[h]["ServerVersion"], h
    ids = {infos[h]["ID"] for h in HOSTS}
    assert len(ids) == 2 and MAIN_ID not in ids, (MAIN_ID, ids)
    # each engine was started with its own cgroup parent (the containers' paths: the traffic test)
    for h, pid in hosts.items():
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = f.read().split(b"\0")
        assert args[args.index(b"--cgroup-parent") + 1] == f"/{h}".encode(), args

    r = simulate(2)
    assert r.returncode == 0, r.stdout + r.stderr
    assert {h: engine_pid(h) for h in HOSTS} == hosts
    assert "removing" not in r.stderr, r.stderr


def test_an_image_reaches_each_host_without_a_registry_once(hosts, image):
    main_id = run("docker", "image", "inspect", "-f", "{{.Id}}", image).stdout.strip()
    for h in HOSTS:
        first = load_image(h, image)
        assert first.returncode == 0 and first.stdout.strip() == main_id, (first.stdout, first.stderr)
        assert f"loaded {image}" in first.stderr, first.stderr
        there = run("docker", "--context", h, "image", "inspect", "-f", "{{.Id}}", image).stdout.strip()
        assert there == main_id, (h, there)
        again = load_image(h, image)
        assert again.returncode == 0 and again.stdout.strip() == main_id, (again.stdout, again.stderr)
        assert "already" in again.stderr and "loaded" not in again.stderr, again.stderr


# Answers each connection with its host's name and the address the connection came from, then closes.
SERVER = ("use IO::Socket::INET; $| = 1; my $s = IO::Socket::INET->new(LocalPort => 8080, Listen => 5, ReuseAddr => 1)"
          " or die $!; print qq(listening\\n); while (my $c = $s->accept) { print $c qq($ENV{HOST_NAME} peer=)"
          " . $c->peerhost . qq(\\n); close $c }")


def test_a_container_on_one_host_reaches_a_server_on_the_other(hosts, image):
    server_host, client_host = HOSTS
    r = run("docker", "--context", server_host, "run", "-d", "-e", f"HOST_NAME={server_host}",
            "-p", f"{ADDRESS[server_host]}:18080:8080", "--entrypoint", "perl", image, "-e", SERVER)
    assert r.returncode == 0, r.stderr
    server = r.stdout.strip()
    try:
        deadline = time.monotonic() + 60
        while "listening" not in run("docker", "--context", server_host, "logs", server).stdout:
            assert time.monotonic() < deadline, run("docker", "--context", server_host, "logs", server)
            time.sleep(0.2)
        client = run("docker", "--context", client_host, "run", "--rm", "--entrypoint", "bash", image, "-c",
                     f"timeout 20 bash -c 'cat </dev/tcp/{ADDRESS[server_host]}/18080'", timeout=120)
        # It came from the client host's own address: through the hosts' namespaces and this machine's
        # routing (the client engine masquerades its bridge), not through an overlay or a shared bridge.
        assert client.returncode == 0, client.stderr
        assert client.stdout.strip() == f"{server_host} peer={ADDRESS[client_host]}", client.stdout

        # The server container's cgroup is /<cgroup parent>/<id> in every hierarchy (perf_event too).
        pid = run("docker", "--context", server_host, "inspect", "-f", "{{.State.Pid}}", server).stdout.strip()
        with open(f"/proc/{pid}/cgroup") as f:
            lines = [line.strip().split(":", 2) for line in f if line.strip()]
        assert any(line[1] == "perf_event" for line in lines), lines
        assert all(line[2] == f"/{server_host}/{server}" for line in lines), lines
    finally:
        run("docker", "--context", server_host, "rm", "-f", server)


def test_a_host_opens_no_connection_beyond_the_simulated_hosts(hosts, image):
    """A container of the main engine (an address on this machine, not a simulated host) answers this
    machine but not a container on a simulated host: the guard rule drops the new connection."""
    r = run("docker", "run", "-d", "-e", "HOST_NAME=main", "--entrypoint", "perl", image, "-e", SERVER)
    assert r.returncode == 0, r.stderr
    server = r.stdout.strip()
    try:
        deadline = time.monotonic() + 60
        while "listening" not in run("docker", "logs", server).stdout:
            assert time.monotonic() < deadline, run("docker", "logs", server)
            time.sleep(0.2)
        address = run("docker", "inspect", "-f", "{{.NetworkSettings.IPAddress}}", server).stdout.strip()
        with socket.create_connection((address, 8080), timeout=10) as c:
            assert c.makefile().readline().startswith("main peer="), address
        client = run("docker", "--context", HOSTS[1], "run", "--rm", "--entrypoint", "bash", image, "-c",
                     f"timeout 5 bash -c 'cat </dev/tcp/{address}/8080'", timeout=120)
        assert client.returncode != 0 and "main peer=" not in client.stdout, (client.stdout, client.stderr)
    finally:
        run("docker", "rm", "-f", server)


def prometheus_query(url, expr):
    with urllib.request.urlopen(f"{url}/api/v1/query?" + urllib.parse.urlencode({"query": expr}), timeout=10) as r:
        return json.load(r)["data"]["result"]




def test_the_network_canary_measures_the_clients_host_against_the_database_host(hosts, image):
    """issue 27's canary: a server on the database host (perl, published on its address), bash on the
    clients' host (the small Debian image: perl-base and bash, as in the lab's images); round trips and
    a bulk transfer that crossed the hosts' own network (the server saw the clients' host's address)."""
    from lab.driver import canary
    database_host, client_host = HOSTS
    for h in HOSTS:
        assert load_image(h, image).returncode == 0
    t0 = time.monotonic()
    doc = canary.measure(client_host, image, {database_host: (ADDRESS[database_host], image)},
                         "jsonbench-e2e-hostmon-canary", pings=20, size=16 * 1024 * 1024)
    seconds = time.monotonic() - t0
    (pair,) = doc["pairs"]
    assert pair["reason"] is None, pair
    assert pair["peer"] == ADDRESS[client_host], pair  # through the namespaces, masqueraded to the host's address
    assert 0 < pair["rtt_s"]["min"] <= pair["rtt_s"]["median"] <= pair["rtt_s"]["max"] < 1, pair
    assert pair["rtt_s"]["samples"] == 20 and pair["bytes"] == 16 * 1024 * 1024
    assert pair["throughput_bytes_per_s"] > 1e6, pair
    print(f"canary {client_host} -> {database_host}: RTT min {pair['rtt_s']['min'] * 1e6:.0f} us, median "
          f"{pair['rtt_s']['median'] * 1e6:.0f} us, max {pair['rtt_s']['max'] * 1e6:.0f} us; "
          f"{pair['throughput_bytes_per_s'] / 1e6:.0f} MB/s; measured in {seconds:.1f} s")
    # nothing of the canary is left on either host
    for h in HOSTS:
        assert not run("docker", "--context", h, "ps", "-aq", "--filter", "label=jsonbench.canary").stdout.split(), h
    # a database host that cannot be measured: null figures with the reason
    bad = canary.measure(client_host, image, {database_host: (ADDRESS[database_host], "jsonbench-no-such-image")},
                         "jsonbench-e2e-hostmon-canary")
    assert bad["pairs"][0]["rtt_s"] is None and "did not start on jsonbench-sim-1" in bad["pairs"][0]["reason"]


# Issue 27's two benches placed across the two hosts, in one runme call (they share the stack's start and
# the images' loading): the databases on host 1, the clients on host 2, dialling host 1's address and
# published ports. bench1, small (the tiny bench is bench1's shape: uuidv7 keys, clustered, 10 x 1000 B)
# on its two databases, and a booking transaction bench on PostgreSQL (MongoDB's transactions need its
# replica set, whose member names the clients on another host would have to resolve: not placed here).
# No single-host copy: the file list is compared with what the plan says a folder holds
# (tests/bench_files_expected.py, unit-tested for both placements).
# Prometheus and Grafana run on the clients' host (MONITORING_HOST, lab/driver/placed.py start_monitoring):
# the same run covers the monitoring on its own host too.
PLACEMENT = (f"DATABASE_HOST={HOSTS[0]}\nCLIENT_HOST={HOSTS[1]}\nMONITORING_HOST={HOSTS[1]}\n"
             f"LAB_ADDRESSES=\"{HOSTS[0]}={ADDRESS[HOSTS[0]]} {HOSTS[1]}={ADDRESS[HOSTS[1]]}\"\n")
PLACED = 'DATABASES="mongodb postgres"\n' + PLACEMENT
PLACED_DBS = ("mongodb", "postgres")
TXN_CLIENTS, TXN_OPS = 2, 40
TXN_PLACED = f"""\
DESCRIPTION="booking transactions placed across two hosts"
WORKLOAD=booking
KEY=uuidv7
LAYOUT=clustered
ISOLATION=read-committed
FLIGHTS=1
DAY_RANGE=1
BOOKING_SLEEP_MS=0
MAX_ATTEMPTS=100
CLIENTS={TXN_CLIENTS}
SESSIONS=2
RATE=20
OPS={TXN_OPS}
SEED=7
DATABASES=postgres
QUIET_S=0
PERF_RECORD_S=0
""" + PLACEMENT


def project_traces(context):
    """The test project's volumes, networks and containers on CONTEXT's engine."""
    return {kind: sorted(run("docker", "--context", context, *kind.split(), "-q", "--filter",
                             f"label=com.docker.compose.project={PROJECT}").stdout.split())
            for kind in ("volume ls", "network ls", "ps -a")}


@pytest.fixture(scope="module")
def placed_run(hosts, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("placed")
    remove_project()
    placed = write_bench(workdir, "bench-placed", tiny_bench(20, 2, extra=PLACED))
    txn = write_bench(workdir, "bench-placed-txn", TXN_PLACED)
    t0 = time.monotonic()
    proc = runme(workdir, str(placed), str(txn), log="placed.log")
    seconds = time.monotonic() - t0
    traces = {h: project_traces(h) for h in HOSTS}
    try:
        yield placed, proc, seconds, traces, txn
    finally:
        remove_project()
        for h in HOSTS:
            ids = run("docker", "--context", h, "ps", "-aq", "--filter", f"label=com.docker.compose.project={PROJECT}").stdout.split()
            if ids:
                run("docker", "--context", h, "rm", "-f", "-v", *ids)
            vols = run("docker", "--context", h, "volume", "ls", "-q", "--filter", f"label=com.docker.compose.project={PROJECT}").stdout.split()
            if vols:
                run("docker", "--context", h, "volume", "rm", *vols)


def files_of(d):
    return sorted(str(p.relative_to(d)) for p in d.rglob("*") if p.is_file())


def test_a_bench_placed_across_two_hosts_runs_every_phase_ok(placed_run):
    from bench_files_expected import expected_files
    placed, proc, seconds, traces, _ = placed_run
    print(f"the two placed benches: {seconds:.1f} s")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads((placed / "results.json").read_text())
    assert [r["database"] for r in results["runs"]] == list(PLACED_DBS), results["runs"]
    perfs, unprofiled = set(), set()
    for r in results["runs"]:
        db = r["database"]
        assert r["status"] == "ok", (db, r["status"], r.get("reason"))
        # every acknowledged document is in the database on host 1
        assert r["docs_in_db"] == r["docs_ok"] == 40, (db, r["docs_in_db"], r["docs_ok"])
        phase = json.loads((placed / f"{db}.phase.json").read_text())
        # the database ran on host 1's engine: its cgroup is below host 1's cgroup parent, read by a probe
        # container there (lab/driver/probe_box.py through its context), each call timed
        assert phase["cgroup"].startswith(f"{HOSTS[0]}/"), (db, phase["cgroup"])
        assert phase["probe"]["kind"] == "container" and phase["probe"]["context"] == HOSTS[0], phase["probe"]
        assert [c for c in phase["probe"]["calls"] if c["method"] == "cgroup_cpu_seconds"], phase["probe"]["calls"]
        assert phase["cgroup_cpu_seconds"]["end"] > phase["cgroup_cpu_seconds"]["start"], phase["cgroup_cpu_seconds"]
        # cAdvisor's figures come from host 1's own cAdvisor (lab/driver/placed.py start_cadvisors), and
        # agree with the probe's cgroup reading of the same container
        cpu = r["cpu"]
        assert cpu["user_s"] is not None and cpu["system_s"] is not None, (db, cpu)
        assert cpu["cgroup_cpu_s"] and cpu["cgroup_cpu_s"] > 0, (db, cpu)
        # the bytes that crossed between the hosts' namespaces, read on the database's side
        assert r["network"]["rx_bytes"] > 0 and r["network"]["tx_bytes"] > 0, (db, r["network"])
        # the clients' CPU, from host 2's cAdvisor
        assert r["client_cpu"] and (r["client_cpu"].get("cpu_s") or r["client_cpu"].get("user_s")), (db, r["client_cpu"])
        # the server's perf samples, recorded on host 1 by its probe, when perf runs there
        perfs.add(phase["perf"]["reason"] is None)
        if phase["perf"]["reason"] is None:
            # the recording is as long as the load (about 1 s here): an idle-enough server can leave no
            # sample in it, which the profile then says instead of a count
            profile = phase["perf"]["profile"]
            assert profile and (profile.get("samples") or profile.get("reason")), (db, phase["perf"])
            if not profile.get("file"):
                unprofiled.add(db)
        # each host's clock at the marks
        assert set(phase["clock"]["hosts"]) == set(HOSTS), (db, phase.get("clock"))
        for h, marks in phase["clock"]["hosts"].items():
            for mark in ("start", "end"):
                assert marks[mark]["offset_s"] is not None and abs(marks[mark]["offset_s"]) < 0.1, (db, h, marks)
        print(f"placed {db}: database CPU {cpu['cgroup_cpu_s']:.3f} s (cAdvisor user+system "
              f"{cpu['user_s'] + cpu['system_s']:.3f} s), client CPU {r['client_cpu']}, network {r['network']}, "
              f"clock {phase['clock']['hosts']}")
    # the canary from host 2 to host 1 before the run
    (pair,) = results["network_canary"]["pairs"]
    assert results["network_canary"]["client_host"] == HOSTS[1] and pair["database_host"] == HOSTS[0], results["network_canary"]
    assert pair["rtt_s"]["median"] > 0 and pair["peer"] == ADDRESS[HOSTS[1]], pair
    # every host with its roles and facts; host 1's CPU model read by its probe
    hosts_rec = {h["context"]: h for h in results["hosts"]}
    assert hosts_rec[HOSTS[0]]["roles"] == ["database"] and hosts_rec[HOSTS[1]]["roles"] == ["client", "monitoring"], hosts_rec
    assert hosts_rec[HOSTS[0]]["cpu_model"] and hosts_rec[HOSTS[0]]["cgroup_driver"], hosts_rec[HOSTS[0]]
    print(f"canary: RTT median {pair['rtt_s']['median'] * 1e6:.0f} us, "
          f"{(pair['throughput_bytes_per_s'] or 0) / 1e6:.0f} MB/s")

    # the clients ran on host 2 and their results came back only through the bench-files volume there
    # (lab/driver/files.py), gone with its box once the bench ended; the hosts' cAdvisors are gone too
    assert not [v for h in HOSTS for v in traces[h]["volume ls"] if v.endswith("_bench-files")], traces
    # the last bench's database's volume, kept as on one host
    assert f"{PROJECT}_postgres-data" in traces[HOSTS[0]]["volume ls"], traces
    assert run("docker", "--context", HOSTS[1], "ps", "-aq", "--filter", "label=jsonbench.role=bench-files").stdout == ""
    for h in HOSTS:
        assert not [c for c in run("docker", "--context", h, "ps", "-a", "--format", "{{.Names}}", "--filter",
                                   f"label=com.docker.compose.project={PROJECT}").stdout.split() if "cadvisor" in c], h

    # the images loaded onto each host are the controller's, recorded with their ids there
    import jsonschema
    record = json.loads((placed / "placement.json").read_text())
    jsonschema.validate(record, json.loads((LAB_ROOT / "lab" / "placement.schema.json").read_text()))
    assert record["databases"] == {"mongodb": HOSTS[0], "postgres": HOSTS[0]} and record["clients"] == HOSTS[1]
    assert {(i["context"], i["service"]) for i in record["images"]} == {
        (HOSTS[0], "mongodb"), (HOSTS[0], "postgres"), (HOSTS[0], "probe"), (HOSTS[0], "cadvisor"), (HOSTS[1], "client"),
        (HOSTS[1], "cadvisor"), (HOSTS[1], "prometheus"),
        *([(HOSTS[1], "grafana")] if standins_choice() != "1" else [])}, record["images"]
    for i in record["images"]:
        here = run("docker", "image", "inspect", "-f", "{{.Id}}", i["image"]).stdout.strip()
        there = run("docker", "--context", i["context"], "image", "inspect", "-f", "{{.Id}}", i["image"]).stdout.strip()
        assert i["id"] == here == there, (i, here, there)
        print(f"image {i['image']} onto {i['context']}: {i['seconds']} s ({'loaded' if i['loaded'] else 'there already'})")

    # every file a phase produces reached the controller's bench folder: the plan's list, placed
    plan = json.loads((placed / "plan.json").read_text())
    assert len(perfs) == 1, "perf ran on host 1 for one database and not the other"
    assert files_of(placed) == expected_files(plan, placed=True, perf=perfs.pop(), unprofiled=unprofiled), files_of(placed)

    # -- MONITORING_HOST (issue 27): Prometheus and Grafana ran on host 2's engine, not the controller's,
    # published on host 2's lab address only; the phase's figures were exported from that Prometheus,
    # whose series of every host carry their `host` label (lab/driver/placed.py start_monitoring)
    mon = HOSTS[1]
    assert record["monitoring"] == mon and record["keys"]["MONITORING_HOST"]["context"] == mon, record
    url = f"http://{ADDRESS[mon]}:{PORTS['PROMETHEUS_PORT']}"
    # (Grafana too where it runs: the stand-ins have no Grafana, as on one host: lab/stack.sh)
    for service, port in (("prometheus", 9090), ("grafana", 3000))[:1 if standins_choice() == "1" else 2]:
        (cid,) = run("docker", "--context", mon, "ps", "-q", "--filter", f"label=com.docker.compose.project={PROJECT}",
                     "--filter", f"label=com.docker.compose.service={service}").stdout.split()
        bound = run("docker", "--context", mon, "port", cid, f"{port}/tcp").stdout.split()
        assert bound and all(b.startswith(f"{ADDRESS[mon]}:") for b in bound), (service, bound)
    # the controller's own Prometheus (runme.sh starts it before any bench) scraped no host of the bench
    here_url = f"http://{BIND_ADDRESS}:{PORTS['PROMETHEUS_PORT']}"
    assert not prometheus_query(here_url, f'container_cpu_usage_seconds_total{{host=~"{"|".join(HOSTS)}"}}[30m]')
    metrics = json.loads((placed / "mongodb.metrics.json").read_text())
    assert metrics["prometheus"] == url, metrics["prometheus"]
    assert metrics["services"]["mongodb"]["counters"]["container_cpu_user_seconds_total"]["delta"] is not None, metrics["services"]
    series = prometheus_query(url, f'container_cpu_usage_seconds_total{{container_label_com_docker_compose_project="{PROJECT}"}}[30m]')
    seen = {(s["metric"].get("host"), s["metric"].get("container_label_com_docker_compose_service")) for s in series}
    assert (HOSTS[0], "mongodb") in seen and (mon, "client") in seen, seen
    assert {h for h, _ in seen} <= set(HOSTS), seen  # every series with its host
    # each host's cAdvisor reports its own engine's containers only (both see every cgroup of this one
    # kernel): the databases' series come from host 1's alone, the clients' from host 2's alone
    assert not {svc for h, svc in seen if h == mon} & set(PLACED_DBS), seen
    assert "client" not in {svc for h, svc in seen if h == HOSTS[0]}, seen
    # the clients on the monitoring host are its targets by name, with their host (`up`: every scrape
    # tried, also of a client whose 0.4 s of load ended between two 2 s scrapes)
    clients = prometheus_query(url, 'up{job="client"}[30m]')
    assert clients and all(c["metric"].get("host") == mon for c in clients), clients
    assert {c["metric"]["instance"].split(":")[0] for c in clients} == {f"{PROJECT}-client-{db}-{i}" for db in PLACED_DBS for i in (1, 2)}, clients


def test_a_transaction_bench_placed_across_two_hosts_commits_and_loses_no_booking(placed_run):
    """The second bench of the placed run: booking transactions on PostgreSQL on host 1 from clients on
    host 2. Every booking the clients recorded as committed is found by id in the database (count's
    nothing-lost check), the server's own counters reconcile with the clients' transactions, and the
    CPU per committed booking comes from host 1's probe reading."""
    *_, txn = placed_run
    results = json.loads((txn / "results.json").read_text())
    (r,) = results["runs"]
    assert r["status"] == "ok", (r["status"], r.get("reason"), r["reconciliation"]["reasons"])
    t, check = r["transactions"], r["booking_check"]
    committed = sum(json.loads((txn / "clients" / f"postgres-client-{i}.json").read_text())["transactions"]["committed"]
                    for i in range(1, TXN_CLIENTS + 1))
    assert committed == TXN_CLIENTS * TXN_OPS == t["committed"] and t["gave_up"] == 0, t
    assert check["ok"] and check["ids_checked"] == committed and check["lost_count"] == check["unexpected_count"] == 0, check
    assert check["seats"] == check["payments"] == check["audit_seats"] == committed, check
    assert r["reconciliation"]["checks"]["transactions"]["verdict"] == "ok", r["reconciliation"]["checks"]
    phase = json.loads((txn / "postgres.phase.json").read_text())
    assert phase["cgroup"].startswith(f"{HOSTS[0]}/") and phase["probe"]["context"] == HOSTS[0], phase["probe"]
    assert r["cpu"]["cgroup_cpu_s"] and r["cpu"]["cgroup_cpu_s"] > 0, r["cpu"]
    assert r["network"]["rx_bytes"] > 0 and r["client_cpu"], (r["network"], r["client_cpu"])
    print(f"placed booking on postgres: {committed} committed, {t['retries']} retries, "
          f"CPU {t['cpu_us_per_committed']:.0f} us per committed booking, network {r['network']}")

def test_down_cleans_every_context_by_the_project_label(placed_run, image):
    """`./runme.sh down` after a placed run (issue 27's interrupted controller): what the run left on
    the hosts (the database's volume, the project's networks) and a container still running there (as
    a client would after an interrupt) are removed by the project's label (lab/driver/down.py); another
    project's container on the same host stays."""
    h1, h2 = HOSTS
    assert project_traces(h1)["volume ls"], "the placed run left no volume on host 1 to clean"
    assert load_image(h2, image).returncode == 0
    ours = run("docker", "--context", h2, "run", "-d", "--label", f"com.docker.compose.project={PROJECT}",
               "--entrypoint", "sleep", image, "300").stdout.strip()
    theirs = run("docker", "--context", h2, "run", "-d", "--label", "com.docker.compose.project=jsonbench-e2e-not-ours",
                 "--entrypoint", "sleep", image, "300").stdout.strip()
    assert ours and theirs
    try:
        proc = subprocess.run([str(LAB_ROOT / "runme.sh"), "down"], cwd=LAB_ROOT, env=lab_env(), capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=600)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        assert f"down: {h1}: removed" in proc.stdout and f"down: {h2}: removed" in proc.stdout, proc.stdout
        for h in HOSTS:
            assert project_traces(h) == {"volume ls": [], "network ls": [], "ps -a": []}, (h, project_traces(h))
        assert run("docker", "--context", h2, "inspect", theirs).returncode == 0
    finally:
        run("docker", "--context", h2, "rm", "-f", ours, theirs)


def test_a_database_host_whose_engine_stops_mid_run_fails_its_phase_and_loses_nothing(placed_run, tmp_path):
    """issue 27's fault: the database host's engine stopped while the clients run, on the placed run's
    placement (the database on host 1, the clients on host 2: every image is there already, none is
    loaded again). The phase fails, the run ends by itself, and what was gathered is in the bench
    folder: the clients' results from their host, the phase's facts, results.json and report.md.
    Host 1's engine is started again afterwards for the tests after this one."""
    db_host, client_host = HOSTS  # the database's host, whose engine stops; the clients'
    extra = (f"DATABASES=mongodb\nDATABASE_HOST={db_host}\nCLIENT_HOST={client_host}\n"
             f"LAB_ADDRESSES=\"{client_host}={ADDRESS[client_host]} {db_host}={ADDRESS[db_host]}\"\n")
    bench = write_bench(tmp_path, "bench-engine-stops", tiny_bench(1000, 0, extra=extra))
    killed, timer = [], []

    def on_line(line):
        # 5 s after the clients started: they have had documents acknowledged (20 s of load each)
        if "clients running" in line and not timer:
            timer.append(threading.Timer(5, stop_engine))
            timer[0].start()

    def stop_engine():
        # SIGTERM: the engine stops its containers and ends, as a host shut down does (a SIGKILLed
        # engine's leftovers are the fewer-hosts test's)
        pid = engine_pid(db_host)
        os.kill(pid, 15)
        killed.append(pid)
    try:
        # the clients give up 8 s after their database went (not the default 60 s)
        t0 = time.monotonic()
        proc = runme_watched(tmp_path, str(bench), log="engine-stops.log", on_line=on_line,
                             env=dict(lab_env(), RECONNECT_TIMEOUT_S="8"), timeout=900)
        seconds = time.monotonic() - t0
    finally:
        remove_project()
        # the database host's engine started again (simulate-hosts starts an engine that is not running), and what
        # the run left on either host removed by the project's label
        again = simulate(2)
        down_proc = subprocess.run([str(LAB_ROOT / "runme.sh"), "down"], cwd=LAB_ROOT, env=lab_env(), capture_output=True,
                                   text=True, stdin=subprocess.DEVNULL, timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr
    assert down_proc.returncode == 0, down_proc.stdout + down_proc.stderr
    assert killed, "the clients never ran: " + proc.stdout[-2000:]
    assert proc.returncode != 0, proc.stdout[-2000:]
    results = json.loads((bench / "results.json").read_text())
    (r,) = results["runs"]
    assert r["status"] == "failed", (r["status"], r.get("reason"))
    phase = json.loads((bench / "mongodb.phase.json").read_text())
    assert phase["facts"]["database"]["state"] != "running", phase["facts"]["database"]
    # the driver asked the gone database nothing more: no end reading, no count (count's patient
    # connection waited 5 minutes for it before), said in the phase's output
    out = (bench / "mongodb.out").read_text()
    assert f"count: not attempted: the database container on {db_host} is" in out, out[-2000:]
    assert "server-stats: no end reading: the database container" in out, out[-2000:]
    assert phase["facts"]["count"]["outcome"] == "failed"
    # a hang guard, not a timing test: the run's own parts (the set-up, 20 s of load, the clients' 8 s
    # reconnect timeout, and at most one watch of a docker call on the stopped host) end below the
    # wait it guards against, MongoDB's patient connection (count's, before)
    guard = SETUP_S + 20 + 8 + engine_module.WATCH_INTERVAL_S + engine_module.CALL_TIMEOUT_S
    assert guard < mongodb_patient_s(), (guard, mongodb_patient_s())
    assert seconds < guard, (seconds, guard)
    # the clients' results came back from host 1, each with what the database acknowledged before the stop
    clients = [json.loads((bench / "clients" / f"mongodb-client-{i}.json").read_text()) for i in (1, 2)]
    assert all(c for c in clients), clients
    for name in ("report.md", "placement.json", "hosts.json", "canary.json", "mongodb.out", "mongodb.log"):
        assert (bench / name).exists(), name
    print(f"the engine of {db_host} stopped mid-run: status {r['status']} ({r.get('reason')}); "
          f"documents acknowledged {r.get('docs_ok')}; the run took {seconds:.0f} s")


def test_fewer_hosts_remove_the_extra_ones_and_zero_removes_everything(hosts, image):
    for h in HOSTS:  # there already when the module ran in full; loaded when this test runs alone
        assert load_image(h, image).returncode == 0
    kept = engine_pid(HOSTS[0])  # the module's, or the one the engine-stop test started again
    # a container still running on the host that goes: removed with it
    r = run("docker", "--context", HOSTS[1], "run", "-d", "--entrypoint", "sleep", image, "600")
    assert r.returncode == 0, r.stderr
    r = simulate(1)
    assert r.returncode == 0, r.stdout + r.stderr
    assert engine_pid(HOSTS[0]) == kept
    left = leftovers()
    assert left["contexts"] == [HOSTS[0]] and left["namespaces"] == [HOSTS[0]] and left["links"][0].startswith("jbsim-1"), left
    assert not os.path.exists(f"/run/{HOSTS[1]}") and not os.path.exists(f"{CACHE}/sim-hosts/{HOSTS[1]}")

    # host 1's engine SIGKILLed with a container running: nothing stops that container, its process
    # lives on in host 1's cgroups (as an engine killed by the OOM killer or a crash leaves it)
    r = run("docker", "--context", HOSTS[0], "run", "-d", "--entrypoint", "sleep", image, "600")
    assert r.returncode == 0, r.stderr
    orphan = int(run("docker", "--context", HOSTS[0], "inspect", "-f", "{{.State.Pid}}", r.stdout.strip()).stdout)
    os.kill(engine_pid(HOSTS[0]), 9)
    time.sleep(1)
    assert alive(orphan), "the container's process ended with its engine"

    r = simulate(0)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not alive(orphan), f"the killed engine's container process {orphan} outlived simulate-hosts 0"
    assert leftovers() == {kind: [] for kind in leftovers()}
    # the main engine was neither stopped nor changed
    assert run("docker", "info", "--format", "{{.ID}}").stdout.strip() == MAIN_ID
