"""What Prometheus scrapes, as files the driver writes (Prometheus's file_sd, prometheus/prometheus.yml):
one cAdvisor per host that holds a measured container (a database, its pooler, the clients), and each
phase's client containers, every target group with a `host` label, the Docker context of its host, which
Prometheus writes on every series it scrapes there. On a single host the same files hold one host: the
current context with every role.

The files live in the Prometheus container's volume (compose.yaml `prometheus-targets`, mounted at
TARGETS_DIR) and are copied in through the monitoring host's engine (`docker cp`), so the controller
needs no file system in common with that host. Prometheus watches the folder: a new file is read at once;
a file read half-written is refused by Prometheus, which keeps the targets it had until the next read.

Interface (the single-host path calls write_single_host; a placed run calls write_cadvisor_targets with
its mapping {context: roles} and write_client_targets at each phase):
  current_context(environ) -> str                 the context the environment names (`default` without one)
  cadvisor_groups(hosts, monitoring_host, address_of, port) -> [group]
  client_groups(clients, monitoring_host, address_of) -> [group]
  cadvisor_env(context, address, port, environ) -> {name: value}   the compose variables of a host's cAdvisor
  install(container, name, groups, context=None)   the file NAME in the Prometheus container CONTAINER
"""
import io
import json
import os
import subprocess
import sys
import tarfile
import time

# where compose.yaml mounts the targets volume in the Prometheus container; prometheus.yml reads these
TARGETS_DIR = "/etc/prometheus/targets"
CADVISOR_FILE = "cadvisor.json"
CLIENT_FILE = "client.json"
# The roles (placement keys DATABASE_HOST, CLIENT_HOST, MONITORING_HOST) and those whose containers a
# run measures: a host holding one of them runs a cAdvisor.
ROLES = ("database", "client", "monitoring")
MEASURED_ROLES = ("database", "client")
# On the monitoring host Prometheus reaches its cAdvisor and clients on the compose network by name
# (no port published); elsewhere at the host's lab address and the port its cAdvisor publishes.
CADVISOR_SERVICE_PORT = 8080
CLIENT_METRICS_PORT = 9464
DEFAULT_CADVISOR_PORT = 8080


