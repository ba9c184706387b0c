"""The real Prometheus the analysis and dashboard tests start: the version the lab runs (the
stand-in's PROMETHEUS_VERSION, of the official image's 3.5 line), from host/install-prometheus.sh,
which fetches it when missing and prints its folder. Not whatever `prometheus` is on PATH: a
distribution's Prometheus 2 there would answer the queries by other rules."""
import os
import re
import subprocess

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
