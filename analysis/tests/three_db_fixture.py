"""A bench folder of three databases, built from a recorded two-database fixture: postgres's files
copied as a third database named `mysql` (its phase ids `mysql`, `mysql-load`, ...), with its storage
and CPU figures scaled so that its ratios against the baseline differ from 1. The lab cannot run a third
database yet (databases/mysql has `not_in_lab`); this proves analysis is ready for one."""
import glob
import gzip
import json
import os

THIRD = "mysql"
# what the copy changes: its storage (count.json sizes) and its server's CPU (cgroup seconds)
STORAGE_FACTOR = 1.5
CPU_FACTOR = 2.0


def _renamed(path, src_db):
    d, name = os.path.split(path)
    return os.path.join(d, THIRD + name[len(src_db):])


def _copy_text(src, dst, src_db):
    text = open(src, encoding="utf-8", errors="surrogateescape").read()
    with open(dst, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text.replace(src_db, THIRD))


def add_third(bench_dir, src_db="postgres", storage_factor=STORAGE_FACTOR, cpu_factor=CPU_FACTOR):
    """Adds `mysql` to bench_dir (a copy of a fixture) from src_db's files; returns bench_dir."""
    for pattern in (f"{src_db}.*", f"{src_db}-*.*", f"clients/{src_db}-*.json"):
        for src in glob.glob(os.path.join(bench_dir, pattern)):
            dst = _renamed(src, src_db)
            if src.endswith((".json", ".out", ".csv", ".env")):
                _copy_text(src, dst, src_db)
            # a perf profile is not copied: its samples name postgres's processes, which the
            # third database's process check rightly calls foreign (the phase would be suspect)
    for src in glob.glob(os.path.join(bench_dir, "timeseries", f"{src_db}*.csv.gz")):
        with gzip.open(src, "rt") as f:
            text = f.read()
        with gzip.open(_renamed(src, src_db), "wt") as f:
            f.write(text.replace(src_db, THIRD))
    for path in glob.glob(os.path.join(bench_dir, f"{THIRD}*.count.json")):
        doc = json.load(open(path))
        for k in ("table_bytes", "index_bytes", "total_bytes"):
            if isinstance(doc.get(k), (int, float)):
                doc[k] = int(doc[k] * storage_factor)
        doc.pop("note", None)
        json.dump(doc, open(path, "w"), indent=2)
    for path in glob.glob(os.path.join(bench_dir, f"{THIRD}*.metrics.json")):
        # cAdvisor's CPU of the server, scaled as the cgroup's below (analysis cross-checks the two)
        doc = json.load(open(path))
        svc = (doc.get("services") or {}).get(THIRD) or {}
        for metric, c in (svc.get("counters") or {}).items():
            if not metric.startswith("container_cpu_") or c.get("delta") is None:
                continue
            c["delta"] *= cpu_factor
            for pc in (c.get("per_container") or {}).values():
                if pc.get("delta") is not None:
                    pc["delta"] *= cpu_factor
                    pc["end_value"] = pc["start_value"] + pc["delta"]
        json.dump(doc, open(path, "w"), indent=2)
    for path in glob.glob(os.path.join(bench_dir, f"{THIRD}*.phase.json")):
        doc = json.load(open(path))
        c = doc.get("cgroup_cpu_seconds") or {}
        if c.get("start") is not None and c.get("end") is not None:
            c["end"] = c["start"] + (c["end"] - c["start"]) * cpu_factor
        json.dump(doc, open(path, "w"), indent=2)
    for name in ("run.env", "bench.env"):
        path = os.path.join(bench_dir, name)
        if os.path.exists(path):
            text = open(path).read()
            open(path, "w").write(text.replace('DATABASES="mongodb postgres"', f'DATABASES="mongodb postgres {THIRD}"'))
    plan = os.path.join(bench_dir, "plan.txt")
    if os.path.exists(plan):  # the plan's lines of src_db again for the third, after the others
        lines = open(plan).read().splitlines()
        extra = [ln.replace(f"phase={src_db}", f"phase={THIRD}") for ln in lines if ln.startswith(f"phase={src_db}")]
        open(plan, "w").write("\n".join(lines + extra) + "\n")
    return bench_dir
