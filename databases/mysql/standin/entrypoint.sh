#!/usr/bin/env bash
# Entrypoint of the MySQL stand-in (MariaDB 10.11). The contract of the official mysql image's
# 8.4/docker-entrypoint.sh (docker-library/mysql, read at commit 7f30fdb0), written anew:
#   MYSQL_ROOT_PASSWORD, or MYSQL_ALLOW_EMPTY_PASSWORD / MYSQL_RANDOM_ROOT_PASSWORD (one is required
#   on first start); MYSQL_ROOT_HOST (default %: a root@'%' user with that password);
#   MYSQL_DATABASE (created); MYSQL_USER + MYSQL_PASSWORD (created, ALL on MYSQL_DATABASE; not root);
#   /docker-entrypoint-initdb.d/*.sql|*.sh on first start; `mysqld --opt=value ...` arguments, an
#   argument list starting with an option meaning `mysqld ...`; the server exec'd as PID 1.
# First start as upstream: the data directory is initialised, a temporary server WITHOUT networking
# (socket only) does the set-up with binary logging off for its session, and is shut down; only the
# final server listens on TCP, so a client that gets a TCP connection with the password talks to the
# ready server (the lab's `wait-ready` relies on it). Not taken over: the *_FILE variants,
# MYSQL_ONETIME_PASSWORD and the time-zone tables (Debian's minbase has no zoneinfo; the lab uses no
# named time zone).
# MySQL 8.4 options are mapped to MariaDB's or refused, each said in the log: a new lab option is
# never silently dropped.
set -Eeuo pipefail

log() { printf 'standin-entrypoint: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

if [[ $# -eq 0 || ${1:0:1} == - ]]; then
  set -- mysqld "$@"
fi
if [[ $1 != mysqld && $1 != mariadbd ]]; then
  exec "$@"
fi
shift

datadir=/var/lib/mysql
socket=/run/mysqld/mysqld.sock

if [[ $(id -u) -eq 0 ]]; then
  mkdir -p "$datadir" "$(dirname "$socket")"
  chown mysql:mysql "$datadir" "$(dirname "$socket")"
  exec gosu mysql "$BASH_SOURCE" mysqld "$@"
fi

# MySQL 8.4 -> MariaDB 10.11. Option names are compared with '_' read as '-', as mysqld does.
args=() binlog=on format=
for arg in "$@"; do
  name=${arg%%=*}
  name=${name//_/-}
  value=${arg#*=}
  [[ $arg == *=* ]] || value=
  case $name in
    --innodb-buffer-pool-size | --innodb-flush-log-at-trx-commit | --sync-binlog | --innodb-doublewrite | \
    --max-connections | --server-id | --port | --bind-address | --binlog-row-image | --binlog-expire-logs-seconds | \
    --innodb-flush-method | --innodb-io-capacity | --innodb-io-capacity-max | --innodb-log-buffer-size | \
    --skip-name-resolve)
      args+=("$arg") ;;
    --log-bin) args+=("$arg"); binlog=given ;;
    --skip-log-bin | --disable-log-bin) binlog=off ;;
    --binlog-format) args+=("$arg"); format=$value ;;
    --innodb-redo-log-capacity)
      # MySQL 8.0.30+ sizes its redo log as one capacity; MariaDB 10.5+ has one redo file of this size.
      log "mysqld $arg -> mariadbd --innodb-log-file-size=$value (MariaDB's single redo log file)"
      args+=("--innodb-log-file-size=$value") ;;
    --binlog-row-value-options)
      log "mysqld $arg: MariaDB has no partial JSON logging (its JSON is LONGTEXT: an update logs the whole row image); not applied"
      ;;
    *) die "mysqld argument '$arg' has no MariaDB mapping in this stand-in (known: --innodb-buffer-pool-size --innodb-flush-log-at-trx-commit --sync-binlog --innodb-doublewrite --max-connections --server-id --port --bind-address --binlog-row-image --binlog-expire-logs-seconds --innodb-flush-method --innodb-io-capacity --innodb-io-capacity-max --innodb-log-buffer-size --skip-name-resolve --log-bin --skip-log-bin --disable-log-bin --binlog-format --innodb-redo-log-capacity --binlog-row-value-options)" ;;
  esac
done
# MySQL 8.4 writes a binary log unless told not to (log_bin ON, base name binlog, row format only);
# MariaDB 10.11 has it off and defaults to MIXED: the stand-in turns on what MySQL ships.
if [[ $binlog == on ]]; then
  log "MySQL 8.4 logs binary by default -> mariadbd --log-bin=binlog"
  args+=(--log-bin=binlog)
fi
if [[ $binlog != off && -z $format ]]; then
  log "MySQL 8.4 logs rows (binlog_format ROW) -> mariadbd --binlog-format=ROW (MariaDB's default is MIXED)"
  args+=(--binlog-format=ROW)
fi
server=(mariadbd --datadir="$datadir" --socket="$socket" "${args[@]}")

