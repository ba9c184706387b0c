"""PostgreSQL's hooks for the lab's driver (lab/driver/hooks.py loads them by folder; docs/contracts.md §2a).
uri: the URI the client containers dial on the lab network (the password from .env travels in the
environment, never on a command line)."""


def uri(env, address="postgres:5432"):
    """ADDRESS: host:port the clients dial, the service on the lab network unless the driver gives the
    database host's address and published port (clients on another host)."""
    return f"postgres://{env['POSTGRES_USER']}:{env['POSTGRES_PASSWORD']}@{address}/{env['POSTGRES_DB']}"


def compose_env(env, root):
    """CACHE_MB (the bench's cache, every database's own setting): shared_buffers. Unset: .env's
    PG_SHARED_BUFFERS stays (None would unset it; it is left out instead)."""
    cache = env.get("CACHE_MB") or ""
    return {"PG_SHARED_BUFFERS": f"{int(cache)}MB"} if cache else {}
