# The host-side tools runme.sh needs besides Docker: Node.js for the client's bench validation,
# a Python venv for analysis. Each installs only what is missing. Sourced by runme.sh.

need_root_or_say() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && return 0
  echo "runme.sh: $1 is missing. On Debian/Ubuntu run: sudo apt-get install -y $2" >&2
  return 1
}

apt_install() {
  [ -n "${APT_UPDATED:-}" ] || { apt-get update -qq >/dev/null; APT_UPDATED=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Installs node_modules from the lockfile when it changed since the last install.
ensure_node_deps() {
  command -v node >/dev/null 2>&1 || { need_root_or_say node "nodejs npm" && apt_install nodejs npm; } || return 1
  command -v npm >/dev/null 2>&1 || { need_root_or_say npm npm && apt_install npm; } || return 1
  local stamp="$LAB_ROOT/client/node_modules/.lock-hash" hash
  hash=$(sha256sum "$LAB_ROOT/client/package-lock.json" | cut -d' ' -f1)
  [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ] && return 0
  (cd "$LAB_ROOT/client" && npm ci --no-audit --no-fund --loglevel=error) >&2 && echo "$hash" >"$stamp"
}

VENV="$LAB_ROOT/.venv"

ensure_venv() {
  command -v python3 >/dev/null 2>&1 || { need_root_or_say python3 "python3 python3-venv" && apt_install python3 python3-venv; } || return 1
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

analysis() { (cd "$LAB_ROOT" && "$VENV/bin/python" -m analysis "$@"); }
