"""report.md's Hosts section: every host of the run with its roles and facts (results.json `hosts`,
from hosts.json: lab/driver/host_facts.py). Only for a run that recorded them: an older run's report
is unchanged."""
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
