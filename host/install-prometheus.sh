#!/usr/bin/env bash
# The Prometheus binaries (prometheus, promtool) on the host, for the analysis and dashboard tests
# (the lab itself runs Prometheus in a container). Debian's package; skips what is present.
set -euo pipefail
command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "the tests need prometheus and promtool; as root on Debian/Ubuntu run: apt-get install -y prometheus" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends prometheus >/dev/null
# Only the binaries are wanted: on a systemd host the package also starts a Prometheus on :9090,
# the port the lab's own Prometheus publishes.
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  systemctl disable --now prometheus.service || true
fi
