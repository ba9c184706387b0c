"""report.md's Hosts and Network sections: every host of the run with its roles and facts (results.json
`hosts`, from hosts.json: lab/driver/host_facts.py) and the network canary between the clients' host and
each database host (results.json `network_canary`, from canary.json: lab/driver/canary.py). Each only for
a run that recorded it: an older run's report is unchanged."""
from ..common.labels import fmt_bytes


def _cell(v):
    return "?" if v is None else str(v).replace("|", "/")


def report_lines(result):
    hosts = result.get("hosts")
    if not hosts:
        return []
    lines = ["## Hosts", "",
             "Each host is a Docker engine named by its Docker context (docs/hosts.md); `?`: not read (the reason below).", "",
             "| host (context) | roles | kernel | OS | CPU | cores | memory | cgroup | Docker |",
             "|---|---|---|---|---|---|---|---|---|"]
    for h in hosts:
        cgroup = ", ".join(_cell(h.get(k)) for k in ("cgroup_version", "cgroup_driver"))
        lines.append(f"| {_cell(h['context'])} | {', '.join(h['roles']) or '-'} | {_cell(h.get('kernel'))} | "
                     f"{_cell(h.get('os'))} | {_cell(h.get('cpu_model'))} | {_cell(h.get('cores'))} | "
                     f"{fmt_bytes(h.get('memory_bytes')) if h.get('memory_bytes') else '?'} | {cgroup} | "
                     f"{_cell(h.get('docker_server'))} |")
    reasons = [f"- {h['context']}: {h['reason']}" for h in hosts if h.get("reason")]
    return lines + [""] + (reasons + [""] if reasons else [])


def canary_lines(result):
    """The network canary (results.json `network_canary`), only for a run that measured one."""
    canary = result.get("network_canary")
    if not canary:
        return []
    lines = ["## Network", "",
             f"Measured just before the run from the clients' host {canary['client_host']} to each database host "
             f"(lab/driver/canary.py): {canary['pings']} round trips of one byte, then a bulk transfer.", "",
             "| database host | address | RTT min / median / max | throughput | bytes | seen from |",
             "|---|---|---|---|---|---|"]
    for p in canary["pairs"]:
        rtt = p.get("rtt_s")
        rtt_cell = (" / ".join(f"{rtt[k] * 1e3:.3f}" for k in ("min", "median", "max")) + " ms") if rtt else "?"
        tp = p.get("throughput_bytes_per_s")
        lines.append(f"| {_cell(p['database_host'])} | {_cell(p.get('address'))} | {rtt_cell} | "
                     f"{(f'{tp / 1e6:.1f} MB/s') if tp else '?'} | {_cell(p.get('bytes'))} | {_cell(p.get('peer'))} |")
    reasons = [f"- {p['database_host']}: {p['reason']}" for p in canary["pairs"] if p.get("reason")]
    return lines + [""] + (reasons + [""] if reasons else [])
