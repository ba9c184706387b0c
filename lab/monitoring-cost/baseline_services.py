"""Prints a compose override (JSON, which compose reads as YAML) that adds a second cAdvisor +
Prometheus pair configured as the lab was before issue 9: every default cAdvisor metric set, no
metric_relabel_configs, Prometheus scraping itself. lab/bench-monitoring-cost.sh runs it next to
the lab's own pair so both watch the same containers under the same load.

stdin: `docker compose config --format json` of the lab (official or stand-in images alike: the
baseline services copy the lab's resolved cadvisor/prometheus services and change only what the
comparison is about). argv[1]: the baseline prometheus.yml.

A third pair, the lab's configuration plus one change to evaluate (cadvisor-variant and
prometheus-variant), is added when any VARIANT_* variable is set (the bench script passes them on):
VARIANT_CADVISOR_FLAGS / VARIANT_PROMETHEUS_FLAGS (space-separated, appended to the lab's command),
VARIANT_CADVISOR_ENV / VARIANT_PROMETHEUS_ENV (space-separated NAME=value), VARIANT_PROMETHEUS_YML
(argv[2]: the variant's prometheus.yml, already pointing at cadvisor-variant).
"""
import copy
import json
import os
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
    out = {"services": {"cadvisor-baseline": cad, "prometheus-baseline": prom},
           "volumes": {"prometheus-baseline-data": {}}}
    return out


VARIANT_KEYS = ("VARIANT_CADVISOR_FLAGS", "VARIANT_CADVISOR_ENV", "VARIANT_PROMETHEUS_FLAGS",
                "VARIANT_PROMETHEUS_ENV", "VARIANT_PROMETHEUS_YML")


def _env_pairs(text, key):
    env = {}
    for word in text.split():
        name, sep, value = word.partition("=")
        if not sep or not name:
            raise SystemExit(f"baseline_services.py: {key}: expected NAME=value words, got {word!r}")
        env[name] = value
    return env


def variant(config, env, prometheus_yml):
    """The lab's own pair with the change under evaluation; None when no VARIANT_* is set."""
    if not any(env.get(k) for k in VARIANT_KEYS):
        return None
    services = config["services"]
    cad = copy.deepcopy(services["cadvisor"])
    cad["command"] = list(cad.get("command") or []) + env.get("VARIANT_CADVISOR_FLAGS", "").split()
    cad.setdefault("environment", {}).update(_env_pairs(env.get("VARIANT_CADVISOR_ENV", ""), "VARIANT_CADVISOR_ENV"))
    prom = copy.deepcopy(services["prometheus"])
    prom["command"] = list(prom.get("command") or []) + env.get("VARIANT_PROMETHEUS_FLAGS", "").split()
    prom.setdefault("environment", {}).update(
        _env_pairs(env.get("VARIANT_PROMETHEUS_ENV", ""), "VARIANT_PROMETHEUS_ENV"))
    prom["volumes"] = [
        {"type": "bind", "source": prometheus_yml, "target": "/etc/prometheus/prometheus.yml", "read_only": True},
        {"type": "volume", "source": "prometheus-variant-data", "target": "/prometheus"},
    ]
    prom.pop("ports", None)
    prom["depends_on"] = {"cadvisor-variant": {"condition": "service_started", "required": True}}
    for svc in (cad, prom):
        svc.pop("container_name", None)
    return {"cadvisor-variant": cad, "prometheus-variant": prom}


if __name__ == "__main__":
    lab = json.load(sys.stdin)
    override = baseline(lab, sys.argv[1])
    extra = variant(lab, os.environ, sys.argv[2] if len(sys.argv) > 2 else "")
    if extra:
        override["services"].update(extra)
        override["volumes"]["prometheus-variant-data"] = {}
    json.dump(override, sys.stdout, indent=2)
    sys.stdout.write("\n")
