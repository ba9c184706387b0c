"""MongoDB's hooks for the lab's driver (lab/driver/hooks.py loads them by folder; docs/contracts.md §2a)."""


def _replset(env):
    return env.get("TOPOLOGY") or "standalone"


def uri(env, address="mongodb:27017"):
    """directConnection with TOPOLOGY=replset: a replica-set member is dialled as itself (before
    initiation it is no primary a driver could select; the stand-in advertises 0.0.0.0). ADDRESS:
    host:port, the service on the lab network unless the driver gives the database host's address
    and published port (clients on another host)."""
    direct = "&directConnection=true" if _replset(env) == "replset" else ""
    return f"mongodb://{env['MONGO_USER']}:{env['MONGO_PASSWORD']}@{address}/?authSource=admin{direct}"


def compose_env(env, root):
    """TOPOLOGY=replset: mongod gets `--replSet rs0` (and the keyFile mongod requires with --auth)
    through the entrypoint in compose.yaml / compose.standins.yaml; unset (standalone) otherwise.
    CACHE_MB (the bench's cache): --wiredTigerCacheSizeGB in GiB, written out exactly (cache_gb); unset:
    .env's MONGO_CACHE_GB stays."""
    out = {"MONGO_TOPOLOGY_ARGS": "--replSet rs0 --keyFile /tmp/jsonbench-keyfile" if _replset(env) == "replset" else None}
    cache = env.get("CACHE_MB") or ""
    if cache:
        out["MONGO_CACHE_GB"] = cache_gb(int(cache))
    return out


def cache_gb(mib):
    """MiB as GiB, every digit: a whole MiB is n/1024 GiB, a binary fraction of at most 10 places whose
    decimal is exact and which repr writes out whole (300 -> 0.29296875; "%g" wrote 0.292969, which
    mongod would have taken as 299.99 MiB). mongod turns it back into cacheSizeGB x 1024 MB."""
    text = repr(mib / 1024)
    return text[:-2] if text.endswith(".0") else text


def after_ready(bench, db):
    """TOPOLOGY=replset: the one-member set is initiated from outside (before the first window) and
    the lab waits until the node is the writable primary (client/commands/replset-initiate.js; on a
    restarted member already initiated it only waits)."""
    if _replset(bench.env) != "replset":
        return
    r = bench.oneshot(db, "replset-initiate", stdout="inherit")
    if r.returncode != 0:
        raise RuntimeError("TOPOLOGY=replset: the MongoDB replica set could not be initiated (see the error above)")
