"""Reads one bench folder's files (docs/contracts.md §4). Generic on purpose: any file may be
missing (a failed or interrupted phase), and unknown extra fields are kept, not rejected."""
import glob
import os
import re

from ..common import file_schemas
from ..common.errors import AnalysisError
from ..common.fileio import read_env_file, read_json


def bench_env(bench_dir):
    path = os.path.join(bench_dir, "bench.env")
    if not os.path.isdir(bench_dir):
        raise AnalysisError(f"{bench_dir}: bench folder does not exist")
    if not os.path.exists(path):
        raise AnalysisError(f"{bench_dir}: no bench.env, not a bench folder")
    return read_env_file(path)


def run_env(bench_dir):
    path = os.path.join(bench_dir, "run.env")
    return read_env_file(path) if os.path.exists(path) else None


def optional_json(path):
    return read_json(path) if os.path.exists(path) else None


LOAD_SUFFIX = "-load"


QUERY_INFIX = "-q-"


def database_of(phase_id):
    """The database of a phase id (`mongodb`, `mongodb-load`, `mongodb-q-<query>`: docs/contracts.md §4)."""
    if QUERY_INFIX in phase_id:
        return phase_id.split(QUERY_INFIX, 1)[0]
    return phase_id[: -len(LOAD_SUFFIX)] if phase_id.endswith(LOAD_SUFFIX) else phase_id


def expected_phases(databases, workload=None, queries=None):
    """The phase ids `node client plan` gives for one repetition (runs without plan.json or plan.txt:
    analysis/bench/plan.py): the insert workload one per database, a workload with a load stage
    `<db>-load` then `<db>`; events `<db>-load`, tsbs `<db>`, each followed by `<db>-q-<query>` per
    name of QUERIES (the names as run.env has them; `all` is the set's every name, which only the
    client knows: then no query phase is expected here)."""
    if (workload or "insert") == "insert":
        return list(databases)
    names = [] if not queries or queries.strip() in ("none", "all") else queries.split()
    first = {"events": (LOAD_SUFFIX,), "tsbs": ("",)}.get(workload, (LOAD_SUFFIX, ""))
    return [p for db in databases for p in [db + f for f in first] + [f"{db}{QUERY_INFIX}{n}" for n in names]]


def client_results(bench_dir, database):
    def index(p):
        m = re.search(r"-client-(\d+)\.json$", p)
        return int(m.group(1)) if m else 0
    paths = sorted(glob.glob(os.path.join(bench_dir, "clients", f"{database}-client-*.json")), key=index)
    return [(p, file_schemas.client(read_json(p), "result", p)) for p in paths]


def count_json(bench_dir, phase_id):
    """D.count.json (client/src/count.schema.json), or None when the lab wrote none."""
    path = os.path.join(bench_dir, f"{phase_id}.count.json")
    return file_schemas.client(read_json(path), "count", path) if os.path.exists(path) else None


def settings_json(bench_dir, database):
    """D.settings.json, what the lab set on the database's service (lab/settings.schema.json), or
    None when the lab wrote none."""
    path = os.path.join(bench_dir, f"{database}.settings.json")
    return file_schemas.check(read_json(path), "lab/settings.schema.json", path) if os.path.exists(path) else None


def hosts_json(bench_dir):
    """hosts.json, every host of the run and its facts (lab/hosts.schema.json), or None when the lab
    wrote none (a run before issue 27's host facts)."""
    path = os.path.join(bench_dir, "hosts.json")
    return file_schemas.check(read_json(path), "lab/hosts.schema.json", path) if os.path.exists(path) else None


def canary_json(bench_dir):
    """canary.json, the network canary of a run on several hosts (lab/canary.schema.json), or None."""
    path = os.path.join(bench_dir, "canary.json")
    return file_schemas.check(read_json(path), "lab/canary.schema.json", path) if os.path.exists(path) else None


def server_stats_json(bench_dir, phase_id):
    """D.server-stats.json, the readings at the window's edges (client/src/server-stats.schema.json),
    or None when the lab wrote none."""
    path = os.path.join(bench_dir, f"{phase_id}.server-stats.json")
    return file_schemas.client(read_json(path), "server-stats", path) if os.path.exists(path) else None


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None