# Runs SQL from stdin on the temporary server, as root over the socket (password once it is set).
sql() {
  local auth=()
  [[ -z ${root_set:-} || -z ${MYSQL_ROOT_PASSWORD:-} ]] || auth=(--password="$MYSQL_ROOT_PASSWORD")
  mariadb --no-defaults --protocol=socket --socket="$socket" -uroot "${auth[@]}" "$@"
}

if [[ ! -d $datadir/mysql ]]; then
  if [[ -z ${MYSQL_ROOT_PASSWORD:-} && -z ${MYSQL_ALLOW_EMPTY_PASSWORD:-} && -z ${MYSQL_RANDOM_ROOT_PASSWORD:-} ]]; then
    die "the database is uninitialised and no password option is set; set one of MYSQL_ROOT_PASSWORD, MYSQL_ALLOW_EMPTY_PASSWORD, MYSQL_RANDOM_ROOT_PASSWORD"
  fi
  [[ ${MYSQL_USER:-} != root ]] || die "MYSQL_USER=root: MYSQL_USER and MYSQL_PASSWORD are for a regular user; set the root password with MYSQL_ROOT_PASSWORD"
  if [[ -n ${MYSQL_RANDOM_ROOT_PASSWORD:-} ]]; then
    MYSQL_ROOT_PASSWORD=$(head -c 18 /dev/urandom | base64)
    log "GENERATED ROOT PASSWORD: $MYSQL_ROOT_PASSWORD"
  fi
  log "initialising $datadir"
  mariadb-install-db --datadir="$datadir" --auth-root-authentication-method=normal --skip-test-db \
    --skip-name-resolve >/dev/null

  log "starting the temporary server (socket only, no networking)"
  "${server[@]}" --skip-networking &
  temp=$!
  for _ in $(seq 1 300); do
    sql -e 'select 1' >/dev/null 2>&1 && break
    kill -0 "$temp" 2>/dev/null || die "the temporary server exited (its log is above)"
    sleep 0.1
  done
  sql -e 'select 1' >/dev/null || die "the temporary server did not answer within 30 s"

  # mariadb-install-db also makes root@<hostname>, root@127.0.0.1 and root@::1 without a password;
  # MySQL's --initialize-insecure makes only root@localhost. Dropped, so the only root accounts are
  # upstream's: localhost and MYSQL_ROOT_HOST, both with the password.
  sql -N -e "SELECT CONCAT('DROP USER ', QUOTE(User), '@', QUOTE(Host), ';') FROM mysql.user
             WHERE User = '' OR (User = 'root' AND Host <> 'localhost')" | { echo 'SET @@SESSION.SQL_LOG_BIN = 0;'; cat; } | sql
  root_host=${MYSQL_ROOT_HOST:-%}
  pw=${MYSQL_ROOT_PASSWORD:-}
  {
    echo "SET autocommit = 1; SET @@SESSION.SQL_LOG_BIN = 0;"
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY '${pw//\'/\'\'}';"
    if [[ $root_host != localhost ]]; then
      echo "CREATE USER 'root'@'${root_host}' IDENTIFIED BY '${pw//\'/\'\'}';"
      echo "GRANT ALL ON *.* TO 'root'@'${root_host}' WITH GRANT OPTION;"
    fi
    echo "DROP DATABASE IF EXISTS test; FLUSH PRIVILEGES;"
  } | sql mysql
  root_set=1
  if [[ -n ${MYSQL_DATABASE:-} ]]; then
    log "creating database $MYSQL_DATABASE"
    echo "SET @@SESSION.SQL_LOG_BIN = 0; CREATE DATABASE IF NOT EXISTS \`$MYSQL_DATABASE\`;" | sql
  fi
  if [[ -n ${MYSQL_USER:-} && -n ${MYSQL_PASSWORD:-} ]]; then
    log "creating user $MYSQL_USER"
    {
      echo "SET @@SESSION.SQL_LOG_BIN = 0;"
      echo "CREATE USER '$MYSQL_USER'@'%' IDENTIFIED BY '${MYSQL_PASSWORD//\'/\'\'}';"
      [[ -z ${MYSQL_DATABASE:-} ]] || echo "GRANT ALL ON \`${MYSQL_DATABASE//_/\\_}\`.* TO '$MYSQL_USER'@'%';"
    } | sql
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    [[ -e $f ]] || continue
    case $f in
      *.sh) log "running $f"; . "$f" ;;
      *.sql) log "running $f"; sql ${MYSQL_DATABASE:+"$MYSQL_DATABASE"} <"$f" ;;
      *) log "ignoring $f" ;;
    esac
  done
  log "stopping the temporary server"
  sql -e 'SHUTDOWN' || die "the temporary server refused SHUTDOWN"
  wait "$temp" || die "the temporary server did not shut down cleanly"
  log "init process done; ready for start up"
fi

exec "${server[@]}"
