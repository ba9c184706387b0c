#!/usr/bin/env bash
# Simulated hosts: N Docker engines on this machine, each one a host of its own for the lab (issue 27):
# its own network namespace and address, data root, exec root, socket, pid file, cgroup parent and a
# Docker context naming it. docs/hosts.md says what they are for and what they do not show.
#
# Sourced (defines functions only, changes nothing), or run directly:
#   host/simulate-hosts.sh simulate_hosts N        create hosts 1..N, remove the ones above N (0: all)
#   host/simulate-hosts.sh load_image CONTEXT IMAGE   the main engine's IMAGE onto CONTEXT; prints its id
#
# Host K (1..SIM_MAX) is, by name and number (all derived from K, nothing else is stored):
#   context, network namespace     jsonbench-sim-K
#   cgroup parent                  /jsonbench-sim-K (absolute: the same path in every v1 hierarchy)
#   veth pair                      jbsim-K on this machine (10.199.K.1/24), eth0 inside (10.199.K.2/24)
#   its engine's default bridge    10.199.(100+K).1/24 (--bip: no two engines share a bridge subnet)
#   socket, pid file, exec root    /run/jsonbench-sim-K/{docker.sock,docker.pid,exec}
#   data root, engine log, ID key  $JSONBENCH_CACHE/sim-hosts/jsonbench-sim-K/{data,dockerd.log,key.json}
# Two firewall rules on this machine while any host exists: FORWARD accepts 10.199.0.0/16 between
# the jbsim-* links (the main engine sets FORWARD's policy to DROP when it manages iptables) and drops
# a new connection from them to anywhere else.
# Needs root, ip, nsenter, dockerd, docker and iptables. Exit 2: refused before anything changed.
# Written to run under runme.sh's `set -Eeuo pipefail` as well as without it.

JSONBENCH_CACHE=${JSONBENCH_CACHE:-/var/cache/jsonbench}
SIM_MAX=8
SIM_PREFIX=jsonbench-sim
SIM_NET=10.199  # 10.199.0.0/16: docs/hosts.md says why this range
# This machine's two FORWARD rules while any simulated host exists (docs/hosts.md): traffic between
# the hosts passes, and a host opens no connection beyond them (no NAT here: its packets would leave
# with its private address); connections to a host from this machine's containers are not touched.
SIM_RULE_ACCEPT=(FORWARD -s "$SIM_NET.0.0/16" -d "$SIM_NET.0.0/16" -i "jbsim+" -o "jbsim+"
                 -m comment --comment "$SIM_PREFIX: traffic between simulated hosts" -j ACCEPT)
SIM_RULE_GUARD=(FORWARD -i "jbsim+" ! -o "jbsim+" -m conntrack --ctstate NEW
                -m comment --comment "$SIM_PREFIX: no connection from a simulated host beyond them" -j DROP)

_sim_log() { printf 'simulate-hosts: %s\n' "$*" >&2; }

sim_name() { printf '%s-%s' "$SIM_PREFIX" "$1"; }
sim_address() { printf '%s.%s.2' "$SIM_NET" "$1"; }
sim_run_dir() { printf '/run/%s' "$(sim_name "$1")"; }
sim_cache_dir() { printf '%s/sim-hosts/%s' "$JSONBENCH_CACHE" "$(sim_name "$1")"; }
sim_socket() { printf 'unix://%s/docker.sock' "$(sim_run_dir "$1")"; }

