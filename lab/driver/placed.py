"""hostmon's per-host readings on a placed bench (issue 27): what lab/driver/lab.py does for the single
host, done for each host a bench places a role on (lab/driver/placement.py).

  hosts(bench) -> {context: roles}      the bench's hosts; the controller's engine by its current context
  start_monitoring(bench)               MONITORING_HOST: Prometheus (and Grafana) on that host's engine,
                                        its ports on its lab address; prometheus_url(bench) where the
                                        driver's queries go (None: the lab's own)
  scrape_clients(bench, names)          a phase's clients as Prometheus's targets with their host label:
                                        by name on its host, at their published metrics port elsewhere
  start_cadvisors(bench)                a cAdvisor on each placed host holding a measured container,
                                        published on its lab address; Prometheus's targets name each host
  stop_cadvisors(bench)                 those cAdvisors removed, the single host's targets written again
  hosts_document(bench, local_facts)    hosts.json: each host's roles and facts (its probe's where one runs)
  clock_marks(bench) -> {context: reading}  each placed host's clock against the controller's, at a mark
  canary(bench) -> canary.json          RTT and throughput from the clients' host to each database host

A figure a host cannot give is null with the reason (the functions called say it); none is read from
another host than the one it describes.
"""
import subprocess

from . import canary as canary_mod
from . import clock, host_facts, images, monitoring_targets

CADVISOR_FILE = "prometheus/cadvisor-published.yaml"


def here(bench):
    """The controller's engine as a context name (the `host` label of its cAdvisor's series)."""
    return bench.lab.context or monitoring_targets.current_context(bench.engine.environ)


def name_of(bench, context):
    return context or here(bench)


def hosts(bench):
    """{context: roles}: each database's host, the clients' host and the monitoring's (MONITORING_HOST,
    else the controller's engine). Unplaced: the lab's single host."""
    if not bench.placement.placed:
        return bench.lab.hosts()
    out = {}
    for db in bench.databases:
        out.setdefault(name_of(bench, bench.placement.database(db)), set()).add("database")
    out.setdefault(name_of(bench, bench.placement.client), set()).add("client")
    out.setdefault(name_of(bench, bench.placement.monitoring), set()).add("monitoring")
    return out


def placed_contexts(bench):
    """The contexts other than the controller's engine that hold a measured role (a database, the clients)."""
    out = {bench.placement.database(db) for db in bench.databases} | {bench.placement.client}
    return sorted(c for c in out if c)


def cadvisor_port(bench):
    return int(bench.env.get("CADVISOR_PUBLISHED_PORT") or monitoring_targets.DEFAULT_CADVISOR_PORT)


def cadvisor_env(bench, context):
    address = bench.placement.addresses.get(context)
    return {**bench.env, **monitoring_targets.cadvisor_env(context, address, cadvisor_port(bench), bench.engine.environ)}


def start_cadvisors(bench):
    """A cAdvisor on each placed host (its image loaded there by Bench.load_images), watching that host's
    own engine, its port on the host's lab address only; then Prometheus's cAdvisor targets: those hosts
    with their `host` label (the controller's own cAdvisor only when it holds a measured container).
    Raises RuntimeError naming the host when one cannot start: without it the host's figures would be
    missing for no said reason."""
    started = []
    for context in placed_contexts(bench):
        engine = bench.lab.engine_on(context)
        if not bench.placement.addresses.get(context):
            raise RuntimeError(f"no lab address for {context} in LAB_ADDRESSES: its cAdvisor has nowhere to publish")
        r = engine.compose(["up", "-d", "--no-deps", "cadvisor"], env=cadvisor_env(bench, context), extra=[CADVISOR_FILE])
        if r.returncode != 0:
            raise RuntimeError(f"the cAdvisor on {context} did not start: {r.stderr.strip()[-500:]}")
        started.append(context)
    prometheus = prometheus_container(bench)
    if not prometheus:
        raise RuntimeError(f"the lab's Prometheus container is not running on {monitoring_name(bench)}: no host's "
                           "cAdvisor can be scraped")
    monitoring_targets.write_cadvisor_targets(hosts(bench), monitoring_name(bench), prometheus,
                                              lambda c: bench.placement.addresses[c], cadvisor_port(bench),
                                              environ=bench.engine.environ)
    return started


# -- the monitoring on its own host (MONITORING_HOST) --------------------------------------------
# Prometheus and Grafana from the lab's compose files on the monitoring host's engine, their ports on
# that host's lab address only (LAB_ADDRESSES: placement.py refuses MONITORING_HOST without one); the
# driver's queries go there. Unset: the controller's, which runme.sh started, as on one host.
MONITORING_SERVICES = ("prometheus", "grafana")


