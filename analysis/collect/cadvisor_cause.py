"""Why cAdvisor's series carry no compose labels, for `analysis check`: when cAdvisor exports no
container with a Docker name at all, its Docker handler registered nothing. cAdvisor 0.60 with
Docker's containerd image store loads every container through containerd's socket
(`--containerd`, CONTAINERD_RUN_DIR in .env); where dockerd starts its own containerd that socket is
under /run/docker/containerd, not /run/containerd, and every container is then unnamed."""
from ..common.errors import AnalysisError
from .prom import Prometheus

NAMED = 'count(container_cpu_usage_seconds_total{name!=""}) or vector(0)'
ANY = "count(container_cpu_usage_seconds_total) or vector(0)"
CAUSE = ("cAdvisor exports no container with a Docker name: its Docker handler registered none. With Docker's "
         "containerd image store cAdvisor loads containers through containerd's socket "
         "(--containerd=$CONTAINERD_RUN_DIR/containerd.sock); a dockerd that runs its own containerd has it under "
         "/run/docker/containerd: set CONTAINERD_RUN_DIR=/run/docker/containerd in .env (see `docker info`, "
         "and cAdvisor's log: `docker compose logs cadvisor`)")


def _count(prom, expr, at):
    result = prom.query(expr, at).get("result") or []
    return int(float(result[0]["value"][1])) if result else 0


def cause(prometheus_url, at):
    """The cause in words when cAdvisor names no Docker container at `at`, else None (the labels are
    missing for another reason: the project or service, a gap)."""
    if not prometheus_url:
        return None
    prom = Prometheus(prometheus_url, timeout=10)
    try:
        named, total = _count(prom, NAMED, at), _count(prom, ANY, at)
    except AnalysisError as e:
        return f"Prometheus query failed: {e}"
    if named:
        return None
    if not total:
        return "cAdvisor exports no container_cpu_usage_seconds_total at all: is cAdvisor up and scraped?"
    return f"{CAUSE} ({total} cgroup series, none named)"
