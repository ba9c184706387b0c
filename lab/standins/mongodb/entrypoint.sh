#!/usr/bin/env bash
# Starts FerretDB in place of mongod. mongod's flags (cache size, compressors, --bind_ip_all) mean
# nothing to FerretDB; they are listed in the log and ignored, so compose.yaml's command can stay.
# MONGO_INITDB_ROOT_USERNAME / _PASSWORD (the official image's variables) create the user through
# FerretDB's SCRAM authentication, so clients connect with the same URL as to MongoDB.
set -Eeuo pipefail

if [[ $# -gt 0 && $1 != mongod && ${1:0:1} != - ]]; then
  exec "$@"
fi
[[ ${1:-} == mongod ]] && shift
[[ $# -gt 0 ]] && printf 'standin-entrypoint: mongod arguments ignored by FerretDB: %s\n' "$*" >&2

args=(
  --handler=sqlite
  --sqlite-url=file:/data/db/
  --state-dir=/state
  --listen-addr=:27017
  --debug-addr=127.0.0.1:8088
  --telemetry=disable
  --log-level="${FERRETDB_LOG_LEVEL:-info}"
)
if [[ -n ${MONGO_INITDB_ROOT_USERNAME:-} ]]; then
  args+=(--test-enable-new-auth --setup-database=admin
    --setup-username="$MONGO_INITDB_ROOT_USERNAME" --setup-password="${MONGO_INITDB_ROOT_PASSWORD:-}")
fi
exec /usr/local/bin/ferretdb "${args[@]}"
