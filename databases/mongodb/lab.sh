# MongoDB's hooks for the lab (sourced in a subshell by lab/stack.sh; docs/layout.md step 5).

# lab_uri: the URI the client containers dial on the lab network. directConnection with
# TOPOLOGY=replset: a replica-set member is dialled as itself (before initiation it is no primary a
# driver could select; the stand-in advertises its listen address 0.0.0.0).
lab_uri() {
  echo "mongodb://${MONGO_USER}:${MONGO_PASSWORD}@mongodb:27017/?authSource=admin$([ "${TOPOLOGY:-standalone}" != replset ] || echo '&directConnection=true')"
}

# lab_compose_env: TOPOLOGY=replset: mongod gets `--replSet rs0` (and the keyFile mongod requires
# with --auth) through the entrypoint in compose.yaml / compose.standins.yaml; unset (standalone)
# otherwise.
lab_compose_env() {
  if [ "${TOPOLOGY:-standalone}" = replset ]; then echo "MONGO_TOPOLOGY_ARGS=--replSet rs0 --keyFile /tmp/jsonbench-keyfile"
  else echo "MONGO_TOPOLOGY_ARGS="
  fi
}

# lab_after_ready: TOPOLOGY=replset: the one-member set is initiated from outside (before the
# first window) and the lab waits until the node is the writable primary
# (databases/mongodb/client/commands/replset-initiate.js; on a restarted member already initiated it only waits).
lab_after_ready() {
  [ "${TOPOLOGY:-standalone}" = replset ] || return 0
  client_oneshot mongodb replset-initiate >&2 || {
    echo "runme.sh: TOPOLOGY=replset: the MongoDB replica set could not be initiated (see the error above)" >&2
    return 1
  }
}
