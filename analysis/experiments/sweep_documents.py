"""A sweep's documents compared across its points (sweep results.json `documents`, report.md "Documents
across the points"). In a DIGEST=documents sweep every (point, database) read each document back after
each stage; the storage-forms sweep (POSTGRES_FORM, MYSQL_FORM) asks whether every form holds the same
documents, which a point alone cannot say (it compares its own databases, one form each). Per stage,
every side's digest against the first side's, by the rule a bench applies to its databases
(analysis/figures/results.py documents_compared): the keys must be equal, and the documents too unless
the stage's concurrent updates make them order-dependent. A repeated point gives one side per
repetition. Only a sweep of storage forms is compared: other keys change the documents themselves.
"""
from ..figures.results import documents_compared, documents_differ
from .sweep_queries import _point_results


def _label(value, rep, db):
    return f"{value}{'' if rep is None else f' (repetition {rep})'}: {db}"


def compares(keys):
    """Whether a sweep of KEYS sends the same documents at every point, so that they can be compared:
    a sweep of storage forms (<NAME>_FORM: the same documents stored another way). A sweep of a key
    that makes other documents (FIELD_BYTES, SEED, RECORDS...) has nothing to compare."""
    return all(k.endswith("_FORM") for k in keys)


def build(keys, pts):
    """KEYS: the swept keys; pts: [(value, folder, path)] of the sweep -> [per stage: documents_compared's
    entry over the sides "<value>: <db>"], or None when the keys change the documents (compares) or
    no point read its documents back."""
    if not compares(keys):
        return None
    runs = []
    for value, _, path in pts:
        for rep, r in _point_results(path):
            runs += [{**run, "database": _label(value, rep, run["database"])}
                     for run in r.get("runs") or [] if run.get("documents_digest")]
    return documents_compared(runs) or None


def report_lines(compared):
    """report.md's section: per stage, equal on every side or which differ."""
    if not compared:
        return []
    lines = ["## Documents across the points", "",
             "Every document read back after each stage (DIGEST=documents) and digested in one canonical form "
             "(docs/contracts.md), whatever form stored it; each side (point: database) against the first.", "",
             "| stage | sides | documents | verdict |", "|---|---|---|---|"]
    for c in compared:
        sides = len(c["digests"])
        counts = sorted(set(c["documents"].values()))
        if c["keys_equal"] is False:
            verdict = f"**keys differ**: {c['differ']}"
        elif c["equal"] is False and c["order_dependent"]:
            verdict = (f"the same keys; documents differ ({c['differ']}), as concurrent updates of one field "
                       "applied in another order can make them")
        elif c["equal"] is False:
            verdict = f"**documents differ**: {c['differ']}"
        elif c["equal"]:
            verdict = f"equal on all {sides} (digest {next(iter(c['digests'].values()))[:12]})"
        else:
            verdict = "one side only: nothing to compare"
        lines.append(f"| {c['stage']} | {sides} | {', '.join(str(n) for n in counts)} | {verdict} |")
    return lines + [""]


def incomplete(compared):
    """What makes the sweep incomplete: a stage whose sides do not hold the same documents."""
    return [f"{c['stage']} stage: the documents read back differ across the points ({c['differ']})"
            for c in compared or [] if documents_differ(c)]
