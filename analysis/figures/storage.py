"""What the database's files take after a phase (results.json runs[] `storage`), from its count
(D.count.json): table, index and total bytes, and the sizes read before count's flush beside them."""


def _settled(count):
    """The sizes `count` read before its flush (CHECKPOINT / {fsync: 1}) beside the settled ones it
    reports: MongoDB's collStats sizes are file sizes, short of pages still dirty in the cache."""
    settle = (count or {}).get("settle")
    if not settle:
        return {"before_settle": None, "settle": None,
                "settle_reason": "count.json has no `settle` (a count before issue 16): sizes read without a flush"}
    return {"before_settle": settle.get("before"), "settle": settle.get("command"), "settle_reason": settle.get("reason")}


def of_phase(ph):
    count = ph.count()
    storage = {k: (count or {}).get(k) for k in ("table_bytes", "index_bytes", "total_bytes")}
    storage.update(_settled(count))
    return storage
