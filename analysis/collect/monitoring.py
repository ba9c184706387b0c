"""What watching cost: the CPU that cAdvisor and Prometheus themselves spent in one phase window,
from the same Prometheus export as the databases' figures (cAdvisor measures its own container and
Prometheus's like any other). Kept next to the database's figures so a reader sees the overhead of
the measurement, on a host where it competes with the database for the same cores."""
from .series import container_counter, selector, series_per_container

MONITORING_SERVICES = ("cadvisor", "prometheus")
CPU_COUNTERS = ("container_cpu_user_seconds_total", "container_cpu_system_seconds_total")


def per_host(raw):
    """cAdvisor's series grouped by the `host` label the lab's targets give every series (one
    cAdvisor per host, each container name alike on every host: grouped by name alone, the hosts'
    monitoring CPU would be one sum under one name). Series without the label form host None."""
    hosts = {}
    for labels, samples in raw:
        hosts.setdefault(labels.get("host"), []).append((labels, samples))
    return hosts


def monitoring_cpu(prom, project, start, end, interval, lookback):
    """{service: {cpu_s, containers, samples, reason}} for cAdvisor and Prometheus over [start, end];
    cpu_s is null (with the reason) when a service has no series in the window. When the series come
    from more than one host (a placed run), also `hosts`: {host: cpu_s or null} of each, which sum
    to cpu_s, and each container is named `host/name`."""
    out = {}
    for svc in MONITORING_SERVICES:
        total, containers, samples, missing, misread = 0.0, set(), 0, [], []
        by_host = {}
        for metric in CPU_COUNTERS:
            grouped = per_host(prom.raw_samples(selector(metric, project, {svc}), start - lookback, end))
            several = len(grouped) > 1
            if not grouped:
                missing.append(metric)
                continue
            for host, raw in grouped.items():
                per_container, _ = series_per_container(raw)
                for key, series in per_container.items():
                    key = f"{host}/{key}" if several else key
                    # the monitoring runs through every window: a decrease is a misread series, not a restart
                    d = container_counter(series, metric, start, end, interval, restart_ok=False,
                                             restart_why=f"the lab does not restart {svc}")
                    if d["delta"] is None:
                        misread.append(f"{key}: {d['reason']}")
                        by_host[host] = None
                    else:
                        total += d["delta"]
                        if several and (host not in by_host or by_host[host] is not None):
                            by_host[host] = by_host.get(host, 0.0) + d["delta"]
                    samples += d["samples"]
                    containers.add(key)
        reasons = ([f"no {', '.join(missing)} series for service {svc!r} of project {project!r} in the window"]
                   if missing else []) + misread
        out[svc] = {"cpu_s": None if reasons else total, "containers": sorted(containers),
                    "samples": samples, "reason": "; ".join(reasons) or None}
        if by_host:
            out[svc]["hosts"] = {str(h): v for h, v in sorted(by_host.items(), key=lambda kv: str(kv[0]))}
    return out


def summary(metrics):
    """results.json `monitoring` of one run from its D.metrics.json: {cadvisor_cpu_s,
    prometheus_cpu_s, per_s (both together per second of window = cores), reason}."""
    mon = (metrics or {}).get("monitoring")
    if not mon:
        return {"cadvisor_cpu_s": None, "prometheus_cpu_s": None, "per_s": None,
                "reason": "no monitoring figures in the metrics export" if metrics else "no metrics export"}
    window = metrics.get("window") or {}
    seconds = (window.get("end") or 0) - (window.get("start") or 0)
    cad = (mon.get("cadvisor") or {}).get("cpu_s")
    prom = (mon.get("prometheus") or {}).get("cpu_s")
    reasons = [s.get("reason") for s in mon.values() if s.get("reason")]
    both = None if cad is None or prom is None or seconds <= 0 else (cad + prom) / seconds
    out = {"cadvisor_cpu_s": cad, "prometheus_cpu_s": prom, "per_s": both,
           "reason": "; ".join(reasons) or None}
    hosts = {}
    for svc, s in mon.items():
        for host, cpu_s in (s.get("hosts") or {}).items():
            hosts.setdefault(host, {})[f"{svc}_cpu_s"] = cpu_s
    if hosts:  # a placed run: each host's share (Prometheus runs on one of them)
        out["hosts"] = hosts
    return out
