"""results.json runs[] `cache` and `memory_limit`: what the bench asked of a database's memory, held to
what ran. The cache as the server itself holds it (its server-stats readings' `cache`: PostgreSQL's
shared_buffers, MySQL's buffer pool, WiredTiger's cache) against CACHE_MB, or, with CACHE_MB unset,
the setting the server's command line got from .env; the container's memory limit as its own cgroup
holds it (D.phase.json `memory_limit`, read by the probe) against DB_MEMORY_MB, or .env's DB_MEMORY as
compose ran it (D.settings.json `mem_limit`). A difference beyond the rounding the database (or the
kernel) documents, stated in `rounding`, fails the phase (status.of_phase): its figures are not of
the memory the bench asked for.

What a database's setting means is its folder's (databases/<db>/analysis.py): `cache_asked(settings,
read)` reads the setting from its command line, `cache_expected(asked_bytes, read)` says what the
server holds for it and the rounding. A run recorded before a reading (no `cache` in its readings,
no `memory_limit` in its phase file) gets no field: nothing is said of what was not read."""
from ..common import databases

MIB = 1 << 20
# the kernel keeps a cgroup's memory limit in whole pages (it rounds a limit down to one)
PAGE = 4096


def _cache_read(ph):
    """The readings' `cache` (the start's; the end's when the start has none), and why not when the
    two differ; None when no reading has one."""
    stats = ph.server_stats() or {}
    got = [r["cache"] for r in (stats.get("start"), stats.get("end")) if isinstance(r, dict) and "cache" in r]
    if not got:
        return None, None
    changed = None
    if len(got) == 2 and got[0]["bytes"] != got[1]["bytes"]:
        changed = f"the server's {got[0]['setting']} changed between the readings ({got[0]['bytes']} -> {got[1]['bytes']} B)"
    return got[0], changed


def _mismatch(db, what, asked, got):
    return f"{db}: {what} asked {asked['bytes']} B ({asked['from']}), {got}"


def cache(ph, config):
    """runs[] `cache`: {asked_bytes, asked_from, read_bytes, setting, source, expected_bytes, rounding,
    agrees, reason}, or None for readings recorded before the server's cache was read. `agrees` null:
    not checked (reason says why: the server reports none, or nothing says what was asked)."""
    read, changed = _cache_read(ph)
    if read is None:
        return None
    db = ph.database()
    mb = (config or {}).get("CACHE_MB") or ""
    if mb:
        asked = {"bytes": int(mb) * MIB, "from": f"CACHE_MB={mb}"}
    else:
        asked = (databases.hook(db, "cache_asked") or (lambda s, r: None))(ph.bench.settings(db), read)
    out = {"asked_bytes": asked and asked["bytes"], "asked_from": asked and asked["from"],
           "read_bytes": read["bytes"], "setting": read["setting"], "source": read["source"],
           "expected_bytes": None, "rounding": None, "agrees": None, "reason": None}
    if asked is None or asked["bytes"] is None:
        out["reason"] = (f"CACHE_MB unset and no {read['setting']} read from the server's command line "
                         f"(databases/{db}/analysis.py cache_asked)")
        return out
    if read["bytes"] is None:
        out["reason"] = f"not checked: {read['reason']}"
        return out
    expected, rounding = (databases.hook(db, "cache_expected") or (lambda a, r: (a, None)))(asked["bytes"], read)
    out.update(expected_bytes=expected, rounding=rounding, agrees=read["bytes"] == expected and not changed)
    if changed:
        out["reason"] = f"{db}: {changed}"
    elif not out["agrees"]:
        out["reason"] = _mismatch(db, read["setting"], asked, f"the server holds {read['bytes']} B"
                                  + (f" (expected {expected} B: {rounding})" if rounding else ""))
    return out


def _size_bytes(value):
    """compose's mem_limit as `docker compose config` writes it: bytes, as a number or its digits."""
    text = str(value if value is not None else "").strip()
    return int(text) if text.isdigit() else None


def memory_limit(ph, config):
    """runs[] `memory_limit`: {asked_bytes, asked_from, read_bytes, file, cgroup, expected_bytes,
    rounding, agrees, reason}, or None for a phase file recorded before the limit was read. No limit
    in the cgroup while one was asked is a mismatch; a cgroup that could not be read is not checked."""
    doc = ph.doc() or {}
    if "memory_limit" not in doc:
        return None
    read = doc["memory_limit"] or {"bytes": None, "file": None, "cgroup": None,
                                   "reason": "the phase ended before the limit was read"}
    db = ph.database()
    mb = (config or {}).get("DB_MEMORY_MB") or ""
    settings = ph.bench.settings(db) or {}
    if mb:
        asked = {"bytes": int(mb) * MIB, "from": f"DB_MEMORY_MB={mb}"}
    else:
        b = _size_bytes(settings.get("mem_limit"))
        asked = {"bytes": b, "from": f"DB_MEMORY (.env) as compose ran it: mem_limit {settings.get('mem_limit')}"}
    out = {"asked_bytes": asked["bytes"], "asked_from": asked["from"], "read_bytes": read["bytes"],
           "file": read["file"], "cgroup": read["cgroup"], "expected_bytes": None, "rounding": None,
           "agrees": None, "reason": None}
    if asked["bytes"] is None:
        out["reason"] = f"DB_MEMORY_MB unset and {db}.settings.json holds no mem_limit in bytes"
        return out
    expected = asked["bytes"] - asked["bytes"] % PAGE
    out["expected_bytes"] = expected
    if expected != asked["bytes"]:
        out["rounding"] = f"the kernel keeps whole {PAGE} B pages: {asked['bytes']} B rounded down"
    if read["bytes"] is None and not (read["reason"] or "").startswith("no limit"):
        out["reason"] = f"not checked: {read['reason']}"
        return out
    out["agrees"] = read["bytes"] == expected
    if not out["agrees"]:
        got = (f"its cgroup holds {read['bytes']} B ({read['file']})" if read["bytes"] is not None
               else f"its cgroup has {read['reason']}")
        out["reason"] = _mismatch(db, "memory limit", asked, got)
    return out


def mismatches(*checks):
    """The reasons of the checks that disagree: each fails the phase (status.of_phase)."""
    return [c["reason"] for c in checks if c and c["agrees"] is False]
