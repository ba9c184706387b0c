#!/usr/bin/env bash
# Installs what analysis' tests need beyond the Python venv: the Prometheus binary (Debian package).
# Idempotent: skips what is present. Needs root on Debian/Ubuntu; CI runs as root without stdin.
set -euo pipefail
if command -v prometheus >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "analysis tests need the prometheus binary: run as root: apt-get install -y prometheus" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends prometheus
# the package starts a system service where systemd runs; the tests start their own instance
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet prometheus 2>/dev/null; then
  systemctl stop prometheus || true
fi
