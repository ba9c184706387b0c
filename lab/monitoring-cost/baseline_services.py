"""Prints a compose override (JSON, which compose reads as YAML) that adds a second cAdvisor +
Prometheus pair configured as the lab was before issue 9: every default cAdvisor metric set, no
metric_relabel_configs, Prometheus scraping itself. lab/bench-monitoring-cost.sh runs it next to
the lab's own pair so both watch the same containers under the same load.

stdin: `docker compose config --format json` of the lab (official or stand-in images alike: the
baseline services copy the lab's resolved cadvisor/prometheus services and change only what the
comparison is about). argv[1]: the baseline prometheus.yml.
"""
import copy
import json
import sys

# compose.yaml's cAdvisor command before issue 9.
OLD_CADVISOR_COMMAND = [
    "--housekeeping_interval=1s",
    "--allow_dynamic_housekeeping=false",
    "--store_container_labels=true",
    "--docker_only=true",
    "--disable_metrics=advtcp,cpu_topology,cpuset,hugetlb,memory_numa,percpu,process,"
    "referenced_memory,resctrl,sched,tcp,udp",
]


def baseline(config, prometheus_yml):
    services = config["services"]
    cad = copy.deepcopy(services["cadvisor"])
    cad["command"] = OLD_CADVISOR_COMMAND
    prom = copy.deepcopy(services["prometheus"])
    prom["volumes"] = [
        {"type": "bind", "source": prometheus_yml, "target": "/etc/prometheus/prometheus.yml", "read_only": True},
        {"type": "volume", "source": "prometheus-baseline-data", "target": "/prometheus"},
    ]
    prom.pop("ports", None)        # nothing outside reads it; the lab's Prometheus keeps the port
    prom["depends_on"] = {"cadvisor-baseline": {"condition": "service_started", "required": True}}
    for svc in (cad, prom):
        svc.pop("container_name", None)
        svc.pop("environment", None)  # GOGC: the lab's Go tuning came with issue 9
    return {"services": {"cadvisor-baseline": cad, "prometheus-baseline": prom},
            "volumes": {"prometheus-baseline-data": {}}}


if __name__ == "__main__":
    json.dump(baseline(json.load(sys.stdin), sys.argv[1]), sys.stdout, indent=2)
    sys.stdout.write("\n")
