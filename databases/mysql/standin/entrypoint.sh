#!/usr/bin/env bash
# Entrypoint of the MySQL stand-in (Debian's MySQL 9.7). The contract of the official mysql image's
# 9.7/docker-entrypoint.sh (docker-library/mysql, read at commit 7f30fdb0), written anew:
#   MYSQL_ROOT_PASSWORD, or MYSQL_ALLOW_EMPTY_PASSWORD / MYSQL_RANDOM_ROOT_PASSWORD (one is required
#   on first start); MYSQL_ROOT_HOST (default %: a root@'%' user with that password);
#   MYSQL_DATABASE (created); MYSQL_USER + MYSQL_PASSWORD (created, ALL on MYSQL_DATABASE; not root);
#   /docker-entrypoint-initdb.d/*.sh|*.sql|*.sql.gz on first start; `mysqld --opt=value ...`
#   arguments, an argument list starting with an option meaning `mysqld ...`; the configuration
#   checked before anything is written (upstream: `mysqld --verbose --help`; here `mysqld
#   --validate-config`, which also refuses an unknown option); the server exec'd as PID 1.
# First start as upstream: `mysqld <the arguments> --initialize-insecure`, then a temporary server
# WITHOUT networking (socket only) does the set-up with binary logging off for the accounts'
# statements, and is shut down; only the final server listens on TCP, so a client that gets a TCP
# connection with the password talks to the ready server (the lab's `wait-ready` relies on it).
# The server is MySQL itself: its options are passed as given (no mapping).
# Not taken over, and refused when asked for (never silently dropped): the *_FILE variants and
# MYSQL_ONETIME_PASSWORD. Not taken over: the time-zone tables (Debian's minbase has no zoneinfo;
# the lab uses no named time zone), *.sql.bz2/xz/zst init files (ignored with a warning, as
# upstream does with a file it does not know).
set -Eeuo pipefail

