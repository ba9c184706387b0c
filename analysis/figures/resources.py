"""A phase's resources from its metrics export (D.metrics.json, collect/export.py): the database
service's CPU, disk, network and memory, the clients' CPU, the export's gaps and counter resets
(results.json runs[] `cpu.user_s`/`system_s`, `disk`, `network`, `memory`, `client_cpu`,
`metrics_quality`). Each is null where the export has no figure; `disk.reason` says why."""


def _counter(metrics, service, metric):
    try:
        return metrics["services"][service]["counters"][metric]["delta"]
    except (KeyError, TypeError):
        return None


def _disk_devices(metrics, disk):
    """Which device(s) the disk figures count (export filtered on them), or why there is no figure."""
    info = (metrics or {}).get("disk_devices")
    if info is None:
        return {"devices": None, "reason": None if metrics else "no metrics exported"}
    reason = None
    missing = [k for k in ("read_bytes", "write_bytes", "read_ops", "write_ops") if disk[k] is None]
    if missing and not info.get("series_devices"):
        reason = (f"{', '.join(missing)}: cAdvisor exported no disk series for the container: this host "
                  "accounts no block I/O to containers")
    elif missing:
        reason = (f"{', '.join(missing)}: no series on {', '.join(info.get('counted') or []) or 'any device'} "
                  f"(the device of Docker's data root); disk series were on: {', '.join(info['series_devices'])}")
    elif not info.get("counted"):
        reason = info.get("reason")
    return {"devices": info.get("counted") or None, "reason": reason}


def _gauge(metrics, service, metric):
    try:
        g = metrics["services"][service]["gauges"][metric]
        return {"mean": g["mean"], "max": g["max"]}
    except (KeyError, TypeError):
        return {"mean": None, "max": None}


def cpu_seconds(metrics, service):
    """(user_s, system_s) of a service's containers over the window."""
    return (_counter(metrics, service, "container_cpu_user_seconds_total"),
            _counter(metrics, service, "container_cpu_system_seconds_total"))


def disk(metrics, service):
    out = {
        "read_bytes": _counter(metrics, service, "container_fs_reads_bytes_total"),
        "write_bytes": _counter(metrics, service, "container_fs_writes_bytes_total"),
        "read_ops": _counter(metrics, service, "container_fs_reads_total"),
        "write_ops": _counter(metrics, service, "container_fs_writes_total"),
    }
    out.update(_disk_devices(metrics, out))
    return out


def network(metrics, service):
    return {
        "rx_bytes": _counter(metrics, service, "container_network_receive_bytes_total"),
        "tx_bytes": _counter(metrics, service, "container_network_transmit_bytes_total"),
    }


def memory(metrics, service):
    return {
        "rss": _gauge(metrics, service, "container_memory_rss"),
        "cache": _gauge(metrics, service, "container_memory_cache"),
        "working_set": _gauge(metrics, service, "container_memory_working_set_bytes"),
    }


def client_cpu(metrics):
    user, system = cpu_seconds(metrics, "client")
    return {"user_s": user, "system_s": system}


def quality(metrics):
    return {
        "gaps": len((metrics or {}).get("gaps") or []),
        "counter_resets": sum(c.get("resets", 0) for s in ((metrics or {}).get("services") or {}).values()
                              for c in (s.get("counters") or {}).values()),
    }


def of_phase(ph, service):
    """The phase's clients' CPU, and the database service's memory, disk and network, in results.json's
    order (ph: bench/folder.py Phase; service: the compose service of the database)."""
    metrics = ph.metrics()
    return {"client_cpu": client_cpu(metrics), "memory": memory(metrics, service),
            "disk": disk(metrics, service), "network": network(metrics, service)}


def net_total(net):
    """Bytes received and sent, None when either is missing."""
    return None if None in net.values() else net["rx_bytes"] + net["tx_bytes"]
