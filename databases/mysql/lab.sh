# MySQL's hooks for the lab (sourced in a subshell by lab/stack.sh; docs/layout.md step 5).

# lab_uri: root, because reading the server's counters (SHOW GLOBAL STATUS, SHOW BINARY LOGS) and
# the flush before `count` need rights a MYSQL_USER lacks (databases/mysql/compose.yaml says why).
lab_uri() { echo "mysql://root:${MYSQL_PASSWORD}@mysql:3306/${MYSQL_DB:-jsonbench}"; }

# lab_compose_env: the bench's DURABILITY decides the server's commit durability, which MySQL has
# only as global settings (PostgreSQL and MongoDB take it per session / per write): strict = redo
# log flushed and binary log synced at every commit (1, 1), relaxed = 2, 0 (the client's DURABILITY
# table, databases/mysql/client/mysql.js, which checks the running server against the bench).
# The bench's MYSQL_VERSION chooses the official image among database.json's versions.images
# (default 9.7): always set from that list, so no image of .env's is run as the official one. On
# the stand-ins compose.standins.yaml replaces the image (and MYSQL_VERSION=8.4 is refused there).
lab_compose_env() {
  if [ "${DURABILITY:-strict}" = relaxed ]; then
    echo "MYSQL_FLUSH_LOG_AT_TRX_COMMIT=2"; echo "MYSQL_SYNC_BINLOG=0"
  else
    echo "MYSQL_FLUSH_LOG_AT_TRX_COMMIT=1"; echo "MYSQL_SYNC_BINLOG=1"
  fi
  local image
  image=$("${VENV:?VENV is not set (host/node-python.sh)}/bin/python" "$LAB_ROOT/databases/manifests.py" image mysql "${MYSQL_VERSION:-}") || return 1
  echo "MYSQL_OFFICIAL_IMAGE=$image"
}
