"""TimescaleDB's hooks for the lab's driver (lab/driver/hooks.py loads them by folder; docs/contracts.md §2a).
uri: the PostgreSQL service's user, password and database (its compose.yaml takes them), the
timescaledb:// scheme picking this folder's binding (the wire protocol is PostgreSQL's)."""


def uri(env):
    return f"timescaledb://{env['POSTGRES_USER']}:{env['POSTGRES_PASSWORD']}@timescaledb:5432/{env['POSTGRES_DB']}"