# The numbers K of every simulated host that has any trace here (namespace, link, context, folders,
# cgroup folders), so that a partial one left by an interrupted run is found and removed too.
sim_existing() {
  {
    ip netns list 2>/dev/null | awk '{print $1}'
    ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed -n 's/^jbsim-\([0-9]*\)@.*/jsonbench-sim-\1/p'
    docker context ls --format '{{.Name}}' 2>/dev/null
    ls -d /run/"$SIM_PREFIX"-* "$JSONBENCH_CACHE/sim-hosts/$SIM_PREFIX"-* /sys/fs/cgroup/*/"$SIM_PREFIX"-* 2>/dev/null | xargs -r -n1 basename
  } | sed -n "s/^$SIM_PREFIX-\([0-9][0-9]*\)\$/\1/p" | sort -nu
}

# 0 when host K's engine runs: its pid file names a live dockerd that answers on its socket.
sim_engine_up() {
  local pid
  pid=$(cat "$(sim_run_dir "$1")/docker.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  timeout 10 docker -H "$(sim_socket "$1")" version -f '{{.Server.Version}}' >/dev/null 2>&1
}

# Refused before anything changes (exit 2): not root, a tool missing, or, to make hosts (N > 0),
# 10.199.0.0/16 already in use on this machine by something other than the simulated hosts (a VPN,
# another lab) or forwarding off. Removing them all (N = 0) needs only root and the tools.
sim_preflight() {
  local n=$1 tool missing=() clash
  [ "$(id -u)" -eq 0 ] || { _sim_log "needs root (network namespaces, veth links, a dockerd each); nothing was changed"; return 2; }
  for tool in ip nsenter dockerd docker iptables timeout; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  [ ${#missing[@]} -eq 0 ] || { _sim_log "missing: ${missing[*]} (Debian: iproute2, util-linux, docker.io, iptables); nothing was changed"; return 2; }
  [ "$n" -gt 0 ] || return 0
  clash=$( { ip -4 -o route show root "$SIM_NET.0.0/16"; ip -4 -o route show match "$SIM_NET.0.0/16"; } 2>/dev/null \
           | grep -v ' dev jbsim-[0-9]' | grep -v '^default ' || true)
  [ -z "$clash" ] || { _sim_log "$SIM_NET.0.0/16 is already routed on this machine, not by simulated hosts: $clash; nothing was changed"; return 2; }
  [ "$(cat /proc/sys/net/ipv4/ip_forward)" = 1 ] || {
    _sim_log "this machine does not forward IPv4 (net.ipv4.ip_forward=0): traffic between simulated hosts goes through it. The Docker engine sets it when it starts; nothing was changed"
    return 2
  }
}

# Host K's namespace and link, made or completed (each step only when missing).
sim_network_up() {
  local k=$1 ns link
  ns=$(sim_name "$k"); link=jbsim-$k
  ip netns list | awk '{print $1}' | grep -qx "$ns" || ip netns add "$ns" || return 1
  if ! ip link show "$link" >/dev/null 2>&1; then
    ip link add "$link" type veth peer name eth0 netns "$ns" || return 1
  fi
  ip addr replace "$SIM_NET.$k.1/24" dev "$link" && ip link set "$link" up || return 1
  ip -n "$ns" link set lo up && ip -n "$ns" addr replace "$(sim_address "$k")/24" dev eth0 \
    && ip -n "$ns" link set eth0 up && ip -n "$ns" route replace default via "$SIM_NET.$k.1" dev eth0
}

# Host K's engine, started in its namespace unless it runs. nsenter --net only: `ip netns exec`
# remounts /sys, hiding the cgroup hierarchies from dockerd. Its own config file, so that this
# machine's /etc/docker/daemon.json (the main engine's) does not apply to it, naming its own key
# file: Docker 20.10 derives the engine's ID (`docker info`) from /etc/docker/key.json, which would
# give every simulated host the main engine's ID. iptables stays on: it is the namespace's own
# netfilter, where the engine publishes ports and masquerades its bridge.
sim_engine_start() {
  local k=$1 run cache i pid
  sim_engine_up "$k" && return 0
  run=$(sim_run_dir "$k"); cache=$(sim_cache_dir "$k")
  mkdir -p "$run" "$cache/data" || return 1
  rm -f "$run/docker.pid"
  printf '{"deprecated-key-path": "%s/key.json"}\n' "$cache" >"$run/daemon.json"
  nsenter --net="/run/netns/$(sim_name "$k")" -- setsid dockerd --config-file "$run/daemon.json" \
    -H "$(sim_socket "$k")" --data-root "$cache/data" --exec-root "$run/exec" --pidfile "$run/docker.pid" \
    --cgroup-parent "/$(sim_name "$k")" --bip "$SIM_NET.$((100 + k)).1/24" --shutdown-timeout 5 \
    >>"$cache/dockerd.log" 2>&1 </dev/null &
  pid=$!
  for ((i = 0; i < 120; i++)); do
    sim_engine_up "$k" && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      _sim_log "$(sim_name "$k"): dockerd exited at start; last lines of $cache/dockerd.log:"
      tail -n 15 "$cache/dockerd.log" >&2
      return 1
    fi
    sleep 0.5
  done
  _sim_log "$(sim_name "$k"): dockerd did not answer within 60 s (log: $cache/dockerd.log)"
  return 1
}

sim_context_up() {
  local k=$1 name socket now
  name=$(sim_name "$k"); socket=$(sim_socket "$k")
  now=$(docker context inspect "$name" -f '{{.Endpoints.docker.Host}}' 2>/dev/null) || now=""
  [ "$now" = "$socket" ] && return 0
  if [ -n "$now" ]; then
    docker context update "$name" --docker "host=$socket" >/dev/null 2>&1
  else
    docker context create "$name" --description "jsonbench simulated host $k ($(sim_address "$k"))" \
      --docker "host=$socket" >/dev/null 2>&1
  fi
}

sim_rules_up() {
  local -n rule
  for rule in SIM_RULE_GUARD SIM_RULE_ACCEPT; do
    iptables -C "${rule[@]}" 2>/dev/null || iptables -I "${rule[0]}" 1 "${rule[@]:1}" || return 1
  done
}
sim_rules_down() {
  local -n rule
  for rule in SIM_RULE_ACCEPT SIM_RULE_GUARD; do
    while iptables -C "${rule[@]}" 2>/dev/null; do iptables -D "${rule[@]}" || return 1; done
  done
}

# Mounts at or below DIR (deepest first).
_sim_mounts_under() {
  awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

# Processes whose command line names DIR (host K's engine, its containerd and shims all do). The
# pattern's last letter in brackets: grep's own command line does not match it.
_sim_pids_naming() {
  local dir=${1%/}
  { grep -laE -- "${dir%?}[${dir: -1}]/" /proc/[0-9]*/cmdline 2>/dev/null || true; } | cut -d/ -f3
}

