#!/usr/bin/env bash
# Starts SecantusDB (secantusd-py) in place of mongod, under the official path's contract: the same
# `mongod ...` command line (compose.yaml), the same MONGO_INITDB_ROOT_* variables, the server as
# PID 1. mongod's flags are mapped to SecantusDB's, each mapping said in the log; a flag this
# stand-in does not know is refused, so a new lab flag is never silently dropped.
#
# First start, as docker-library/mongo's 8.0/docker-entrypoint.sh does (read at commit 2c69a57b,
# the `shouldPerformInitdb` block: `--bind_ip 127.0.0.1`, no `--auth`, no `--replSet`, createUser
# root, `--shutdown`, then `exec "$@"` with `--auth` added and MONGO_INITDB_* unset): only when both
# MONGO_INITDB_ROOT_USERNAME and _PASSWORD are set and the data directory holds no WiredTiger file,
# a temporary server bound to 127.0.0.1:27017 without --auth and without --replSet creates the
# user (role root on admin) and is shut down; then the real server is exec'd with --auth (upstream
# adds --auth whenever both variables are set, and unsets them before exec).
set -Eeuo pipefail

log() { printf 'standin-entrypoint: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

if [[ $# -gt 0 && $1 != mongod && ${1:0:1} != - ]]; then
  exec "$@"
fi
[[ ${1:-} == mongod ]] && shift

host=127.0.0.1 port=27017 dbpath=/data/db cache= auth= replset=
while [[ $# -gt 0 ]]; do
  case $1 in
    --bind_ip_all) host=0.0.0.0 ;;
    --bind_ip) [[ $2 != *,* ]] || die "--bind_ip $2: SecantusDB listens on one address only"
      host=$2; shift ;;
    --port) port=$2; shift ;;
    --dbpath) dbpath=$2; shift ;;
    --auth) auth=1 ;;
    --wiredTigerCacheSizeGB)
      # mongod's GB are GiB (it multiplies by 1024^3); WiredTiger takes the size with a unit suffix.
      cache="$(awk -v gb="$2" 'BEGIN { if (gb + 0 <= 0) exit 1; printf "%dM", gb * 1024 }')" ||
        die "--wiredTigerCacheSizeGB $2 is not a positive number"
      log "mongod --wiredTigerCacheSizeGB $2 -> secantusd-py --cache-size $cache (its WiredTiger cache)"
      shift ;;
    --wiredTigerJournalCompressor)
      log "mongod --wiredTigerJournalCompressor $2: SecantusDB has no such knob (its WiredTiger log is configured by SecantusDB; the value is not applied)"
      shift ;;
    --syncdelay)
      log "mongod --syncdelay $2: SecantusDB has no checkpoint-interval knob (it checkpoints WiredTiger on its own schedule; the value is not applied)"
      shift ;;
    --replSet)
      replset=$2
      log "mongod --replSet $2 -> secantusd-py without --standalone: it writes an oplog and answers hello as the primary of a single-node replica set named 'secantus' (its fixed name, not '$2'); it has no replSetInitiate"
      shift ;;
    --keyFile)
      log "mongod --keyFile $2: SecantusDB has no internal member authentication (one node); ignored"
      shift ;;
    *) die "mongod argument '$1' has no SecantusDB mapping in this stand-in (known: --bind_ip_all --bind_ip --port --dbpath --auth --wiredTigerCacheSizeGB --wiredTigerJournalCompressor --syncdelay --replSet --keyFile)" ;;
  esac
  shift
done

if [[ -n ${MONGO_INITDB_ROOT_USERNAME:-} && -n ${MONGO_INITDB_ROOT_PASSWORD:-} ]]; then
  auth=1
elif [[ -n ${MONGO_INITDB_ROOT_USERNAME:-} || -n ${MONGO_INITDB_ROOT_PASSWORD:-} ]]; then
  die "error: missing 'MONGO_INITDB_ROOT_USERNAME' or 'MONGO_INITDB_ROOT_PASSWORD': both must be specified for a user to be created"
fi

# --sync-on-commit: the WiredTiger log is fsynced at every commit, so the lab's {w:1, j:true} writes
# are durable when acknowledged, as on mongod (without it SecantusDB acknowledges j:true unsynced).
common=(--storage-path "$dbpath" --sync-on-commit)
[[ -z $cache ]] || common+=(--cache-size "$cache")

if [[ -n ${MONGO_INITDB_ROOT_USERNAME:-} && ! -e $dbpath/WiredTiger ]]; then
  log "first start: creating user '$MONGO_INITDB_ROOT_USERNAME' on a temporary server (127.0.0.1:27017, no auth)"
  secantusd-py --host 127.0.0.1 --port 27017 --standalone "${common[@]}" &
  temp=$!
  standin-create-root-user.py 27017 "$temp" || { kill -TERM "$temp" 2>/dev/null; wait "$temp" || true; die "first-start user creation failed"; }
  kill -TERM "$temp"
  wait "$temp" || die "the temporary server did not shut down cleanly"
  log "init process complete; ready for start up"
fi
unset "${!MONGO_INITDB_@}"

args=(--host "$host" --port "$port" "${common[@]}")
[[ -n $replset ]] || args+=(--standalone)
[[ -z $auth ]] || args+=(--auth)
log "exec secantusd-py ${args[*]}"
exec secantusd-py "${args[@]}"
