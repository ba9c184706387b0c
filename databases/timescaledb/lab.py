"""TimescaleDB's hooks for the lab's driver (lab/driver/hooks.py loads them by folder; docs/contracts.md §2a).
uri: the PostgreSQL service's user, password and database (its compose.yaml takes them), the
timescaledb:// scheme picking this folder's binding (the wire protocol is PostgreSQL's)."""


def uri(env, address="timescaledb:5432"):
    """ADDRESS: host:port, as PostgreSQL's hook."""
    return f"timescaledb://{env['POSTGRES_USER']}:{env['POSTGRES_PASSWORD']}@{address}/{env['POSTGRES_DB']}"


def compose_env(env, root):
    """CACHE_MB: shared_buffers, as PostgreSQL's (TimescaleDB is a PostgreSQL extension; its compose.yaml
    reads the same PG_SHARED_BUFFERS). Unset: .env's stays."""
    cache = env.get("CACHE_MB") or ""
    return {"PG_SHARED_BUFFERS": f"{int(cache)}MB"} if cache else {}
