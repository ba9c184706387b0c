"""The real Prometheus the analysis and dashboard tests start: the version the lab runs (the
stand-in's PROMETHEUS_VERSION, of the official image's 3.5 line), from host/install-prometheus.sh,
which fetches it when missing and prints its folder. Not whatever `prometheus` is on PATH: a
distribution's Prometheus 2 there would answer the queries by other rules."""
import contextlib
import json
import os
import re
import socket
import subprocess
import threading
import time
from wsgiref.simple_server import WSGIRequestHandler, make_server

import requests
from prometheus_client import CollectorRegistry, make_wsgi_app

LAB_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTALL = os.path.join(LAB_ROOT, "host", "install-prometheus.sh")
DOCKERFILE = os.path.join(LAB_ROOT, "lab", "standins", "prometheus", "Dockerfile")


def pinned_version():
    """PROMETHEUS_VERSION of lab/standins/prometheus/Dockerfile (3.5.3)."""
    with open(DOCKERFILE) as f:
        m = re.search(r"^ARG PROMETHEUS_VERSION=([0-9.]+)$", f.read(), re.M)
    if not m:
        raise RuntimeError(f"{DOCKERFILE}: no ARG PROMETHEUS_VERSION=")
    return m.group(1)


def version_of(binary):
    """'prometheus, version 3.5.3+ds1 (branch ...)' -> '3.5.3'."""
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    m = re.match(r"\S+, version ([0-9.]+)", out.stdout + out.stderr)
    return m.group(1) if m else None


def binaries():
    """(prometheus, promtool): absolute paths of the pinned version's binaries."""
    run = subprocess.run(["bash", INSTALL], capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"host/install-prometheus.sh failed:\n{run.stderr[-2000:]}")
    folder = run.stdout.strip().splitlines()[-1]
    paths = tuple(os.path.join(folder, b) for b in ("prometheus", "promtool"))
    want = pinned_version()
    for p in paths:
        got = version_of(p)
        if got != want:
            raise RuntimeError(f"{p} reports version {got}, the lab runs {want} (host/install-prometheus.sh)")
    return paths


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def scraping(tmp_path, target, labels=None):
    """A real Prometheus (the pinned version) on a free port of 127.0.0.1, scraping TARGET
    ('host:port', job `cadvisor`, with LABELS on every series) every second, its data and log in
    TMP_PATH; yields its URL once it is ready and stops it after."""
    prometheus, _ = binaries()
    cfg = tmp_path / "prometheus.yml"
    label_line = f"\n        labels: {json.dumps(labels)}" if labels else ""
    cfg.write_text(f"""global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: cadvisor
    static_configs:
      - targets: ['{target}']{label_line}
""")
    url = f"http://127.0.0.1:{free_port()}"
    log = open(tmp_path / "prometheus.log", "w")
    proc = subprocess.Popen([prometheus, f"--config.file={cfg}", f"--storage.tsdb.path={tmp_path / 'data'}",
                             f"--web.listen-address={url.removeprefix('http://')}"], stdout=log, stderr=log)
    try:
        deadline = time.time() + 30
        while True:
            try:
                if requests.get(f"{url}/-/ready", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.time() > deadline or proc.poll() is not None:
                raise RuntimeError("prometheus did not become ready: " + (tmp_path / "prometheus.log").read_text())
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *a):
        pass


@contextlib.contextmanager
def scraping_collector(tmp_path, collector, labels=None):
    """scraping() of an exporter this process serves on a free port of 127.0.0.1: COLLECTOR (a
    prometheus_client collector, e.g. a fake cAdvisor the test sets values on) answers every scrape."""
    registry = CollectorRegistry()
    registry.register(collector)
    port = free_port()
    httpd = make_server("127.0.0.1", port, make_wsgi_app(registry), handler_class=QuietHandler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with scraping(tmp_path, f"127.0.0.1:{port}", labels) as url:
            yield url
    finally:
        httpd.shutdown()
        httpd.server_close()