def current_context(environ=None):
    """The Docker context the driver's engine is: DOCKER_CONTEXT, else the one `docker context show`
    names (DOCKER_HOST set: `default`), else `default`."""
    environ = os.environ if environ is None else environ
    if environ.get("DOCKER_CONTEXT"):
        return environ["DOCKER_CONTEXT"]
    try:
        r = subprocess.run(["docker", "context", "show"], capture_output=True, text=True, timeout=30,
                           env=dict(environ), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return "default"
    return (r.stdout.strip() if r.returncode == 0 else "") or "default"


def single_host(context):
    """The placement of a run without placement keys: one host with every role."""
    return {context: set(ROLES)}


def _check_hosts(hosts):
    bad = {c: sorted(set(r) - set(ROLES)) for c, r in hosts.items() if set(r) - set(ROLES)}
    if bad:
        raise ValueError(f"monitoring targets: unknown roles {bad}; allowed: {', '.join(ROLES)}")


def cadvisor_groups(hosts, monitoring_host, address_of=None, port=DEFAULT_CADVISOR_PORT):
    """One target group per host that holds a measured container: its cAdvisor, labelled with the
    host's context. HOSTS: {context: roles}; MONITORING_HOST: the context Prometheus runs on (its
    cAdvisor answers on the compose network as `cadvisor`); ADDRESS_OF(context): the lab address of
    another host, where its cAdvisor publishes PORT."""
    _check_hosts(hosts)
    groups = []
    for context in sorted(hosts):
        if not set(hosts[context]) & set(MEASURED_ROLES):
            continue
        if context == monitoring_host:
            target = f"cadvisor:{CADVISOR_SERVICE_PORT}"
        else:
            if address_of is None:
                raise ValueError(f"monitoring targets: host {context!r} is not the monitoring host "
                                 f"({monitoring_host!r}) and no lab address is given for it")
            target = f"{address_of(context)}:{port}"
        groups.append({"targets": [target], "labels": {"host": context}})
    return groups


def client_groups(clients, monitoring_host, address_of=None):
    """The client containers of a phase as target groups. CLIENTS: {context: [target]}, where a target
    on the monitoring host is the container's name (Docker's DNS answers it on the compose network) and
    elsewhere ADDRESS_OF(context):PORT is built by the caller (the port the container publishes)."""
    groups = []
    for context in sorted(clients):
        targets = [t if ":" in t else f"{t}:{CLIENT_METRICS_PORT}" for t in clients[context]]
        if targets:
            groups.append({"targets": targets, "labels": {"host": context}})
    return groups


def render(groups):
    return json.dumps(groups, indent=2, sort_keys=True) + "\n"


def docker_endpoint(context, environ=None):
    """cAdvisor's --docker for a host's own engine, as its container sees the socket (compose.yaml
    mounts /var/run): the context's unix socket (a simulated host's /run/jsonbench-sim-K/docker.sock),
    or cAdvisor's default for an engine reached otherwise (ssh: that host's own /var/run/docker.sock)."""
    environ = os.environ if environ is None else environ
    r = subprocess.run(["docker", "context", "inspect", "-f", "{{.Endpoints.docker.Host}}", context],
                       capture_output=True, text=True, timeout=30, env=dict(environ), stdin=subprocess.DEVNULL)
    host = r.stdout.strip() if r.returncode == 0 else ""
    if host.startswith("unix://"):
        path = host[len("unix://"):]
        if path.startswith("/run/"):
            path = "/var" + path  # /var/run is /run on the host; the container mounts /var/run
        return f"unix://{path}"
    return "unix:///var/run/docker.sock"


def cadvisor_env(context, address, port=DEFAULT_CADVISOR_PORT, environ=None):
    """The compose variables for the cAdvisor of a host that is not the monitoring host
    (compose.cadvisor-published.yaml publishes its port on ADDRESS, the host's lab address):
    CADVISOR_ADDRESS, CADVISOR_PORT and CADVISOR_DOCKER_ENDPOINT (its own engine's socket)."""
    if not address or address in ("0.0.0.0", "::", "[::]"):
        raise ValueError(f"monitoring targets: host {context!r}: cAdvisor binds only to the host's lab "
                         f"address, got {address!r}")
    return {"CADVISOR_ADDRESS": address, "CADVISOR_PORT": str(port),
            "CADVISOR_DOCKER_ENDPOINT": docker_endpoint(context, environ)}


def install(container, name, groups, context=None, environ=None):
    """NAME with GROUPS in the Prometheus container's targets folder, through its engine (CONTEXT, or
    the environment's). Raises RuntimeError naming the container when docker refuses."""
    data = render(groups).encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())  # Prometheus runs as nobody
        tar.addfile(info, io.BytesIO(data))
    cmd = ["docker", *(["--context", context] if context else []), "cp", "-", f"{container}:{TARGETS_DIR}"]
    r = subprocess.run(cmd, input=buf.getvalue(), capture_output=True, timeout=60,
                       env=dict(os.environ if environ is None else environ))
    if r.returncode != 0:
        raise RuntimeError(f"monitoring targets: {name} could not be copied into {container}:{TARGETS_DIR}: "
                           f"{r.stderr.decode(errors='replace').strip()}")


def write_single_host(engine):
    """The single host's cAdvisor target (the current context, every role) into the lab's Prometheus;
    returns the context named."""
    context = current_context(engine.environ)
    container = engine.container_of("prometheus")
    if not container:
        raise RuntimeError("monitoring targets: the lab's Prometheus container is not running")
    install(container, CADVISOR_FILE, cadvisor_groups(single_host(context), context), environ=engine.environ)
    return context


def write_cadvisor_targets(hosts, monitoring_host, prometheus_container, address_of, port=DEFAULT_CADVISOR_PORT,
                           environ=None):
    """A placed run: the cAdvisor of every host of HOSTS ({context: roles}) that holds a measured
    container, in the Prometheus container on MONITORING_HOST."""
    install(prometheus_container, CADVISOR_FILE, cadvisor_groups(hosts, monitoring_host, address_of, port),
            context=monitoring_host, environ=environ)


def write_client_targets(clients, monitoring_host, prometheus_container, context=None, environ=None):
    """A phase's clients ({context: [container name or address:port]}) as Prometheus's client targets."""
    install(prometheus_container, CLIENT_FILE, client_groups(clients, monitoring_host), context=context,
            environ=environ)


def main(argv):
    """`python -m lab.driver.monitoring_targets single-host`: the single host's targets written into
    the running lab's Prometheus (lab/bench-monitoring-cost.sh; the driver does it itself)."""
    if argv != ["single-host"]:
        print(main.__doc__, file=sys.stderr)
        return 2
    from .engine import Engine
    root = os.environ.get("LAB_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    engine = Engine(root, os.environ["PROJECT"], os.environ.get("USE_STANDINS") == "1", os.environ)
    print(write_single_host(engine))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
