"""`analysis check` names the cause when cAdvisor exports no container with a Docker name (its
Docker handler registered none: containerd's socket not where --containerd points), against a REAL
Prometheus scraping the test's own exporter (test_export's FakeCadvisor)."""
import time

import requests

from analysis.collect import cadvisor_cause
from analysis.tests.test_export import prom_stack  # noqa: F401  (the fixture)

USAGE = "container_cpu_usage_seconds_total"


def scraped(url, expr):
    deadline = time.time() + 20
    while True:
        r = requests.get(f"{url}/api/v1/query", params={"query": expr}).json()
        if r["data"]["result"]:
            return
        assert time.time() < deadline, f"prometheus never scraped {expr}"
        time.sleep(0.3)


def test_unnamed_cgroups_only_name_the_containerd_socket(prom_stack):  # noqa: F811
    fake, url = prom_stack
    fake.set("", "postgres", USAGE, 1.0)   # cAdvisor's raw cgroups carry no `name`
    scraped(url, USAGE)
    why = cadvisor_cause.cause(url, time.time())
    assert why.startswith("cAdvisor exports no container with a Docker name")
    assert "CONTAINERD_RUN_DIR=/run/docker/containerd" in why and "1 cgroup series, none named" in why


def test_a_named_container_is_not_this_cause(prom_stack):  # noqa: F811
    fake, url = prom_stack
    fake.set("jsonbench-postgres-1", "postgres", USAGE, 1.0)
    scraped(url, f'{USAGE}{{name!=""}}')
    assert cadvisor_cause.cause(url, time.time()) is None
    assert cadvisor_cause.cause(None, time.time()) is None
