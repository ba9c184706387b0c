"""The host's transparent-huge-pages settings and whether they are what each database asks for.

THP is host-wide: the lab records it (it cannot set it from compose) so a reader sees what each
database ran with. Which databases care and what they advise is theirs to say: the `THP` of their
folder's hooks (databases/<db>/analysis.py, docs/contracts.md "A database's analysis hooks":
MongoDB 8.0's TCMalloc advice); host.json holds `<key>_recommends` and `matches_<key>` per advice."""
import os

from ..common import databases
from ..common.errors import AnalysisError

_FILES = {"enabled": "sys/kernel/mm/transparent_hugepage/enabled",
          "defrag": "sys/kernel/mm/transparent_hugepage/defrag",
          "max_ptes_none": "sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none",
          "overcommit_memory": "proc/sys/vm/overcommit_memory"}


def advice():
    """[THP hook] of every database that states one (the manifests' order), each checked: its
    `recommends` may name only the settings read here."""
    out = []
    for db in databases.known_manifests():
        a = databases.hook(db, "THP")
        if a is None:
            continue
        unknown = sorted(set(a.get("recommends") or {}) - set(_FILES))
        if unknown or not a.get("key") or not a.get("who"):
            raise AnalysisError(f"databases/{db}/analysis.py: THP needs key, who and recommends of "
                                f"{', '.join(_FILES)} (not: {', '.join(unknown) or 'missing key/who'})")
        out.append(a)
    return out


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
    """{enabled, defrag, max_ptes_none, overcommit_memory, <key>_recommends, matches_<key>, differs}
    per database advice (MongoDB 8.0's: mongodb_8_0_recommends, matches_mongodb_8_0); a setting the
    host does not expose is null and makes the match null (unknown)."""
    found = {}
    for key, rel in _FILES.items():
        raw = _selected(_read(root, rel))
        found[key] = int(raw) if raw is not None and raw.lstrip("-").isdigit() else raw
    out, differs = dict(found), []
    for a in advice():
        wants = a["recommends"]
        mine = [f"{k}={found[k]} ({a['who']}: {v})" for k, v in wants.items() if found[k] is not None and found[k] != v]
        unknown = [k for k in wants if found[k] is None]
        out[f"{a['key']}_recommends"] = dict(wants)
        out[f"matches_{a['key']}"] = False if mine else (None if unknown else True)
        differs += mine
    return {**out, "differs": differs}


def describe(thp):
    """One sentence for the report."""
    if not thp:
        return "transparent huge pages: not recorded"
    state = (f"transparent huge pages enabled={thp.get('enabled')}, defrag={thp.get('defrag')}, "
             f"khugepaged max_ptes_none={thp.get('max_ptes_none')}, vm.overcommit_memory={thp.get('overcommit_memory')}")
    said = []
    for a in advice():
        match, who = thp.get(f"matches_{a['key']}"), a["who"]
        if match is True:
            said.append(f"as {who} recommends")
        elif match is False:
            said.append(f"NOT as {who} recommends (" + "; ".join(
                d for d in thp.get("differs") or [] if f"({who}: " in d) + ")")
        else:
            said.append(f"unknown whether as {who} recommends")
    return state + (": " + "; ".join(said) if said else ": no database states what it advises")
