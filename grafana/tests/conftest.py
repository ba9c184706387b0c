"""A real Prometheus on 127.0.0.1, loaded with the made-up lab run of lab_metrics.py."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # grafana/: dashboard_queries
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests"))
from ci_skips import pytest_runtest_makereport  # noqa: E402,F401  (under CI=true an unexpected skip fails)
from checkout_guard import pytest_sessionfinish, pytest_sessionstart  # noqa: E402,F401  (tests write nothing into the checkout)

import lab_metrics  # noqa: E402
import real_prometheus  # noqa: E402  (tests/: the Prometheus version the lab runs)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    def __init__(self, url, t0):
        self.url = url
        self.start = t0
        self.end = t0 + lab_metrics.DURATION_S

    def _call(self, path, params):
        data = urllib.parse.urlencode(params).encode()
        try:
            with urllib.request.urlopen(self.url + path, data=data, timeout=30) as r:
                return json.load(r)
        except urllib.error.HTTPError as err:  # 400/422 carry the PromQL error as JSON
            return json.load(err)

    def query(self, expr, at):
        return self._call("/api/v1/query", {"query": expr, "time": at})

    def query_range(self, expr, start, end, step=lab_metrics.STEP_S):
        return self._call("/api/v1/query_range",
                          {"query": expr, "start": start, "end": end, "step": step})


@pytest.fixture(scope="session")
def prometheus(tmp_path_factory):
    prometheus_bin, promtool = real_prometheus.binaries()
    work = tmp_path_factory.mktemp("prometheus")
    # recent enough for the default retention, old enough to sit in blocks, not the head
    t0 = int(time.time()) - 2 * lab_metrics.DURATION_S
    (work / "lab.om").write_text(lab_metrics.openmetrics(t0))
    subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", "--quiet",
                    str(work / "lab.om"), str(work / "data")],
                   check=True, timeout=120, capture_output=True)
    (work / "prometheus.yml").write_text("global:\n  scrape_interval: 15s\nscrape_configs: []\n")
    port = _free_port()
    log = open(work / "prometheus.log", "wb")
    proc = subprocess.Popen(
        [prometheus_bin, f"--config.file={work / 'prometheus.yml'}",
         f"--storage.tsdb.path={work / 'data'}", "--storage.tsdb.retention.time=30d",
         f"--web.listen-address=127.0.0.1:{port}"],
        stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/-/ready", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"prometheus did not become ready; log: {work / 'prometheus.log'}\n"
                                   + (work / "prometheus.log").read_text()[-2000:])
            time.sleep(0.2)
        yield Prometheus(url, t0)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