def monitoring_services(bench):
    """The monitoring host's services, as lab/stack.sh's monitoring_services names the controller's
    (its cAdvisor is start_cadvisors'): no Grafana with the stand-ins (it has no stand-in image)."""
    return MONITORING_SERVICES[:1] if bench.engine.standins else MONITORING_SERVICES


# How long the monitoring host's Prometheus may take to answer /-/ready after `compose up` (a cold
# start reads its data volume's WAL: seconds), and each HTTP call of that wait.
READY_TIMEOUT_S = 60
HTTP_TIMEOUT_S = 5
# Each docker call to the monitoring host during the phases (its Prometheus's container, the client
# targets copied in: monitoring_targets.install allows 60 s): a lost host ends the call, said, not the run.
DOCKER_TIMEOUT_S = 30


def monitoring_name(bench):
    """The context Prometheus runs on (the `host` label it writes on its own series and targets)."""
    return name_of(bench, bench.placement.monitoring)


def monitoring_env(bench):
    """The compose variables of the monitoring host's services: the bench's, ports bound to its lab address."""
    return {**bench.env, "BIND_ADDRESS": bench.placement.addresses[bench.placement.monitoring]}


def prometheus_container(bench):
    """The Prometheus container the targets go into: the monitoring host's (asked once per bench, within
    DOCKER_TIMEOUT_S: a lost host makes the caller say so, never wait), else the controller's."""
    if not bench.placement.monitoring:
        return bench.engine.container_of("prometheus")
    if not getattr(bench, "monitoring_container", None):
        engine = bench.lab.engine_on(bench.placement.monitoring)
        r = engine.compose(["ps", "-q", "prometheus"], env=monitoring_env(bench), timeout=DOCKER_TIMEOUT_S)
        bench.monitoring_container = r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else ""
    return bench.monitoring_container


def prometheus_url(bench):
    """Where the driver's queries (analysis's export and check) reach the bench's Prometheus: the
    monitoring host's published port at its lab address; None without MONITORING_HOST (the lab's own,
    Lab.prometheus_url)."""
    if not bench.placement.monitoring:
        return None
    from .lab import host_address
    address = bench.placement.addresses[bench.placement.monitoring]
    return f"http://{host_address(address)}:{bench.env.get('PROMETHEUS_PORT') or 9090}"


def start_monitoring(bench, timeout_s=READY_TIMEOUT_S):
    """MONITORING_HOST: Prometheus and Grafana up on its engine (their images loaded there already) and
    Prometheus answering at prometheus_url; returns its container id. Raises RuntimeError naming the
    host: without it every figure from Prometheus would be missing."""
    import time
    import urllib.request
    ctx = bench.placement.monitoring
    engine = bench.lab.engine_on(ctx)
    r = engine.compose(["up", "-d", "--no-deps", *monitoring_services(bench)], env=monitoring_env(bench))
    if r.returncode != 0:
        raise RuntimeError(f"the monitoring did not start on {ctx}: {r.stderr.strip()[-500:]}")
    url = prometheus_url(bench)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/-/ready", timeout=HTTP_TIMEOUT_S) as answer:
                if answer.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the Prometheus on {ctx} does not answer at {url} after {timeout_s} s")
        time.sleep(0.5)
    return prometheus_container(bench)


# -- the clients' metrics (their /metrics, compose.yaml METRICS_PORT) -----------------------------
# Client I on another host than Prometheus publishes its metrics port on its host's lab address at
# CLIENT_METRICS_PORT_BASE + I (CLIENT_METRICS_PORT_BASE in .env or the environment: 9464 unless set),
# so that Prometheus reaches it across the hosts; on Prometheus's own host it is reached by name.
CLIENT_METRICS_PORT_BASE = 9464


def client_metrics_port(bench, i):
    return int(bench.env.get("CLIENT_METRICS_PORT_BASE") or CLIENT_METRICS_PORT_BASE) + i


def _clients_address(bench):
    """The clients' host's lab address when they run on another host than Prometheus, else None."""
    if bench.placement.client == bench.placement.monitoring:
        return None
    return bench.placement.addresses.get(bench.placement.client) if bench.placement.client else None


