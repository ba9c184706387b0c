#!/usr/bin/env bash
# Entrypoint of the PostgreSQL stand-in. Same contract as the official image, written anew:
#   POSTGRES_PASSWORD (required unless POSTGRES_HOST_AUTH_METHOD=trust), POSTGRES_USER (postgres),
#   POSTGRES_DB (= user), POSTGRES_INITDB_ARGS, POSTGRES_HOST_AUTH_METHOD (scram-sha-256), PGDATA,
#   /docker-entrypoint-initdb.d/*.sql|*.sh on first start, arguments `postgres -c key=value ...`.
set -Eeuo pipefail

log() { printf 'standin-entrypoint: %s\n' "$*" >&2; }

# `docker run image -c foo=bar` means `postgres -c foo=bar`, as with the official image.
if [[ $# -eq 0 || ${1:0:1} == "-" ]]; then
  set -- postgres "$@"
fi

if [[ $1 != postgres ]]; then
  exec "$@"
fi

: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
export PGDATA

if [[ $(id -u) -eq 0 ]]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec gosu postgres "$BASH_SOURCE" "$@"
fi

if [[ ! -s $PGDATA/PG_VERSION ]]; then
  if [[ -z ${POSTGRES_PASSWORD:-} && $POSTGRES_HOST_AUTH_METHOD != trust ]]; then
    log "the database is uninitialised and POSTGRES_PASSWORD is not set;"
    log "set POSTGRES_PASSWORD (or POSTGRES_HOST_AUTH_METHOD=trust to allow connections without one)"
    exit 1
  fi
  log "initialising $PGDATA (initdb ${POSTGRES_INITDB_ARGS:-})"
  pwfile=$(mktemp)
  printf '%s\n' "${POSTGRES_PASSWORD:-}" >"$pwfile"
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a word list by contract
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" ${POSTGRES_INITDB_ARGS:-} >&2
  rm -f "$pwfile"
  printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"

  # A socket-only server for the first-start work, so nothing outside sees a half-ready database.
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -p 5432" start >&2
  psql=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc)
  if [[ $POSTGRES_DB != postgres ]]; then
    "${psql[@]}" --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";' >&2
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    [[ -e $f ]] || continue
    case $f in
      *.sh) log "running $f"; . "$f" ;;
      *.sql) log "running $f"; "${psql[@]}" --dbname "$POSTGRES_DB" -f "$f" >&2 ;;
      *) log "ignoring $f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >&2
  log "initialisation done"
fi

exec "$@"