# The processes in host NAME's cgroups (its cgroup parent /NAME and below, in every v1 hierarchy
# and the unified one).
_sim_pids_in_cgroups() {
  find /sys/fs/cgroup/*/"$1" /sys/fs/cgroup/"$1" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -un || true
}

# Host K removed, whatever of it exists: its containers, its engine (by its pid file), its context,
# link, namespace, folders and empty cgroup folders.
sim_host_down() {
  local k=$1 name run cache pid ids i m d left
  name=$(sim_name "$k"); run=$(sim_run_dir "$k"); cache=$(sim_cache_dir "$k")
  docker context rm -f "$name" >/dev/null 2>&1 || true
  if sim_engine_up "$k"; then
    ids=$(docker -H "$(sim_socket "$k")" ps -aq) || ids=""
    [ -z "$ids" ] || docker -H "$(sim_socket "$k")" rm -f $ids >/dev/null || true
  fi
  pid=$(cat "$run/docker.pid" 2>/dev/null) || pid=""
  if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--exec-root $run/exec"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 600; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  # Its containerd and shims end with it; any left after 10 s is ended by its id.
  for ((i = 0; i < 100; i++)); do left=$(_sim_pids_naming "$run/exec/"); [ -n "$left" ] || break; sleep 0.1; done
  [ -z "$left" ] || { _sim_log "$name: ending what its engine left: $(echo $left)"; kill -KILL $left 2>/dev/null || true; sleep 0.5; }
  # An engine that was SIGKILLed stopped none of its containers, and killing their shims leaves the
  # containers' own processes running, orphaned: they are still in the host's cgroups (under the
  # cgroup parent, in every hierarchy), where they are found and ended.
  for ((i = 0; i < 50; i++)); do left=$(_sim_pids_in_cgroups "$name"); [ -n "$left" ] || break
    [ "$i" -gt 0 ] || _sim_log "$name: ending its containers' processes: $(echo $left)"
    kill -KILL $left 2>/dev/null || true; sleep 0.1; done
  left=$(_sim_pids_in_cgroups "$name")  # after the last kill, not before it
  [ -z "$left" ] || { _sim_log "$name: processes left in its cgroups: $(echo $left)"; return 1; }
  ip link del "jbsim-$k" 2>/dev/null || true
  ip netns list | awk '{print $1}' | grep -qx "$name" && { ip netns del "$name" || return 1; }
  for d in "$run" "$cache"; do
    for m in $(_sim_mounts_under "$d"); do umount "$m" || umount -l "$m" || true; done
    [ -z "$(_sim_mounts_under "$d")" ] || { _sim_log "$name: $d still has mounts; left in place"; return 1; }
    rm -rf -- "$d"
  done
  # The cgroup folders its containers had: empty once they are gone (rmdir removes only empty ones).
  for d in /sys/fs/cgroup/*/"$name" /sys/fs/cgroup/"$name"; do
    [ -d "$d" ] || continue
    find "$d" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null || true
    rmdir "$d" || { _sim_log "$name: $d is not empty; left in place"; return 1; }
  done
  rmdir "$JSONBENCH_CACHE/sim-hosts" 2>/dev/null || true
}