def client_metrics_publish(bench, i):
    """`compose run` words publishing client I's metrics port on its host's lab address (only there),
    when the clients run on another host than Prometheus and LAB_ADDRESSES names that host; else []."""
    address = _clients_address(bench)
    if not address:
        return []
    return ["-p", f"{address}:{client_metrics_port(bench, i)}:{monitoring_targets.CLIENT_METRICS_PORT}"]


def client_targets(bench, names):
    """{clients' host: [target]} for Prometheus and why none (None when they are scraped): by container
    name on Prometheus's host, at ADDRESS:PORT (client_metrics_publish) on another."""
    host = name_of(bench, bench.placement.client)
    if bench.placement.client == bench.placement.monitoring:
        return {host: list(names)}, None
    address = _clients_address(bench)
    if not address:
        where = bench.placement.client or "the controller's engine"
        return {host: []}, (f"they run on {where}, Prometheus on {monitoring_name(bench)}, and LAB_ADDRESSES "
                            f"names no address of {where} to publish their metrics port on")
    return {host: [f"{address}:{client_metrics_port(bench, i)}" for i in range(1, len(names) + 1)]}, None


def scrape_clients(bench, names):
    """The phase's client containers NAMES as the targets of the bench's Prometheus (the monitoring
    host's, or the controller's), labelled with the clients' host; returns why they are not scraped,
    or None."""
    targets, why = client_targets(bench, names)
    ctx = bench.placement.monitoring or None
    if getattr(bench, "monitoring_lost", None):  # asked once already and it did not answer: not again
        return bench.monitoring_lost
    try:
        monitoring_targets.write_client_targets(targets, monitoring_name(bench), prometheus_container(bench),
                                                context=ctx, environ=bench.engine.environ)
    except subprocess.TimeoutExpired as e:
        bench.monitoring_lost = f"the monitoring host {monitoring_name(bench)} did not answer within {e.timeout:g} s"
        return bench.monitoring_lost
    return why


def stop_cadvisors(bench):
    """After a placed bench: its hosts' cAdvisors removed and the single host's target written again,
    so that a bench after it is scraped as before."""
    for context in placed_contexts(bench):
        bench.lab.engine_on(context).compose(["rm", "-fs", "cadvisor"], env=cadvisor_env(bench, context),
                                             extra=[CADVISOR_FILE])
    bench.lab.write_monitoring_targets()


def cadvisor_images(bench):
    """{context: {"cadvisor": image}} for each placed host (Bench.load_images loads them)."""
    image = images.service_images(bench.engine, bench.env, ["cadvisor"])["cadvisor"]
    return {c: {"cadvisor": image} for c in placed_contexts(bench)}


def hosts_document(bench, local_facts):
    """hosts.json: every host of the bench with its roles; the controller's facts are LOCAL_FACTS
    (host.json's), a placed host's its engine's under its probe's (the databases' hosts run one; the
    clients' host alone has none: its CPU model null with that reason)."""
    if not bench.placement.placed:
        return bench.lab.hosts_facts(local_facts)
    probes = {bench.placement.database(db): bench.probe_for(db) for db in bench.databases if bench.placement.database(db)}
    return host_facts.document(hosts(bench), here(bench), local_facts, probes, environ=bench.engine.environ)


def clock_marks(bench):
    """Each placed host's clock offset against the controller's (its engine's time), at one mark;
    {} on a single host (which records none)."""
    if not bench.placement.placed:
        return {}
    return clock.marks({c: clock.engine_reader(c, bench.engine.environ) for c in placed_contexts(bench)})


def canary(bench):
    """canary.json: from the clients' host to each database host on another host (its lab address),
    with the client image on the one side and the first database image on the other (both loaded
    there already). None when no database is on another host than the clients."""
    dbs = {}
    for db in bench.databases:
        ctx = bench.placement.database(db)
        if ctx == bench.placement.client or name_of(bench, ctx) in dbs:
            continue
        service = bench.manifests.field(bench.manifests.load(db, bench.databases_root), "service")
        image = images.service_images(bench.engine, bench.env, [service])[service]
        dbs[name_of(bench, ctx)] = (bench.placement.addresses.get(ctx), image)
    if not dbs:
        return None
    client_image = images.service_images(bench.engine, bench.env, ["client"])["client"]
    missing = {c for c, (address, _) in dbs.items() if not address}
    doc = canary_mod.measure(name_of(bench, bench.placement.client), client_image,
                             {c: v for c, v in dbs.items() if c not in missing}, bench.engine.project,
                             environ=bench.engine.environ)
    for c in sorted(missing):
        doc["pairs"].append(canary_mod.failed(c, "", f"no lab address for {c} in LAB_ADDRESSES"))
    return doc
