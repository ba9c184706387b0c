# MongoDB's production notes ask for 64000 open files and processes (compose.yaml ulimits). An engine
# may only raise a container's hard limit up to its own when it lacks CAP_SYS_RESOURCE (a sandboxed
# dockerd: "error setting rlimit type 7: operation not permitted"): clamp to the engine's own hard
# limit when it is lower, and say so. Sourced by runme.sh.
clamp_mongo_nofile_to_engine() {
  local pid limit want=${MONGO_NOFILE:-64000}
  pid=$(pgrep -xo dockerd 2>/dev/null) || return 0
  limit=$(awk '/^Max open files/ {print $5}' "/proc/$pid/limits" 2>/dev/null)
  [[ $limit =~ ^[0-9]+$ ]] || return 0
  [ "$limit" -lt "$want" ] || return 0
  export MONGO_NOFILE=$limit
  echo "runme.sh: the Docker engine's own open-files limit is $limit: MongoDB gets nofile=$limit, not the $want its production notes ask for" >&2
}
