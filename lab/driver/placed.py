"""hostmon's per-host readings on a placed bench (issue 27): what lab/driver/lab.py does for the single
host, done for each host a bench places a role on (lab/driver/placement.py).

  hosts(bench) -> {context: roles}      the bench's hosts; the controller's engine by its current context
  start_cadvisors(bench)                a cAdvisor on each placed host holding a measured container,
                                        published on its lab address; Prometheus's targets name each host
  stop_cadvisors(bench)                 those cAdvisors removed, the single host's targets written again
  hosts_document(bench, local_facts)    hosts.json: each host's roles and facts (its probe's where one runs)
  clock_marks(bench) -> {context: reading}  each placed host's clock against the controller's, at a mark
  canary(bench) -> canary.json          RTT and throughput from the clients' host to each database host

A figure a host cannot give is null with the reason (the functions called say it); none is read from
another host than the one it describes.
"""
from . import canary as canary_mod
from . import clock, host_facts, images, monitoring_targets

CADVISOR_FILE = "prometheus/cadvisor-published.yaml"


def here(bench):
    """The controller's engine as a context name (the `host` label of its cAdvisor's series)."""
    return bench.lab.context or monitoring_targets.current_context(bench.engine.environ)


def name_of(bench, context):
    return context or here(bench)


def hosts(bench):
    """{context: roles}: each database's host, the clients' host and the monitoring (on the controller's
    engine: MONITORING_HOST is refused until the monitoring can move). Unplaced: the lab's single host."""
    if not bench.placement.placed:
        return bench.lab.hosts()
    out = {}
    for db in bench.databases:
        out.setdefault(name_of(bench, bench.placement.database(db)), set()).add("database")
    out.setdefault(name_of(bench, bench.placement.client), set()).add("client")
    out.setdefault(here(bench), set()).add("monitoring")
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
    prometheus = bench.engine.container_of("prometheus")
    if not prometheus:
        raise RuntimeError("the lab's Prometheus container is not running: no host's cAdvisor can be scraped")
    monitoring_targets.write_cadvisor_targets(hosts(bench), here(bench), prometheus,
                                              lambda c: bench.placement.addresses[c], cadvisor_port(bench),
                                              environ=bench.engine.environ)
    return started


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
