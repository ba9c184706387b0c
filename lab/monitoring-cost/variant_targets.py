"""Prints the variant Prometheus's configuration for lab/bench-monitoring-cost.sh: the given
prometheus.yml (the lab's, or VARIANT_PROMETHEUS_YML) with its file_sd targets, which the driver writes
for the lab's own Prometheus only, replaced by static ones: the variant's cAdvisor and the load's
clients (the container names lab/driver/bench.py gives them: <project>-client-<phase>-<i>; load.py's
phase is the database's name). Every other line of the configuration is kept.

  variant_targets.py PROMETHEUS_YML PROJECT DATABASE CLIENTS
"""
import sys

import yaml


def variant(config, project, database, clients):
    jobs = {j.get("job_name"): j for j in config.get("scrape_configs") or []}
    if "cadvisor" not in jobs or "client" not in jobs:
        raise SystemExit(f"variant_targets.py: the configuration has no job cadvisor and client: {sorted(jobs)}")
    static = {"cadvisor": ["cadvisor-variant:8080"],
              "client": [f"{project}-client-{database}-{i}:9464" for i in range(1, clients + 1)]}
    for name, targets in static.items():
        job = jobs[name]
        job.pop("file_sd_configs", None)
        job.pop("dns_sd_configs", None)
        job["static_configs"] = [{"targets": targets, "labels": {"host": "variant"}}]
    return config


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[1], encoding="utf-8") as f:
        config = yaml.safe_load(f)
    yaml.safe_dump(variant(config, sys.argv[2], sys.argv[3], int(sys.argv[4])), sys.stdout, sort_keys=False)
