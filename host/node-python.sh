# The host-side tools the lab needs besides Docker: Node.js for the client's bench validation and
# tests, a Python venv (VENV) for analysis and the tests. Each installs only what is missing.
# Sourced by runme.sh, lab/test.sh and lab/bench-monitoring-cost.sh (LAB_ROOT set by the caller).

need_root_or_say() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && return 0
  echo "runme.sh: $1 is missing. On Debian/Ubuntu run: sudo apt-get install -y $2" >&2
  return 1
}

apt_install() {
  [ -n "${APT_UPDATED:-}" ] || { apt-get update -qq >/dev/null; APT_UPDATED=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# 0 when version $1 (x.y.z) is at least $2 (x.y.z or x.y or x).
version_at_least() {
  local IFS=. a b i
  read -ra a <<<"$1"; read -ra b <<<"$2"
  for i in 0 1 2; do
    [ "${a[i]:-0}" -gt "${b[i]:-0}" ] && return 0
    [ "${a[i]:-0}" -lt "${b[i]:-0}" ] && return 1
  done
  return 0
}

# The host's node runs the client's bench validation (which loads the client's modules) and its
# tests: it must be at least client/package.json's engines.node (Ubuntu 22.04's apt gives Node 12).
check_node_version() {
  local found needed
  found=$(node --version 2>/dev/null); found=${found#v}
  needed=$(sed -n 's/.*"node": *">=\([0-9.]*\)".*/\1/p' "$LAB_ROOT/client/package.json")
  version_at_least "${found:-0}" "$needed" && return 0
  echo "runme.sh: Node.js ${found:-(no version)} found at $(command -v node); the lab needs Node.js >= $needed" \
    "(client/package.json engines; the pinned mongodb driver needs >= 16.20.1). Install a newer Node.js," \
    "e.g. from NodeSource or 'snap install node --classic --channel=20', and put it first on PATH." >&2
  return 1
}

# Installs node_modules from the lockfile when it changed since the last install.
ensure_node_deps() {
  command -v node >/dev/null 2>&1 || { need_root_or_say node "nodejs npm" && apt_install nodejs npm; } || return 1
  check_node_version || return 1
  command -v npm >/dev/null 2>&1 || { need_root_or_say npm npm && apt_install npm; } || return 1
  local stamp="$LAB_ROOT/client/node_modules/.lock-hash" hash
  hash=$(sha256sum "$LAB_ROOT/client/package-lock.json" | cut -d' ' -f1)
  [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ] && return 0
  # npm ls: npm 10 can exit 0 with an empty node_modules when its fetches fail (client/Dockerfile)
  (cd "$LAB_ROOT/client" && npm ci --no-audit --no-fund --loglevel=error && npm ls --depth=0 >/dev/null) >&2 &&
    echo "$hash" >"$stamp"
}

VENV="$LAB_ROOT/.venv"

# The pinned analysis packages (analysis/requirements.txt) install on Python 3.10 to 3.13.
PYTHON_NEEDED=3.10
check_python_version() {
  local found
  found=$(python3 -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null)
  version_at_least "${found:-0}" "$PYTHON_NEEDED" && return 0
  echo "runme.sh: Python ${found:-(unknown version)} found at $(command -v python3); the lab's analysis needs" \
    "Python >= $PYTHON_NEEDED (analysis/requirements.txt). Install a newer python3 and python3-venv." >&2
  return 1
}

ensure_venv() {
  command -v python3 >/dev/null 2>&1 || { need_root_or_say python3 "python3 python3-venv" && apt_install python3 python3-venv; } || return 1
  check_python_version || return 1
  if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV" 2>/dev/null ||
      { rm -rf "$VENV"; need_root_or_say python3-venv python3-venv && apt_install python3-venv && python3 -m venv "$VENV"; } ||
      return 1
  fi
  local stamp="$VENV/.requirements-hash" hash
  local reqs=("$LAB_ROOT"/analysis/requirements*.txt "$LAB_ROOT"/grafana/tests/requirements.txt)
  hash=$(cat "${reqs[@]}" | sha256sum | cut -d' ' -f1)
  [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ] && return 0
  local req
  for req in "${reqs[@]}"; do
    "$VENV/bin/pip" install -q --disable-pip-version-check -r "$req" >&2 || return 1
  done
  echo "$hash" >"$stamp"
}
