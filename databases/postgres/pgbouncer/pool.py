"""PgBouncer between the clients and PostgreSQL (bench key POOL=pgbouncer; postgres's manifest offers
it: offers.poolers.pgbouncer). The pooler's hooks for the lab's driver (lab/driver/hooks.py loads them
by folder; docs/contracts.md §2a); `bench` is the bench under way (lab/driver/bench.py: its settings
`env`, `engine`, `say`, `oneshot`) and `service` the manifest's compose service.
The clients' `run` sessions go through the pool; every reading of the lab (wait-ready, init,
server-stats, count and its nothing-lost check, settle) goes straight to PostgreSQL, and the pool
itself is only ever asked on its admin console (readiness, version, closing its server connections
after each window: databases/postgres/client/commands/pool-ready.js, pool-close.js)."""
import json

READINGS = "direct to PostgreSQL: readiness, init, server-stats, count and the nothing-lost check, settle"


def _uri(env, service, db=None):
    """The pool's address on the lab network; DB = the pooled database, or `pgbouncer` (admin console)."""
    return f"postgres://{env['POSTGRES_USER']}:{env['POSTGRES_PASSWORD']}@{service}:6432/{db or env['POSTGRES_DB']}"


def uri(env, service):
    """The URI a pooled phase's clients dial."""
    return _uri(env, service)


def _admin(bench, service, command):
    """A one-shot client command on the pool's admin console (pool-ready, pool-close)."""
    return bench.oneshot("postgres", command, uri=_uri(bench.env, service, "pgbouncer"),
                         extra_env={"POOL_DB": bench.env["POSTGRES_DB"]}, plan=False)


def _first_json(text):
    for line in (text or "").splitlines():
        if line.startswith("{"):
            return json.loads(line)
    return None


def compose_env(env):
    """The commit durability of the server connections follows the bench's DURABILITY."""
    return {"POOL_SYNCHRONOUS_COMMIT": "on" if (env.get("DURABILITY") or "strict") == "strict" else "off"}


def start(bench, service):
    """After PostgreSQL is ready, a fresh pgbouncer configured from the bench keys (POOL_MODE,
    POOL_SIZE; DURABILITY as the server connections' synchronous_commit), waited for on its admin
    console. Returns pool-ready's facts (product, version, max_prepared_statements)."""
    if bench.compose(["build", service], capture=False).returncode != 0:
        raise RuntimeError("POOL=pgbouncer: building the pgbouncer image failed (see above)")
    if bench.compose(["up", "-d", "--no-deps", "--force-recreate", service], capture=False).returncode != 0:
        raise RuntimeError("POOL=pgbouncer: pgbouncer could not be started (see above)")
    r = _admin(bench, service, "pool-ready")
    ready = _first_json(r.stdout) if r.returncode == 0 else None
    if ready is None:
        raise RuntimeError("POOL=pgbouncer: pgbouncer did not become ready (see the pool-ready error above and: "
                           f"docker logs $(docker compose ps -q {service}))")
    label = bench.engine.label(bench.container_of(service), "jsonbench.stand_in")
    bench.say(f"POOL=pgbouncer: {ready.get('product')} {ready.get('version')}, pool_mode={bench.env.get('POOL_MODE')} "
              f"default_pool_size={bench.env.get('POOL_SIZE')}" + (f" (STAND-IN: {label})" if label else ""))
    return ready


def close(bench, service):
    """After a pooled phase's clients are gone (outside the window), the pool's server connections
    closed, so that the server's end reading sees no idle session the lab left behind and the next
    phase starts from an empty pool. Returns the line for the phase's .out."""
    r = _admin(bench, service, "pool-close")
    if r.returncode == 0:
        return f"pool-close: {r.stdout.strip()}"
    return f"pool-close: failed ({r.stdout.strip()}): the pool's server connections may still be open at the end reading"


def phase_json(bench, service, ready, image_os):
    """D.phase.json's `pooler`: what ran between the clients and the server. Statements are named on
    every path and in both modes (databases/postgres/client/postgres-txn.js); in transaction mode the
    pool's max_prepared_statements (pool-ready's SHOW CONFIG) carries them."""
    cid = bench.container_of(service)
    ready = ready or {}
    size = bench.env.get("POOL_SIZE")
    return {"service": service, "product": ready.get("product") or None, "version": ready.get("version") or None,
            "mode": bench.env.get("POOL_MODE"), "size": float(size) if size and "." in size else (int(size) if size else None),
            "container_id": cid or None, "image": bench.engine.inspect(cid, "{{.Config.Image}}") or None,
            "stand_in": bench.engine.label(cid, "jsonbench.stand_in") or None, "statements": "named",
            "max_prepared_statements": ready.get("max_prepared_statements"), "image_os": image_os,
            "readings": READINGS}
