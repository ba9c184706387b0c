"""MySQL's hooks for the lab's driver (lab/driver/hooks.py loads them by folder; docs/contracts.md §2a)."""
import os
import sys


def uri(env, address="mysql:3306"):
    """root: reading the server's counters (SHOW GLOBAL STATUS, SHOW BINARY LOGS) and the flush before
    `count` need rights a MYSQL_USER lacks (databases/mysql/compose.yaml says why). ADDRESS: host:port,
    the service on the lab network unless the driver gives the host's address and published port."""
    return f"mysql://root:{env['MYSQL_PASSWORD']}@{address}/{env.get('MYSQL_DB') or 'jsonbench'}"


def compose_env(env, root):
    """The bench's DURABILITY decides the server's commit durability, which MySQL has only as global
    settings (PostgreSQL and MongoDB take it per session / per write): strict = redo log flushed and
    binary log synced at every commit (1, 1), relaxed = 2, 0 (the client's DURABILITY table,
    databases/mysql/client/mysql.js, checks the running server against the bench). The bench's
    MYSQL_VERSION chooses the official image among database.json's versions.images (default 9.7):
    always set from that list, so no image of .env's is run as the official one. On the stand-ins
    compose.standins.yaml replaces the image (and MYSQL_VERSION=8.4 is refused there)."""
    relaxed = (env.get("DURABILITY") or "strict") == "relaxed"
    sys.path.insert(0, os.path.dirname(root))
    from databases import manifests
    image = manifests.official_image(manifests.load("mysql", root), env.get("MYSQL_VERSION") or None,
                                     os.path.join(root, "mysql", "database.json"))
    out = {"MYSQL_FLUSH_LOG_AT_TRX_COMMIT": "2" if relaxed else "1",
           "MYSQL_SYNC_BINLOG": "0" if relaxed else "1",
           "MYSQL_OFFICIAL_IMAGE": image}
    # CACHE_MB (the bench's cache, every database's own setting): the buffer pool. InnoDB rounds the
    # pool up to a multiple of chunk size x instances (128 MiB x 1 by default: 200M ran as 256 MiB on
    # 9.7.4), so the pool is one instance of one chunk of CACHE_MB: exactly CACHE_MB (database.json
    # `cache`). Unset: .env's MYSQL_BUFFER_POOL_SIZE, MySQL's chunk size and its own instance count.
    cache = env.get("CACHE_MB") or ""
    if cache:
        out["MYSQL_BUFFER_POOL_SIZE"] = f"{int(cache)}M"
        out["MYSQL_BUFFER_POOL_CHUNK_SIZE"] = f"{int(cache)}M"
        out["MYSQL_BUFFER_POOL_INSTANCES_OPTION"] = "--innodb-buffer-pool-instances=1"
    return out