# 0 when N is a number of simulated hosts; else the message and 2.
sim_check_n() {
  case $1 in
    [0-9] | [1-9][0-9]) [ "$1" -le "$SIM_MAX" ] && return 0 ;;
  esac
  _sim_log "N '$1': allowed: an integer from 0 to $SIM_MAX (0 removes every simulated host)"
  return 2
}

# Hosts 1..N up, every host above N removed; again with the same N changes nothing.
simulate_hosts() {
  local n=$1 k rc=0 pids=()
  sim_check_n "$n" || return 2
  sim_preflight "$n" || return $?
  # Removed side by side: an engine takes a few seconds to stop.
  for k in $(sim_existing); do
    [ "$k" -gt "$n" ] || continue
    _sim_log "removing $(sim_name "$k")"
    sim_host_down "$k" & pids+=($!)
  done
  for k in "${pids[@]}"; do wait "$k" || rc=1; done
  pids=()
  if [ "$n" = 0 ]; then
    sim_rules_down || rc=1
    return "$rc"
  fi
  [ "$rc" = 0 ] || return 1
  sim_rules_up || return 1
  for ((k = 1; k <= n; k++)); do sim_network_up "$k" || { _sim_log "$(sim_name "$k"): network failed"; return 1; }; done
  # The engines start side by side (each waits for its own socket).
  for ((k = 1; k <= n; k++)); do sim_engine_start "$k" & pids+=($!); done
  for k in "${pids[@]}"; do wait "$k" || rc=1; done
  [ "$rc" = 0 ] || return 1
  for ((k = 1; k <= n; k++)); do
    sim_context_up "$k" || return 1
    printf '%s\t%s\t%s\tdata %s\tcgroup /%s\n' "$(sim_name "$k")" "$(sim_address "$k")" "$(sim_socket "$k")" \
      "$(sim_cache_dir "$k")/data" "$(sim_name "$k")"
  done
}

# IMAGE from the main engine onto the engine of CONTEXT without a registry (docker save | load),
# skipped when CONTEXT has that image id already. Prints the id.
load_image() {
  local context=$1 image=$2 id there
  id=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null) || { _sim_log "image '$image' is not on the main engine"; return 2; }
  there=$(docker --context "$context" image inspect -f '{{.Id}}' "$image" 2>/dev/null) || there=""
  if [ "$there" = "$id" ]; then
    _sim_log "$context has $image ($id) already"
  else
    docker save "$image" | docker --context "$context" load >/dev/null || { _sim_log "loading $image onto $context failed"; return 1; }
    there=$(docker --context "$context" image inspect -f '{{.Id}}' "$image" 2>/dev/null) || there=""
    [ "$there" = "$id" ] || { _sim_log "$context has $image as '$there' after the load, not $id"; return 1; }
    _sim_log "loaded $image ($id) onto $context"
  fi
  printf '%s\n' "$id"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -uo pipefail
  case ${1:-} in
    simulate_hosts) simulate_hosts "${2:-}" ;;
    load_image) [ $# -eq 3 ] || { _sim_log "usage: $0 load_image CONTEXT IMAGE"; exit 2; }; load_image "$2" "$3" ;;
    *) _sim_log "unknown command '${1:-}'; allowed: simulate_hosts N, load_image CONTEXT IMAGE"; exit 2 ;;
  esac
fi