log() { printf 'standin-entrypoint: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

if [[ $# -eq 0 || ${1:0:1} == - ]]; then
  set -- mysqld "$@"
fi
[[ $1 == mysqld ]] || exec "$@"
for arg in "$@"; do
  case $arg in -'?' | --help | --print-defaults | -V | --version) exec "$@" ;; esac
done

for name in MYSQL_ROOT_PASSWORD_FILE MYSQL_PASSWORD_FILE MYSQL_USER_FILE MYSQL_DATABASE_FILE MYSQL_ROOT_HOST_FILE \
  MYSQL_ONETIME_PASSWORD; do
  [[ -z ${!name:-} ]] || die "$name is not supported by this stand-in (the official mysql image has it); allowed: MYSQL_ROOT_PASSWORD, MYSQL_ALLOW_EMPTY_PASSWORD, MYSQL_RANDOM_ROOT_PASSWORD, MYSQL_ROOT_HOST, MYSQL_DATABASE, MYSQL_USER, MYSQL_PASSWORD"
done

# The server's own check of its options (option files, then the arguments: mysqld
# --validate-config): an option it does not know stops here, before a data directory is
# initialised. Its datadir and socket come from its own reading (`--verbose --help`).
check=$("$@" --validate-config 2>&1) || die "mysqld refused its configuration: $*: $(grep -m 3 ERROR <<<"$check" | tr '\n' ' ')"
options=$("$@" --verbose --help --log-bin-index="$(mktemp -u)" 2>/dev/null) || die "mysqld $* --verbose --help failed"
# (the table of values at its end: lines that start with the name; wrapped help text is indented)
datadir=$(awk '/^[^ \t]/ && $1 == "datadir" { print $2; exit }' <<<"$options")
socket=$(awk '/^[^ \t]/ && $1 == "socket" { print $2; exit }' <<<"$options")
[[ -n $datadir && -n $socket ]] || die "mysqld --verbose --help names no datadir or socket"
datadir=${datadir%/}

if [[ $(id -u) -eq 0 ]]; then
  mkdir -p "$datadir" "$(dirname "$socket")"
  chown mysql:mysql "$datadir" "$(dirname "$socket")"
  exec gosu mysql "$BASH_SOURCE" "$@"
fi

# Runs SQL from stdin (or -e) on the temporary server, as root over the socket; the password, once
# set, from a file descriptor, never on a command line.
root_set=
sql() {
  if [[ -n $root_set && -n ${MYSQL_ROOT_PASSWORD:-} ]]; then
    mysql --defaults-extra-file=<(printf '[client]\npassword="%s"\n' "$MYSQL_ROOT_PASSWORD") \
      --protocol=socket --socket="$socket" -uroot "$@"
  else
    mysql --no-defaults --protocol=socket --socket="$socket" -uroot "$@"
  fi
}
quoted() { local s=${1//\\/\\\\}; printf "'%s'" "${s//\'/\'\'}"; }

if [[ ! -d $datadir/mysql ]]; then
  if [[ -z ${MYSQL_ROOT_PASSWORD:-} && -z ${MYSQL_ALLOW_EMPTY_PASSWORD:-} && -z ${MYSQL_RANDOM_ROOT_PASSWORD:-} ]]; then
    die "the database is uninitialised and no password option is set; set one of MYSQL_ROOT_PASSWORD, MYSQL_ALLOW_EMPTY_PASSWORD, MYSQL_RANDOM_ROOT_PASSWORD"
  fi
  [[ ${MYSQL_USER:-} != root ]] || die "MYSQL_USER=root: MYSQL_USER and MYSQL_PASSWORD are for a regular user; set the root password with MYSQL_ROOT_PASSWORD"
  [[ -z ${MYSQL_USER:-} || -n ${MYSQL_PASSWORD:-} ]] || log "MYSQL_USER is set without MYSQL_PASSWORD: the user is not created"
  [[ -n ${MYSQL_USER:-} || -z ${MYSQL_PASSWORD:-} ]] || log "MYSQL_PASSWORD is set without MYSQL_USER: it is not used"
  if [[ -n ${MYSQL_RANDOM_ROOT_PASSWORD:-} ]]; then
    MYSQL_ROOT_PASSWORD=$(head -c 18 /dev/urandom | base64)
    log "GENERATED ROOT PASSWORD: $MYSQL_ROOT_PASSWORD"
  fi
  log "initialising $datadir (mysqld --initialize-insecure with the server's arguments)"
  "$@" --initialize-insecure --default-time-zone=SYSTEM

  log "starting the temporary server (socket only, no networking)"
  "$@" --skip-networking --default-time-zone=SYSTEM --socket="$socket" &
  temp=$!
  for _ in $(seq 1 600); do
    sql -e 'SELECT 1' >/dev/null 2>&1 && break
    kill -0 "$temp" 2>/dev/null || die "the temporary server exited (its log is above)"
    sleep 0.1
  done
  sql -e 'SELECT 1' >/dev/null || die "the temporary server did not answer within 60 s"

  # --initialize-insecure makes root@localhost without a password and no other root account.
  root_host=${MYSQL_ROOT_HOST:-%}
  pw=$(quoted "${MYSQL_ROOT_PASSWORD:-}")
  {
    echo "SET autocommit = 1; SET @@SESSION.SQL_LOG_BIN = 0;"
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY $pw;"
    echo "GRANT ALL ON *.* TO 'root'@'localhost' WITH GRANT OPTION;"
    if [[ $root_host != localhost ]]; then
      echo "CREATE USER 'root'@$(quoted "$root_host") IDENTIFIED BY $pw;"
      echo "GRANT ALL ON *.* TO 'root'@$(quoted "$root_host") WITH GRANT OPTION;"
    fi
    echo "DROP DATABASE IF EXISTS test;"
  } | sql mysql
  root_set=1
  if [[ -n ${MYSQL_DATABASE:-} ]]; then
    log "creating database $MYSQL_DATABASE"
    echo "CREATE DATABASE IF NOT EXISTS \`$MYSQL_DATABASE\`;" | sql
  fi
  if [[ -n ${MYSQL_USER:-} && -n ${MYSQL_PASSWORD:-} ]]; then
    log "creating user $MYSQL_USER"
    {
      echo "CREATE USER $(quoted "$MYSQL_USER")@'%' IDENTIFIED BY $(quoted "$MYSQL_PASSWORD");"
      [[ -z ${MYSQL_DATABASE:-} ]] || echo "GRANT ALL ON \`${MYSQL_DATABASE//_/\\_}\`.* TO $(quoted "$MYSQL_USER")@'%';"
    } | sql
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    [[ -e $f ]] || continue
    case $f in
      *.sh) if [[ -x $f ]]; then log "running $f"; "$f"; else log "sourcing $f"; . "$f"; fi ;;
      *.sql) log "running $f"; sql ${MYSQL_DATABASE:+"--database=$MYSQL_DATABASE"} <"$f" ;;
      *.sql.gz) log "running $f"; gzip -dc "$f" | sql ${MYSQL_DATABASE:+"--database=$MYSQL_DATABASE"} ;;
      *) log "ignoring $f" ;;
    esac
  done
  log "stopping the temporary server"
  sql -e 'SHUTDOWN' || die "the temporary server refused SHUTDOWN"
  wait "$temp" || die "the temporary server did not shut down cleanly"
  log "init process done; ready for start up"
fi

exec "$@"
