"""The host's transparent-huge-pages settings and whether they are what MongoDB 8.0 asks for.

MongoDB 8.0's TCMalloc (per-CPU caches) wants THP enabled before mongod starts; its "TCMalloc
Performance Optimization for a Self-Managed Deployment" page sets enabled=always,
defrag=defer+madvise, khugepaged/max_ptes_none=0 and vm.overcommit_memory=1. THP is host-wide:
the lab records it (it cannot set it from compose) so a reader sees what MongoDB ran with."""
import os

MONGODB_8_0 = {"enabled": "always", "defrag": "defer+madvise", "max_ptes_none": 0, "overcommit_memory": 1}
_FILES = {"enabled": "sys/kernel/mm/transparent_hugepage/enabled",
          "defrag": "sys/kernel/mm/transparent_hugepage/defrag",
          "max_ptes_none": "sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none",
          "overcommit_memory": "proc/sys/vm/overcommit_memory"}


def _read(root, rel):
    try:
        with open(os.path.join(root, rel)) as f:
            return f.read().strip()
    except OSError:
        return None


def _selected(text):
    """'always [madvise] never' -> 'madvise'; a plain value is returned as it is."""
    if text is None:
        return None
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return text


def gather(root="/"):
    """{enabled, defrag, max_ptes_none, overcommit_memory, mongodb_8_0_recommends, matches_mongodb_8_0,
    differs}; a setting the host does not expose is null and makes the match null (unknown)."""
    found = {}
    for key, rel in _FILES.items():
        raw = _selected(_read(root, rel))
        found[key] = int(raw) if raw is not None and raw.lstrip("-").isdigit() else raw
    differs = [f"{k}={found[k]} (MongoDB 8.0: {v})" for k, v in MONGODB_8_0.items()
               if found[k] is not None and found[k] != v]
    unknown = [k for k in MONGODB_8_0 if found[k] is None]
    return {**found, "mongodb_8_0_recommends": dict(MONGODB_8_0),
            "matches_mongodb_8_0": False if differs else (None if unknown else True),
            "differs": differs}


def describe(thp):
    """One sentence for the report."""
    if not thp:
        return "transparent huge pages: not recorded"
    state = (f"transparent huge pages enabled={thp.get('enabled')}, defrag={thp.get('defrag')}, "
             f"khugepaged max_ptes_none={thp.get('max_ptes_none')}, vm.overcommit_memory={thp.get('overcommit_memory')}")
    if thp.get("matches_mongodb_8_0") is True:
        return state + ": as MongoDB 8.0 recommends"
    if thp.get("matches_mongodb_8_0") is False:
        return state + ": NOT as MongoDB 8.0 recommends (" + "; ".join(thp.get("differs") or []) + ")"
    return state + ": unknown whether as MongoDB 8.0 recommends"
