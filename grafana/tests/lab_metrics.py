"""A short made-up lab run, as OpenMetrics text that promtool backfills into a real Prometheus.

The series carry the names and labels cAdvisor and the client export (docs/contracts.md), at
known constant rates, so a test can check what the dashboards' queries compute, not only that
they parse. Values are chosen so that each mistake gives a different number: a second device,
a second interface and a second compose project that a correct query must sum or ignore.
"""
import zlib

STEP_S = 2
DURATION_S = 600
PROJECT = "jsonbench"
OTHER_PROJECT = "otherlab"  # same services, must never leak into the lab's panels
BENCH = "bench1"
# database -> (phase start, phase end) in seconds after the start of the data
PHASES = {"mongodb": (60, 300), "postgres": (330, 570)}
CLIENTS = 2
CLIENT_RATE = 50.0  # docs/s per client

# per service: cores user, cores system, rss, cache, working set,
# {device: (read B/s, write B/s, read op/s, write op/s)}, {interface: (rx B/s, tx B/s)}
CONTAINERS = {
    "mongodb": (0.30, 0.05, 300e6, 100e6, 350e6,
                {"/dev/sda": (0.0, 800.0, 0.0, 4.0), "/dev/sdb": (100.0, 200.0, 1.0, 2.0)},
                {"eth0": (1000.0, 400.0), "eth1": (10.0, 4.0)}),
    "postgres": (0.50, 0.10, 200e6, 400e6, 500e6,
                 {"/dev/sda": (0.0, 1000.0, 0.0, 5.0), "/dev/sdb": (0.0, 500.0, 0.0, 3.0)},
                 {"eth0": (2000.0, 3000.0), "eth1": (20.0, 30.0)}),
    "client": (0.04, 0.01, 50e6, 5e6, 60e6, {"/dev/sda": (0.0, 0.0, 0.0, 0.0)},
               {"eth0": (500.0, 900.0)}),
}
# transactions per client (a transaction workload's series, docs/contracts.md): commits/s, and
# aborts/s by reason; attempts are commits plus aborts
TXN_COMMITS = 40.0
TXN_ABORTS = {"mongodb": {"TransientTransactionError:WriteConflict": 6.0, "error:MongoNetworkError": 0.5},
              "postgres": {"serialization_failure": 8.0, "deadlock_detected": 1.0}}
# latency buckets (le -> share of observations at or below it), service time is half as long
BUCKETS = [(0.001, 0.2), (0.005, 0.8), (0.01, 0.95), (0.05, 1.0)]


def _labels(**labels):
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"


def _container_labels(project, service, n):
    cid = f"{zlib.crc32(f'{project}/{service}/{n}'.encode()):08x}"
    return dict(id=f"/docker/{cid}", name=f"{project}-{service}-{n}", image=f"{service}:test",
                container_label_com_docker_compose_project=project,
                container_label_com_docker_compose_service=service)


def openmetrics(t0):
    """The whole data set, samples from t0 to t0 + DURATION_S (unix seconds)."""
    families = {}  # family name -> (type, [(series name, labels, [(t, value)])])

    def series(family, kind, name, labels, points):
        families.setdefault(family, (kind, []))[1].append((name, labels, points))

    def counter(family, labels, per_s, start=0, end=DURATION_S):
        points = [(t0 + t, per_s * (t - start)) for t in range(start, end + 1, STEP_S)]
        series(family, "counter", family + "_total", labels, points)

    def gauge(family, labels, value, start=0, end=DURATION_S):
        points = [(t0 + t, value) for t in range(start, end + 1, STEP_S)]
        series(family, "gauge", family, labels, points)

    for project, scale in ((PROJECT, 1.0), (OTHER_PROJECT, 7.0)):
        for service, (user, system, rss, cache, ws, disks, nets) in CONTAINERS.items():
            for n in range(1, (CLIENTS if service == "client" else 1) + 1):
                base = _container_labels(project, service, n)
                counter("container_cpu_user_seconds", base, user * scale)
                counter("container_cpu_system_seconds", base, system * scale)
                gauge("container_memory_rss", base, rss * scale)
                gauge("container_memory_cache", base, cache * scale)
                gauge("container_memory_working_set_bytes", base, ws * scale)
                for device, (rb, wb, rops, wops) in disks.items():
                    dev = dict(base, device=device)
                    counter("container_fs_reads_bytes", dev, rb * scale)
                    counter("container_fs_writes_bytes", dev, wb * scale)
                    counter("container_fs_reads", dev, rops * scale)
                    counter("container_fs_writes", dev, wops * scale)
                for interface, (rx, tx) in nets.items():
                    net = dict(base, interface=interface)
                    counter("container_network_receive_bytes", net, rx * scale)
                    counter("container_network_transmit_bytes", net, tx * scale)

    # the clients only exist while their phase runs, as in the lab
    for database, (start, end) in PHASES.items():
        for client in range(1, CLIENTS + 1):
            labels = dict(bench=BENCH, database=database, client_id=str(client),
                          instance=f"10.0.0.{client}:9464", job="client")
            gauge("jsonbench_client_target_rate", labels, CLIENT_RATE, start, end)
            counter("jsonbench_client_docs_ok", labels, CLIENT_RATE, start, end)
            counter("jsonbench_client_errors", labels, 0.5, start, end)
            counter("jsonbench_client_dropped", labels, 0.25, start, end)
            counter("process_cpu_seconds", labels, 0.02, start, end)
            counter("jsonbench_client_txn_commits", labels, TXN_COMMITS, start, end)
            counter("jsonbench_client_txn_attempts", labels, TXN_COMMITS + sum(TXN_ABORTS[database].values()),
                    start, end)
            for reason, per_s in TXN_ABORTS[database].items():
                counter("jsonbench_client_txn_aborts", dict(labels, reason=reason), per_s, start, end)
            for family, factor in (("jsonbench_client_latency_seconds", 1.0),
                                   ("jsonbench_client_service_seconds", 0.5)):
                for le, share in BUCKETS + [(float("inf"), 1.0)]:
                    bucket = dict(labels, le="+Inf" if le == float("inf") else repr(le * factor))
                    points = [(t0 + t, CLIENT_RATE * share * (t - start))
                              for t in range(start, end + 1, STEP_S)]
                    series(family, "histogram", family + "_bucket", bucket, points)
                points = [(t0 + t, CLIENT_RATE * (t - start)) for t in range(start, end + 1, STEP_S)]
                series(family, "histogram", family + "_count", labels, points)
                points = [(t0 + t, CLIENT_RATE * 0.004 * factor * (t - start))
                          for t in range(start, end + 1, STEP_S)]
                series(family, "histogram", family + "_sum", labels, points)

    lines = []
    for family, (kind, members) in families.items():
        lines.append(f"# TYPE {family} {kind}")
        for name, labels, points in members:
            lines.extend(f"{name}{_labels(**labels)} {value} {t}" for t, value in points)
    lines.append("# EOF")
    return "\n".join(lines) + "\n"
